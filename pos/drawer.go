package pos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"galla/receipts"
)

// SettingShiftsKept is the setting a terminal's first shift sets: from then on
// cash needs an open shift there.
const SettingShiftsKept = "shifts.kept"

// MaxCashMove bounds one cash movement and an opening float (₹10,00,000), far
// above what a drawer holds, so a mistyped amount is caught.
const MaxCashMove = Paise(10_00_000_00)

// Drawer is the counter's cash drawer: the shifts worked at it (opened with a
// counted float, closed with the cash counted), the cash paid in, paid out or
// dropped between sales, each shift's X report, and the pulse that opens the
// drawer. Whether cash may be taken at all (CashNeedsShift) is its rule too.
type Drawer struct{ *core }

// CurrentShift returns the shift open at this terminal, or nil when none is.
func (dr *Drawer) CurrentShift(ctx context.Context) (*Shift, error) {
	b, err := dr.shiftBook(ctx)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	if b.open == nil {
		return nil, nil
	}
	return b.open.clone(), nil
}

// Shifts lists the shifts opened on business day day (DayLayout), or all of them
// when day is "", oldest first. The closed shifts before the book's are read
// from their files: all of them for every shift, back to the day's first for
// a day.
func (dr *Drawer) Shifts(ctx context.Context, day string) ([]*Shift, error) {
	b, err := dr.shiftBook(ctx)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	var out []*Shift
	err = b.filedShifts(ctx, dr.j, func(s *Shift) bool {
		if day != "" && s.Day < day {
			return false // shifts open one after another, their days in order
		}
		if day == "" || s.Day == day {
			out = append(out, s)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	slices.Reverse(out)
	for _, s := range b.shifts {
		if day == "" || s.Day == day {
			out = append(out, s.clone())
		}
	}
	return out, nil
}

// OpenShift opens a shift for staff (their id) with the opening float as
// counted. Only one shift is open at a terminal at a time.
func (dr *Drawer) OpenShift(ctx context.Context, staff string, float Paise) (*Shift, error) {
	if float < 0 || float > MaxCashMove {
		return nil, wrapf(ErrBadCount, "The opening float %s is not a count of the drawer; count the cash and type it again.", float)
	}
	b, err := dr.shiftBook(ctx)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	if b.open != nil {
		return nil, wrapf(ErrShiftOpen, "Shift %s is open since %s; close it with the counted cash before opening another.", b.open.ID, b.open.Opened.Format("15:04"))
	}
	id, err := dr.ec.newID("S")
	if err != nil {
		return nil, err
	}
	if !b.everShift {
		// From the first shift on, cash needs an open shift; the setting says so
		// without reading the journal through (a crash before the shift opens
		// leaves cash waiting for one).
		err := dr.audit(ctx, Event{Kind: EvSettingsChanged, Staff: staff, Setting: &Setting{Key: SettingShiftsKept, Value: []byte("true")}})
		if err != nil {
			return nil, fmt.Errorf("pos: open shift: %w: %w", errJournalWrite, err)
		}
	}
	if err := dr.shiftRecord(ctx, EvShiftOpened, staff, ShiftRecord{ID: id, Float: float}); err != nil {
		return nil, err
	}
	if err := b.catchUp(ctx, dr.j); err != nil {
		return nil, err
	}
	if b.open == nil {
		return nil, ErrNoShift
	}
	return b.open.clone(), nil
}

// MoveCash journals cash paid in, paid out or dropped from the open shift's
// drawer, with its reason.
func (dr *Drawer) MoveCash(ctx context.Context, staff string, kind CashMoveKind, amount Paise, reason string) (*Shift, error) {
	reason = strings.TrimSpace(reason)
	switch {
	case kind != CashIn && kind != CashOut && kind != CashDrop:
		return nil, Errorf("A cash movement is in, out or drop.")
	case amount <= 0 || amount > MaxCashMove:
		return nil, wrapf(ErrBadCashMove, "The amount %s is not a cash movement; type the amount above zero.", amount)
	case reason == "":
		return nil, wrapf(ErrBadCashMove, "Say why the cash moved (a reason such as \"tea and snacks\" or \"safe drop\").")
	case len(reason) > 200:
		return nil, wrapf(ErrBadCashMove, "The reason is too long; say it in at most 200 characters.")
	}
	b, err := dr.shiftBook(ctx)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	if b.open == nil {
		return nil, wrapf(ErrNoShift, "No shift is open at this terminal; open one with the counted float first.")
	}
	if kind != CashIn {
		rep, err := dr.shiftReport(ctx, b.open)
		if err != nil {
			return nil, err
		}
		if amount > rep.Expected {
			return nil, wrapf(ErrBadCashMove, "The drawer should hold %s; %s cannot be taken out of it. Count the drawer and type the amount again.", rep.Expected, amount)
		}
	}
	mv := CashMove{Kind: kind, Amount: amount, Reason: reason, Staff: staff, At: dr.eng.Now()}
	if err := dr.shiftRecord(ctx, EvShiftCash, staff, ShiftRecord{ID: b.open.ID, Move: &mv}); err != nil {
		return nil, err
	}
	if err := b.catchUp(ctx, dr.j); err != nil {
		return nil, err
	}
	return b.open.clone(), nil
}

// CloseShift closes the open shift with the cash counted in the drawer and
// returns its report: expected, counted and the variance (counted − expected).
func (dr *Drawer) CloseShift(ctx context.Context, staff string, count CashCount) (*ShiftReport, error) {
	for d, n := range count.Pieces {
		if n < 0 || d <= 0 {
			return nil, wrapf(ErrBadCount, "A count of notes cannot be negative; count again.")
		}
	}
	counted := count.Total()
	if count.Paise < 0 || counted > MaxCashMove*10 {
		return nil, wrapf(ErrBadCount, "The counted cash %s is not a count of the drawer; count again.", counted)
	}
	b, err := dr.shiftBook(ctx)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	if b.open == nil {
		return nil, wrapf(ErrNoShift, "No shift is open at this terminal, so there is none to close.")
	}
	s := b.open
	rep, err := dr.shiftReport(ctx, s)
	if err != nil {
		return nil, err
	}
	rec := ShiftRecord{ID: s.ID, Count: &count, Counted: counted, Expected: rep.Expected, Variance: counted - rep.Expected}
	if err := dr.shiftRecord(ctx, EvShiftClosed, staff, rec); err != nil {
		return nil, err
	}
	if err := b.catchUp(ctx, dr.j); err != nil {
		return nil, err
	}
	return dr.shiftReport(ctx, s)
}

// CashNeedsShift refuses a cash tender or a cash refund while no shift is open at
// a terminal that works with shifts (one has ever been opened there): the cash
// must land in a counted drawer. A counter that never opened a shift (card only)
// is not asked for one.
func (dr *Drawer) CashNeedsShift(ctx context.Context) error {
	if kept, err := dr.keepsShifts(ctx); err != nil || !kept {
		return err // this counter keeps no shifts
	}
	b, err := dr.shiftBook(ctx)
	if errors.Is(err, ErrNoEventLog) {
		return nil
	}
	if err != nil {
		return err
	}
	defer b.mu.Unlock()
	if b.everShift && b.open == nil {
		return wrapf(ErrNoShift, "Cash needs an open shift: open one with the counted float (Shift [F12], or \"galla shift open\"), then go on with the cash.")
	}
	return nil
}

// keepsShifts reports whether a shift was ever opened at this terminal, without
// reading the journal through.
func (dr *Drawer) keepsShifts(ctx context.Context) (bool, error) {
	kept, err := dr.j.Setting(ctx, SettingShiftsKept)
	return kept != nil, err
}

// shiftRecord journals a shift event with its record as Data.
func (dr *Drawer) shiftRecord(ctx context.Context, kind EventKind, staff string, r ShiftRecord) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("pos: %s: %w", kind, err)
	}
	ev := Event{V: EventVersion, Time: dr.eng.Now(), Kind: kind, Day: dr.eng.Today(), Staff: staff, Data: data}
	if _, err := dr.j.Append(context.WithoutCancel(ctx), ev); err != nil {
		return fmt.Errorf("pos: journal %s: %w: %w", kind, errJournalWrite, err)
	}
	return nil
}

// ShiftReport returns the X report of shift id; "" is the open shift, or the last
// one when none is open.
func (dr *Drawer) ShiftReport(ctx context.Context, id string) (*ShiftReport, error) {
	b, err := dr.shiftBook(ctx)
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
		// A closed shift of before the book's, from the files of closed
		// shifts: the newest for "", else the one of that id.
		err := b.filedShifts(ctx, dr.j, func(f *Shift) bool {
			if id == "" || f.ID == id {
				s = f
			}
			return s == nil
		})
		if err != nil {
			return nil, err
		}
	}
	if s == nil {
		if id == "" {
			return nil, wrapf(ErrShiftNotFound, "No shift was opened at this terminal yet.")
		}
		return nil, wrapf(ErrShiftNotFound, "No shift %q is in the journal; see the shifts with \"galla shift list\".", id)
	}
	return dr.shiftReport(ctx, s)
}

// shiftReport computes s's report from its moves and the orders of its time.
// The book's lock is held.
func (dr *Drawer) shiftReport(ctx context.Context, s *Shift) (*ShiftReport, error) {
	if s.trimmed {
		// A closed shift read from a snapshot, which keeps no orders of a
		// closed shift: its report reads the events of its own time.
		f, err := shiftFromEvents(ctx, dr.j, s)
		if err != nil {
			return nil, err
		}
		s = f
	}
	r := &ShiftReport{Shift: s.clone(), StaffName: dr.staffName(ctx, s.Staff)}
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
		o, err := dr.j.Order(ctx, id)
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
	by, err := dr.cashierSales(ctx, s, orders)
	if err != nil {
		return nil, err
	}
	for _, ref := range s.refunds {
		o, err := dr.j.Order(ctx, ref.order)
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

// errSpanRead ends the read of a shift's events at its close.
var errSpanRead = errors.New("pos: past the shift's close")

// shiftFromEvents is closed shift s as its events give it, with its orders
// and refunds: the events from its shift.opened to its shift.closed, not the
// journal's whole history. A shift without them (none is kept so) reads the
// journal from its first event.
func shiftFromEvents(ctx context.Context, j Journal, s *Shift) (*Shift, error) {
	full := &book{replay: true}
	if s.from == 0 || s.to < s.from {
		if err := full.catchUp(ctx, j); err != nil {
			return nil, err
		}
	} else {
		err := eventsFrom(ctx, j, s.from, func(ev Event) error {
			if ev.Seq > s.to {
				return errSpanRead
			}
			return full.apply(ev)
		})
		if err != nil && !errors.Is(err, errSpanRead) {
			return nil, err
		}
	}
	f := full.find(s.ID)
	if f == nil {
		return nil, fmt.Errorf("pos: shift %s is not in events %d to %d: %w", s.ID, s.from, s.to, ErrBadEvent)
	}
	return f, nil
}

// cashierSales are the sales of shift s's orders by cashier, counted as the X
// report counts the day's (BuildReport) on each day they have money on: a sale
// once complete (each tender of a split sale in the shift that took it, under
// the sale's cashier), a cancelled invoice in no total, an open sale's tenders
// in none until it is complete, and what of them a void gave back as sold
// against its refund. Count is the shift's sales whose document stands
// (issued, not cancelled).
func (dr *Drawer) cashierSales(ctx context.Context, s *Shift, orders []*Order) (map[string]*CashierTotal, error) {
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
		sale, err := dr.eng.Sales.tenderOrder(ctx, o.Sale)
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
		c := &CashierTotal{Staff: staff, Name: dr.staffName(ctx, staff), ByTender: map[TenderKind]Paise{}}
		by[staff] = c
		for day := range days {
			rep := BuildReport(day, group, time.Time{})
			c.Amount += rep.GrossSales
			for _, st := range rep.Sales {
				c.ByTender[st.Tender] += st.Amount
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

// ShiftsText lists the shifts of business day day as the Z report's appendix:
// each shift's float, counted cash and variance; "" when the day had none.
func (dr *Drawer) ShiftsText(ctx context.Context, day string) string {
	if kept, _ := dr.keepsShifts(ctx); !kept {
		return ""
	}
	list, err := dr.Shifts(ctx, day)
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

// OpenDrawer opens the cash drawer wired to the receipt printer (the ESC/POS
// pulse). With no printer set up it does nothing: the drawer is opened by hand.
func (dr *Drawer) OpenDrawer(ctx context.Context) error {
	prof, ok, err := LoadPrinter(ctx, dr.j)
	if err != nil || !ok {
		return err
	}
	p, err := dr.prn(prof)
	if err != nil {
		return err
	}
	if err := p.Print(ctx, receipts.DrawerPulse()); err != nil {
		return Errorf("The cash drawer did not open (%v); open it with its key.", err)
	}
	return nil
}

// givingBackNeedsShift says whether giving back all that is left of o (a
// cancellation of its invoice, a void of its open sale) needs an open shift:
// it does when any of it goes back in cash (RefundDestination's default for
// each paid tender of a split sale, or for o's own tender) and the counter
// keeps shifts with none open.
func (dr *Drawer) givingBackNeedsShift(ctx context.Context, o *Order) error {
	st, err := dr.eng.Sales.saleOf(ctx, o)
	if err != nil {
		return err
	}
	for _, t := range st.Tenders {
		if t.Paid() && t.Order.Refundable() > 0 && RefundDestination(t.Order, "").MovesCash() {
			return dr.CashNeedsShift(ctx)
		}
	}
	return nil
}
