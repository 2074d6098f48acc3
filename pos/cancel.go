package pos

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"galla/receipts"
)

// Cancelling an issued invoice (issue 13 item 2). When the supply did not happen
// (the customer walks away at the counter right after paying) the shop cancels
// the tax invoice or bill of supply instead of issuing a credit note against it:
// every paid tender is given back — card, EMI and phone through the payment
// service, cash from the drawer, UPI by the cashier, a credit-note tender back to
// its note — with refunds marked Cancel that issue no credit note, and then
// document.cancelled marks the document. It keeps its number, prints CANCELLED,
// is left out of the day's sales and tax, and counts in GSTR-1's doc_issue as
// cancelled, nowhere else.
//
// Only a sale of the current business day that nothing was returned against may
// be cancelled; anything else is a return (a credit note). Each refund is
// journaled before its call, like every refund; one whose answer is not in
// leaves the cancellation pending, and cancelling again settles it with the same
// unique_txn_id (inquired first, never a second refund) and finishes.

// EvDocumentCancelled marks an issued sale document cancelled once every paid
// tender was given back (Reason: why, Staff: the manager).
const EvDocumentCancelled EventKind = "document.cancelled"

// StatusCancelled is the status a report row and the journal screen show for a
// cancelled document; it is never an order's state (which stays PAID, or
// REFUNDED once its money went back).
const StatusCancelled OrderState = "CANCELLED"

// Cancellation is how a document was cancelled.
type Cancellation struct {
	Day    string    `json:"day"`
	Time   time.Time `json:"time"`
	Staff  string    `json:"staff,omitempty"` // the manager who authorised it
	Reason string    `json:"reason"`
}

// The cancellation's refusals, matched with errors.Is.
var (
	// ErrNoCancel refuses the cancellation of a document that may not be
	// cancelled: not issued, of another day, or returned against.
	ErrNoCancel = errors.New("this document cannot be cancelled")
	// ErrAlreadyCancelled refuses cancelling a cancelled document again.
	ErrAlreadyCancelled = errors.New("the document is already cancelled")
)

// CancelStatus is where a cancellation stands.
type CancelStatus string

// The cancellation statuses.
const (
	CancelDone    CancelStatus = "cancelled" // every tender given back; document.cancelled journaled
	CancelPending CancelStatus = "pending"   // a refund's answer is not in: the reconciler finishes it once confirmed
)

// CancelTender is one tender of a cancelled sale as it was given back.
type CancelTender struct {
	OrderID string       `json:"order_id"`
	Tender  TenderKind   `json:"tender"`
	Amount  Paise        `json:"amount"`
	Status  RefundStatus `json:"status"`
	NoteNo  string       `json:"note_no,omitempty"` // a credit-note tender: the note it went back to
}

// CancelResult is how a cancellation ended.
type CancelResult struct {
	Status  CancelStatus   `json:"status"`
	Number  string         `json:"number"` // the document's number as printed
	OrderID string         `json:"order_id"`
	Reason  string         `json:"reason"`
	Manager string         `json:"manager"`
	Tenders []CancelTender `json:"tenders"`
	// Pending says, when Status is CancelPending, what is awaited.
	Pending string `json:"pending,omitempty"`
	Order   *Order `json:"-"`
}

// Voided reports whether o's sale is out of the day's sales: its document was
// cancelled, or (a tender's order, or a cancellation not yet finished) its money
// went back by a cancellation's refund.
func (o *Order) Voided() bool {
	if o.Cancelled != nil {
		return true
	}
	for _, r := range o.Refunds {
		if r.Cancel && r.Status == RefundDone {
			return true
		}
	}
	return false
}

// cancelling reports whether a cancellation of o has begun: a refund of it
// marked Cancel that was not refused.
func (o *Order) cancelling() bool {
	for _, r := range o.Refunds {
		if r.Cancel && r.Status != RefundFailed {
			return true
		}
	}
	return false
}

// returnedAgainst reports whether a refund that is not a cancellation's (a
// return, a credit note) was made or is pending on o.
func (o *Order) returnedAgainst() bool {
	for _, r := range o.Refunds {
		if !r.Cancel && r.Status != RefundFailed {
			return true
		}
	}
	return false
}

func (o *Order) applyCancelled(ev Event) error {
	switch {
	case o.Cancelled != nil:
		return ErrStaleEvent
	case o.Sale != "":
		return fmt.Errorf("%w: a split sale's tender is no document", ErrBadEvent)
	case !o.State.Paid() || (o.DocNo == 0 && o.ReceiptNo == 0):
		return fmt.Errorf("%w: a %s sale has no document to cancel", ErrNoCancel, o.State)
	case o.returnedAgainst():
		return fmt.Errorf("%w: a credit note was issued against it", ErrNoCancel)
	case !paidApart(o) && (o.Refundable() > 0 || o.PendingRefund() != nil):
		return fmt.Errorf("%w: %s of it was not given back", ErrNoCancel, o.Refundable())
	case strings.TrimSpace(ev.Reason) == "":
		return fmt.Errorf("%w: no reason", ErrBadEvent)
	}
	o.Cancelled = &Cancellation{Day: ev.Day, Time: ev.Time, Staff: ev.Staff, Reason: ev.Reason}
	return nil
}

// cancelRefundDone reports whether ev is the refund.done of a cancellation's
// refund of o (which issues no credit note, so takes no document number).
func cancelRefundDone(o *Order, ev Event) bool {
	if ev.Kind != EvRefundDone || ev.Refund == nil {
		return false
	}
	r := o.RefundByID(ev.Refund.UniqueTxnID)
	return r != nil && r.Cancel
}

// cancelledMark is what a cancelled sale's document prints (receipts.Cancelled),
// or nil while it is not cancelled.
func cancelledMark(o Order, tenders []Order) *receipts.Cancelled {
	if o.Cancelled == nil {
		return nil
	}
	c := &receipts.Cancelled{Reason: o.Cancelled.Reason, When: o.Cancelled.Time.Format("02 Jan 2006 15:04")}
	if len(tenders) == 0 {
		tenders = []Order{o}
	}
	for _, t := range tenders {
		for _, ref := range t.Refunds {
			if ref.Cancel && ref.Status == RefundDone {
				c.Returned = append(c.Returned, givenBack(t, ref.Amount))
			}
		}
	}
	return c
}

// givenBack says where a cancellation's refund of tender t went: "₹1,299.00 to
// VISA •••• 1111".
func givenBack(t Order, amount Paise) string {
	switch t.Tender {
	case TenderCash:
		return amount.String() + " in cash"
	case TenderUPI:
		return amount.String() + " by UPI"
	case TenderNote:
		no := t.NoteNo
		if t.Note != nil {
			no = t.Note.Number
		}
		return amount.String() + " back onto credit note " + no
	}
	if t.CardLast4 != "" {
		return amount.String() + " to " + firstNonEmpty(t.CardBrand, "the card") + " •••• " + t.CardLast4 + ", verified"
	}
	return amount.String() + " through the payment service, verified"
}

// Sentence says how the cancellation ended and what the cashier hands back.
func (r *CancelResult) Sentence() string {
	if r.Status == CancelPending {
		return r.Pending
	}
	var back []string
	for _, t := range r.Tenders {
		switch t.Tender {
		case TenderCash:
			back = append(back, t.Amount.String()+" in cash from the drawer")
		case TenderUPI:
			back = append(back, t.Amount.String()+" by UPI, paid back by the cashier")
		case TenderNote:
			back = append(back, t.Amount.String()+" back onto credit note "+t.NoteNo)
		default:
			back = append(back, t.Amount.String()+" refunded to the "+string(t.Tender))
		}
	}
	s := "Invoice " + r.Number + " is cancelled"
	if len(back) > 0 {
		s += ": give back " + strings.Join(back, "; ")
	}
	return s + "."
}
