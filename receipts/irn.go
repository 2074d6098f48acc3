package receipts

import (
	"slices"
	"time"
)

// IRN is what the Invoice Registration Portal gave an e-invoiced document (CGST
// Rule 48(4)–(5)): its Invoice Reference Number (64 hex digits), the
// acknowledgement number and date, and the IRP's signed QR code (a JWT).
type IRN struct {
	IRN     string
	AckNo   string
	AckDate time.Time
	QR      string
}

// IRNPending is what a B2B document says while its IRN is not in: it is not a
// final invoice yet (Rule 48(4)); it prints complete once registered.
var IRNPending = []string{"IRN PENDING: not a final invoice", "until it is registered with the IRP"}

// WithIRN is r with the IRP's registration printed: "IRN" and the IRN's 64 hex
// digits (in two halves, to fit a 58 mm roll), "Ack No. …" and "Ack Date …"
// ahead of the footer, and the IRP's signed QR code in place of the
// document's own.
func (r Receipt) WithIRN(e IRN) Receipt {
	irn := []string{"IRN " + e.IRN}
	if len(e.IRN) == 64 {
		irn = []string{"IRN " + e.IRN[:32], e.IRN[32:]}
	}
	block := append(irn, "Ack No. "+e.AckNo, "Ack Date "+e.AckDate.Format("02-01-2006 15:04"))
	r.Footer = append(block, slices.Clone(r.Footer)...)
	r.QR = e.QR
	return r
}

// WithIRNPending is r marked IRN pending ahead of the footer.
func (r Receipt) WithIRNPending() Receipt {
	r.Footer = append(slices.Clone(IRNPending), r.Footer...)
	return r
}
