package ui

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"
)

// signInScreen is screen 1: pick a name, type the PIN (keyboard or the pad). On a
// fresh journal it creates the first manager instead.
type signInScreen struct {
	u     *UI
	staff []StaffMember
	sel   int

	root    *fyne.Container
	names   *widget.List
	who     *widget.Label
	pin     *keyEntry
	pad     *fyne.Container
	message *widget.Label
	signIn  *action

	// first manager creation
	first      *fyne.Container
	newName    *keyEntry
	newPIN     *keyEntry
	newConfirm *keyEntry
	create     *action
	creating   bool

	// a manager's PIN shorter than pos.MinManagerPINLength, changed before going on
	change        *fyne.Container
	changeNew     *keyEntry
	changeConfirm *keyEntry
	changeOK      *action
	changeMessage *widget.Label
	changing      bool
	pending       StaffMember // signed in, once the new PIN is set
	oldPIN        string      // the PIN just checked, until the change is made
}

func newSignInScreen(u *UI) *signInScreen {
	s := &signInScreen{u: u, sel: -1}
	s.names = widget.NewList(
		func() int { return len(s.staff) },
		func() fyne.CanvasObject { return widget.NewLabel("Name of a person (manager)") },
		func(i widget.ListItemID, o fyne.CanvasObject) {
			m := s.staff[i]
			o.(*widget.Label).SetText(m.Name + " (" + string(m.Role) + ")")
		})
	s.names.OnSelected = func(i widget.ListItemID) {
		s.choose(i)
		s.u.win.Canvas().Focus(s.pin)
	}
	s.who = heading("Choose your name")
	s.pin = newKeyEntry(u)
	s.pin.Password = true
	s.pin.SetPlaceHolder("PIN, then Enter")
	s.pin.OnSubmitted = func(string) { s.submit() }
	s.pin.onKey = func(k *fyne.KeyEvent) bool {
		switch k.Name {
		case fyne.KeyUp:
			s.choose(s.sel - 1)
			return true
		case fyne.KeyDown:
			s.choose(s.sel + 1)
			return true
		}
		return false
	}
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	s.signIn = u.newAction("Sign in", fyne.KeyReturn, 0, s.submit)
	s.signIn.btn.Importance = widget.HighImportance
	s.signIn.btn.Text = "Sign in  [Enter]"

	s.pad = container.NewGridWithColumns(3)
	for _, k := range []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "OK"} {
		b := newKeyButton(u, k, nil)
		switch k {
		case "⌫":
			b.OnTapped = func() {
				if t := s.pin.Text; t != "" {
					s.pin.SetText(t[:len(t)-1])
				}
			}
		case "OK":
			b.OnTapped = s.submit
		default:
			b.OnTapped = func() { s.pin.SetText(s.pin.Text + k) }
		}
		s.pad.Add(b)
	}

	s.newName = newKeyEntry(u)
	s.newName.SetPlaceHolder("Manager's name")
	s.newPIN = newKeyEntry(u)
	s.newPIN.Password = true
	s.newPIN.SetPlaceHolder("PIN (6 to 8 digits)")
	s.newConfirm = newKeyEntry(u)
	s.newConfirm.Password = true
	s.newConfirm.SetPlaceHolder("The same PIN again")
	s.newName.OnSubmitted = func(string) { u.win.Canvas().Focus(s.newPIN) }
	s.newPIN.OnSubmitted = func(string) { u.win.Canvas().Focus(s.newConfirm) }
	s.newConfirm.OnSubmitted = func(string) { s.createManager() }
	s.create = u.newAction("Create manager", fyne.KeyReturn, 0, s.createManager)
	s.create.btn.Text = "Create manager  [Enter]"
	s.create.btn.Importance = widget.HighImportance
	intro := widget.NewLabel("This terminal has no staff yet. Create the first manager: they can add the others in Settings.")
	intro.Wrapping = fyne.TextWrapWord
	s.first = container.NewVBox(
		heading("Welcome to Galla"),
		intro,
		s.newName, s.newPIN, s.newConfirm, s.create.btn)

	s.changeNew = newKeyEntry(u)
	s.changeNew.Password = true
	s.changeNew.SetPlaceHolder("New PIN (6 to 8 digits)")
	s.changeConfirm = newKeyEntry(u)
	s.changeConfirm.Password = true
	s.changeConfirm.SetPlaceHolder("The same PIN again")
	s.changeNew.OnSubmitted = func(string) { u.win.Canvas().Focus(s.changeConfirm) }
	s.changeConfirm.OnSubmitted = func(string) { s.changePIN() }
	s.changeOK = u.newAction("Change PIN", fyne.KeyReturn, 0, s.changePIN)
	s.changeOK.btn.Text = "Change PIN  [Enter]"
	s.changeOK.btn.Importance = widget.HighImportance
	why := widget.NewLabel("A manager's PIN now has 6 to 8 digits. Choose a new PIN and type it twice; the old one stops working.")
	why.Wrapping = fyne.TextWrapWord
	s.changeMessage = widget.NewLabel("")
	s.changeMessage.Wrapping = fyne.TextWrapWord
	s.change = container.NewVBox(heading("Choose a new PIN"), why, s.changeNew, s.changeConfirm, s.changeOK.btn, s.changeMessage)

	left := container.NewBorder(heading("Staff"), nil, nil, nil, s.names)
	right := container.NewVBox(s.who, s.pin, container.NewGridWrap(fyne.NewSize(110, 64), s.pad.Objects...), s.signIn.btn, s.message)
	s.root = container.NewStack(container.NewPadded(container.NewGridWithColumns(2, left,
		container.NewVBox(right, layout.NewSpacer()))))
	return s
}

func (s *signInScreen) view() fyne.CanvasObject { return s.root }

func (s *signInScreen) actions() []*action { return nil } // Enter is the entries' own key

func (s *signInScreen) shown() {
	if s.changing {
		s.u.win.Canvas().Focus(s.changeNew)
		return
	}
	if s.creating {
		s.u.win.Canvas().Focus(s.newName)
		return
	}
	s.u.win.Canvas().Focus(s.pin)
}

// load asks pos for the staff list and shows it, or the first-manager form.
func (s *signInScreen) load() {
	s.endChange()
	s.pin.SetText("")
	s.message.SetText("")
	s.u.async(func(ctx context.Context) func() {
		staff, err := s.u.till.Staffer.Staff(ctx)
		return func() {
			if err != nil {
				s.message.SetText(sentence(err))
				return
			}
			s.show(staff)
		}
	})
}

func (s *signInScreen) show(staff []StaffMember) {
	s.staff = staff
	s.creating = len(staff) == 0
	if s.creating {
		s.root.Objects = []fyne.CanvasObject{container.NewPadded(container.NewGridWithColumns(2, s.first, layout.NewSpacer()))}
	} else {
		left := container.NewBorder(heading("Staff"), nil, nil, nil, s.names)
		right := container.NewVBox(s.who, s.pin, container.NewGridWrap(fyne.NewSize(110, 64), s.pad.Objects...), s.signIn.btn, s.message)
		s.root.Objects = []fyne.CanvasObject{container.NewPadded(container.NewGridWithColumns(2, left, right))}
		s.names.Refresh()
		if s.sel < 0 || s.sel >= len(staff) {
			s.choose(0)
		} else {
			s.choose(s.sel)
		}
	}
	s.root.Refresh()
	s.shown()
}

// choose selects the i-th person (clamped).
func (s *signInScreen) choose(i int) {
	if len(s.staff) == 0 {
		return
	}
	i = max(0, min(i, len(s.staff)-1))
	if s.sel == i {
		s.who.SetText("PIN for " + s.staff[i].Name)
		return
	}
	s.sel = i
	s.names.Select(i)
	s.who.SetText("PIN for " + s.staff[i].Name)
}

func (s *signInScreen) submit() {
	if s.creating {
		s.createManager()
		return
	}
	if s.sel < 0 || s.sel >= len(s.staff) {
		s.message.SetText("Choose your name first.")
		return
	}
	name, pin := s.staff[s.sel].Name, s.pin.Text
	s.pin.SetText("")
	if pin == "" {
		s.message.SetText("Type your PIN, then press Enter.")
		return
	}
	s.signIn.btn.Disable()
	s.message.SetText("Checking…")
	s.u.asyncScreen(func(ctx context.Context) func() {
		m, err := s.u.till.Staffer.SignIn(ctx, name, pin)
		return func() {
			s.signIn.btn.Enable()
			if err != nil {
				s.message.SetText(sentence(err))
				s.shown()
				return
			}
			s.message.SetText("")
			if m.MustChangePIN {
				s.askNewPIN(m, pin)
				return
			}
			s.u.signedInAs(m)
			if n := m.WrongPINsNotice(); n != "" {
				s.u.dialogs.showMessage("Wrong PINs before you signed in", n)
			}
		}
	})
}

// askNewPIN shows the change of PIN that m, a manager whose PIN pin is shorter
// than the rule, makes before going on.
func (s *signInScreen) askNewPIN(m StaffMember, pin string) {
	s.changing, s.pending, s.oldPIN = true, m, pin
	s.changeNew.SetText("")
	s.changeConfirm.SetText("")
	s.changeMessage.SetText("")
	s.root.Objects = []fyne.CanvasObject{container.NewPadded(container.NewGridWithColumns(2, s.change, layout.NewSpacer()))}
	s.root.Refresh()
	s.shown()
}

// changePIN sets the new PIN typed twice, then signs the member in.
func (s *signInScreen) changePIN() {
	if !s.changing {
		return
	}
	pin, again := s.changeNew.Text, s.changeConfirm.Text
	s.changeNew.SetText("")
	s.changeConfirm.SetText("")
	if pin == "" || pin != again {
		s.changeMessage.SetText("The two PINs differ: type the new PIN twice the same.")
		s.shown()
		return
	}
	name, old := s.pending.Name, s.oldPIN
	s.changeOK.btn.Disable()
	s.changeMessage.SetText("Changing…")
	s.u.async(func(ctx context.Context) func() {
		m, err := s.u.till.Staffer.ChangeOwnPIN(ctx, name, old, pin)
		return func() {
			s.changeOK.btn.Enable()
			if !s.changing {
				return // the screen was left meanwhile
			}
			if err != nil {
				s.changeMessage.SetText(sentence(err))
				s.shown()
				return
			}
			s.endChange()
			s.show(s.staff)
			s.u.signedInAs(m)
		}
	})
}

// endChange forgets a change of PIN under way, and the old PIN with it.
func (s *signInScreen) endChange() {
	s.changing, s.pending, s.oldPIN = false, StaffMember{}, ""
	s.changeNew.SetText("")
	s.changeConfirm.SetText("")
	s.changeMessage.SetText("")
}

func (s *signInScreen) createManager() {
	name, pin, again := s.newName.Text, s.newPIN.Text, s.newConfirm.Text
	if name == "" {
		s.u.dialogs.showError("Type the manager's name.")
		return
	}
	if pin != again {
		s.newPIN.SetText("")
		s.newConfirm.SetText("")
		s.u.dialogs.showError("The two PINs differ: type the PIN twice the same.")
		return
	}
	s.create.btn.Disable()
	s.u.async(func(ctx context.Context) func() {
		err := s.u.till.Staffer.AddStaff(ctx, name, RoleManager, pin)
		return func() {
			s.create.btn.Enable()
			s.newPIN.SetText("")
			s.newConfirm.SetText("")
			if err != nil {
				s.u.dialogs.showError(sentence(err))
				return
			}
			s.newName.SetText("")
			s.creating = false
			s.sel = -1
			s.message.SetText(name + " is the manager. Sign in with the new PIN.")
			s.u.async(func(ctx context.Context) func() {
				staff, err := s.u.till.Staffer.Staff(ctx)
				return func() {
					if err != nil {
						s.message.SetText(sentence(err))
						return
					}
					s.show(staff)
					s.message.SetText(name + " is the manager. Sign in with the new PIN.")
				}
			})
		}
	})
}
