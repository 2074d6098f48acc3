package pos

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// SettingShiftsKept is the setting a terminal's first shift sets: from then on
// cash needs an open shift there.
const SettingShiftsKept = "shifts.kept"

// MaxCashMove bounds one cash movement and an opening float (₹10,00,000), far
// above what a drawer holds, so a mistyped amount is caught.
const MaxCashMove = Paise(10_00_000_00)

// CurrentShift returns the shift open at this terminal, or nil when none is.
func (t *Till) CurrentShift(ctx context.Context) (*Shift, error) {
	b, err := t.shiftBook(ctx)
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
// when day is "", oldest first.
func (t *Till) Shifts(ctx context.Context, day string) ([]*Shift, error) {
	b, err := t.shiftBook(ctx)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	var out []*Shift
	for _, s := range b.shifts {
		if day == "" || s.Day == day {
			out = append(out, s.clone())
		}
	}
	return out, nil
}

// OpenShift opens a shift for staff (their id) with the opening float as
// counted. Only one shift is open at a terminal at a time.
func (t *Till) OpenShift(ctx context.Context, staff string, float Paise) (*Shift, error) {
	if float < 0 || float > MaxCashMove {
		return nil, wrapf(ErrBadCount, "The opening float %s is not a count of the drawer; count the cash and type it again.", float)
	}
	b, err := t.shiftBook(ctx)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	if b.open != nil {
		return nil, wrapf(ErrShiftOpen, "Shift %s is open since %s; close it with the counted cash before opening another.", b.open.ID, b.open.Opened.Format("15:04"))
	}
	id, err := t.eng.newID("S")
	if err != nil {
		return nil, err
	}
	if !b.everShift {
		// From the first shift on, cash needs an open shift; the setting says so
		// without reading the journal through (a crash before the shift opens
		// leaves cash waiting for one).
		err := t.audit(ctx, Event{Kind: EvSettingsChanged, Staff: staff, Setting: &Setting{Key: SettingShiftsKept, Value: []byte("true")}})
		if err != nil {
			return nil, fmt.Errorf("pos: open shift: %w: %w", errJournalWrite, err)
		}
	}
	if err := t.shiftRecord(ctx, EvShiftOpened, staff, ShiftRecord{ID: id, Float: float}); err != nil {
		return nil, err
	}
	if err := b.catchUp(ctx, t.j); err != nil {
		return nil, err
	}
	if b.open == nil {
		return nil, ErrNoShift
	}
	return b.open.clone(), nil
}

// MoveCash journals cash paid in, paid out or dropped from the open shift's
// drawer, with its reason.
func (t *Till) MoveCash(ctx context.Context, staff string, kind CashMoveKind, amount Paise, reason string) (*Shift, error) {
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
	b, err := t.shiftBook(ctx)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	if b.open == nil {
		return nil, wrapf(ErrNoShift, "No shift is open at this terminal; open one with the counted float first.")
	}
	if kind != CashIn {
		rep, err := t.shiftReport(ctx, b.open)
		if err != nil {
			return nil, err
		}
		if amount > rep.Expected {
			return nil, wrapf(ErrBadCashMove, "The drawer should hold %s; %s cannot be taken out of it. Count the drawer and type the amount again.", rep.Expected, amount)
		}
	}
	mv := CashMove{Kind: kind, Amount: amount, Reason: reason, Staff: staff, At: t.eng.Now()}
	if err := t.shiftRecord(ctx, EvShiftCash, staff, ShiftRecord{ID: b.open.ID, Move: &mv}); err != nil {
		return nil, err
	}
	if err := b.catchUp(ctx, t.j); err != nil {
		return nil, err
	}
	return b.open.clone(), nil
}

// CloseShift closes the open shift with the cash counted in the drawer and
// returns its report: expected, counted and the variance (counted − expected).
func (t *Till) CloseShift(ctx context.Context, staff string, count CashCount) (*ShiftReport, error) {
	for d, n := range count.Pieces {
		if n < 0 || d <= 0 {
			return nil, wrapf(ErrBadCount, "A count of notes cannot be negative; count again.")
		}
	}
	counted := count.Total()
	if count.Paise < 0 || counted > MaxCashMove*10 {
		return nil, wrapf(ErrBadCount, "The counted cash %s is not a count of the drawer; count again.", counted)
	}
	b, err := t.shiftBook(ctx)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	if b.open == nil {
		return nil, wrapf(ErrNoShift, "No shift is open at this terminal, so there is none to close.")
	}
	s := b.open
	rep, err := t.shiftReport(ctx, s)
	if err != nil {
		return nil, err
	}
	rec := ShiftRecord{ID: s.ID, Count: &count, Counted: counted, Expected: rep.Expected, Variance: counted - rep.Expected}
	if err := t.shiftRecord(ctx, EvShiftClosed, staff, rec); err != nil {
		return nil, err
	}
	if err := b.catchUp(ctx, t.j); err != nil {
		return nil, err
	}
	return t.shiftReport(ctx, s)
}

// CashNeedsShift refuses a cash tender or a cash refund while no shift is open at
// a terminal that works with shifts (one has ever been opened there): the cash
// must land in a counted drawer. A counter that never opened a shift (card only)
// is not asked for one.
func (t *Till) CashNeedsShift(ctx context.Context) error {
	if kept, err := t.keepsShifts(ctx); err != nil || !kept {
		return err // this counter keeps no shifts
	}
	b, err := t.shiftBook(ctx)
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

// ManagerByPIN returns the manager whose PIN pin is, within this till's limit of
// wrong manager PINs: the command line acts on a manager's authority.
func (t *Till) ManagerByPIN(ctx context.Context, pin string) (StaffMember, error) {
	m, err := t.authorise(ctx, pin)
	if err != nil {
		return StaffMember{}, err
	}
	return memberOf(*m), nil
}

// keepsShifts reports whether a shift was ever opened at this terminal, without
// reading the journal through.
func (t *Till) keepsShifts(ctx context.Context) (bool, error) {
	kept, err := t.j.Setting(ctx, SettingShiftsKept)
	return kept != nil, err
}
