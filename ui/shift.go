package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"galla/pos"
)

// Drawer is what the shift screen needs of the till: the shift open at this
// terminal, cash in and out of the drawer, and the close with the counted cash.
// pos.Drawer implements it.
type Drawer interface {
	CurrentShift(ctx context.Context) (*pos.Shift, error)
	OpenShift(ctx context.Context, staff string, float pos.Paise) (*pos.Shift, error)
	MoveCash(ctx context.Context, staff string, kind pos.CashMoveKind, amount pos.Paise, reason string) (*pos.Shift, error)
	CloseShift(ctx context.Context, staff string, count pos.CashCount) (*pos.ShiftReport, error)
	ShiftReport(ctx context.Context, id string) (*pos.ShiftReport, error)
}

// shiftScreen is the shift and its cash drawer: open with the counted float, cash
// paid in, paid out and dropped (each with a reason), the shift's X report, and
// the close with the cash counted note by note and the variance.
type shiftScreen struct {
	u       *UI
	root    fyne.CanvasObject
	state   *widget.Label
	report  *widget.Label // the shift's X report, monospaced
	message *widget.Label
	open    *action
	in      *action
	out     *action
	drop    *action
	closeA  *action
	back    *action
	current *pos.Shift

	// count is the close's count by denomination, kept for tests.
	count   map[int]*keyEntry
	coins   *keyEntry
	counted *widget.Label
}

func newShiftScreen(u *UI) *shiftScreen {
	s := &shiftScreen{u: u}
	s.state = widget.NewLabel("")
	s.state.Wrapping = fyne.TextWrapWord
	s.report = widget.NewLabel("")
	s.report.TextStyle = fyne.TextStyle{Monospace: true}
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	s.open = u.newAction("Open shift", fyne.KeyF5, 0, s.askOpen)
	s.in = u.newAction("Paid in", fyne.KeyF6, 0, func() { s.askMove(pos.CashIn) })
	s.out = u.newAction("Paid out", fyne.KeyF7, 0, func() { s.askMove(pos.CashOut) })
	s.drop = u.newAction("Drop", fyne.KeyF8, 0, func() { s.askMove(pos.CashDrop) })
	s.closeA = u.newAction("Close shift", fyne.KeyF3, 0, s.askClose)
	s.back = u.newAction("Back", fyne.KeyEscape, 0, func() { u.goTo(u.sale) })
	buttons := container.NewGridWithColumns(6, s.back.btn, s.open.btn, s.in.btn, s.out.btn, s.drop.btn, s.closeA.btn)
	s.root = container.NewPadded(container.NewBorder(container.NewVBox(heading("Shift and cash drawer"), s.state),
		container.NewVBox(s.message, buttons), nil, nil, container.NewVScroll(s.report)))
	return s
}

func (s *shiftScreen) view() fyne.CanvasObject { return s.root }

func (s *shiftScreen) actions() []*action {
	return []*action{s.open, s.in, s.out, s.drop, s.closeA, s.back}
}

func (s *shiftScreen) shown() { s.u.win.Canvas().Unfocus() }

// openScreen shows the screen with the shift read afresh.
func (s *shiftScreen) openScreen() {
	s.u.goTo(s)
	s.load("")
}

// load reads the open shift (or the last one) and its report.
func (s *shiftScreen) load(msg string) {
	d := s.u.till.Drawer
	s.u.async(func(ctx context.Context) func() {
		cur, err := d.CurrentShift(ctx)
		var rep *pos.ShiftReport
		if err == nil {
			rep, err = d.ShiftReport(ctx, "")
			if errorsIsNotFound(err) {
				err = nil
			}
		}
		return func() {
			if err != nil {
				s.message.SetText(sentence(err))
				return
			}
			s.show(cur, rep)
			if msg != "" {
				s.message.SetText(msg)
			}
		}
	})
}

func errorsIsNotFound(err error) bool { return errors.Is(err, pos.ErrShiftNotFound) }

// show puts the shift's standing and report on screen and enables what applies.
func (s *shiftScreen) show(cur *pos.Shift, rep *pos.ShiftReport) {
	s.current = cur
	if cur == nil {
		s.state.SetText("No shift is open at this terminal. Count the cash in the drawer and open a shift with it [F5]; cash sales need an open shift.")
		s.open.btn.Enable()
		for _, a := range []*action{s.in, s.out, s.drop, s.closeA} {
			a.btn.Disable()
		}
	} else {
		s.state.SetText(fmt.Sprintf("Shift %s is open since %s, float %s.", cur.ID, cur.Opened.Format("15:04"), cur.Float))
		s.open.btn.Disable()
		for _, a := range []*action{s.in, s.out, s.drop, s.closeA} {
			a.btn.Enable()
		}
	}
	s.report.SetText("")
	if rep != nil {
		var b bytes.Buffer
		_ = rep.WriteText(&b)
		s.report.SetText(b.String())
	}
}

func amountEntry(u *UI, placeholder string) *keyEntry {
	e := newKeyEntry(u)
	e.SetPlaceHolder(placeholder)
	return e
}

func (s *shiftScreen) askOpen() {
	float := amountEntry(s.u, "Cash in the drawer now, ₹ (0 if empty)")
	s.u.dialogs.ask("Open a shift", "Count the cash in the drawer: it is the shift's opening float.", []*keyEntry{float}, func(p *prompt) {
		f, err := parseRupees(float.Text)
		if err != nil || strings.TrimSpace(float.Text) == "" {
			p.say("Type the float in rupees, like 2000, or 0 for an empty drawer.")
			return
		}
		s.do(p, func(ctx context.Context, d Drawer) (string, error) {
			sh, err := d.OpenShift(ctx, s.u.user.ID, f)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Shift %s is open with a float of %s.", sh.ID, sh.Float), nil
		})
	})
}

func (s *shiftScreen) askMove(kind pos.CashMoveKind) {
	titles := map[pos.CashMoveKind]string{pos.CashIn: "Cash paid in", pos.CashOut: "Cash paid out", pos.CashDrop: "Cash drop to the safe"}
	amount := amountEntry(s.u, "Amount, ₹")
	reason := newKeyEntry(s.u)
	reason.SetPlaceHolder("Why (e.g. change from the bank, courier, safe drop)")
	if kind == pos.CashDrop {
		reason.SetText("safe drop")
	}
	s.u.dialogs.ask(titles[kind], "The amount and the reason are journaled with the shift.", []*keyEntry{amount, reason}, func(p *prompt) {
		a, err := parseRupees(amount.Text)
		if err != nil || a <= 0 {
			p.say("Type the amount in rupees, like 500.")
			return
		}
		why := reason.Text
		s.do(p, func(ctx context.Context, d Drawer) (string, error) {
			if _, err := d.MoveCash(ctx, s.u.user.ID, kind, a, why); err != nil {
				return "", err
			}
			return fmt.Sprintf("%s: %s (%s).", titles[kind], a, strings.TrimSpace(why)), nil
		})
	})
}

// askClose asks for the cash counted note by note, showing the total, what the
// drawer should hold and the variance as the count is typed.
func (s *shiftScreen) askClose() {
	d := s.u.till.Drawer
	s.count = map[int]*keyEntry{}
	var fields []*keyEntry
	for _, den := range pos.Denominations {
		e := amountEntry(s.u, "how many")
		e.label = fmt.Sprintf("₹%d ×", den)
		s.count[den] = e
		fields = append(fields, e)
	}
	s.coins = amountEntry(s.u, "₹, e.g. 0.50")
	s.coins.label = "Coins below ₹1"
	fields = append(fields, s.coins)
	s.counted = widget.NewLabel("")
	s.counted.TextStyle = fyne.TextStyle{Bold: true}
	var expected pos.Paise
	update := func() {
		c, err := s.readCount()
		if err != nil {
			s.counted.SetText(sentence(err))
			return
		}
		t := c.Total()
		s.counted.SetText(fmt.Sprintf("Counted %s · expected %s · variance %s", t, expected, t-expected))
	}
	for _, e := range fields {
		e.OnChanged = func(string) { update() }
	}
	p := s.u.dialogs.askWith("Close the shift", "Count the drawer: type how many notes and coins of each value (Enter moves on, the last Enter closes the shift).",
		s.counted, fields, func(p *prompt) {
			c, err := s.readCount()
			if err != nil {
				p.say(sentence(err))
				return
			}
			s.do(p, func(ctx context.Context, d Drawer) (string, error) {
				rep, err := d.CloseShift(ctx, s.u.user.ID, c)
				if err != nil {
					return "", err
				}
				v := rep.Shift.Variance
				switch {
				case v == 0:
					return fmt.Sprintf("Shift %s is closed: the drawer is exact (%s).", rep.Shift.ID, rep.Shift.Counted), nil
				case v < 0:
					return fmt.Sprintf("Shift %s is closed: the drawer is %s short.", rep.Shift.ID, -v), nil
				}
				return fmt.Sprintf("Shift %s is closed: the drawer is %s over.", rep.Shift.ID, v), nil
			})
		})

	s.u.async(func(ctx context.Context) func() {
		rep, err := d.ShiftReport(ctx, "")
		return func() {
			if err == nil && rep.Shift.Open() {
				expected = rep.Expected
				update()
				return
			}
			if err != nil {
				p.say(sentence(err))
			}
		}
	})
}

// readCount reads the close's count from its fields.
func (s *shiftScreen) readCount() (pos.CashCount, error) {
	c := pos.CashCount{Pieces: map[int]int{}}
	for den, e := range s.count {
		t := strings.TrimSpace(e.Text)
		if t == "" {
			continue
		}
		n, err := strconv.Atoi(t)
		if err != nil || n < 0 {
			return pos.CashCount{}, pos.Errorf("Type how many ₹%d notes or coins there are as a whole number, like 4.", den)
		}
		c.Pieces[den] = n
	}
	coins, err := parseRupees(s.coins.Text)
	if err != nil {
		return pos.CashCount{}, pos.Errorf("Type the coins below ₹1 in rupees, like 0.50.")
	}
	c.Paise = coins
	return c, nil
}

// do runs a change of the drawer in the background, then reloads the screen with
// its sentence.
func (s *shiftScreen) do(p *prompt, work func(ctx context.Context, d Drawer) (string, error)) {
	d := s.u.till.Drawer
	p.ok.Disable()
	s.u.async(func(ctx context.Context) func() {
		msg, err := work(ctx, d)
		return func() {
			p.ok.Enable()
			if err != nil {
				p.say(sentence(err))
				return
			}
			p.close()
			s.load(msg)
		}
	})
}

// BusinessDater tells the business day open now: today's date, after a Z
// report of it too (ADR 0010); pos.Books implements it.
type BusinessDater interface {
	BusinessDate() time.Time
}

// askAccept answers a Z refused for payments still unknown: it names them and
// lets a manager accept listing them and close the day. It reports whether err
// was that refusal.
func (s *journalScreen) askAccept(p *prompt, day time.Time, err error) bool {
	if !errors.Is(err, pos.ErrUnknownAtClose) {
		return false
	}
	p.close()
	pin := pinEntry(s.u, "Manager's PIN to accept and close")
	s.u.dialogs.ask("Payments still unknown", sentence(err)+" Type a manager's PIN to accept listing them as unknown and close the day, or Escape to check them first.",
		[]*keyEntry{pin}, func(q *prompt) {
			code := pin.Text
			pin.SetText("")
			q.ok.Disable()
			s.u.async(func(ctx context.Context) func() {
				text, err := s.u.closeDay(ctx, day, code, true)
				return func() {
					q.ok.Enable()
					if err != nil {
						q.say(sentence(err))
						return
					}
					q.close()
					s.message.SetText("The day is closed; the payments still unknown are listed with it.")
					s.u.showReport("Z report "+day.Format("2 Jan 2006"), text, day, "z")
				}
			})
		})
	return true
}
