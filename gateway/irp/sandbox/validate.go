package sandbox

import (
	"fmt"
	"strings"
	"time"

	"galla/gateway/irp"
)

// tolerance is how far, in paise, a computed value may be from the one sent (the
// IRP allows a rupee either way for rounding).
const tolerance = 100

// validate is the IRP's checks of an invoice: the schema's essentials, both
// GSTINs' check digits, the seller being the authenticated taxpayer, and every
// value cross-check. It returns an error code and message, or "" when inv passes.
func validate(gstin string, inv irp.Invoice) (code, msg string) {
	if inv.Version != irp.Version {
		return "2000", fmt.Sprintf("Version %q is not supported", inv.Version)
	}
	if inv.TranDtls.TaxSch != "GST" || inv.TranDtls.SupTyp == "" {
		return "2000", "TranDtls: TaxSch and SupTyp are required"
	}
	if inv.DocDtls.Typ != irp.TypeInvoice && inv.DocDtls.Typ != irp.TypeCreditNote && inv.DocDtls.Typ != "DBN" {
		return "2000", "DocDtls: Typ must be INV, CRN or DBN"
	}
	if inv.DocDtls.No == "" || len(inv.DocDtls.No) > 16 || strings.ContainsAny(inv.DocDtls.No[:1], "0/-") {
		return "2000", "DocDtls: the document number is not valid"
	}
	dt, err := time.Parse(irp.DateLayout, inv.DocDtls.Dt)
	if err != nil {
		return "2000", "DocDtls: the date is not dd/mm/yyyy"
	}
	_ = dt
	if inv.SellerDtls.Gstin != gstin {
		return "2160", "The seller GSTIN is not the GSTIN of the authenticated taxpayer"
	}
	if !ValidGSTIN(inv.SellerDtls.Gstin) {
		return irp.CodeInvalidGSTIN, "The seller GSTIN " + inv.SellerDtls.Gstin + " is not valid"
	}
	if !ValidGSTIN(inv.BuyerDtls.Gstin) {
		return irp.CodeInvalidGSTIN, "The buyer GSTIN " + inv.BuyerDtls.Gstin + " is not valid"
	}
	if inv.BuyerDtls.Gstin == inv.SellerDtls.Gstin {
		return "2211", "The buyer GSTIN cannot be the seller GSTIN"
	}
	if inv.SellerDtls.Pin < 100000 || inv.SellerDtls.Pin > 999999 {
		return "2000", "SellerDtls: Pin is required"
	}
	if len(inv.ItemList) == 0 {
		return "2000", "ItemList: at least one item is required"
	}
	var ass, cgst, sgst, igst, ces irp.Amount
	for i, it := range inv.ItemList {
		n := i + 1
		tot := irp.Amount((int64(it.UnitPrice)*int64(max(it.Qty, 1)) + 5) / 10)
		if abs(int64(tot-it.TotAmt)) > tolerance {
			return irp.CodeValueMismatch, fmt.Sprintf("Item %d: TotAmt %v is not UnitPrice × Qty", n, it.TotAmt)
		}
		if it.AssAmt != it.TotAmt-it.Discount {
			return irp.CodeValueMismatch, fmt.Sprintf("Item %d: AssAmt is not TotAmt − Discount", n)
		}
		if want := it.AssAmt + it.IgstAmt + it.CgstAmt + it.SgstAmt + it.CesAmt; abs(int64(want-it.TotItemVal)) > tolerance {
			return irp.CodeValueMismatch, fmt.Sprintf("Item %d: TotItemVal is not the assessable value and its taxes", n)
		}
		if it.IgstAmt != 0 && (it.CgstAmt != 0 || it.SgstAmt != 0) {
			return "2000", fmt.Sprintf("Item %d: IGST with CGST/SGST", n)
		}
		if it.CgstAmt != it.SgstAmt {
			return "2000", fmt.Sprintf("Item %d: CGST and SGST differ", n)
		}
		tax := int64(it.AssAmt) * int64(it.GstRt) / 100000
		if got := int64(it.IgstAmt + it.CgstAmt + it.SgstAmt); abs(got-tax) > tolerance {
			return irp.CodeValueMismatch, fmt.Sprintf("Item %d: the tax is not GstRt of AssAmt", n)
		}
		ass += it.AssAmt
		cgst += it.CgstAmt
		sgst += it.SgstAmt
		igst += it.IgstAmt
		ces += it.CesAmt
	}
	v := inv.ValDtls
	if abs(int64(v.AssVal-ass)) > tolerance || abs(int64(v.CgstVal-cgst)) > tolerance || abs(int64(v.SgstVal-sgst)) > tolerance ||
		abs(int64(v.IgstVal-igst)) > tolerance || abs(int64(v.CesVal-ces)) > tolerance {
		return irp.CodeValueMismatch, "ValDtls: the totals are not the sum of the items"
	}
	if want := v.AssVal + v.CgstVal + v.SgstVal + v.IgstVal + v.CesVal + v.OthChrg - v.Discount + v.RndOffAmt; abs(int64(want-v.TotInvVal)) > tolerance {
		return irp.CodeValueMismatch, "ValDtls: TotInvVal is not the total of the values"
	}
	if v.RndOffAmt < -9999 || v.RndOffAmt > 9999 {
		return "2000", "ValDtls: RndOffAmt out of range"
	}
	return "", ""
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// ValidGSTIN reports whether g is 15 characters, a state code, a PAN, an entity
// number, Z and a check character that the GSTIN's mod-36 checksum gives.
func ValidGSTIN(g string) bool {
	const chars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	if len(g) != 15 || g[0] < '0' || g[0] > '3' || g[1] < '0' || g[1] > '9' {
		return false
	}
	sum := 0
	for i := 0; i < 14; i++ {
		v := strings.IndexByte(chars, g[i])
		if v < 0 {
			return false
		}
		p := v * (1 + i%2)
		sum += p/36 + p%36
	}
	return chars[(36-sum%36)%36] == g[14]
}
