package pos

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A return of another counter's invoice (DESIGN.md section 11). Each counter
// numbers and journals its own documents, so a customer who brings back at
// counter T2 what was sold at T1 is served from the store server: T2 reads the
// invoice as the store holds it (StoreInvoices), reserves the refund's amount
// there (StoreDecisions.ReserveReturn: never more than was paid, less what any
// counter refunded or reserved), and only then journals on itself a return
// order (order.intent with Origin, state RETURN: no sale of T2's) with the
// refund, in cash from T2's drawer or onto a credit note of T2's C series that
// cites T1's invoice number and date and reverses the GST of its lines. The
// card of T1's sale is refunded at T1 only: the payment service's order is
// T1's.

// Origin is the invoice of another counter a return order takes goods back on.
type Origin struct {
	Terminal string     `json:"terminal"` // the counter that sold it
	OrderID  string     `json:"order_id"` // its merchant order id there
	Number   string     `json:"number"`   // its number as printed (T1/2627/000123)
	Series   string     `json:"series,omitempty"`
	PaidAt   time.Time  `json:"paid_at,omitzero"`
	PaidDay  string     `json:"paid_day,omitempty"`
	Tender   TenderKind `json:"tender"` // how it was paid
	// Returnable is what this return order may refund: the amount the store
	// reserved for it.
	Returnable Paise `json:"returnable"`
	// Returned are the goods of the invoice returned before, as the store held
	// it (units and IMEIs per line): they cannot come back again.
	Returned []ReturnItem `json:"returned,omitempty"`
}

// StoreInvoices is the store server's copy of the counters' invoices: a
// return at one counter of another's sale reads it (store/link implements it
// beside StoreDecisions).
type StoreInvoices interface {
	// Invoice returns the paid sale named by its number as printed or its
	// merchant order id. A refusal is a *StoreRefusal; no answer ErrStoreOffline.
	Invoice(ctx context.Context, ref string) (*StoreInvoice, error)
}

// StoreInvoice is a counter's paid sale as the store holds it.
type StoreInvoice struct {
	Number   string // as printed: T1/2627/000123
	Terminal string
	Order    *Order
	// Returnable is what may still be returned of it store-wide: paid, less
	// what every counter refunded or reserved.
	Returnable Paise
}

func (o *Order) applyOrigin(g *Origin) error {
	switch {
	case g.Terminal == "" || g.OrderID == "" || g.Number == "":
		return fmt.Errorf("%w: a return order names no invoice", ErrBadEvent)
	case g.Returnable <= 0:
		return fmt.Errorf("%w: a return order of %s", ErrBadEvent, g.Returnable)
	case o.Tender != TenderCash && o.Tender != TenderNote:
		return fmt.Errorf("%w: a return order paid back by %s", ErrBadEvent, o.Tender)
	}
	c := *g
	c.Returned = slices.Clone(g.Returned)
	o.Origin = &c
	o.Captured, o.Verified = g.Returnable, true
	o.State = StateReturn
	return nil
}

// InvoiceNumber is the number of the invoice o's refunds cite: its own, or, on
// a return order, the other counter's.
func (o *Order) InvoiceNumber(terminal string) string {
	if o.Origin != nil {
		return o.Origin.Number
	}
	return o.Number(terminal)
}

// InvoiceOrderID is the merchant order id of the sale o's refunds go against.
func (o *Order) InvoiceOrderID() string {
	if o.Origin != nil {
		return o.Origin.OrderID
	}
	return o.ID
}

// invoiceTime is when the invoice o's refunds cite was paid.
func invoiceTime(o Order) time.Time {
	if o.Origin != nil && !o.Origin.PaidAt.IsZero() {
		return o.Origin.PaidAt
	}
	return saleTime(o)
}

// foreignToSentence refuses a destination a return of another counter's sale
// cannot have here, saying what can.
func foreignToSentence(inv *StoreInvoice, to RefundTo) error {
	o := inv.Order
	switch {
	case brandIMEIs(o):
		return wrapf(ErrNotRefundable, "Invoice %s is a brand EMI sold at counter %s: its money goes back to the card there, which frees its IMEIs; return it at counter %s.", inv.Number, inv.Terminal, inv.Terminal)
	case slices.Contains(foreignDestinations(o), RefundToCash):
		return wrapf(ErrNotRefundable, "Invoice %s was paid in cash at counter %s: refund it to cash or a credit note here.", inv.Number, inv.Terminal)
	case to == RefundToCard:
		return wrapf(ErrNotRefundable, "Invoice %s was paid by %s at counter %s, whose payment this counter cannot refund: refund it to a credit note here, or to the card at counter %s.", inv.Number, o.Tender, inv.Terminal, inv.Terminal)
	}
	return wrapf(ErrNotRefundable, "Invoice %s was paid by %s at counter %s: its money goes back to the card at counter %s, or onto a credit note here; not in cash.", inv.Number, o.Tender, inv.Terminal, inv.Terminal)
}

// returnItems are the goods (or the price adjustment) a return asks of o, with
// its reason.
func returnItems(o *Order, r ReturnRequest) ([]ReturnItem, string, error) {
	var items []ReturnItem
	var err error
	switch {
	case len(r.Items) > 0 && r.Amount != 0:
		return nil, "", Errorf("Give either the goods that come back or an amount for a price adjustment, not both.")
	case len(r.Items) > 0:
		if items, err = o.Returns().ReturnItems(r.Items); err != nil {
			return nil, "", err
		}
	case r.Amount > 0:
		if r.Amount > o.Refundable() {
			return nil, "", wrapf(ErrNotRefundable, "At most %s of sale %s is left to refund (not %s).", o.Refundable(), o.ID, r.Amount)
		}
		items = o.Returns().AdjustmentItems(r.Amount)
	default:
		return nil, "", Errorf("Name the goods that come back (SKU and quantity) or an amount for a price adjustment.")
	}
	reason := strings.TrimSpace(r.Reason)
	if reason == "" {
		reason = "Goods returned"
		if len(r.Items) == 0 {
			reason = "Price adjustment"
		}
	}
	return items, reason, nil
}

// noRelease is the release of a refund that reserved nothing at the store.
func noRelease(err error) error { return err }
