package store

import (
	"errors"
	"slices"
	"strings"
	"time"

	"galla/pos"
)

// CounterDay is one counter's day as the store's projections hold it, summed
// by the counter's own report (pos.BuildReport) over the counter's orders as
// projected: the same rules, read from pos, so the store says what the counter
// says. Sales are the sales complete that day (a split sale's tenders once its
// document is issued), refunds the refunds done that day by where their money
// went, unknown the orders of that day whose outcome is not final.
type CounterDay struct {
	Terminal     string
	Sales        []pos.TenderTotal
	GST          []pos.RateTotal
	GrossSales   pos.Paise
	Refunds      []pos.TenderTotal
	Refunded     pos.Paise
	NetSales     pos.Paise
	CashExpected pos.Paise
	Tax          pos.Paise
	Failed       pos.Count
	Unknown      pos.Count
	Abandoned    pos.Count
	Cancelled    pos.Count // documents cancelled (pos/cancel.go): in no total above
	OpenPaid     pos.Paise // paid on split sales not complete: in no sales total, its cash in CashExpected
}

// DayReport is the store's day: each counter with anything that day, and the
// store's totals (their sum).
type DayReport struct {
	Day      string
	Counters []CounterDay
	Store    CounterDay // Terminal is ""
	// OverRefunds are the refunds of the day that took an invoice beyond what
	// was left of it across counters (AlarmOverRefund): in the totals above
	// as the counters paid them, and shown apart so that the money paid out
	// twice is not netted away silently. OverRefunded is their sum.
	OverRefunds  []OverRefund
	OverRefunded pos.Paise
}

// OverRefund is a refund that took an invoice beyond what was left of it
// across counters: money paid out twice.
type OverRefund struct {
	Terminal string    `json:"terminal"`  // the counter whose refund went over
	RefundID string    `json:"refund_id"` // that refund's unique_txn_id
	Number   string    `json:"number"`    // the invoice as printed
	Others   string    `json:"others"`    // the counters that refunded it before
	Amount   pos.Paise `json:"amount"`    // the money at stake
	Units    int       `json:"units,omitempty"`
}

// counterDay is terminal's day from its report.
func counterDay(terminal string, r *pos.Report) CounterDay {
	c := CounterDay{Terminal: terminal, Sales: r.Sales, GST: r.GST, GrossSales: r.GrossSales, Refunds: r.Refunds,
		Refunded: r.Refunded, NetSales: r.NetSales, CashExpected: r.CashExpected, Failed: r.Failed, Unknown: r.Unknown,
		Abandoned: r.Abandoned, Cancelled: r.Cancelled, OpenPaid: r.OpenPaid}
	for _, g := range r.GST {
		c.Tax += g.Tax
	}
	sortTotals(&c)
	return c
}

// SumCounters adds counters' days up: the store's totals.
func SumCounters(cs []CounterDay) CounterDay {
	var s CounterDay
	sales, refunds := map[pos.TenderKind]*pos.TenderTotal{}, map[pos.TenderKind]*pos.TenderTotal{}
	gst := map[pos.Rate]*pos.RateTotal{}
	for _, c := range cs {
		for _, t := range c.Sales {
			addTender(sales, t)
		}
		for _, t := range c.Refunds {
			addTender(refunds, t)
		}
		for _, g := range c.GST {
			x := gst[g.Rate]
			if x == nil {
				x = &pos.RateTotal{Rate: g.Rate}
				gst[g.Rate] = x
			}
			x.Amount += g.Amount
			x.Taxable += g.Taxable
			x.Tax += g.Tax
			x.CGST += g.CGST
			x.SGST += g.SGST
		}
		s.GrossSales += c.GrossSales
		s.Refunded += c.Refunded
		s.NetSales += c.NetSales
		s.CashExpected += c.CashExpected
		s.Tax += c.Tax
		s.Failed.Count += c.Failed.Count
		s.Failed.Amount += c.Failed.Amount
		s.Unknown.Count += c.Unknown.Count
		s.Unknown.Amount += c.Unknown.Amount
		s.Abandoned.Count += c.Abandoned.Count
		s.Abandoned.Amount += c.Abandoned.Amount
		s.Cancelled.Count += c.Cancelled.Count
		s.Cancelled.Amount += c.Cancelled.Amount
		s.OpenPaid += c.OpenPaid
	}
	for _, t := range sales {
		s.Sales = append(s.Sales, *t)
	}
	for _, t := range refunds {
		s.Refunds = append(s.Refunds, *t)
	}
	for _, g := range gst {
		s.GST = append(s.GST, *g)
	}
	sortTotals(&s)
	return s
}

func addTender(m map[pos.TenderKind]*pos.TenderTotal, t pos.TenderTotal) {
	x := m[t.Tender]
	if x == nil {
		x = &pos.TenderTotal{Tender: t.Tender}
		m[t.Tender] = x
	}
	x.Count += t.Count
	x.Amount += t.Amount
}

func sortTotals(c *CounterDay) {
	if c.Sales == nil {
		c.Sales = []pos.TenderTotal{}
	}
	if c.Refunds == nil {
		c.Refunds = []pos.TenderTotal{}
	}
	// As the counter's report lists them (pos.BuildReport).
	byTender := func(a, b pos.TenderTotal) int { return strings.Compare(string(a.Tender), string(b.Tender)) }
	slices.SortFunc(c.Sales, byTender)
	slices.SortFunc(c.Refunds, byTender)
	slices.SortFunc(c.GST, func(a, b pos.RateTotal) int { return a.Rate.Compare(b.Rate) })
}

// compareTerminal orders terminal ids: T2 before T10.
func compareTerminal(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// CounterZ is one counter's sealed Z report as the store received it. A date
// may have more than one at a counter (ADR 0010): each closes a period of the
// date, and the store's Z lists and sums them all.
type CounterZ struct {
	Terminal     string    `json:"terminal"`
	ZNo          uint64    `json:"z_no"`
	Period       int       `json:"period,omitempty"` // the period of the date it closes; 1 is the first
	GrossSales   pos.Paise `json:"gross_sales"`
	Refunded     pos.Paise `json:"refunded"`
	NetSales     pos.Paise `json:"net_sales"`
	CashExpected pos.Paise `json:"cash_expected"`
	Tax          pos.Paise `json:"tax"`
}

// StoreZ is the store's Z report of a day: the sum of the counters' Z reports.
type StoreZ struct {
	Day          string     `json:"day"`
	Counters     []CounterZ `json:"counters"`
	GrossSales   pos.Paise  `json:"gross_sales"`
	Refunded     pos.Paise  `json:"refunded"`
	NetSales     pos.Paise  `json:"net_sales"`
	CashExpected pos.Paise  `json:"cash_expected"`
	Tax          pos.Paise  `json:"tax"`
	// OverRefunds are the day's refunds that paid money out twice across
	// counters (DayReport.OverRefunds); OverRefunded their sum, which the
	// net above includes.
	OverRefunds  []OverRefund `json:"over_refunds,omitempty"`
	OverRefunded pos.Paise    `json:"over_refunded,omitempty"`
	ClosedBy     string       `json:"closed_by"`
	ClosedAt     time.Time    `json:"closed_at"`
	// Held is, per counter, the last event the store held when the day was
	// closed: an event of the day beyond it came late (Reports.LateEvents).
	// A Z sealed before it was kept has none, and its late events are those
	// received after ClosedAt.
	Held map[string]uint64 `json:"held,omitempty"`
}

// LateEvent is an event of a day whose store Z is sealed that reached the
// store after the Z: the live totals of the day count it, the sealed Z does
// not.
type LateEvent struct {
	Terminal string
	Seq      uint64
	Kind     string
	OrderID  string
	Received time.Time
}

// ErrStoreZRefused is wrapped by every refusal of CloseStoreDay; the error's
// sentence says which counter or payment and what to do.
var ErrStoreZRefused = errors.New("the store's day cannot be closed yet")

// zRefusal is a refusal of the store's Z with its sentence.
type zRefusal struct{ msg string }

func (e *zRefusal) Error() string { return e.msg }
func (e *zRefusal) Unwrap() error { return ErrStoreZRefused }
