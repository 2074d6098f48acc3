package pos

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// OrderState is where an order stands in the state machine of DESIGN.md section 3.
// States only move forward; see CanMove.
type OrderState string

// The order states.
const (
	StateDraft          OrderState = "DRAFT"           // a cart, nothing journaled
	StateIntent         OrderState = "INTENT"          // journaled with a merchant_order_id; create order not yet answered
	StateCreated        OrderState = "CREATED"         // the service answered create order (service order id, token)
	StatePaying         OrderState = "PAYING"          // a payment call is journaled and about to be sent or sent; its answer is not in yet
	StateAuthenticating OrderState = "AUTHENTICATING"  // a payment was accepted; the customer authenticates; polling
	StateUnknown        OrderState = "UNKNOWN"         // an answer was lost, unverified or ambiguous: inquire, never re-charge
	StateFailed         OrderState = "FAILED"          // a verified failure (card, EMI: a new attempt on the same order is allowed, up to 3; phone: the service's order failed)
	StatePaid           OrderState = "PAID"            // a verified CHARGED/CAPTURED matching the journal, or cash taken
	StatePartlyRefunded OrderState = "PARTLY_REFUNDED" // some of the paid amount refunded
	StateRefunded       OrderState = "REFUNDED"        // all of it refunded
	StateAbandoned      OrderState = "ABANDONED"       // create order's answer was lost before any payment; the sale moved to a fresh order
	StateOpen           OrderState = "OPEN"            // a split-tender sale taking its tenders (each tender is its own order)
	StateVoided         OrderState = "VOIDED"          // a split-tender sale voided before it was paid in full; its paid tenders were refunded
	StateReturn         OrderState = "RETURN"          // a return order: another counter's invoice taken back here (Order.Origin); no sale of this counter
)

// MaxAttempts is how many payment attempts one order accepts (contract section 4).
const MaxAttempts = 3

// Final reports whether no payment outcome is pending for an order in state s.
func (s OrderState) Final() bool {
	switch s {
	case StatePaid, StatePartlyRefunded, StateRefunded, StateFailed, StateAbandoned:
		return true
	case StateOpen, StateVoided:
		// A split-tender sale has no payment of its own: its tenders' orders do.
		return true
	case StateReturn:
		// Another counter's sale: its refunds are this counter's, its payment not.
		return true
	}
	return false
}

// Paid reports whether money was taken for an order in state s (refunds included).
func (s OrderState) Paid() bool {
	return s == StatePaid || s == StatePartlyRefunded || s == StateRefunded
}

// CanMove reports whether the state machine lets an order move from one state to
// another. A move to the same state is allowed (an event that records without
// moving); every other move is one of DESIGN.md section 3: nothing moves back, PAID
// only moves on to refund states, REFUNDED and ABANDONED never move, and FAILED only
// moves to a new attempt or to a verified capture.
func CanMove(from, to OrderState) bool {
	if from == to {
		return true
	}
	switch from {
	case StateDraft:
		return to == StateIntent
	case StateIntent:
		return to == StateCreated || to == StatePaid || to == StateFailed || to == StateAbandoned
	case StateCreated:
		return to == StatePaying || to == StateAuthenticating || to == StateUnknown ||
			to == StatePaid || to == StateFailed || to == StateAbandoned
	case StatePaying:
		return to == StateAuthenticating || to == StateUnknown || to == StateFailed || to == StatePaid
	case StateAuthenticating:
		return to == StateUnknown || to == StateFailed || to == StatePaid
	case StateUnknown:
		return to == StateFailed || to == StatePaid
	case StateFailed:
		return to == StatePaying || to == StatePaid
	case StatePaid:
		return to == StatePartlyRefunded || to == StateRefunded
	case StatePartlyRefunded:
		return to == StateRefunded
	case StateOpen:
		return to == StatePaid || to == StateVoided
	}
	return false
}

// TenderKind is how a sale is paid.
type TenderKind string

// The tenders.
const (
	TenderCard  TenderKind = "card"  // seamless card payment
	TenderEMI   TenderKind = "emi"   // bank or brand EMI, seamless
	TenderCash  TenderKind = "cash"  // no network
	TenderPhone TenderKind = "phone" // hosted checkout on the customer's phone (iFrame mode)
	TenderUPI   TenderKind = "upi"   // UPI to the shop's VPA, confirmed by the cashier (split tender)
	TenderSplit TenderKind = "split" // a sale paid by several tenders, each its own order (docs/adr/0005-split-tender.md)
)

// Order is the derived state of one order: what the journal's events say about it,
// folded by Apply. The journal keeps it in its derived buckets and rebuilds it by
// replay; it holds the card's brand and last four digits only.
type Order struct {
	ID        string     `json:"id"`  // merchant_order_id
	Day       string     `json:"day"` // the local day of the sale (DayLayout)
	State     OrderState `json:"state"`
	Tender    TenderKind `json:"tender"`
	Staff     string     `json:"staff,omitempty"` // the cashier who took the sale
	Opened    time.Time  `json:"opened"`          // order.intent's time
	Updated   time.Time  `json:"updated"`         // the last applied event's time
	Seq       uint64     `json:"seq"`             // the last applied event's sequence number
	Lines     []Line     `json:"lines"`
	Totals    Totals     `json:"totals"`
	Amount    Paise      `json:"amount"` // the order amount sent to create order
	Customer  *Customer  `json:"customer,omitempty"`
	Buyer     *Buyer     `json:"buyer,omitempty"`      // the buyer named on the invoice
	Replaces  string     `json:"replaces,omitempty"`   // the abandoned order this sale moved from
	MovedTo   string     `json:"moved_to,omitempty"`   // ABANDONED: the order the sale moved to
	ReturnURL string     `json:"return_url,omitempty"` // merchant_return_url sent
	Gateway   string     `json:"gateway,omitempty"`    // the payment service that took it (Intent.Gateway)

	ServiceOrderID string `json:"service_order_id,omitempty"`
	Token          string `json:"token,omitempty"` // the order token (not card data)

	Attempts  []Attempt `json:"attempts,omitempty"`
	CardBrand string    `json:"card_brand,omitempty"` // of the latest attempt
	CardLast4 string    `json:"card_last4,omitempty"`

	EMI            *EMIPlan `json:"emi,omitempty"`
	IMEIs          []string `json:"imeis,omitempty"`
	IMEIsValidated bool     `json:"imeis_validated,omitempty"`

	CashTendered Paise      `json:"cash_tendered,omitempty"`
	Change       Paise      `json:"change,omitempty"`
	Note         *NoteEvent `json:"note,omitempty"` // TenderNote: the credit note that paid it

	Captured    Paise     `json:"captured,omitempty"` // what the service captured (cash: the amount)
	Verified    bool      `json:"verified,omitempty"` // PAID on a verified answer (cash: true)
	PaidAt      time.Time `json:"paid_at,omitzero"`
	PaidDay     string    `json:"paid_day,omitempty"` // the local day the payment was confirmed
	PaymentID   string    `json:"payment_id,omitempty"`
	PaymentMode string    `json:"payment_mode,omitempty"`
	AuthCode    string    `json:"auth_code,omitempty"`
	RRN         string    `json:"rrn,omitempty"`

	Refunds  []Refund `json:"refunds,omitempty"`
	Refunded Paise    `json:"refunded,omitempty"` // the sum of the done refunds

	ReceiptNo  uint64 `json:"receipt_no,omitempty"`
	Series     string `json:"series,omitempty"` // the document series and number (series.go)
	DocNo      uint64 `json:"doc_no,omitempty"`
	Printed    bool   `json:"printed,omitempty"`
	Reprints   int    `json:"reprints,omitempty"`
	PrintError string `json:"print_error,omitempty"`

	Reason string `json:"reason,omitempty"` // why the order is FAILED, UNKNOWN or ABANDONED

	// Sale is, on a tender's order, the split-tender sale it pays part of: that
	// sale holds the lines and the document number.
	Sale string `json:"sale,omitempty"`
	// Tenders are, on a split-tender sale, its tenders in the order they were
	// added; each names its own order.
	Tenders []SaleTender `json:"tenders,omitempty"`
	// Covered are, on a split-tender sale complete, its tenders' orders that
	// paid it (sale.completed).
	Covered []string `json:"covered,omitempty"`
	// PaidBy is, on a split-tender sale complete, how its tenders paid it as
	// its documents name it (sale.completed); "" on a sale completed before it
	// was recorded, which its documents name split.
	PaidBy string `json:"paid_by,omitempty"`
	// ConfirmedBy is, on a UPI tender, the cashier who confirmed the money arrived.
	ConfirmedBy string `json:"confirmed_by,omitempty"`
	// NoteNo is, on a credit-note tender, the credit note redeemed.
	NoteNo string `json:"note_no,omitempty"`
	// Cancelled is set once the sale's document was cancelled (cancel.go).
	Cancelled *Cancellation `json:"cancelled,omitempty"`
	// Origin is, on a return order (StateReturn), the invoice of another
	// counter it takes goods back on.
	Origin *Origin `json:"origin,omitempty"`
}

// Attempt is one payment attempt on an order.
type Attempt struct {
	N         int           `json:"n"`
	PaymentID string        `json:"payment_id,omitempty"`
	CardBrand string        `json:"card_brand,omitempty"`
	CardLast4 string        `json:"card_last4,omitempty"`
	Status    AttemptStatus `json:"status"`
	Reason    string        `json:"reason,omitempty"`
	Started   time.Time     `json:"started"`
}

// AttemptStatus is where one payment attempt stands.
type AttemptStatus string

// The attempt statuses.
const (
	AttemptSent     AttemptStatus = "sent"     // journaled before the call; no answer yet
	AttemptAccepted AttemptStatus = "accepted" // the service accepted it; authentication and inquiry follow
	AttemptRefused  AttemptStatus = "refused"  // refused with a definite error; no money moved
	AttemptFailed   AttemptStatus = "failed"   // a verified failure
	AttemptCaptured AttemptStatus = "captured" // a verified capture
)

// Refund is one refund of an order.
type Refund struct {
	UniqueTxnID string       `json:"unique_txn_id"`
	Amount      Paise        `json:"amount"`
	Status      RefundStatus `json:"status"`
	RefundID    string       `json:"refund_id,omitempty"`
	Day         string       `json:"day"` // the local day the refund was made
	Time        time.Time    `json:"time"`
	Staff       string       `json:"staff,omitempty"` // the manager who authorised it
	Reason      string       `json:"reason,omitempty"`
	Message     string       `json:"message,omitempty"` // the service's refusal
	ReceiptNo   uint64       `json:"receipt_no,omitempty"`
	Printed     bool         `json:"printed,omitempty"` // its refund receipt was printed
	Series      string       `json:"series,omitempty"`  // the credit note's series and number
	DocNo       uint64       `json:"doc_no,omitempty"`
	To          RefundTo     `json:"to,omitempty"` // where the money went ("" the way the sale was paid)
	// Tender is, on a split-tender sale refunded to a card, the order of the
	// card, EMI or phone tender the money went back through.
	Tender string       `json:"tender,omitempty"`
	Items  []ReturnItem `json:"items,omitempty"` // the goods returned, or a price adjustment's split
	// Redeemed and RedeemedBy are a credit note's (To RefundToNote) spending: the
	// value spent and the sales it paid.
	Redeemed   Paise    `json:"redeemed,omitempty"`
	RedeemedBy []string `json:"redeemed_by,omitempty"`
	Reprints   int      `json:"reprints,omitempty"` // copies of its refund receipt printed after the first
	// Cancel marks a cancellation's refund: no credit note (cancel.go).
	Cancel bool `json:"cancel,omitempty"`
}

// RefundStatus is where one refund stands.
type RefundStatus string

// The refund statuses.
const (
	RefundPending RefundStatus = "pending" // journaled; the answer is not in (inquire, or resend the same unique_txn_id)
	RefundDone    RefundStatus = "done"    // confirmed by a verified answer
	RefundFailed  RefundStatus = "failed"  // refused with a definite error
)

// Errors of the state machine. Apply wraps them with what was wrong.
var (
	// ErrStaleEvent is returned by Apply for an event that would move an order back
	// (a late or replayed answer). The journal stores such an event and leaves the
	// order unchanged.
	ErrStaleEvent = errors.New("stale event: recorded and ignored")
	// ErrBadEvent is returned by Apply for an event that the state machine does not
	// allow at all (a programming error); the journal refuses to store it.
	ErrBadEvent = errors.New("event not allowed in this state")
	// ErrPaymentInFlight reports a new payment on an order whose last payment has no
	// final outcome yet.
	ErrPaymentInFlight = errors.New("a payment for this order is still in progress")
	// ErrAttemptsUsed reports a payment attempt beyond MaxAttempts.
	ErrAttemptsUsed = errors.New("this order has used all its payment attempts")
	// ErrOrderPaid reports a payment attempt on an order that is already paid.
	ErrOrderPaid = errors.New("this order is already paid")
	// ErrNotRefundable reports a refund of an order that is not paid, or of more
	// than is left to refund, or while another refund of it is pending.
	ErrNotRefundable = errors.New("this refund is not possible")
)

// Unresolved reports whether the order needs the reconciler: its payment outcome is
// not final, or a refund of it is pending.
func (o *Order) Unresolved() bool {
	if !o.State.Final() {
		return true
	}
	return o.PendingRefund() != nil
}

// PendingRefund returns the refund of o whose answer is not in, or nil.
func (o *Order) PendingRefund() *Refund {
	for i := range o.Refunds {
		if o.Refunds[i].Status == RefundPending {
			return &o.Refunds[i]
		}
	}
	return nil
}

// RefundByID returns o's refund whose unique_txn_id is uid, or nil.
func (o *Order) RefundByID(uid string) *Refund {
	for i := range o.Refunds {
		if o.Refunds[i].UniqueTxnID == uid {
			return &o.Refunds[i]
		}
	}
	return nil
}

// Refundable is what is left to refund: captured minus done and pending refunds.
// A paid split-tender sale's tenders captured its amount.
func (o *Order) Refundable() Paise {
	left := o.PaidAmount()
	for _, r := range o.Refunds {
		if r.Status != RefundFailed {
			left -= r.Amount
		}
	}
	return max(left, 0)
}

// PaidAmount is what the order's payment took: the captured amount, or, for a
// paid split-tender sale, its amount (its tenders' orders captured it, and the
// store's copy of the sale has none captured). The store server reads a sale's
// paid amount here, as the counter does.
func (o *Order) PaidAmount() Paise {
	if paidApart(o) && o.State.Paid() {
		return o.Amount
	}
	return o.Captured
}

// ChargeAmount is what the card is charged for the order: the EMI plan's auth
// amount for EMI, else the order amount.
func (o *Order) ChargeAmount() Paise {
	if o.EMI != nil && o.EMI.AuthAmount > 0 {
		return o.EMI.AuthAmount
	}
	return o.Amount
}

// LastAttempt returns the latest payment attempt, or nil.
func (o *Order) LastAttempt() *Attempt {
	if len(o.Attempts) == 0 {
		return nil
	}
	return &o.Attempts[len(o.Attempts)-1]
}

// CanPay reports why a new payment attempt on o is not allowed, or nil.
func (o *Order) CanPay() error {
	switch {
	case o.State.Paid():
		return ErrOrderPaid
	case o.State == StateCreated, o.State == StateFailed && o.ServiceOrderID != "":
		if len(o.Attempts) >= MaxAttempts {
			return ErrAttemptsUsed
		}
		return nil
	case o.State == StatePaying, o.State == StateAuthenticating, o.State == StateUnknown:
		return ErrPaymentInFlight
	}
	return fmt.Errorf("%w: %s", ErrBadEvent, o.State)
}

// Clone returns a deep copy of o.
func (o *Order) Clone() *Order {
	c := *o
	c.Lines = slices.Clone(o.Lines)
	for i := range c.Lines {
		c.Lines[i].IMEIs = slices.Clone(c.Lines[i].IMEIs)
	}
	c.Attempts = slices.Clone(o.Attempts)
	c.Refunds = slices.Clone(o.Refunds)
	c.IMEIs = slices.Clone(o.IMEIs)
	c.Tenders = slices.Clone(o.Tenders)
	c.Covered = slices.Clone(o.Covered)
	c.Totals.ByRate = slices.Clone(o.Totals.ByRate)
	if o.Customer != nil {
		cu := *o.Customer
		c.Customer = &cu
	}
	if o.Buyer != nil {
		b := *o.Buyer
		c.Buyer = &b
	}
	if o.EMI != nil {
		e := *o.EMI
		e.Tenure = slices.Clone(o.EMI.Tenure)
		c.EMI = &e
	}
	return &c
}

// Apply folds one journaled event into the order: the pure reducer of the state
// machine (DESIGN.md section 3). It changes o only when it returns nil. An event
// that would move the order back (a late or replayed answer) returns an error
// matching ErrStaleEvent and leaves o unchanged; the journal still stores it. Any
// other error (ErrBadEvent and the attempt and refund errors) means the event must
// not be journaled.
func (o *Order) Apply(ev Event) error {
	n := o.Clone()
	if err := n.ApplyInPlace(ev); err != nil {
		return err
	}
	*o = *n
	return nil
}

// ApplyInPlace is Apply for a caller that drops o when it returns an error
// (the journal's Append, which derives the order it owns and stores it): it
// folds ev into o itself, without Apply's deep copy, and an error leaves o
// partly changed, to be thrown away. On success o is what Apply makes it.
func (o *Order) ApplyInPlace(ev Event) error {
	if err := o.apply(ev); err != nil {
		return fmt.Errorf("pos: apply %s to order %q: %w", ev.Kind, ev.OrderID, err)
	}
	o.Seq = ev.Seq
	o.Updated = ev.Time
	return nil
}

func (o *Order) apply(ev Event) error {
	if ev.OrderID == "" || !ev.Kind.IsOrderEvent() {
		return fmt.Errorf("%w: not an order event", ErrBadEvent)
	}
	if ev.Kind == EvOrderIntent {
		return o.applyIntent(ev)
	}
	if o.ID == "" {
		return fmt.Errorf("%w: no intent journaled for this order", ErrBadEvent)
	}
	if ev.OrderID != o.ID {
		return fmt.Errorf("%w: event of order %q", ErrBadEvent, ev.OrderID)
	}
	switch ev.Kind {
	case EvOrderCreated:
		if ev.Created == nil || ev.Created.ServiceOrderID == "" {
			return fmt.Errorf("%w: no service order id", ErrBadEvent)
		}
		if o.State != StateIntent {
			return ErrStaleEvent
		}
		o.ServiceOrderID, o.Token = ev.Created.ServiceOrderID, ev.Created.Token
		return o.move(StateCreated)
	case EvOrderFailed:
		if o.State != StateIntent {
			return ErrStaleEvent
		}
		o.Reason = ev.Reason
		return o.move(StateFailed)
	case EvOrderAbandoned:
		if len(o.Attempts) > 0 {
			return fmt.Errorf("%w: a payment was sent; inquire, never abandon", ErrBadEvent)
		}
		if o.State != StateIntent && o.State != StateCreated {
			return ErrStaleEvent
		}
		o.Reason = ev.Reason
		if ev.Abandoned != nil {
			o.Reason, o.MovedTo = ev.Abandoned.Reason, ev.Abandoned.NewOrderID
		}
		return o.move(StateAbandoned)
	case EvOrderUnknown:
		if o.State.Final() {
			return ErrStaleEvent
		}
		if o.State == StateIntent {
			return fmt.Errorf("%w: an order not created is abandoned, not unknown", ErrBadEvent)
		}
		if err := o.startAttempt(ev); err != nil {
			return err
		}
		o.Reason = ev.Reason
		return o.move(StateUnknown)
	case EvIMEIValidated:
		if o.State != StateCreated && o.State != StateFailed {
			return ErrStaleEvent
		}
		o.IMEIs, o.IMEIsValidated = slices.Clone(ev.IMEIs), true
		return nil
	case EvPaymentAttempt:
		return o.applyAttempt(ev)
	case EvPaymentAccepted, EvPaymentRefused:
		return o.applyPaymentAnswer(ev)
	case EvPaymentOutcome:
		return o.applyOutcome(ev)
	case EvAnswerUnverified:
		if o.State.Final() {
			return ErrStaleEvent
		}
		if o.State == StateIntent {
			return fmt.Errorf("%w: no order at the service to answer for", ErrBadEvent)
		}
		o.Reason = "the payment service's answer could not be verified"
		if ev.Reason != "" {
			o.Reason = ev.Reason
		}
		return o.move(StateUnknown)
	case EvAnswerIgnored:
		return ErrStaleEvent
	case EvCashReceived:
		return o.applyCash(ev)
	case EvTenderAdded, EvSaleCompleted, EvSaleVoided, EvUPIConfirmed, EvTenderNoteRedeemed:
		return o.applySale(ev)
	case EvRefundIntent, EvRefundDone, EvRefundFailed:
		return o.applyRefund(ev)
	case EvNoteRedeemed:
		return o.applyNoteRedeemed(ev)
	case EvNoteTendered:
		return o.applyNoteTendered(ev)
	case EvNoteRestored:
		return o.applyNoteRestored(ev)
	case EvReceiptPrinted, EvReceiptReprinted, EvPrintFailed:
		return o.applyPrint(ev)
	case EvDocumentCancelled:
		return o.applyCancelled(ev)
	}
	return fmt.Errorf("%w: unknown kind", ErrBadEvent)
}

// move changes the state if the state machine allows it.
func (o *Order) move(to OrderState) error {
	if !CanMove(o.State, to) {
		return fmt.Errorf("%w: %s to %s", ErrStaleEvent, o.State, to)
	}
	o.State = to
	return nil
}

func (o *Order) applyIntent(ev Event) error {
	if o.ID != "" || (o.State != "" && o.State != StateDraft) {
		return fmt.Errorf("%w: order already journaled", ErrBadEvent)
	}
	in := ev.Intent
	switch {
	case in == nil:
		return fmt.Errorf("%w: no intent", ErrBadEvent)
	case ev.Day == "":
		return fmt.Errorf("%w: no day", ErrBadEvent)
	case in.Amount <= 0:
		return fmt.Errorf("%w: amount %d", ErrBadEvent, in.Amount)
	case !in.Tender.valid():
		return fmt.Errorf("%w: tender %q", ErrBadEvent, in.Tender)
	case in.Tender == TenderSplit && in.Sale != "":
		return fmt.Errorf("%w: a split sale inside a split sale", ErrBadEvent)
	case in.Tender == TenderUPI && in.Sale == "":
		return fmt.Errorf("%w: a %s tender outside a split sale", ErrBadEvent, in.Tender)
	case in.Tender == TenderEMI && in.EMI == nil:
		return fmt.Errorf("%w: EMI without a plan", ErrBadEvent)
	}
	o.ID, o.Day, o.Tender, o.Staff, o.Opened = ev.OrderID, ev.Day, in.Tender, ev.Staff, ev.Time
	o.Lines = slices.Clone(in.Lines)
	o.Totals = in.Totals
	o.Amount = in.Amount
	o.Customer = in.Customer
	if in.Buyer != nil {
		b := *in.Buyer
		o.Buyer = &b
	}
	o.Replaces = in.Replaces
	o.ReturnURL = in.ReturnURL
	o.Gateway = in.Gateway
	o.IMEIs = slices.Clone(in.IMEIs)
	o.Sale = in.Sale
	if in.EMI != nil {
		e := *in.EMI
		o.EMI = &e
	}
	o.State = StateIntent
	if in.Tender == TenderSplit {
		o.State = StateOpen
	}
	if in.Origin != nil {
		if err := o.applyOrigin(in.Origin); err != nil {
			return err
		}
	}
	return nil
}

func (o *Order) applyAttempt(ev Event) error {
	a := ev.Attempt
	if a == nil {
		return fmt.Errorf("%w: no attempt", ErrBadEvent)
	}
	if o.Tender == TenderCash {
		return fmt.Errorf("%w: cash takes no payment call", ErrBadEvent)
	}
	if err := o.CanPay(); err != nil {
		return err
	}
	if a.N != len(o.Attempts)+1 {
		return fmt.Errorf("%w: attempt %d after %d", ErrBadEvent, a.N, len(o.Attempts))
	}
	o.Attempts = append(o.Attempts, Attempt{N: a.N, CardBrand: a.CardBrand, CardLast4: a.CardLast4, Status: AttemptSent, Started: ev.Time})
	o.CardBrand, o.CardLast4 = a.CardBrand, a.CardLast4
	o.Reason = ""
	return o.move(StatePaying)
}

// startAttempt records the first payment attempt of a CREATED order when its
// answer (accepted, refused or lost) is journaled without a payment.attempt before
// it: the order is not final while CREATED, so the first attempt needs no event of
// its own. Later attempts start with payment.attempt (from FAILED).
func (o *Order) startAttempt(ev Event) error {
	a := ev.Attempt
	if o.State != StateCreated || a == nil {
		return nil
	}
	if o.Tender == TenderCash {
		return fmt.Errorf("%w: cash takes no payment call", ErrBadEvent)
	}
	if a.N != len(o.Attempts)+1 || len(o.Attempts) >= MaxAttempts {
		return fmt.Errorf("%w: attempt %d after %d", ErrBadEvent, a.N, len(o.Attempts))
	}
	o.Attempts = append(o.Attempts, Attempt{N: a.N, CardBrand: a.CardBrand, CardLast4: a.CardLast4, Status: AttemptSent, Started: ev.Time})
	o.CardBrand, o.CardLast4 = a.CardBrand, a.CardLast4
	o.State = StatePaying
	return nil
}

func (o *Order) applyPaymentAnswer(ev Event) error {
	a := ev.Attempt
	if a == nil {
		return fmt.Errorf("%w: no attempt", ErrBadEvent)
	}
	if err := o.startAttempt(ev); err != nil {
		return err
	}
	last := o.LastAttempt()
	if last == nil || last.N != a.N || last.Status != AttemptSent || o.State != StatePaying {
		return ErrStaleEvent
	}
	if ev.Kind == EvPaymentAccepted {
		if a.PaymentID == "" {
			return fmt.Errorf("%w: accepted without a payment id", ErrBadEvent)
		}
		last.PaymentID, last.Status = a.PaymentID, AttemptAccepted
		return o.move(StateAuthenticating)
	}
	last.Status = AttemptRefused
	last.Reason = strings.TrimSpace(a.Code + " " + a.Message)
	o.Reason = last.Reason
	return o.move(StateFailed)
}

// attemptFor finds the attempt an answer about paymentID belongs to: the attempt
// with that id, or the latest attempt whose answer was lost (its id never
// learned), or, for the customer's phone, a new record of a payment made there
// (at most MaxAttempts: the service takes no more on one order).
func (o *Order) attemptFor(paymentID string, t time.Time) *Attempt {
	if paymentID == "" {
		return nil
	}
	for i := range o.Attempts {
		if o.Attempts[i].PaymentID == paymentID {
			return &o.Attempts[i]
		}
	}
	if last := o.LastAttempt(); last != nil && last.PaymentID == "" && last.Status == AttemptSent {
		last.PaymentID = paymentID
		return last
	}
	if (o.Tender == TenderPhone && len(o.Attempts) < MaxAttempts) || (o.State == StateCreated && len(o.Attempts) == 0) {
		o.Attempts = append(o.Attempts, Attempt{N: len(o.Attempts) + 1, PaymentID: paymentID, Status: AttemptAccepted, Started: t})
		return o.LastAttempt()
	}
	return nil
}

func (o *Order) applyOutcome(ev Event) error {
	out := ev.Outcome
	if out == nil {
		return fmt.Errorf("%w: no outcome", ErrBadEvent)
	}
	if o.State == StateIntent || o.ServiceOrderID == "" {
		return fmt.Errorf("%w: no order at the service to answer for", ErrBadEvent)
	}
	if o.State.Paid() || o.State == StateAbandoned {
		return ErrStaleEvent // a late or replayed answer; refunds move by refund events
	}
	unknown := func(reason string) error {
		if o.State == StateFailed {
			return ErrStaleEvent
		}
		o.Reason = reason
		return o.move(StateUnknown)
	}
	if out.ServiceOrderID != o.ServiceOrderID || (out.MerchantOrderID != "" && out.MerchantOrderID != o.ID) {
		return unknown("the payment service answered about another order")
	}
	// Charged takes both: the order CHARGED (or refunded since) and its payment
	// CAPTURED (or refunded since). Anything else is not yet a success.
	charged := (out.OrderStatus == "CHARGED" || out.OrderStatus == "PARTIAL_REFUNDED" || out.OrderStatus == "REFUNDED") &&
		(out.PaymentStatus == "CAPTURED" || out.PaymentStatus == "PARTIALLY_REFUNDED" || out.PaymentStatus == "REFUNDED")
	failed := out.OrderStatus == "FAILED" || out.PaymentStatus == "FAILED"
	switch {
	case charged && !failed:
		att := o.attemptFor(out.PaymentID, ev.Time)
		switch {
		case att == nil:
			return unknown("the payment service reports a payment this terminal did not send")
		case out.Amount != o.Amount || out.Captured != o.ChargeAmount():
			return unknown(fmt.Sprintf("the payment service reports %s captured of %s; the sale is %s",
				out.Captured, out.Amount, o.ChargeAmount()))
		}
		att.Status = AttemptCaptured
		o.Captured, o.Verified = out.Captured, true
		o.PaidAt, o.PaidDay = ev.Time, ev.Day
		o.PaymentID, o.PaymentMode, o.AuthCode, o.RRN = out.PaymentID, out.PaymentMode, out.AuthCode, out.RRN
		o.ReceiptNo, o.Series, o.DocNo = ev.ReceiptNo, ev.Series, ev.DocNo
		o.Reason = ""
		return o.move(StatePaid)
	case failed && o.Tender == TenderPhone && out.OrderStatus != "FAILED":
		return o.applyPhoneAttemptFailed(out, ev.Time)
	case failed:
		if o.State == StateFailed {
			return ErrStaleEvent
		}
		att := o.attemptFor(out.PaymentID, ev.Time)
		if last := o.LastAttempt(); att != nil && last != nil && att.N != last.N {
			if out.OrderStatus != "FAILED" {
				if last.neverReached(o.State) {
					// The service's latest payment is an earlier attempt that failed:
					// the latest attempt never reached it (DESIGN.md section 3).
					return o.failUnreached(last)
				}
				return ErrStaleEvent // the failure of an earlier attempt
			}
			// The order itself failed, which is terminal (contract section 6: no
			// attempt left, or the token expired): the latest attempt, which the
			// service never took, cannot succeed either.
			last.Status, last.Reason = AttemptFailed, "the payment service never took this attempt, and the order has failed"
			o.Reason = last.Reason
			return o.move(StateFailed)
		}
		if att != nil {
			att.Status, att.Reason = AttemptFailed, out.ResponseMessage
		}
		o.Reason = out.ResponseMessage
		if o.Reason == "" {
			o.Reason = "the payment failed"
		}
		return o.move(StateFailed)
	default: // created, attempted or pending: nothing decided yet
		if o.State.Final() {
			return ErrStaleEvent
		}
		if last := o.LastAttempt(); last != nil && noPaymentApplied(out) && last.neverReached(o.State) {
			return o.failUnreached(last)
		}
		if att := o.attemptFor(out.PaymentID, ev.Time); att != nil && (o.State == StatePaying || o.State == StateCreated) {
			if att.Status == AttemptSent {
				att.Status = AttemptAccepted
			}
			return o.move(StateAuthenticating)
		}
		return nil
	}
}

// AnswerMismatch says why a verified inquiry answer does not fit o as journaled
// (another order's ids, or another amount), or "" when it fits. Such an answer is
// recorded and not applied; the order is inquired again.
func (o *Order) AnswerMismatch(out *Outcome) string {
	switch {
	case out.ServiceOrderID != o.ServiceOrderID || (out.MerchantOrderID != "" && out.MerchantOrderID != o.ID):
		return fmt.Sprintf("the payment service answered about order %s (%s), not this sale's", out.MerchantOrderID, out.ServiceOrderID)
	case out.Amount != o.Amount:
		return fmt.Sprintf("the payment service reports an order of %s; the sale is %s", out.Amount, o.Amount)
	case out.Captured != 0 && out.Captured != o.ChargeAmount():
		return fmt.Sprintf("the payment service reports %s captured; the sale charges %s", out.Captured, o.ChargeAmount())
	}
	return ""
}

// noPaymentApplied reports whether a verified answer shows an order the service
// holds no payment for: still ORDER_CREATED, and no payment named.
func noPaymentApplied(out *Outcome) bool {
	return out.OrderStatus == "ORDER_CREATED" && (out.PaymentID == "" || out.PaymentID == "NA")
}

// neverReached reports whether a, the latest attempt of an order in state s, is
// one whose call ended without an answer (journaled UNKNOWN after the call
// returned, its payment id never learned). When a verified answer then shows no
// payment of it, the service never applied it. An order still PAYING is not
// judged so: its attempt is journaled before the call, which may not have been
// sent yet when the answer was given.
func (a *Attempt) neverReached(s OrderState) bool {
	return a.Status == AttemptSent && a.PaymentID == "" && s == StateUnknown
}

// unreachedReason is why an attempt the service never applied failed.
const unreachedReason = "the payment service never received the payment; nothing was charged"

// failUnreached fails o's latest attempt a, which a verified answer shows the
// service never applied (DESIGN.md section 3: a verified "no payment applied" is
// FAILED at once, and the order may be paid again while attempts are left).
func (o *Order) failUnreached(a *Attempt) error {
	if o.Tender == TenderPhone {
		return nil // the customer's attempts are made on the phone; the till sends none
	}
	a.Status, a.Reason = AttemptFailed, unreachedReason
	o.Reason = unreachedReason
	return o.move(StateFailed)
}

// applyPhoneAttemptFailed records a failed payment on the customer's phone while
// the service's order is not terminal (ORDER_CREATED, ORDER_ATTEMPTED, PENDING):
// the hosted checkout lets the customer try again on the same order (contract
// sections 4 and 8), so the attempt is marked failed for the audit trail and the
// order keeps waiting. Only the service's own FAILED order status, once no attempt
// is left or the token has expired, makes a phone order FAILED. A replayed failure
// of an attempt already recorded is stale.
func (o *Order) applyPhoneAttemptFailed(out *Outcome, t time.Time) error {
	if o.State.Final() {
		return ErrStaleEvent
	}
	att := o.attemptFor(out.PaymentID, t)
	if att == nil || att.Status == AttemptFailed || att.Status == AttemptRefused || att.Status == AttemptCaptured {
		return ErrStaleEvent
	}
	att.Status, att.Reason = AttemptFailed, out.ResponseMessage
	if att.Reason == "" {
		att.Reason = "the payment failed"
	}
	return nil
}

func (o *Order) applyCash(ev Event) error {
	c := ev.Cash
	switch {
	case c == nil:
		return fmt.Errorf("%w: no cash", ErrBadEvent)
	case o.Tender != TenderCash:
		return fmt.Errorf("%w: cash on a %s order", ErrBadEvent, o.Tender)
	case o.State.Paid():
		return ErrStaleEvent
	case o.State != StateIntent:
		return fmt.Errorf("%w: cash in state %s", ErrBadEvent, o.State)
	case c.Tendered < o.Amount || c.Change != c.Tendered-o.Amount:
		return fmt.Errorf("%w: tendered %s, change %s for %s", ErrBadEvent, c.Tendered, c.Change, o.Amount)
	}
	o.CashTendered, o.Change = c.Tendered, c.Change
	o.Captured, o.Verified = o.Amount, true
	o.PaidAt, o.PaidDay = ev.Time, ev.Day
	o.ReceiptNo, o.Series, o.DocNo = ev.ReceiptNo, ev.Series, ev.DocNo
	return o.move(StatePaid)
}

func (o *Order) applyRefund(ev Event) error {
	r := ev.Refund
	if r == nil || r.UniqueTxnID == "" {
		return fmt.Errorf("%w: no refund", ErrBadEvent)
	}
	idx := slices.IndexFunc(o.Refunds, func(x Refund) bool { return x.UniqueTxnID == r.UniqueTxnID })
	if ev.Kind == EvRefundIntent {
		switch {
		case idx >= 0:
			return ErrStaleEvent
		case (!o.State.Paid() && o.State != StateReturn) || o.State == StateRefunded:
			return fmt.Errorf("%w: the order is %s", ErrNotRefundable, o.State)
		case o.PendingRefund() != nil:
			return fmt.Errorf("%w: another refund of this order is pending", ErrNotRefundable)
		case r.Amount <= 0 || r.Amount > o.Refundable():
			return fmt.Errorf("%w: %s asked, %s left to refund", ErrNotRefundable, r.Amount, o.Refundable())
		}
		if err := o.checkReturn(r); err != nil {
			return err
		}
		o.Refunds = append(o.Refunds, Refund{UniqueTxnID: r.UniqueTxnID, Amount: r.Amount, Status: RefundPending,
			Day: ev.Day, Time: ev.Time, Staff: ev.Staff, Reason: r.Reason, To: r.To, Tender: r.Tender, Items: r.Items, Cancel: r.Cancel})
		return nil
	}
	if idx < 0 {
		return fmt.Errorf("%w: no refund intent %q", ErrBadEvent, r.UniqueTxnID)
	}
	ref := &o.Refunds[idx]
	if ref.Status != RefundPending {
		return ErrStaleEvent
	}
	if ev.Kind == EvRefundFailed {
		ref.Status, ref.Message = RefundFailed, strings.TrimSpace(r.Code+" "+r.Message)
		return nil
	}
	ref.Status, ref.RefundID, ref.ReceiptNo = RefundDone, r.RefundID, ev.ReceiptNo
	ref.Series, ref.DocNo = ev.Series, ev.DocNo
	ref.Day, ref.Time = ev.Day, ev.Time
	o.Refunded += ref.Amount
	if o.State == StateReturn {
		return nil // a return order stays one: it was never this counter's sale
	}
	if o.Refunded >= o.PaidAmount() {
		return o.move(StateRefunded)
	}
	return o.move(StatePartlyRefunded)
}

func (o *Order) applyPrint(ev Event) error {
	if ev.Print != nil && ev.Print.Refund != "" { // a refund receipt: its own count
		for i := range o.Refunds {
			if o.Refunds[i].UniqueTxnID != ev.Print.Refund {
				continue
			}
			switch ev.Kind {
			case EvReceiptPrinted:
				o.Refunds[i].Printed = true
			case EvReceiptReprinted:
				o.Refunds[i].Reprints++
			}
			return nil
		}
		return fmt.Errorf("%w: print of unknown refund %q", ErrBadEvent, ev.Print.Refund)
	}
	switch ev.Kind {
	case EvReceiptPrinted:
		o.Printed, o.PrintError = true, ""
	case EvReceiptReprinted:
		o.Reprints++
		o.PrintError = ""
	case EvPrintFailed:
		o.PrintError = ev.Reason
		if ev.Print != nil && ev.Print.Error != "" {
			o.PrintError = ev.Print.Error
		}
	}
	return nil
}
