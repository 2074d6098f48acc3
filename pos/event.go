package pos

import (
	"encoding/json"
	"time"
)

// EventVersion is the version of the Event encoding written today. A reader meets
// older versions through the journal's migrations, never through guesswork.
const EventVersion = 1

// DayLayout is the layout of an event's and an order's Day: the local calendar day.
const DayLayout = "2006-01-02"

// EventKind names what an Event records.
type EventKind string

// The event kinds. Order events carry an OrderID and are applied to that order with
// Order.Apply; the others (staff, settings, catalog, day close) are the journal's own.
const (
	EvOrderIntent      EventKind = "order.intent"      // a sale journaled with a fresh merchant_order_id, before create order
	EvOrderCreated     EventKind = "order.created"     // create order answered: service order id and token
	EvOrderFailed      EventKind = "order.failed"      // create order refused with a definite error; no order exists at the service
	EvOrderAbandoned   EventKind = "order.abandoned"   // create order's answer was lost before any payment; the sale moved to NewOrderID
	EvOrderUnknown     EventKind = "order.unknown"     // a payment answer was lost or ambiguous, or polling gave up: inquire later
	EvIMEIValidated    EventKind = "imei.validated"    // the service validated and blocked the sale's IMEIs
	EvPaymentAttempt   EventKind = "payment.attempt"   // a payment call is about to be sent (card brand and last four only)
	EvPaymentAccepted  EventKind = "payment.accepted"  // the service accepted the payment: payment id; authentication follows
	EvPaymentRefused   EventKind = "payment.refused"   // the payment call was refused with a definite error; no money moved
	EvPaymentOutcome   EventKind = "payment.outcome"   // a verified status-inquiry answer
	EvAnswerUnverified EventKind = "answer.unverified" // an answer whose x-verify was missing or wrong: outcome unknown
	EvAnswerIgnored    EventKind = "answer.ignored"    // an answer recorded for the audit trail and deliberately not acted on
	EvCashReceived     EventKind = "cash.received"     // cash taken: tendered and change
	EvRefundIntent     EventKind = "refund.intent"     // a refund journaled with a fresh unique_txn_id, before the call
	EvRefundDone       EventKind = "refund.done"       // the refund confirmed by a verified answer
	EvRefundFailed     EventKind = "refund.failed"     // the refund refused with a definite error; nothing refunded
	EvNoteRedeemed     EventKind = "note.redeemed"     // on the order that issued a credit note: part of its value spent by a sale (Note)
	EvNoteTendered     EventKind = "note.tendered"     // on a sale paid by a credit note: the note redeemed pays it (Note)
	EvNoteRestored     EventKind = "note.restored"     // on the order that issued a credit note: a redemption undone (a voided split sale's note tender) (Note)
	EvReceiptPrinted   EventKind = "receipt.printed"   // the sale's receipt printed the first time
	EvReceiptReprinted EventKind = "receipt.reprinted" // a copy of the receipt printed
	EvPrintFailed      EventKind = "print.failed"      // printing failed; the sale stands
	EvDayClosed        EventKind = "day.closed"        // the Z report: the day is sealed
	EvStaffAdded       EventKind = "staff.added"       // a staff member added (Data: the staff record, PIN hash only)
	EvStaffChanged     EventKind = "staff.changed"     // a staff member's record changed (Data)
	EvStaffAttempt     EventKind = "staff.attempt"     // a PIN tried: the member's counters only (Data: a StaffAttempt, never a hash)
	EvStaffSignIn      EventKind = "staff.signin"      // a staff member signed in (Data)
	EvStaffSignInFail  EventKind = "staff.signin_failed"
	EvSettingsChanged  EventKind = "settings.changed" // a setting changed (Setting)
	EvCatalogImported  EventKind = "catalog.imported" // the catalog replaced (Data: the catalog JSON)

	// Split tender (docs/adr/0005-split-tender.md).
	EvTenderAdded        EventKind = "tender.added"         // a split sale takes a tender: its kind, amount and own order id, before that order's intent
	EvSaleCompleted      EventKind = "sale.completed"       // a split sale is covered by paid tenders: its document number
	EvSaleVoided         EventKind = "sale.voided"          // a split sale voided; its paid tenders were refunded first
	EvUPIConfirmed       EventKind = "upi.confirmed"        // a UPI tender's money confirmed by the cashier (Staff), not by the service
	EvTenderNoteRedeemed EventKind = "tender.note_redeemed" // a credit-note tender paid: its note was redeemed in the credit-note ledger (note.redeemed on the issuing order)
)

// The audit events (DESIGN.md section 5): who signed in and out, who overrode a
// limit, who changed the settings. Each names the staff id in Staff and never
// carries a PIN, its hash or a secret. staff.signin and staff.signin_failed name
// the member; a refusal says why in Reason. settings.changed names the manager.
const (
	// EvStaffSignOut is a member signing out: the screen locked by hand or left
	// idle (Reason).
	EvStaffSignOut EventKind = "staff.signout"
	// EvOverride is a manager's PIN approving what the signed-in member may not do
	// alone, such as a discount above the limit (Staff: the manager; Extra: what,
	// the line, the amount and who asked).
	EvOverride EventKind = "staff.override"
)

// The counter's own events (DESIGN.md sections 2 and 10): shifts and the cash
// drawer, held bills, the manager's acceptance of unknown payments at a Z. Each
// carries its record as Data and the business day as Day.
const (
	// EvShiftOpened opens a shift with the counted float (Data: ShiftRecord).
	EvShiftOpened EventKind = "shift.opened"
	// EvShiftCash is cash paid in, paid out or dropped, with its reason
	// (Data: ShiftRecord with Move).
	EvShiftCash EventKind = "shift.cash"
	// EvShiftClosed closes a shift with the cash counted by denomination, what
	// was expected and the variance (Data: ShiftRecord).
	EvShiftClosed EventKind = "shift.closed"
	// EvBillHeld is a cart put aside with its lines (Data: HeldBill).
	EvBillHeld EventKind = "bill.held"
	// EvBillRecalled is a held bill brought back to the cart (Data: its id).
	EvBillRecalled EventKind = "bill.recalled"
	// EvBillDiscarded is a held bill thrown away (Data: its id).
	EvBillDiscarded EventKind = "bill.discarded"
	// EvUnknownAccepted is a manager accepting, before a Z report, that the
	// payments listed are still unknown (Staff: the manager; Data: UnknownList).
	EvUnknownAccepted EventKind = "day.unknown_accepted"
	// EvReturnIMEIs frees the IMEIs of units returned from an order (OrderID the
	// sale's, IMEIs the units'); any event kind beginning "return." that carries
	// IMEIs does the same.
	EvReturnIMEIs EventKind = "return.imeis"
)

// returnPrefix begins every kind of event that returns goods.
const returnPrefix = "return."

// IsOrderEvent reports whether events of kind k belong to one order and are applied
// to it with Order.Apply.
func (k EventKind) IsOrderEvent() bool {
	switch k {
	case EvOrderIntent, EvOrderCreated, EvOrderFailed, EvOrderAbandoned, EvOrderUnknown,
		EvIMEIValidated, EvPaymentAttempt, EvPaymentAccepted, EvPaymentRefused,
		EvPaymentOutcome, EvAnswerUnverified, EvAnswerIgnored, EvCashReceived,
		EvRefundIntent, EvRefundDone, EvRefundFailed, EvNoteRedeemed, EvNoteTendered, EvNoteRestored, EvDocumentCancelled,
		EvReceiptPrinted, EvReceiptReprinted, EvPrintFailed,
		EvTenderAdded, EvSaleCompleted, EvSaleVoided, EvUPIConfirmed, EvTenderNoteRedeemed:
		return true
	}
	return false
}

// Event is one entry of the journal, the source of truth (DESIGN.md section 4). It is
// JSON-encoded and versioned. Exactly one payload pointer is set, the one that
// belongs to Kind (Data for the kinds whose records other parts of pos own).
//
// Card numbers and CVVs never appear in an event: the card is recorded as brand and
// last four digits only.
type Event struct {
	V        int       `json:"v"`                   // EventVersion
	Seq      uint64    `json:"seq"`                 // assigned by the journal, from 1, no gaps
	Time     time.Time `json:"time"`                // when it happened (the engine's clock)
	Kind     EventKind `json:"kind"`                //
	OrderID  string    `json:"order_id,omitempty"`  // merchant_order_id, for order events
	Day      string    `json:"day,omitempty"`       // local business day the event is recorded on (DayLayout); for order.intent the day of the sale
	Staff    string    `json:"staff,omitempty"`     // who did it (cashier, or the manager who authorised)
	PrevHash string    `json:"prev_hash,omitempty"` // the journal's hash chain
	Hash     string    `json:"hash,omitempty"`      // the journal's hash chain

	// ReceiptNo, when not zero, allocates the next receipt number: the journal
	// refuses an event whose ReceiptNo is not its last receipt number plus one.
	ReceiptNo uint64 `json:"receipt_no,omitempty"`
	// Series and DocNo, when DocNo is not zero, allocate the next document number
	// of a series (series.go): the journal refuses a DocNo that is not the last
	// number of Series plus one. Events written before series existed carry
	// ReceiptNo instead.
	Series string `json:"series,omitempty"`
	DocNo  uint64 `json:"doc_no,omitempty"`

	Intent    *Intent           `json:"intent,omitempty"`    // order.intent
	Created   *Created          `json:"created,omitempty"`   // order.created
	Abandoned *Abandoned        `json:"abandoned,omitempty"` // order.abandoned
	Attempt   *AttemptEvent     `json:"attempt,omitempty"`   // payment.attempt, payment.accepted, payment.refused, order.failed
	Outcome   *Outcome          `json:"outcome,omitempty"`   // payment.outcome, answer.unverified, answer.ignored
	Reason    string            `json:"reason,omitempty"`    // order.unknown, order.failed, answer.*, print.failed, refund.failed, document.cancelled
	IMEIs     []string          `json:"imeis,omitempty"`     // imei.validated
	Cash      *CashEvent        `json:"cash,omitempty"`      // cash.received
	Refund    *RefundEvent      `json:"refund,omitempty"`    // refund.*
	Note      *NoteEvent        `json:"note,omitempty"`      // note.redeemed, note.tendered
	Print     *PrintEvent       `json:"print,omitempty"`     // receipt.printed, receipt.reprinted, print.failed
	DayClose  *DayClose         `json:"day_close,omitempty"` // day.closed
	Setting   *Setting          `json:"setting,omitempty"`   // settings.changed
	Sale      *SaleEvent        `json:"sale,omitempty"`      // tender.added, sale.completed, sale.voided, upi.confirmed, tender.note_redeemed
	Data      json.RawMessage   `json:"data,omitempty"`      // staff.*, catalog.imported: the record of the owning part of pos
	Extra     map[string]string `json:"extra,omitempty"`     // free-form notes for the audit trail
}

// Intent is the payload of order.intent: the sale as journaled before create order.
type Intent struct {
	Tender    TenderKind `json:"tender"`
	Lines     []Line     `json:"lines"`
	Totals    Totals     `json:"totals"`
	Amount    Paise      `json:"amount"`               // the order amount sent to create order (Totals.Total)
	EMI       *EMIPlan   `json:"emi,omitempty"`        // the chosen EMI offer (TenderEMI)
	IMEIs     []string   `json:"imeis,omitempty"`      // entered per serialised unit (brand EMI)
	Replaces  string     `json:"replaces,omitempty"`   // the abandoned order id this sale moved from
	Customer  *Customer  `json:"customer,omitempty"`   // optional customer contact
	Buyer     *Buyer     `json:"buyer,omitempty"`      // the buyer named on the invoice
	ReturnURL string     `json:"return_url,omitempty"` // merchant_return_url sent
	// Sale is, for a tender's order, the split-tender sale it pays part of.
	Sale string `json:"sale,omitempty"`
	// Gateway names the payment service that takes the payment (GatewaySandbox,
	// or the live service's address); "" for a cash sale.
	Gateway string `json:"gateway,omitempty"`
	// Note is the credit note that pays a TenderNote sale, as printed.
	Note string `json:"note,omitempty"`
	// Origin makes the order a return order (StateReturn): another counter's
	// invoice, as the store holds it, taken back at this one (store_returns.go).
	Origin *Origin `json:"origin,omitempty"`
}

// GatewaySandbox is the gateway identity of the embedded sandbox: no money moves,
// and every document of its sales says SANDBOX — NOT A VALID TAX DOCUMENT.
const GatewaySandbox = "sandbox"

// Customer is the optional contact of a customer sent with an order.
type Customer struct {
	CountryCode string `json:"country_code,omitempty"`
	Mobile      string `json:"mobile,omitempty"`
	Email       string `json:"email,omitempty"`
}

// Created is the payload of order.created. The token is an order token, not card
// data; it is kept so that an interrupted sale can be inquired and resumed.
type Created struct {
	ServiceOrderID string `json:"service_order_id"`
	Token          string `json:"token"`
}

// Abandoned is the payload of order.abandoned.
type Abandoned struct {
	Reason     string `json:"reason"`
	NewOrderID string `json:"new_order_id,omitempty"` // where the sale moved
}

// AttemptEvent is the payload of the payment events: payment.attempt carries N and
// the card's brand and last four digits; payment.accepted adds PaymentID;
// payment.refused adds Code and Message.
type AttemptEvent struct {
	N         int    `json:"n"`                    // 1..MaxAttempts
	CardBrand string `json:"card_brand,omitempty"` // VISA, MASTERCARD, ...
	CardLast4 string `json:"card_last4,omitempty"`
	PaymentID string `json:"payment_id,omitempty"`
	Amount    Paise  `json:"amount,omitempty"` // the amount the payment answer named
	Code      string `json:"code,omitempty"`   // the service's error code of a refusal
	Message   string `json:"message,omitempty"`
	AuthURL   string `json:"auth_url,omitempty"` // where the authentication form posts (no card data)
}

// Outcome is what a status-inquiry answer said, in the payload of payment.outcome
// (verified) and answer.unverified / answer.ignored (recorded only).
type Outcome struct {
	MerchantOrderID string `json:"merchant_order_id"`
	ServiceOrderID  string `json:"service_order_id"`
	PaymentID       string `json:"payment_id,omitempty"`
	OrderStatus     string `json:"order_status"`             // ORDER_CREATED, ORDER_ATTEMPTED, PENDING, CHARGED, FAILED, PARTIAL_REFUNDED, REFUNDED
	PaymentStatus   string `json:"payment_status,omitempty"` // PENDING, CAPTURED, FAILED, PARTIALLY_REFUNDED, REFUNDED
	Amount          Paise  `json:"amount"`                   // order_data.amount
	Captured        Paise  `json:"captured,omitempty"`
	Refunded        Paise  `json:"refunded,omitempty"`
	ResponseCode    int64  `json:"response_code,omitempty"`
	ResponseMessage string `json:"response_message,omitempty"`
	PaymentMode     string `json:"payment_mode,omitempty"`
	Issuer          string `json:"issuer,omitempty"`
	MaskedCard      string `json:"masked_card,omitempty"`
	AuthCode        string `json:"auth_code,omitempty"`
	RRN             string `json:"rrn,omitempty"`
	CompletedAt     string `json:"completed_at,omitempty"`
}

// CashEvent is the payload of cash.received.
type CashEvent struct {
	Tendered Paise `json:"tendered"`
	Change   Paise `json:"change"`
}

// RefundEvent is the payload of refund.intent, refund.done and refund.failed,
// matched by UniqueTxnID.
type RefundEvent struct {
	UniqueTxnID string `json:"unique_txn_id"`
	Amount      Paise  `json:"amount"`
	RefundID    string `json:"refund_id,omitempty"` // refund.done
	Refunded    Paise  `json:"refunded,omitempty"`  // refund.done: the service's refunded total after it
	Code        string `json:"code,omitempty"`      // refund.failed
	Message     string `json:"message,omitempty"`   // refund.failed
	Reason      string `json:"reason,omitempty"`    // refund.intent: why, as the manager typed it
	// To is where the money goes back (refund.intent): RefundToCard through the
	// service, RefundToCash from the drawer, RefundToNote as a credit note to
	// spend; "" is the way the sale was paid (card through the service, cash).
	To RefundTo `json:"to,omitempty"`
	// Tender is, on a split-tender sale refunded to a card, the order of the
	// card, EMI or phone tender the service refunds (refund.intent).
	Tender string `json:"tender,omitempty"`
	// Items are the goods returned (refund.intent), one per sale line; none for a
	// refund or price adjustment without goods.
	Items []ReturnItem `json:"items,omitempty"`
	// Cancel marks a cancellation's refund (cancel.go): the invoice is
	// cancelled, so its refund.done issues no credit note.
	Cancel bool `json:"cancel,omitempty"`
}

// NoteEvent is the payload of note.redeemed (on the order that issued the note)
// and note.tendered (on the sale it pays).
type NoteEvent struct {
	Number  string `json:"number"`   // the credit note's number as printed
	IssueID string `json:"issue_id"` // the order that issued it
	Refund  string `json:"refund"`   // the unique_txn_id of the refund that issued it
	Amount  Paise  `json:"amount"`   // the value spent
	SaleID  string `json:"sale_id"`  // the sale it pays
}

// PrintEvent is the payload of receipt.printed, receipt.reprinted and print.failed.
type PrintEvent struct {
	Printer string `json:"printer,omitempty"`
	Format  string `json:"format,omitempty"`
	Error   string `json:"error,omitempty"`
	Refund  string `json:"refund,omitempty"` // the unique_txn_id when a refund receipt was printed
}

// DayClose is the payload of day.closed: the sealed Z report of Day.
type DayClose struct {
	Day    string          `json:"day"`
	ZNo    uint64          `json:"z_no"`   // the journal's last Z number plus one
	Report json.RawMessage `json:"report"` // the Report as JSON, sealed (SealedReport: totals, not rows)
	// Period is the Z's place among the Zs of its date (ADR 0010): 1 (stored
	// as absent, as in journals written before a date could have more than
	// one) for the first; a Z taken after it on the same date closes period 2,
	// and so on. After is the sequence of the date's previous day.closed event
	// (0 for period 1): the period holds the orders first journaled after it.
	Period int    `json:"period,omitempty"`
	After  uint64 `json:"after,omitempty"`

	// Seq is the sequence of the day.closed event, filled in by a journal that
	// reads the Z report back (never stored in the event): the rows of the
	// report are the day's orders as their events before it made them.
	Seq uint64 `json:"-"`
}

// Setting is the payload of settings.changed.
type Setting struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// EMIPlan is the EMI offer a sale is paid with, as the receipt and reports show it,
// plus the calculator's tenure object exactly as the service sent it (re-sent for
// scheme validation and the EMI payment).
type EMIPlan struct {
	Issuer       string          `json:"issuer"`
	Debit        bool            `json:"debit,omitempty"`
	Brand        string          `json:"brand,omitempty"` // brand EMI: the brand subsidising it
	Program      string          `json:"program"`         // "bank" or "brand"
	Subvention   string          `json:"subvention"`      // "no-cost", "low-cost" or "standard"
	TenureMonths int             `json:"tenure_months"`
	TenureID     string          `json:"tenure_id"`
	RateBP       int64           `json:"rate"`          // annual interest rate ×10000 (15% = 150000)
	Monthly      Paise           `json:"monthly"`       // the customer's monthly instalment (EMIFigures.Instalment; the bank's in plans journaled before)
	Interest     Paise           `json:"interest"`      // interest paid to the bank
	Benefit      Paise           `json:"benefit"`       // discount paying the interest (no-cost, low-cost)
	TotalPayable Paise           `json:"total_payable"` // what the customer pays over the tenure (EMIFigures.Total)
	Loan         Paise           `json:"loan"`          // loan amount
	AuthAmount   Paise           `json:"auth_amount"`   // what the card is charged now
	IMEIRequired bool            `json:"imei_required,omitempty"`
	AcquirerID   int64           `json:"acquirer_id"`
	Tenure       json.RawMessage `json:"tenure"` // the calculator's tenure object, verbatim
}

// ToDay returns the calendar day of t, in t's own location, in DayLayout.
func ToDay(t time.Time) string { return t.Format(DayLayout) }
