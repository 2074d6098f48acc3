package pos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// ShiftReport is the X report of one shift: the drawer's cash and the sales of
// each cashier while it was open.
type ShiftReport struct {
	Shift       *Shift
	StaffName   string // who opened it
	CashSales   Paise  // cash taken for sales, change given back
	CashRefunds Paise  // cash paid back for refunds
	CashIn      Paise
	CashOut     Paise
	Drops       Paise
	// Expected is what the drawer should hold: float + sales − refunds + in −
	// out − drops. At close it is what was journaled then.
	Expected  Paise
	ByCashier []CashierTotal
}

// CashierTotal is one cashier's paid sales in a shift, by tender.
type CashierTotal struct {
	Staff    string // staff id
	Name     string
	Count    int
	Amount   Paise
	ByTender map[TenderKind]Paise
}

// ShiftReport returns the X report of shift id; "" is the open shift, or the last
// one when none is open.
func (t *Till) ShiftReport(ctx context.Context, id string) (*ShiftReport, error) {
	b, err := t.shiftBook(ctx)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	var s *Shift
	switch {
	case id != "":
		s = b.find(id)
	case b.open != nil:
		s = b.open
	case len(b.shifts) > 0:
		s = b.shifts[len(b.shifts)-1]
	}
	if s == nil {
		if id == "" {
			return nil, wrapf(ErrShiftNotFound, "No shift was opened at this terminal yet.")
		}
		return nil, wrapf(ErrShiftNotFound, "No shift %q is in the journal; see the shifts with \"galla shift list\".", id)
	}
	return t.shiftReport(ctx, s)
}

// shiftReport computes s's report from its moves and the orders of its time.
// The book's lock is held.
func (t *Till) shiftReport(ctx context.Context, s *Shift) (*ShiftReport, error) {
	r := &ShiftReport{Shift: s.clone(), StaffName: t.staffName(ctx, s.Staff)}
	for _, m := range s.Moves {
		switch m.Kind {
		case CashIn:
			r.CashIn += m.Amount
		case CashOut:
			r.CashOut += m.Amount
		case CashDrop:
			r.Drops += m.Amount
		}
	}
	var orders []*Order
	for _, id := range s.orders {
		o, err := t.j.Order(ctx, id)
		if errors.Is(err, ErrOrderNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		orders = append(orders, o)
		if o.Tender == TenderCash && o.State.Paid() {
			// In the drawer: a cancelled sale's cash and its refund both
			// count, and an open sale's cash is there before its invoice.
			r.CashSales += o.CashTendered - o.Change
		}
	}
	by, err := t.cashierSales(ctx, s, orders)
	if err != nil {
		return nil, err
	}
	for _, ref := range s.refunds {
		o, err := t.j.Order(ctx, ref.order)
		if err != nil {
			continue
		}
		if rf := o.RefundByID(ref.txn); rf != nil && rf.Status == RefundDone && RefundDestination(o, rf.To).MovesCash() {
			r.CashRefunds += rf.Amount
		}
	}
	for _, c := range by {
		if c.Count > 0 || c.Amount != 0 {
			r.ByCashier = append(r.ByCashier, *c)
		}
	}
	slices.SortFunc(r.ByCashier, func(a, b CashierTotal) int { return strings.Compare(a.Name, b.Name) })
	r.Expected = s.Float + r.CashSales - r.CashRefunds + r.CashIn - r.CashOut - r.Drops
	if !s.Open() {
		r.Expected = s.Expected
	}
	return r, nil
}

// cashierSales are the sales of shift s's orders by cashier, counted as the X
// report counts the day's (BuildReport) on each day they have money on: a sale
// once complete (each tender of a split sale in the shift that took it, under
// the sale's cashier), a cancelled invoice in no total, an open sale's tenders
// in none until it is complete, and what of them a void gave back as sold
// against its refund. Count is the shift's sales whose document stands
// (issued, not cancelled).
func (t *Till) cashierSales(ctx context.Context, s *Shift, orders []*Order) (map[string]*CashierTotal, error) {
	// The sale of each tender tells whether the tender counts yet; the sale's
	// other tenders, taken in another shift, count there.
	all := slices.Clone(orders)
	byID := map[string]*Order{}
	for _, o := range orders {
		byID[o.ID] = o
	}
	for _, o := range orders {
		if o.Sale == "" || byID[o.Sale] != nil {
			continue
		}
		sale, err := t.eng.tenderOrder(ctx, o.Sale)
		if err != nil {
			return nil, err
		}
		if sale != nil {
			byID[sale.ID] = sale
			all = append(all, sale)
		}
	}
	owner := func(o *Order) string {
		if sale := byID[o.Sale]; o.Sale != "" && sale != nil {
			return sale.Staff
		}
		return o.Staff
	}
	groups := map[string][]*Order{}
	days := map[string]bool{s.Day: true}
	for _, o := range all {
		groups[owner(o)] = append(groups[owner(o)], o)
		if o.PaidDay != "" {
			days[o.PaidDay] = true
		}
		for _, rf := range o.Refunds {
			days[rf.Day] = true
		}
	}
	by := map[string]*CashierTotal{}
	for staff, group := range groups {
		c := &CashierTotal{Staff: staff, Name: t.staffName(ctx, staff), ByTender: map[TenderKind]Paise{}}
		by[staff] = c
		for day := range days {
			rep := BuildReport(day, group, time.Time{})
			c.Amount += rep.GrossSales
			for _, st := range rep.Sales {
				if st.Tender != TenderSplit {
					c.ByTender[st.Tender] += st.Amount
				}
			}
		}
		for _, o := range group {
			if o.Sale == "" && o.State.Paid() && !o.Voided() && slices.Contains(s.orders, o.ID) {
				c.Count++
			}
		}
	}
	return by, nil
}

// WriteText writes the shift report for the screen and the command line.
func (r *ShiftReport) WriteText(w io.Writer) error {
	s := r.Shift
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	state := "open"
	if !s.Open() {
		state = "closed " + s.Closed.Format("2006-01-02 15:04")
	}
	fmt.Fprintf(w, "SHIFT %s (%s)\nBusiness day %s, opened %s by %s\n\n", s.ID, state, s.Day, s.Opened.Format("2006-01-02 15:04"), r.StaffName)
	fmt.Fprintf(tw, "Opening float\t%s\t\n", s.Float)
	fmt.Fprintf(tw, "Cash sales\t%s\t\n", r.CashSales)
	fmt.Fprintf(tw, "Cash refunds\t-%s\t\n", r.CashRefunds)
	fmt.Fprintf(tw, "Paid in\t%s\t\n", r.CashIn)
	fmt.Fprintf(tw, "Paid out\t-%s\t\n", r.CashOut)
	fmt.Fprintf(tw, "Drops\t-%s\t\n", r.Drops)
	fmt.Fprintf(tw, "Expected in drawer\t%s\t\n", r.Expected)
	if !s.Open() {
		fmt.Fprintf(tw, "Counted\t%s\t\n", s.Counted)
		fmt.Fprintf(tw, "Variance\t%s\t\n", s.Variance)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if s.Count != nil && len(s.Count.Pieces) > 0 {
		fmt.Fprintln(w, "\nCounted by denomination:")
		for _, d := range Denominations {
			if n := s.Count.Pieces[d]; n > 0 {
				fmt.Fprintf(w, "  ₹%d × %d = %s\n", d, n, Rupees(int64(d*n)))
			}
		}
		if s.Count.Paise > 0 {
			fmt.Fprintf(w, "  coins = %s\n", s.Count.Paise)
		}
	}
	if len(s.Moves) > 0 {
		fmt.Fprintln(w, "\nCash movements:")
		for _, m := range s.Moves {
			fmt.Fprintf(w, "  %s %-4s %s — %s\n", m.At.Format("15:04"), m.Kind, m.Amount, m.Reason)
		}
	}
	fmt.Fprintln(w, "\nSales by cashier:")
	if len(r.ByCashier) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, c := range r.ByCashier {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(c.ByTender)) {
			parts = append(parts, fmt.Sprintf("%s %s", k, c.ByTender[k]))
		}
		fmt.Fprintf(w, "  %s: %d sale(s), %s (%s)\n", c.Name, c.Count, c.Amount, strings.Join(parts, ", "))
	}
	return nil
}

// ShiftsText lists the shifts of business day day as the Z report's appendix:
// each shift's float, counted cash and variance; "" when the day had none.
func (t *Till) ShiftsText(ctx context.Context, day string) string {
	if kept, _ := t.keepsShifts(ctx); !kept {
		return ""
	}
	list, err := t.Shifts(ctx, day)
	if err != nil || len(list) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Shifts of business day %s:\n", day)
	for _, s := range list {
		state := "open"
		if !s.Open() {
			state = fmt.Sprintf("counted %s, variance %s", s.Counted, s.Variance)
		}
		fmt.Fprintf(&b, "  %s %s–%s float %s, %s\n", s.ID, s.Opened.Format("15:04"), closedAt(s), s.Float, state)
	}
	return b.String()
}

func closedAt(s *Shift) string {
	if s.Open() {
		return ""
	}
	return s.Closed.Format("15:04")
}
