package pos

import (
	"context"
	"errors"
	"strconv"
	"time"
)

// StoreDecisions is the store server's say on what only one counter of the store
// may do (DESIGN.md section 11): sell an IMEI (at most once store-wide), redeem a
// credit note (at most its value) and return an invoice of any counter (never
// more than was paid). Each is reserved on the server before money moves; the
// till asks it after the cart is final and before it journals the payment's
// intent, and releases what it reserved when the sale ends without money taken.
// store/link implements it; main wires it. A till without a store server has
// none, and decides on its own journal.
type StoreDecisions interface {
	// ReserveIMEIs reserves the sale's IMEIs for orderID. A refusal is a
	// *StoreRefusal (sold at another counter); no answer is ErrStoreOffline.
	ReserveIMEIs(ctx context.Context, orderID string, imeis []string) error
	// RedeemCreditNote takes amount of credit note number for orderID and
	// returns what is left of it.
	RedeemCreditNote(ctx context.Context, number, orderID string, amount Paise) (Paise, error)
	// ReserveReturn reserves amount of a refund of invoice document (T1/000123,
	// any counter's) under refundID, the refund's unique_txn_id, and returns
	// what may still be returned of it. A refund whose items add up to its
	// amount is asked with them instead (ReserveReturnItems).
	ReserveReturn(ctx context.Context, document, refundID string, amount Paise) (Paise, error)
	// ReserveReturnItems is ReserveReturn with the refund's items
	// (ReturnItem.Line indexes the invoice's lines): the store checks each
	// line's units and money against the invoice as its own counter's events
	// hold it, less what every counter returned or is returning of it. A
	// return of another counter's invoice is refused by the store without
	// them; one of this counter's own invoice may be reserved by amount alone.
	ReserveReturnItems(ctx context.Context, document, refundID string, amount Paise, items []ReturnItem) (Paise, error)
	// StoreInvoices reads the store's copy of another counter's invoice, for
	// a return at this counter.
	StoreInvoices
	// Release gives back what was reserved for orderID (a sale that took no
	// money) or refundID (a refund that failed).
	Release(ctx context.Context, orderID, refundID string) error
	// ReturnedElsewhere is the store's last word, kept on the counter, on
	// what other counters returned of this counter's sale orderID (store/link
	// keeps it from the answers of its syncs); ok is false when the store
	// never said any counter did. An error says why the counter does not
	// know what the store last said (what it kept of it is missing, or was
	// changed outside Galla and is not believed): a clause for a sentence.
	// While the store cannot be reached, a return or refund of an own
	// invoice is decided by this counter's journal only when the store never
	// said another counter returned any of it; one returned elsewhere waits
	// for the store (docs/security.md "Offline returns"). Every
	// implementation answers: a decision about money another counter paid
	// out is never skipped for want of a method.
	ReturnedElsewhere(orderID string) (r ElsewhereReturn, ok bool, err error)
}

// ErrStoreOffline is a store-wide decision that could not be asked: the store
// server did not answer. Nothing was reserved and no money moved. The sale is
// refused; an IMEI check alone may be overridden by a manager (IMEIOverride),
// which the store's pages flag.
var ErrStoreOffline = sentenceError{"the store server cannot be asked",
	"The store server cannot be reached, and this needs its approval (an IMEI, a credit note or another counter's invoice); nothing was charged. A manager may approve an IMEI by PIN; credit notes and other counters' invoices wait until the store is back."}

// StoreRefusal is the store server's refusal of a store-wide decision, with its
// sentence (which counter sold the IMEI, how much of a note is left).
type StoreRefusal struct {
	Code string // taken, exceeded, not_found, malformed
	Msg  string
}

func (e *StoreRefusal) Error() string { return "pos: the store refused: " + e.Msg }

// Sentence is the server's sentence, said to the cashier; nothing was charged.
func (e *StoreRefusal) Sentence() string {
	return "The store refused: " + e.Msg + ". Nothing was charged."
}

// IMEIOverride is what a manager's override of an offline IMEI check journals
// as EvOverride's Extra: the store's pages list it.
func IMEIOverride(orderID string, imeis []string, cause error) map[string]string {
	extra := map[string]string{"what": "imei", "order_id": orderID}
	for i, s := range imeis {
		extra["imei"+strconv.Itoa(i+1)] = s
	}
	if cause != nil {
		extra["cause"] = cause.Error()
	}
	return extra
}

// IMEIApprover approves, on a manager's authority, the phones of a sale that
// the store server could not be asked about (ErrStoreOffline): it journals the
// override (IMEIOverride) and returns nil, or returns why not, which refuses
// the sale with nothing journaled or charged. A sale carries one
// (Sale.OverrideIMEIs) when the cashier asked for the override; the Checkout
// makes it from the request (PayRequest.OverrideIMEIPIN, AskIMEIOverride).
type IMEIApprover interface {
	ApproveIMEIs(ctx context.Context, orderID string, imeis []string, cause error) error
}

// MayOverrideIMEI reports whether a refused IMEI reservation may be overridden
// by a manager: only when the store could not be asked, never when it said
// the unit is sold.
func MayOverrideIMEI(err error) bool { return errors.Is(err, ErrStoreOffline) }

// storeDecisionWait bounds how long a sale waits for the store server's answer:
// past it the store counts as unreachable (ErrStoreOffline).
const storeDecisionWait = 10 * time.Second

// ElsewhereReturn is what other counters returned of one of this counter's
// invoices, as the store last said.
type ElsewhereReturn struct {
	Number   string // the invoice as printed
	Amount   Paise  // the money those counters refunded or reserved of it
	Counters string // which: "T2" or "T2, T3"
}

// returnedElsewhereOffline refuses, with a sentence, a return or refund of
// this counter's sale o (its invoice number) that the store could not be
// asked about, when the store last said another counter returned some of it
// (StoreDecisions.ReturnedElsewhere), or when what the store last said is not
// known: nothing was refunded, and the return waits for the store, which
// alone knows what is left.
func returnedElsewhereOffline(d StoreDecisions, o *Order, number string) error {
	r, ok, err := d.ReturnedElsewhere(o.ID)
	if err != nil {
		return wrapf(ErrNotRefundable, "The store cannot be reached, and this counter cannot tell whether other counters returned any of invoice %s: %s. This return needs the store. Nothing was refunded; connect to the store and try again.",
			number, err)
	}
	if !ok {
		return nil
	}
	if r.Number != "" {
		number = r.Number
	}
	return wrapf(ErrNotRefundable, "Invoice %s was returned at counter %s (%s), and the store cannot be reached to say what is left of it: this return needs the store. Nothing was refunded; connect to the store and try again.",
		number, r.Counters, r.Amount)
}
