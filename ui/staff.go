package ui

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"galla/pos"
)

// StaffInfo is one member of staff as the staff list shows them (pos's own type).
type StaffInfo = pos.StaffInfo

// StaffAdmin is what the staff screen needs of the till beyond signing in: the
// list with each member's lock, and a manager's changes, each on a manager's PIN.
// pos.Crew implements it.
type StaffAdmin interface {
	StaffList(ctx context.Context) ([]StaffInfo, error)
	AddStaffBy(ctx context.Context, name string, role Role, pin, managerPIN string) (StaffMember, error)
	ChangeStaff(ctx context.Context, name string, change pos.StaffChange, pin, managerPIN string) (StaffInfo, error)
	SetStaffLimits(ctx context.Context, name string, l *pos.StaffLimits, managerPIN string) (StaffInfo, error)
}

// staffScreen is the staff list of Settings (managers): who may sign in, who is
// locked out or disabled, each cashier's limits; add, unlock, disable or enable,
// reset a PIN, set limits, and change one's own PIN. Up and Down pick the member.
type staffScreen struct {
	u       *UI
	root    fyne.CanvasObject
	list    *widget.List
	rows    []StaffInfo
	hit     int
	message *widget.Label

	add, unlock, toggle, reset, limits, own, back *action
	up, down                                      *action // ↑ and ↓ pick the member
}

func newStaffScreen(u *UI) *staffScreen {
	s := &staffScreen{u: u}
	s.list = widget.NewList(
		func() int { return len(s.rows) },
		func() fyne.CanvasObject {
			row := container.NewGridWithColumns(4, widget.NewLabel("Staff member name"), widget.NewLabel("manager"),
				widget.NewLabel("locked until 00:00"), widget.NewLabel("discount ₹00,000, refund ₹00,000"))
			for _, o := range row.Objects {
				o.(*widget.Label).Truncation = fyne.TextTruncateEllipsis
			}
			return row
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			r := s.rows[i]
			c := o.(*fyne.Container)
			c.Objects[0].(*widget.Label).SetText(r.Name)
			c.Objects[1].(*widget.Label).SetText(string(r.Role))
			c.Objects[2].(*widget.Label).SetText(staffStatus(r))
			c.Objects[3].(*widget.Label).SetText(limitsText(r))
		})
	s.list.OnSelected = func(i widget.ListItemID) { s.hit = i }
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	s.add = u.newAction("Add", fyne.KeyF5, 0, s.askAdd)
	s.unlock = u.newAction("Unlock", fyne.KeyF6, 0, func() { s.askChange(pos.StaffUnlock) })
	s.toggle = u.newAction("Disable / enable", fyne.KeyF7, 0, s.askToggle)
	s.reset = u.newAction("Reset PIN", fyne.KeyF8, 0, func() { s.askChange(pos.StaffResetPIN) })
	s.limits = u.newAction("Limits", fyne.KeyF3, 0, s.askLimits)
	s.own = u.newAction("Change my PIN", fyne.KeyF4, 0, s.askOwnPIN)
	s.back = u.newAction("Back", fyne.KeyEscape, 0, u.openSettings)
	s.up = u.newAction("Up", fyne.KeyUp, 0, func() { s.move(-1) })
	s.down = u.newAction("Down", fyne.KeyDown, 0, func() { s.move(1) })
	help := widget.NewLabel("Up and Down pick a member. A change needs a manager's PIN; a cashier's limits let them give that much discount, or refund that much, with their own PIN.")
	help.Wrapping = fyne.TextWrapWord
	// Two rows of keys: seven in one row are wider than a 1280×720 screen.
	buttons := container.NewGridWithColumns(4, s.back.btn, s.add.btn, s.unlock.btn, s.toggle.btn, s.reset.btn, s.limits.btn, s.own.btn)
	header := container.NewGridWithColumns(4, widget.NewLabel("Name"), widget.NewLabel("Role"), widget.NewLabel("Status"), widget.NewLabel("Limits"))
	s.root = container.NewPadded(container.NewBorder(container.NewVBox(heading("Staff"), help, header), container.NewVBox(s.message, buttons), nil, nil, s.list))
	return s
}

func (s *staffScreen) view() fyne.CanvasObject { return s.root }

func (s *staffScreen) actions() []*action {
	return []*action{s.add, s.unlock, s.toggle, s.reset, s.limits, s.own, s.back, s.up, s.down}
}

func (s *staffScreen) shown() { s.u.win.Canvas().Unfocus() }

func (s *staffScreen) move(d int) {
	if len(s.rows) == 0 {
		return
	}
	s.hit = max(0, min(s.hit+d, len(s.rows)-1))
	s.list.Select(s.hit)
	s.list.ScrollTo(s.hit)
}

// staffStatus is a member's standing in words.
func staffStatus(r StaffInfo) string {
	switch {
	case r.Disabled:
		return "disabled"
	case !r.LockedUntil.IsZero():
		return "locked until " + r.LockedUntil.Format("15:04")
	}
	return "active"
}

// limitsText is a member's own limits in words.
func limitsText(r StaffInfo) string {
	switch {
	case r.Role == RoleManager:
		return "no limit (manager)"
	case r.Limits == nil:
		return "shop's discount limit; refunds by a manager"
	}
	return fmt.Sprintf("discount %s, refund %s", r.Limits.Discount, r.Limits.Refund)
}

// open shows the screen with the staff list read afresh.
func (s *staffScreen) open() {
	s.u.goTo(s)
	s.load("")
}

// load reads the list; msg, if any, replaces the screen's message.
func (s *staffScreen) load(msg string) {
	adm := s.u.till.Staffer
	s.u.async(func(ctx context.Context) func() {
		list, err := adm.StaffList(ctx)
		return func() {
			if err != nil {
				s.message.SetText(sentence(err))
				return
			}
			s.rows = list
			s.hit = max(0, min(s.hit, len(list)-1))
			s.list.Refresh()
			if len(list) > 0 {
				s.list.Select(s.hit)
			}
			if msg != "" {
				s.message.SetText(msg)
			}
		}
	})
}

// picked is the member the pick is on.
func (s *staffScreen) picked() (StaffInfo, bool) {
	if s.hit < 0 || s.hit >= len(s.rows) {
		s.message.SetText("Pick a member of staff with ↑ and ↓ first.")
		return StaffInfo{}, false
	}
	return s.rows[s.hit], true
}

func pinEntry(u *UI, placeholder string) *keyEntry {
	e := newKeyEntry(u)
	e.Password = true
	e.noCopy = true
	e.SetPlaceHolder(placeholder)
	return e
}

// run does a manager's change in the background and shows its sentence.
func (s *staffScreen) run(p *prompt, done string, work func(ctx context.Context, adm StaffAdmin) error) {
	adm := s.u.till.Staffer
	p.ok.Disable()
	s.u.async(func(ctx context.Context) func() {
		err := work(ctx, adm)
		return func() {
			p.ok.Enable()
			if err != nil {
				p.say(sentence(err))
				return
			}
			p.close()
			s.load(done)
		}
	})
}

func (s *staffScreen) askAdd() {
	name := newKeyEntry(s.u)
	name.SetPlaceHolder("Name")
	role := newKeyEntry(s.u)
	role.SetText(string(RoleCashier))
	role.SetPlaceHolder("cashier or manager")
	pin := pinEntry(s.u, "PIN (cashier 4–8 digits, manager 6–8)")
	again := pinEntry(s.u, "The same PIN again")
	mgr := pinEntry(s.u, "Manager's PIN")
	s.u.dialogs.ask("Add staff", "A cashier sells; a manager also refunds, closes the day and changes settings.",
		[]*keyEntry{name, role, pin, again, mgr}, func(p *prompt) {
			r := Role(strings.ToLower(strings.TrimSpace(role.Text)))
			if r != RoleCashier && r != RoleManager {
				p.say("The role is cashier or manager.")
				return
			}
			if pin.Text != again.Text {
				pin.SetText("")
				again.SetText("")
				p.say("The two PINs differ: type the PIN twice the same.")
				return
			}
			n, code, m := strings.TrimSpace(name.Text), pin.Text, mgr.Text
			pin.SetText("")
			again.SetText("")
			mgr.SetText("")
			s.run(p, n+" can sign in now.", func(ctx context.Context, adm StaffAdmin) error {
				_, err := adm.AddStaffBy(ctx, n, r, code, m)
				return err
			})
		})
}

func (s *staffScreen) askToggle() {
	r, ok := s.picked()
	if !ok {
		return
	}
	change, verb, done := pos.StaffDisable, "Disable", r.Name+" is disabled: they cannot sign in; their sales keep their name."
	if r.Disabled {
		change, verb, done = pos.StaffEnable, "Enable", r.Name+" may sign in again."
	}
	mgr := pinEntry(s.u, "Manager's PIN")
	s.u.dialogs.ask(verb+" "+r.Name+"?", "Type a manager's PIN and press Enter, or Escape to leave "+r.Name+" as they are.",
		[]*keyEntry{mgr}, func(p *prompt) {
			m := mgr.Text
			mgr.SetText("")
			s.run(p, done, func(ctx context.Context, adm StaffAdmin) error {
				_, err := adm.ChangeStaff(ctx, r.Name, change, "", m)
				return err
			})
		})
}

func (s *staffScreen) askChange(change pos.StaffChange) {
	r, ok := s.picked()
	if !ok {
		return
	}
	mgr := pinEntry(s.u, "Manager's PIN")
	if change == pos.StaffUnlock {
		if r.LockedUntil.IsZero() {
			s.message.SetText(r.Name + " is not locked out.")
			return
		}
		s.u.dialogs.ask("Unlock "+r.Name+"?", r.Name+" is locked after too many wrong PINs. Type a manager's PIN to let them sign in again now.",
			[]*keyEntry{mgr}, func(p *prompt) {
				m := mgr.Text
				mgr.SetText("")
				s.run(p, r.Name+" is unlocked and may sign in.", func(ctx context.Context, adm StaffAdmin) error {
					_, err := adm.ChangeStaff(ctx, r.Name, pos.StaffUnlock, "", m)
					return err
				})
			})
		return
	}
	pin := pinEntry(s.u, "New PIN")
	again := pinEntry(s.u, "The same PIN again")
	s.u.dialogs.ask("New PIN for "+r.Name, "Type the new PIN twice (it also lifts a lock), then a manager's PIN.",
		[]*keyEntry{pin, again, mgr}, func(p *prompt) {
			if pin.Text != again.Text {
				pin.SetText("")
				again.SetText("")
				p.say("The two PINs differ: type the PIN twice the same.")
				return
			}
			code, m := pin.Text, mgr.Text
			pin.SetText("")
			again.SetText("")
			mgr.SetText("")
			s.run(p, r.Name+" signs in with the new PIN now.", func(ctx context.Context, adm StaffAdmin) error {
				_, err := adm.ChangeStaff(ctx, r.Name, pos.StaffResetPIN, code, m)
				return err
			})
		})
}

func (s *staffScreen) askLimits() {
	r, ok := s.picked()
	if !ok {
		return
	}
	if r.Role == RoleManager {
		s.message.SetText(r.Name + " is a manager: a manager's discounts and refunds have no limit.")
		return
	}
	discount := newKeyEntry(s.u)
	discount.SetPlaceHolder("Largest discount alone, ₹ (empty: the shop's)")
	refund := newKeyEntry(s.u)
	refund.SetPlaceHolder("Largest refund alone, ₹ (0: none)")
	if r.Limits != nil {
		discount.SetText(strings.TrimSuffix(r.Limits.Discount.Plain(), ".00"))
		refund.SetText(strings.TrimSuffix(r.Limits.Refund.Plain(), ".00"))
	}
	mgr := pinEntry(s.u, "Manager's PIN")
	s.u.dialogs.ask("Limits of "+r.Name, "What "+r.Name+" may give alone with their own PIN; more needs a manager's PIN. Leave both empty for the shop's discount limit and no refund alone.",
		[]*keyEntry{discount, refund, mgr}, func(p *prompt) {
			var l *pos.StaffLimits
			if strings.TrimSpace(discount.Text) != "" || strings.TrimSpace(refund.Text) != "" {
				d, err1 := parseRupees(discount.Text)
				f, err2 := parseRupees(refund.Text)
				if err1 != nil || err2 != nil {
					p.say("Type each limit in rupees, like 500, or 0.")
					return
				}
				l = &pos.StaffLimits{Discount: d, Refund: f}
			}
			m := mgr.Text
			mgr.SetText("")
			s.run(p, "The limits of "+r.Name+" are saved.", func(ctx context.Context, adm StaffAdmin) error {
				_, err := adm.SetStaffLimits(ctx, r.Name, l, m)
				return err
			})
		})
}

// parseRupees reads an amount typed in rupees; empty is 0.
func parseRupees(text string) (pos.Paise, error) {
	if strings.TrimSpace(text) == "" {
		return 0, nil
	}
	p, err := pos.ParsePaise(text)
	if err == nil && p < 0 {
		err = pos.ErrBadAmount
	}
	return p, err
}

func (s *staffScreen) askOwnPIN() {
	me := s.u.user
	old := pinEntry(s.u, "Your PIN now")
	pin := pinEntry(s.u, "New PIN")
	again := pinEntry(s.u, "The same PIN again")
	s.u.dialogs.ask("Change my PIN ("+me.Name+")", "Type your PIN now, then the new one twice.",
		[]*keyEntry{old, pin, again}, func(p *prompt) {
			if pin.Text != again.Text {
				pin.SetText("")
				again.SetText("")
				p.say("The two new PINs differ: type the new PIN twice the same.")
				return
			}
			o, n := old.Text, pin.Text
			old.SetText("")
			pin.SetText("")
			again.SetText("")
			p.ok.Disable()
			s.u.async(func(ctx context.Context) func() {
				_, err := s.u.till.Staffer.ChangeOwnPIN(ctx, me.Name, o, n)
				return func() {
					p.ok.Enable()
					if err != nil {
						p.say(sentence(err))
						return
					}
					p.close()
					s.message.SetText("Your PIN is changed; sign in with the new one from now on.")
				}
			})
		})
}
