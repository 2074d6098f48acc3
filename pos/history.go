package pos

import (
	"strconv"
	"strings"
)

// EventSentence says in words what an order's event recorded, for the journal
// screen's history (never a card number: a card is its brand and last four).
// A document number is printed with terminal, the till's name ("T1").
func EventSentence(ev Event, terminal string) string {
	with := func(s, reason string) string {
		if reason = strings.TrimSpace(reason); reason != "" {
			return s + ": " + strings.TrimSuffix(reason, ".")
		}
		return s
	}
	switch ev.Kind {
	case EvOrderIntent:
		if in := ev.Intent; in != nil {
			if in.Tender == TenderSplit {
				// Every sale is journaled this way (ADR 0008): its tenders
				// follow, each with a line of its own.
				return "Sale of " + in.Amount.String() + " journaled"
			}
			return "Sale of " + in.Amount.String() + " journaled, paid by " + string(in.Tender)
		}
		return "Sale journaled"
	case EvOrderCreated:
		if c := ev.Created; c != nil {
			return "Order created at the payment service (its order " + c.ServiceOrderID + ")"
		}
		return "Order created at the payment service"
	case EvOrderFailed:
		return with("The payment service refused the order; nothing was charged", ev.Reason)
	case EvOrderAbandoned:
		s := "The answer to create order was lost before any payment"
		if a := ev.Abandoned; a != nil && a.NewOrderID != "" {
			s += "; the sale moved to order " + a.NewOrderID
		}
		return s
	case EvOrderUnknown:
		return with("The outcome is not known yet; it is checked again, never charged again", ev.Reason)
	case EvIMEIValidated:
		return "The payment service checked and reserved the IMEIs (" + strconv.Itoa(len(ev.IMEIs)) + ")"
	case EvPaymentAttempt:
		if a := ev.Attempt; a != nil {
			return "Payment attempt " + strconv.Itoa(a.N) + " sent: " + strings.TrimSpace(a.CardBrand+" •••• "+a.CardLast4)
		}
		return "Payment attempt sent"
	case EvPaymentAccepted:
		return "The payment service took the payment; the customer authenticates"
	case EvPaymentRefused:
		msg := ev.Reason
		if a := ev.Attempt; a != nil && a.Message != "" {
			msg = a.Message
		}
		return with("The payment was refused; no money moved", msg)
	case EvPaymentOutcome:
		if o := ev.Outcome; o != nil {
			return "Verified: order " + o.OrderStatus + ", payment " + o.PaymentStatus
		}
		return "Verified answer"
	case EvAnswerUnverified:
		return "An answer came without a valid signature: not trusted, checked again"
	case EvAnswerIgnored:
		return with("An answer that does not match this order was set aside", ev.Reason)
	case EvCashReceived:
		if c := ev.Cash; c != nil {
			return "Cash received " + c.Tendered.String() + ", change " + c.Change.String()
		}
		return "Cash received"
	case EvRefundIntent:
		if r := ev.Refund; r != nil {
			if r.Cancel {
				return with("Refund of "+r.Amount.String()+" journaled to cancel the invoice", r.Reason)
			}
			return with("Refund of "+r.Amount.String()+" journaled", r.Reason)
		}
		return "Refund journaled"
	case EvRefundDone:
		if r := ev.Refund; r != nil {
			if ev.DocNo != 0 {
				return "Refund of " + r.Amount.String() + " done: credit note " + DocNumber(terminal, ev.Series, ev.DocNo)
			}
			if r.Cancel {
				return "Refund of " + r.Amount.String() + " done (the invoice is cancelled: no credit note)"
			}
			return "Refund of " + r.Amount.String() + " verified"
		}
		return "Refund verified"
	case EvRefundFailed:
		msg := ev.Reason
		if r := ev.Refund; r != nil && r.Message != "" {
			msg = r.Message
		}
		return with("The refund was refused; nothing was refunded", msg)
	case EvNoteRedeemed:
		if n := ev.Note; n != nil {
			return n.Amount.String() + " of credit note " + n.Number + " spent on sale " + n.SaleID
		}
		return "Credit note spent"
	case EvNoteRestored:
		if n := ev.Note; n != nil {
			return n.Amount.String() + " given back to credit note " + n.Number + " (its sale " + n.SaleID + " was voided)"
		}
		return "Credit note given back"
	case EvTenderAdded:
		if s := ev.Sale; s != nil && s.Tender != nil {
			return "Tender added to the sale: " + string(s.Tender.Kind) + " " + s.Tender.Amount.String()
		}
		return "Tender added to the sale"
	case EvSaleCompleted:
		if ev.DocNo != 0 {
			return "The sale is paid in full: invoice " + DocNumber(terminal, ev.Series, ev.DocNo)
		}
		return "The sale is paid in full and numbered"
	case EvSaleVoided:
		if s := ev.Sale; s != nil && s.Dropped {
			return with("The sale was dropped: nothing was paid on it, nothing was given back", ev.Reason)
		}
		return with("The sale was voided; its paid tenders were refunded", ev.Reason)
	case EvUPIConfirmed:
		return "UPI payment confirmed by the cashier (not verified by the payment service)"
	case EvTenderNoteRedeemed:
		if s := ev.Sale; s != nil && s.NoteNo != "" {
			return "Paid by credit note " + s.NoteNo
		}
		return "Paid by a credit note"
	case EvNoteTendered:
		if n := ev.Note; n != nil {
			return "Paid " + n.Amount.String() + " by credit note " + n.Number
		}
		return "Paid by credit note"
	case EvDocumentCancelled:
		return with("The invoice was cancelled; it keeps its number and every tender was given back", ev.Reason)
	case EvReceiptPrinted:
		return "Receipt printed"
	case EvReceiptReprinted:
		return "A copy of the receipt printed (DUPLICATE)"
	case EvPrintFailed:
		return with("Printing failed; the sale stands", ev.Reason)
	}
	return string(ev.Kind)
}
