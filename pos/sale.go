package pos

import (
	"errors"
	"fmt"
	"slices"
)

// A split-tender sale (DESIGN.md section 2, docs/adr/0005-split-tender.md) is an
// order of tender "split" that holds the cart and, once paid, the document
// number. Each of its tenders is its own order, named in the sale by
// tender.added before that order's intent is journaled: card, EMI and phone
// tenders are orders at the payment service with their own merchant_order_id and
// amount, driven by the same state machine as a whole sale; cash, UPI and
// credit-note tenders are journaled here. The sale is completed, and its number
// allocated, when its paid tenders cover its amount and none is in flight.

// TenderView is one tender of a split sale as its order stands now.
type TenderView struct {
	SaleTender
	Order *Order // the tender's order (after any move); nil when its intent never reached the journal
	State OrderState
	// Verified is a tender paid on a verified answer, in cash, or from the
	// credit-note ledger; a UPI tender is confirmed by the cashier only.
	Verified bool
}

// Paid reports whether the tender's money is taken.
func (v TenderView) Paid() bool { return v.Order != nil && v.State.Paid() }

// Pending reports whether the tender's outcome is not final yet.
func (v TenderView) Pending() bool { return v.Order != nil && !v.State.Final() }

// Failed reports whether the tender ended without taking money: refused or
// verifiably not charged (FAILED), or closed before any payment was sent
// (ABANDONED), or never journaled past tender.added. It reserves nothing of
// the sale's Due; a FAILED card or EMI tender with attempts left may be paid
// again on its own order (PayRequest.OrderID), or the sale paid another way.
func (v TenderView) Failed() bool {
	return v.Order == nil || v.State == StateFailed || v.State == StateAbandoned
}

// SaleStatus is where a sale stands: the order that holds its cart and
// document, and the tenders that pay it. It is built by saleView only.
type SaleStatus struct {
	Sale    *Order
	Tenders []TenderView
	Paid    Paise // the tenders paid
	Pending Paise // the tenders whose outcome is not final
	Due     Paise // what is left to tender: the amount less paid and pending
	// split is whether the tenders are orders apart from the sale (a split
	// sale); false for a sale of one tender, which is its own only tender.
	split bool
}

// paidApart reports whether sale o is paid by tender orders apart from it (a
// split sale) rather than being its own only tender (an order of one tender, as
// every sale was journaled before sales were split). It is the one test that
// tells the two apart: saleView reads every sale through it, and the order's
// state machine (which events an order takes, what it paid) asks it where the
// journal's events differ.
func paidApart(o *Order) bool { return o.Tender == TenderSplit }

// saleView reads order o as a sale, the one place that turns orders into
// sales: a split sale with each tender's order (tender loads one, nil when its
// intent never reached the journal), an order of one tender as a sale whose
// only tender is itself. o is a sale, not a split sale's tender.
func saleView(o *Order, tender func(id string) (*Order, error)) (*SaleStatus, error) {
	st := &SaleStatus{Sale: o, split: paidApart(o)}
	tenders := o.Tenders
	if !st.split {
		tenders = []SaleTender{{OrderID: o.ID, Kind: o.Tender, Amount: o.Amount, NoteNo: o.NoteNo}}
	}
	for _, t := range tenders {
		v := TenderView{SaleTender: t}
		c := o
		if st.split {
			var err error
			if c, err = tender(t.OrderID); err != nil {
				return nil, err
			}
		}
		if c != nil {
			v.Order, v.State = c, c.State
			v.Verified = c.State.Paid() && c.Verified
		}
		switch {
		case v.Paid():
			st.Paid += t.Amount
		case v.Pending():
			st.Pending += t.Amount
		}
		st.Tenders = append(st.Tenders, v)
	}
	st.Due = max(o.Amount-st.Paid-st.Pending, 0)
	return st, nil
}

// SaleOrderIDs are the ids of the orders o is read with as a sale (saleView)
// besides itself: a split sale's tenders' orders, a tender's sale; none for an
// order of one tender. The ledger and the store server's day report load them
// to count a day's sales.
func SaleOrderIDs(o *Order) []string {
	if o.Sale != "" {
		return []string{o.Sale}
	}
	var ids []string
	for _, t := range o.Tenders {
		ids = append(ids, t.OrderID)
	}
	return ids
}

// orders are the orders that hold the sale's money: each tender's order that
// reached the journal (the sale's own, for a sale of one tender).
func (s *SaleStatus) orders() []*Order {
	var out []*Order
	for _, t := range s.Tenders {
		if t.Order != nil {
			out = append(out, t.Order)
		}
	}
	return out
}

// paidTenders are the paid tenders' orders apart from the sale, which its
// receipt prints one by one; none for a sale of one tender, whose receipt
// prints its own payment.
func (s *SaleStatus) paidTenders() []Order {
	var out []Order
	for _, t := range s.Tenders {
		if t.Paid() && t.Order != s.Sale {
			out = append(out, *t.Order)
		}
	}
	return out
}

// through is the order a refund of the sale naming tender id goes through at
// the payment service: that tender's order (a split sale's card refund names
// it), or, for a refund naming none of a sale of one tender, the sale itself;
// nil when the sale has no such tender.
func (s *SaleStatus) through(id string) *Order {
	for _, t := range s.Tenders {
		if t.Order != nil && (t.Order.ID == id || (id == "" && t.Order == s.Sale)) {
			return t.Order
		}
	}
	return nil
}

// returnable is what of a paid sale can be given back now and where its money
// can go, the default first: a sale of one tender by its own refunds and rule
// (ReturnDestinations), a split sale by what each tender paid (splitLeft).
func (s *SaleStatus) returnable() (Paise, []RefundTo) {
	if !s.split {
		return s.Sale.Refundable(), ReturnDestinations(s.Sale)
	}
	left := s.left()
	return left.Total, splitDestinations(left)
}

// Complete reports whether the sale is paid and has its document number.
func (s *SaleStatus) Complete() bool { return s.Sale.State.Paid() }

// Errors of split tender.
var (
	// ErrNotSplitSale reports an order id that is not a split-tender sale.
	ErrNotSplitSale = errors.New("not a split-tender sale")
	// ErrTenderTooLarge reports a tender of more than is left to pay.
	ErrTenderTooLarge = errors.New("the tender is more than is left to pay")
	// ErrSaleClosed reports a tender or void on a sale that is paid or voided.
	ErrSaleClosed = errors.New("the sale is no longer open")
	// ErrNoNotes reports a credit-note tender on a terminal with no credit-note ledger.
	ErrNoNotes = sentenceError{"no credit-note ledger", "Credit notes cannot be redeemed on this terminal; take another payment method."}
)

// saleStateWords says where a split sale stands, for a sentence.
func saleStateWords(s OrderState) string {
	switch {
	case s.Paid():
		return "paid in full"
	case s == StateVoided:
		return "voided"
	}
	return string(s)
}

// TenderError refuses a tender of more than is left to pay (or of nothing).
type TenderError struct {
	Amount, Due, Pending Paise
}

func (e *TenderError) Error() string {
	return fmt.Sprintf("pos: tender of %s with %s due: %s", e.Amount, e.Due, ErrTenderTooLarge)
}

// Is matches ErrTenderTooLarge.
func (e *TenderError) Is(target error) bool { return target == ErrTenderTooLarge }

// Sentence says what is left and what to do.
func (e *TenderError) Sentence() string {
	switch {
	case e.Due == 0 && e.Pending > 0:
		return fmt.Sprintf("Nothing is left to pay while a payment of %s is being checked; wait for its result.", e.Pending)
	case e.Due == 0:
		return "Nothing is left to pay on this sale."
	case e.Amount <= 0:
		return fmt.Sprintf("Type an amount for this tender; %s is left to pay.", e.Due)
	}
	return fmt.Sprintf("Only %s is left to pay; type at most that for this tender.", e.Due)
}

// openSalesDays is how many days back OpenSales reads in a journal whose Z
// reports do not list the sales open at their close (written before they did);
// maxOpenSalesDays bounds the reading back to the last Z that lists them (days
// with no sale cost one index look-up each).
const (
	openSalesDays    = 62
	maxOpenSalesDays = 400
)

// oneTenderRows gives a report's sale of one tender one row, as an order of
// one tender has: the sale's row (its id, document number and GST) and its
// tender's (how it was paid, what was captured and given back) become one,
// in the tender's kind. A sale of several tenders keeps a row for itself and
// one per tender.
func oneTenderRows(rows []ReportRow, byID map[string]*Order) []ReportRow {
	at := make(map[string]int, len(rows))
	for i, r := range rows {
		at[r.OrderID] = i
	}
	gone := map[int]bool{}
	for i, r := range rows {
		s := byID[r.OrderID]
		if r.Tender != TenderSplit || s == nil || !paidApart(s) || len(s.Tenders) != 1 {
			continue
		}
		j, ok := at[s.Tenders[0].OrderID]
		if !ok {
			continue
		}
		t := rows[j]
		m := t
		m.OrderID, m.SaleDay, m.Time, m.Amount = r.OrderID, r.SaleDay, r.Time, r.Amount
		m.ReceiptNo, m.GST, m.Refunded = r.ReceiptNo, r.GST, r.Refunded+t.Refunded
		m.DocumentNo, m.doc = r.DocumentNo, r.doc
		m.CreditNotes = append(slices.Clone(r.CreditNotes), t.CreditNotes...)
		m.notes = append(slices.Clone(r.notes), t.notes...)
		if !t.Status.Paid() || refundRank(r.Status) > refundRank(t.Status) {
			// A paid sale's refunds are journaled on the sale: its state says
			// what was given back, not its tender's.
			m.Status = r.Status
		}
		rows[i] = m
		gone[j] = true
	}
	if len(gone) == 0 {
		return rows
	}
	out := rows[:0]
	for i, r := range rows {
		if !gone[i] {
			out = append(out, r)
		}
	}
	return out
}

// refundRank orders the states of a paid order by how much of it was given
// back.
func refundRank(s OrderState) int {
	switch s {
	case StatePartlyRefunded:
		return 1
	case StateRefunded:
		return 2
	}
	return 0
}

// oneTenderSummaries gives the journal screen's sale of one tender one row,
// as an order of one tender has: the sale's (its id, document, what may be
// refunded) paid as its tender says (the tender's kind and card; its state
// while the sale is open, FAILED or UNKNOWN). A sale of several tenders keeps
// a row for itself and one per tender.
func oneTenderSummaries(rows []OrderSummary, orders []*Order) []OrderSummary {
	byID := make(map[string]*Order, len(orders))
	for _, o := range orders {
		byID[o.ID] = o
	}
	at := make(map[string]int, len(rows))
	for i, r := range rows {
		at[r.OrderID] = i
	}
	gone := map[int]bool{}
	for i, r := range rows {
		s := byID[r.OrderID]
		if s == nil || !paidApart(s) || len(s.Tenders) != 1 {
			continue
		}
		j, ok := at[s.Tenders[0].OrderID]
		if !ok {
			continue
		}
		t := rows[j]
		m := r
		m.Tender, m.Detail, m.CardLast4, m.Refunded = t.Tender, t.Detail, t.CardLast4, t.Refunded
		if s.State == StateOpen {
			m.State, m.Refundable, m.MinRefund, m.NoRefund = t.State, t.Refundable, t.MinRefund, t.NoRefund
		}
		rows[i] = m
		gone[j] = true
	}
	out := rows[:0]
	for i, r := range rows {
		if !gone[i] {
			out = append(out, r)
		}
	}
	return out
}

// paidAtCounter reports whether complete sale o was paid wholly by tenders
// taken at the counter (cash, UPI to the shop's VPA), as its sale.completed
// names them: its money may go back in cash at any counter, as an order of one
// such tender's does.
func paidAtCounter(o *Order) bool {
	if !paidApart(o) || len(o.Covered) == 0 {
		return false
	}
	for _, id := range o.Covered {
		i := slices.IndexFunc(o.Tenders, func(t SaleTender) bool { return t.OrderID == id })
		if i < 0 || (o.Tenders[i].Kind != TenderCash && o.Tenders[i].Kind != TenderUPI) {
			return false
		}
	}
	return true
}
