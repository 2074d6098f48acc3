package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"galla/pos"
)

// Options tune the window; the zero value is what the counter uses.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// IdleLock locks the screen after this long without input; 0 means 15 minutes.
	IdleLock time.Duration
	// Do runs f on the UI goroutine; nil means fyne.Do. Tests pass a queue they drain.
	Do func(f func())
	// Dark starts in the dark theme.
	Dark bool
	// Title is the window title; it always starts with "Galla".
	Title string
	// StatusEvery is how often the status bar asks pos for its standing; 0 means 5 s.
	StatusEvery time.Duration
	// Icon is the window icon, if any.
	Icon fyne.Resource
	// ReceiptDir is where the receipt screen's Save PNG writes receipt images; empty
	// turns the action off.
	ReceiptDir string
	// ExportDir is where the journal's Export CSV offers to write the day's
	// orders (the data directory's exports folder, made when first used); empty
	// offers the home directory.
	ExportDir string
	// Screen returns the size in pixels of the screen the window opens on; nil (or
	// a zero size) when it cannot be known. The window is fitted to it and never
	// grows past it.
	Screen func() (width, height int)
	// Version is the Galla version Settings shows ("0.1.0 (commit …, built …)").
	Version string
	// DataDir is the data directory Settings shows, with why it is the one used.
	DataDir string
	// StartNotice is a line the status bar shows from the start (where no
	// system keyring answers, config.Secrets.NoKeyring); "" shows none.
	StartNotice string
	// Store is a manager's acts on the counter's store link, offered in
	// Settings; nil where the counter is not enrolled at a store.
	Store StoreActs
}

// screen is one of the terminal's screens.
type screen interface {
	// view is the screen's content.
	view() fyne.CanvasObject
	// actions are the screen's keyed actions.
	actions() []*action
	// shown is called after the screen is put in the window: it sets the focus.
	shown()
}

// UI is the terminal window: the shell with its status bar and the screens. Its
// fields keep widget references so that tests can drive and inspect every screen.
type UI struct {
	app  fyne.App
	win  fyne.Window
	till Services
	opts Options
	now  func() time.Time
	do   func(func())
	ctx  context.Context
	stop context.CancelFunc

	pending atomic.Int64 // background calls not yet finished

	mu        sync.Mutex // guards lastInput, touched from input callbacks only but read by the idle ticker
	lastInput time.Time

	user     StaffMember
	signedIn bool
	theme    *counterTheme

	body    *fyne.Container
	current screen
	global  []*action

	bar       *statusBar // status_bar.go
	typeAhead *typeAhead // typeahead.go
	dialogs   *dialogs   // dialogs.go
	fit       *windowFit // window_fit.go

	signIn   *signInScreen
	sale     *saleScreen
	card     *cardScreen
	pay      *payScreen
	cash     *cashScreen
	receipt  *receiptScreen
	emi      *emiScreen
	tender   *tenderScreen // split tender (tender.go)
	upi      *upiScreen
	journal  *journalScreen
	settings *settingsScreen
	staff    *staffScreen // Settings' staff list (staff.go)
	shift    *shiftScreen // the shift and the cash drawer (shift.go)
	stock    *stockScreen // the stock on hand and goods received (stock.go)
}

// New builds the terminal window on app over the services it uses. The window
// opens on the sign-in screen (or on first-manager creation when the journal has no
// staff yet). A service left unset is a wiring mistake: New panics, naming it
// (Services.Check).
func New(app fyne.App, services Services, opts Options) *UI {
	if err := services.Check(); err != nil {
		panic(err)
	}
	u := &UI{app: app, till: services, opts: opts}
	u.now = opts.Now
	if u.now == nil {
		u.now = time.Now
	}
	u.do = opts.Do
	if u.do == nil {
		u.do = fyne.Do
	}
	if u.opts.IdleLock <= 0 {
		u.opts.IdleLock = 15 * time.Minute
	}
	if u.opts.StatusEvery <= 0 {
		u.opts.StatusEvery = 5 * time.Second
	}
	title := opts.Title
	if !strings.HasPrefix(title, "Galla") {
		title = strings.TrimSpace("Galla " + title)
	}
	u.ctx, u.stop = context.WithCancel(context.Background())
	u.lastInput = u.now()
	u.fit = &windowFit{u: u, cap: &capped{}}
	u.dialogs = &dialogs{u: u}
	u.typeAhead = &typeAhead{u: u}
	u.theme = &counterTheme{dark: u.fit.rememberedDark(opts.Dark)}
	app.Settings().SetTheme(u.theme)

	u.win = app.NewWindow(title)
	if opts.Icon != nil {
		u.win.SetIcon(opts.Icon)
	}
	u.win.Resize(u.fit.rememberedSize())
	u.win.SetOnClosed(func() {
		u.fit.rememberWindow()
		u.stop()
	})
	u.win.SetCloseIntercept(u.confirmClose) // close.go
	app.Lifecycle().SetOnStarted(u.fit.fitScreen)

	u.bar = newStatusBar(u)
	u.bar.note(opts.StartNotice)
	u.signIn = newSignInScreen(u)
	u.sale = newSaleScreen(u)
	u.card = newCardScreen(u)
	u.pay = newPayScreen(u)
	u.cash = newCashScreen(u)
	u.receipt = newReceiptScreen(u)
	u.emi = newEMIScreen(u)
	u.tender, u.upi = newTenderScreen(u), newUPIScreen(u)
	u.journal = newJournalScreen(u)
	u.settings = newSettingsScreen(u)
	u.staff = newStaffScreen(u)
	u.shift = newShiftScreen(u)
	u.stock = newStockScreen(u)
	u.global = []*action{
		u.bar.checkA, u.bar.noticeA,
		u.newAction("Sale", fyne.KeyF2, 0, func() { u.goTo(u.sale) }),
		u.newAction("Journal", fyne.KeyF9, 0, u.openJournal),
		u.newAction("Settings", fyne.KeyF10, 0, u.openSettings),
		u.newAction("Shift", fyne.KeyF12, 0, u.shift.openScreen),
		u.newAction("Stock", fyne.KeyB, fyne.KeyModifierControl, u.stock.open),
		u.newAction("Theme", fyne.KeyT, fyne.KeyModifierControl, u.toggleTheme),
		u.newAction("Lock", fyne.KeyL, fyne.KeyModifierControl, u.lock),
	}

	u.body = container.NewStack()
	nav := container.NewHBox()
	for _, a := range u.global[2:] {
		nav.Add(a.btn)
	}
	top := container.NewBorder(nil, nil, title2("Galla"), nil, container.NewHBox(layout.NewSpacer(), nav))
	u.win.SetContent(container.New(u.fit.cap, container.NewBorder(
		container.NewVBox(top, widget.NewSeparator()),
		container.NewVBox(widget.NewSeparator(), u.bar.noticeRow, container.NewPadded(u.bar.row)),
		nil, nil, u.body)))

	c := u.win.Canvas()
	c.SetOnTypedKey(func(k *fyne.KeyEvent) {
		u.touch()
		if !u.typeAhead.keep(0, k.Name) {
			u.dispatch(k.Name, 0)
		}
	})
	c.SetOnTypedRune(func(r rune) {
		u.touch()
		u.typeAhead.keep(r, "")
	})
	for _, k := range []fyne.KeyName{fyne.KeyB, fyne.KeyL, fyne.KeyT, fyne.KeyD, fyne.KeyE, fyne.KeyF, fyne.KeyP, fyne.KeyR, fyne.KeyS, fyne.KeyQ, fyne.KeyI, fyne.KeyO, fyne.KeyK, fyne.KeyN, fyne.KeyG, fyne.KeyH, fyne.KeyDelete, fyne.KeyUp, fyne.KeyDown} {
		sc := &desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierControl}
		c.AddShortcut(sc, u.TypedShortcut)
	}
	u.startSignIn()
	u.bar.refreshStatus()
	return u
}

// Window returns the terminal's window.
func (u *UI) Window() fyne.Window { return u.win }

// TypedShortcut runs the action bound to a Ctrl combination typed while no widget
// has the focus. The desktop driver delivers such keys through the window's canvas;
// tests, whose canvas takes no shortcuts, call it directly.
func (u *UI) TypedShortcut(s fyne.Shortcut) {
	if cs, ok := s.(*desktop.CustomShortcut); ok {
		u.touch()
		u.dispatch(cs.KeyName, cs.Modifier)
	}
}

// Busy reports whether a background call to the till is still running. A test that
// supplies Options.Do waits for it to turn false, with its queue drained, before it
// closes the till.
func (u *UI) Busy() bool { return u.pending.Load() > 0 }

// ShowAndRun shows the window, starts the status and idle-lock tickers and runs the
// app until the window closes.
func (u *UI) ShowAndRun() {
	go u.tick(u.opts.StatusEvery, u.bar.refreshStatus)
	go u.tick(30*time.Second, u.checkIdle)
	u.win.ShowAndRun()
	u.stop()
}

// Close stops the background work and closes the window.
func (u *UI) Close() {
	u.stop()
	u.win.Close()
}

// tick runs f on the UI goroutine every d until the window closes.
func (u *UI) tick(d time.Duration, f func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-u.ctx.Done():
			return
		case <-t.C:
			u.do(f)
		}
	}
}

// async runs work off the UI goroutine; the function it returns, if any, is run on
// the UI goroutine to show the result. Nothing that waits for pos blocks the window.
func (u *UI) async(work func(ctx context.Context) func()) {
	u.pending.Add(1)
	go func() {
		defer u.pending.Add(-1)
		if apply := work(u.ctx); apply != nil {
			u.do(apply)
		}
	}()
}

// newAction makes an action and its button, labelled "Label  [F5]".
func (u *UI) newAction(label string, key fyne.KeyName, mod fyne.KeyModifier, run func()) *action {
	a := &action{key: key, mod: mod, label: label, run: run}
	a.btn = newKeyButton(u, label+"  ["+a.keyText()+"]", func() {
		if a.btn.Disabled() {
			return
		}
		a.run()
	})
	return a
}

// savePNG writes png as name into dir off the UI goroutine and says on msg where it
// went, or why it did not.
func (u *UI) savePNG(msg *widget.Label, dir, name, what string, png []byte) {
	u.async(func(context.Context) func() {
		path := filepath.Join(dir, name)
		err := os.MkdirAll(dir, 0o700)
		if err == nil {
			err = os.WriteFile(path, png, 0o600)
		}
		return func() {
			if err != nil {
				msg.SetText(fmt.Sprintf("The %s could not be saved in %s: %v. Check that the disk has room and the folder can be written.", what, dir, err))
				return
			}
			msg.SetText("Saved as " + path)
		}
	})
}

// dispatch runs the action bound to key on the current screen, or a global one.
func (u *UI) dispatch(key fyne.KeyName, mod fyne.KeyModifier) bool {
	var list []*action
	if u.current != nil {
		list = append(list, u.current.actions()...)
	}
	if u.signedIn {
		list = append(list, u.global...)
	}
	for _, a := range list {
		if a.matches(key, mod) {
			if a.btn.Disabled() {
				return true
			}
			a.run()
			return true
		}
	}
	return false
}

// goTo shows s in the window.
func (u *UI) goTo(s screen) {
	if !u.signedIn && s != u.signIn {
		return
	}
	u.current = s
	u.body.Objects = []fyne.CanvasObject{s.view()}
	u.body.Refresh()
	s.shown()
}

// touch records input, for the idle lock.
func (u *UI) touch() {
	u.mu.Lock()
	u.lastInput = u.now()
	u.mu.Unlock()
}

// checkIdle locks the screen when nobody has typed or tapped for the idle time. A
// payment in flight goes on in the background.
func (u *UI) checkIdle() {
	u.mu.Lock()
	idle := u.now().Sub(u.lastInput)
	u.mu.Unlock()
	if u.signedIn && idle >= u.opts.IdleLock {
		u.signOut(true)
	}
}

// lock signs the current person out by hand (Ctrl+L).
func (u *UI) lock() { u.signOut(false) }

// signOut signs the current person out, journaled by pos (idle: the screen was
// left alone), clears the card form and shows the sign-in screen; the sale in
// progress is kept for when someone signs in again.
func (u *UI) signOut(idle bool) {
	who, was := u.user, u.signedIn
	u.signedIn = false
	u.user = StaffMember{}
	u.bar.userText.SetText("Locked")
	u.card.reset()
	if was {
		u.async(func(ctx context.Context) func() {
			if err := u.till.Staffer.SignOut(ctx, who, idle); err != nil {
				return func() { u.bar.note("The sign-out could not be journaled: " + sentence(err)) }
			}
			return nil
		})
	}
	u.startSignIn()
}

// signedInAs is called by the sign-in screen.
func (u *UI) signedInAs(s StaffMember) {
	u.user = s
	u.signedIn = true
	u.touch()
	u.bar.userText.SetText(s.Name + " (" + string(s.Role) + ")")
	for i, a := range u.global[3:5] {
		// The journal for whoever may refund (a cashier a manager gave a refund
		// limit, too); the settings for managers.
		if s.Manager() || i == 0 && s.Refunds() {
			a.btn.Enable()
		} else {
			a.btn.Disable()
		}
	}
	u.goTo(u.sale)
}

func (u *UI) startSignIn() {
	u.current = u.signIn
	u.body.Objects = []fyne.CanvasObject{u.signIn.view()}
	u.body.Refresh()
	u.signIn.load()
}

func (u *UI) openJournal() {
	if !u.user.Refunds() {
		u.dialogs.showError("The journal is for managers, and for cashiers a manager lets refund: sign in as a manager.")
		return
	}
	u.journal.open()
}

func (u *UI) openSettings() {
	if !u.user.Manager() {
		u.dialogs.showError("Settings are for managers: sign in as a manager.")
		return
	}
	u.goTo(u.settings)
	u.settings.load()
}

func (u *UI) toggleTheme() {
	u.theme = &counterTheme{dark: !u.theme.dark}
	u.app.Settings().SetTheme(u.theme)
	u.app.Preferences().SetBool(prefDark, u.theme.dark)
	fg := u.theme.Color(theme.ColorNameForeground, u.theme.variant())
	for _, t := range []*canvas.Text{u.sale.total, u.card.amount, u.cash.due, u.cash.change, u.receipt.change} {
		t.Color = fg
		t.Refresh()
	}
}

// RefreshStatus asks pos for its standing and the payments resolved since, as the
// status ticker does every Options.StatusEvery.
func (u *UI) RefreshStatus() { u.bar.refreshStatus() }

// sentence turns an error from pos into a sentence a cashier can act on.
func sentence(err error) string {
	return pos.Sentence(err)
}

// heading is large bold text.
func heading(s string) *widget.Label {
	l := widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	l.SizeName = theme.SizeNameSubHeadingText
	return l
}

// title2 is the application's name in the top bar.
func title2(s string) fyne.CanvasObject {
	t := canvas.NewText(s, theme.Color(theme.ColorNamePrimary))
	t.TextSize = sizeBig
	t.TextStyle = fyne.TextStyle{Bold: true}
	return container.NewPadded(t)
}

// bigText is a canvas.Text of the given size, for totals and results.
func bigText(s string, size float32) *canvas.Text {
	t := canvas.NewText(s, theme.Color(theme.ColorNameForeground))
	t.TextSize = size
	t.TextStyle = fyne.TextStyle{Bold: true}
	return t
}
