package pos

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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
	case o.Tender != TenderSplit && (o.Refundable() > 0 || o.PendingRefund() != nil):
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

// CancelDocument cancels the document of sale orderID on a manager's PIN, with
// the reason printed on it. See the comment at the top of cancel.go.
func (e *Refunds) CancelDocument(ctx context.Context, orderID, pin, reason string) (*CancelResult, error) {
	return e.cancelDocument(ctx, orderID, pin, reason, "")
}

// cancelDocument is CancelDocument with the terminal's name the document's
// number is printed with ("" prints it without).
func (e *Refunds) cancelDocument(ctx context.Context, orderID, pin, reason, terminal string) (*CancelResult, error) {
	if err := e.journalReady(ctx); err != nil {
		return nil, err
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return nil, Errorf("Type why the invoice is cancelled (for example \"customer left before delivery\"); the reason is printed on it.")
	}
	mgr, err := e.roster.AuthoriseManager(ctx, pin, e.clock.Now())
	if err != nil {
		return nil, err
	}
	unlock, err := e.lock("cancel:" + orderID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	o, err := e.order(ctx, orderID)
	if err != nil {
		return nil, err
	}
	if o.Sale != "" {
		return nil, wrapf(ErrNoCancel, "Order %s is one tender of split sale %s: cancel that sale's invoice.", o.ID, o.Sale)
	}
	num := firstNonEmpty(o.Number(terminal), o.ID)
	if o.Cancelled != nil {
		return nil, wrapf(ErrAlreadyCancelled, "Invoice %s is already cancelled (%s).", num, o.Cancelled.Reason)
	}
	if !o.State.Paid() || (o.DocNo == 0 && o.ReceiptNo == 0) {
		if o.State == StateOpen {
			return nil, wrapf(ErrNoCancel, "Sale %s is not paid in full and has no invoice yet: void the sale instead.", o.ID)
		}
		return nil, wrapf(ErrNoCancel, "Sale %s is %s: it has no invoice to cancel.", o.ID, o.State)
	}
	tenders, err := e.cancelTenders(ctx, o)
	if err != nil {
		return nil, err
	}
	begun := false
	for _, t := range tenders {
		if t.returnedAgainst() {
			return nil, wrapf(ErrNoCancel, "Invoice %s has a credit note against it, so it can no longer be cancelled; make a return (credit note) for the rest instead.", num)
		}
		begun = begun || t.cancelling()
	}
	if !begun {
		// A cancellation not begun yet: today's invoice only, on an open day.
		if o.PaidDay != e.today() {
			return nil, wrapf(ErrNoCancel, "Invoice %s was issued on %s; only an invoice of today's business day can be cancelled: make a return (credit note) instead.", num, o.PaidDay)
		}
		if err := e.dayOpen(ctx, e.today()); err != nil {
			return nil, err
		}
		for _, t := range tenders {
			if !t.State.Final() {
				return nil, wrapf(ErrNoCancel, "A payment of invoice %s is still being checked; use Check now, then cancel it.", num)
			}
		}
	}
	res := &CancelResult{Status: CancelDone, Number: num, OrderID: o.ID, Reason: reason, Manager: mgr.Name}
	for _, t := range tenders {
		if !t.State.Paid() {
			continue
		}
		ct, err := e.cancelTender(ctx, t, pin, mgr.ID, reason)
		if err != nil {
			return nil, err
		}
		res.Tenders = append(res.Tenders, ct)
		switch ct.Status {
		case RefundPending:
			res.Status = CancelPending
			res.Pending = fmt.Sprintf("The refund of %s to the %s is not confirmed yet; it will be checked, never made twice, and invoice %s is cancelled as soon as it is confirmed (Check now, or the next check by itself).", ct.Amount, ct.Tender, num)
		case RefundFailed:
			return res, wrapf(ErrNoCancel, "The payment service refused the refund of %s to the %s, so invoice %s is not cancelled; check the payment, then cancel again or make a return.", ct.Amount, ct.Tender, num)
		}
	}
	if res.Status == CancelPending {
		res.Order = o
		return res, nil
	}
	// Every tender is given back: the document is cancelled.
	o, err = e.order(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	if err := e.markCancelled(ctx, o, mgr.ID, reason); err != nil {
		return nil, err
	}
	res.Order = o
	return res, nil
}

// markCancelled journals document.cancelled on sale o, every tender's money
// being back, and gives its phones back at the store: they never left the shop,
// so any counter may sell them before this one syncs (without an answer the
// synced cancellation frees them there).
func (e *Refunds) markCancelled(ctx context.Context, o *Order, staff, reason string) error {
	if _, err := e.commit(ctx, o, Event{Kind: EvDocumentCancelled, Staff: staff, Reason: reason}); err != nil {
		return err
	}
	if d := e.store.decisions(); d != nil {
		if err := e.store.releaseAtStore(ctx, d, o.ID, nil); err != nil {
			e.log.LogAttrs(ctx, slog.LevelWarn, "pos: release a cancelled sale at the store", slog.String("order", o.ID), slog.String("error", err.Error()))
		}
	}
	return nil
}

// finishCancellations journals document.cancelled for each sale among ids
// (orders, or tenders of split sales) whose cancellation was left pending on a
// refund that has since been confirmed: every tender's money is back, by the
// cancellation's refunds only. The reconciler calls it after settling refunds,
// so the manager need not cancel the invoice again; the manager and reason are
// those the cancellation's refunds were journaled with.
func (e *Refunds) finishCancellations(ctx context.Context, ids []string) {
	seen := map[string]bool{}
	for _, id := range ids {
		o, err := e.order(ctx, id)
		if err == nil && o.Sale != "" {
			o, err = e.order(ctx, o.Sale)
		}
		if err != nil || seen[o.ID] || o.Cancelled != nil {
			continue
		}
		seen[o.ID] = true
		if err := e.finishCancellation(ctx, o.ID); err != nil {
			e.log.LogAttrs(ctx, slog.LevelWarn, "pos: finish a cancellation", slog.String("order", o.ID), slog.String("error", err.Error()))
		}
	}
}

// finishCancellation journals document.cancelled for sale id when its
// cancellation's refunds are all done and nothing else was refunded.
func (e *Refunds) finishCancellation(ctx context.Context, id string) error {
	unlock, err := e.lock("cancel:" + id)
	if err != nil {
		return nil // a cancellation is under way at the counter: it finishes itself
	}
	defer unlock()
	o, err := e.order(ctx, id)
	if err != nil || o.Cancelled != nil || !o.State.Paid() {
		return err
	}
	tenders, err := e.cancelTenders(ctx, o)
	if err != nil {
		return err
	}
	var staff, reason string
	for _, t := range tenders {
		if t.returnedAgainst() || t.Refundable() > 0 {
			return nil // not all given back, or given back by a return: no cancellation to finish
		}
		for _, r := range t.Refunds {
			switch {
			case r.Status == RefundFailed:
			case !r.Cancel || r.Status != RefundDone:
				return nil
			default:
				staff, reason = r.Staff, r.Reason
			}
		}
	}
	if reason == "" {
		return nil // no cancellation's refund: nothing begun
	}
	o, err = e.order(ctx, id)
	if err != nil {
		return err
	}
	return e.markCancelled(ctx, o, staff, reason)
}

// cancelTenders are the orders whose money a cancellation of o gives back: o
// itself, or each tender's order of a split sale.
func (e *Refunds) cancelTenders(ctx context.Context, o *Order) ([]*Order, error) {
	if o.Tender != TenderSplit {
		return []*Order{o}, nil
	}
	var out []*Order
	for _, t := range o.Tenders {
		to, err := e.sales.tenderOrder(ctx, t.OrderID)
		if err != nil {
			return nil, err
		}
		if to != nil {
			out = append(out, to)
		}
	}
	return out, nil
}

// cancelTender gives back what is left of tender's order o: a cancellation's
// refund pending from before is settled (inquired first, then the same
// unique_txn_id); otherwise a new one is journaled, marked Cancel, and made.
func (e *Refunds) cancelTender(ctx context.Context, o *Order, pin, staff, reason string) (CancelTender, error) {
	ct := CancelTender{OrderID: o.ID, Tender: o.Tender, Amount: o.Captured - o.Refunded, Status: RefundDone}
	if o.Note != nil {
		ct.NoteNo = o.Note.Number
	}
	if o.NoteNo != "" {
		ct.NoteNo = o.NoteNo
	}
	if p := o.PendingRefund(); p != nil {
		// Begun before (the terminal stopped, or the answer was lost).
		ct.Amount = p.Amount
		if RefundDestination(o, p.To) == RefundToCard && e.gw == nil {
			return ct, fmt.Errorf("pos: cancel: %w", ErrNoGateway)
		}
		unlock, err := e.lock(o.ID)
		if err != nil {
			return ct, err
		}
		defer unlock()
		res, err := e.settleRefund(ctx, o, p.UniqueTxnID, true)
		if err != nil {
			return ct, err
		}
		ct.Status = res.Status
		return ct, nil
	}
	if o.Refundable() <= 0 {
		return ct, nil // given back already
	}
	ct.Amount = o.Refundable()
	if !o.Tender.local() {
		res, err := e.Refund(ctx, RefundRequest{OrderID: o.ID, PIN: pin, Reason: reason, To: RefundToCard, cancel: true})
		if err != nil {
			return ct, err
		}
		ct.Status = res.Status
		return ct, nil
	}
	return ct, e.sales.giveBackLocal(ctx, o, ct.NoteNo, staff, reason, true)
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
