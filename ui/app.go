package ui

import (
	"context"
	"strconv"
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
	// Screen returns the size in pixels of the screen the window opens on; nil (or
	// a zero size) when it cannot be known. The window is fitted to it and never
	// grows past it.
	Screen func() (width, height int)
	// Version is the Galla version Settings shows ("0.1.0 (commit …, built …)").
	Version string
	// DataDir is the data directory Settings shows, with why it is the one used.
	DataDir string
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
	cap  *capped // the window's content: no bigger than the screen
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

	// status bar
	modeText    *canvas.Text
	onlineText  *widget.Label
	unknownText *widget.Label
	journalText *widget.Label // the journal's startup check: running, or failed
	userText    *widget.Label
	status      Status
	damageShown bool // the damaged journal's sentence was shown in a dialog

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

	prompt *prompt       // the open dialog, if any
	notice *widget.Label // the latest background result, in the status bar
	// noticeOrder is the order of the latest notice of a payment paid after the
	// cashier moved on: Ctrl+O opens its receipt.
	noticeOrder string
	noticeRow   *fyne.Container
	checkA      *action // Check now [Ctrl+K]: the pending payments, in the status bar
	noticeA     *action // Receipt [Ctrl+O]: the receipt of the notice's order
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
	u.theme = &counterTheme{dark: u.rememberedDark(opts.Dark)}
	app.Settings().SetTheme(u.theme)

	u.win = app.NewWindow(title)
	if opts.Icon != nil {
		u.win.SetIcon(opts.Icon)
	}
	u.win.Resize(u.rememberedSize())
	u.win.SetOnClosed(func() {
		u.rememberWindow()
		u.stop()
	})
	app.Lifecycle().SetOnStarted(u.fitScreen)

	u.buildStatusBar()
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
	u.checkA = u.newAction("Check now", fyne.KeyK, fyne.KeyModifierControl, u.checkNow)
	u.noticeA = u.newAction("Receipt", fyne.KeyO, fyne.KeyModifierControl, u.openNotice)
	u.checkA.btn.Hide()
	u.noticeA.btn.Hide()
	u.global = []*action{
		u.checkA, u.noticeA,
		u.newAction("Sale", fyne.KeyF2, 0, func() { u.goTo(u.sale) }),
		u.newAction("Journal", fyne.KeyF9, 0, u.openJournal),
		u.newAction("Settings", fyne.KeyF10, 0, u.openSettings),
		u.newAction("Shift", fyne.KeyF12, 0, u.shift.openScreen),
		u.newAction("Theme", fyne.KeyT, fyne.KeyModifierControl, u.toggleTheme),
		u.newAction("Lock", fyne.KeyL, fyne.KeyModifierControl, u.lock),
	}

	u.body = container.NewStack()
	nav := container.NewHBox()
	for _, a := range u.global[2:] {
		nav.Add(a.btn)
	}
	bar := container.NewHBox(u.modeText, widget.NewSeparator(), u.onlineText, widget.NewSeparator(),
		u.unknownText, u.checkA.btn, widget.NewSeparator(), u.journalText, layout.NewSpacer(), u.userText)
	// The notice has a row of its own: an order id and a receipt number must not
	// push the window wider than the screen.
	u.noticeRow = container.NewBorder(nil, nil, nil, u.noticeA.btn, u.notice)
	u.noticeRow.Hide()
	top := container.NewBorder(nil, nil, title2("Galla"), nil, container.NewHBox(layout.NewSpacer(), nav))
	u.cap = &capped{}
	u.win.SetContent(container.New(u.cap, container.NewBorder(
		container.NewVBox(top, widget.NewSeparator()),
		container.NewVBox(widget.NewSeparator(), u.noticeRow, container.NewPadded(bar)),
		nil, nil, u.body)))

	c := u.win.Canvas()
	c.SetOnTypedKey(func(k *fyne.KeyEvent) {
		u.touch()
		u.dispatch(k.Name, 0)
	})
	for _, k := range []fyne.KeyName{fyne.KeyL, fyne.KeyT, fyne.KeyD, fyne.KeyE, fyne.KeyF, fyne.KeyP, fyne.KeyR, fyne.KeyS, fyne.KeyQ, fyne.KeyI, fyne.KeyO, fyne.KeyK, fyne.KeyN, fyne.KeyG, fyne.KeyH, fyne.KeyDelete, fyne.KeyUp, fyne.KeyDown} {
		sc := &desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierControl}
		c.AddShortcut(sc, u.TypedShortcut)
	}
	u.startSignIn()
	u.refreshStatus()
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
	go u.tick(u.opts.StatusEvery, u.refreshStatus)
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
	u.userText.SetText("Locked")
	u.card.reset()
	if was {
		u.async(func(ctx context.Context) func() {
			if err := u.till.Staffer.SignOut(ctx, who, idle); err != nil {
				return func() { u.note("The sign-out could not be journaled: " + sentence(err)) }
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
	u.userText.SetText(s.Name + " (" + string(s.Role) + ")")
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
		u.showError("The journal is for managers, and for cashiers a manager lets refund: sign in as a manager.")
		return
	}
	u.journal.open()
}

func (u *UI) openSettings() {
	if !u.user.Manager() {
		u.showError("Settings are for managers: sign in as a manager.")
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

func (u *UI) buildStatusBar() {
	u.modeText = canvas.NewText("SANDBOX", colSandbox)
	u.modeText.TextStyle = fyne.TextStyle{Bold: true}
	u.modeText.TextSize = 20
	u.onlineText = widget.NewLabel("Checking the payment service…")
	u.unknownText = widget.NewLabel("")
	u.journalText = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	u.userText = widget.NewLabelWithStyle("Not signed in", fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})
	u.notice = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	u.notice.Truncation = fyne.TextTruncateEllipsis
}

// note shows the latest background result in the status bar.
func (u *UI) note(msg string) {
	u.noticeOrder = ""
	u.noticeA.btn.Hide()
	u.notice.Importance = widget.MediumImportance
	u.notice.SetText(msg)
	if msg == "" {
		u.noticeRow.Hide()
	} else {
		u.noticeRow.Show()
	}
}

// raise shows the notice of a payment that became final after the cashier moved
// on; a paid one's receipt opens with Ctrl+O.
func (u *UI) raise(n Notice) {
	u.note(n.Text)
	if n.Paid() {
		u.noticeOrder = n.OrderID
		u.notice.Importance = widget.SuccessImportance
		u.notice.Refresh()
		u.noticeA.btn.Show()
	}
	u.sale.resolved(n.OrderID)
	if u.current == u.pay && u.pay.run == nil && u.pay.orderID == n.OrderID {
		u.async(func(ctx context.Context) func() {
			o, err := u.till.Pending.CheckOrder(ctx, n.OrderID)
			return func() { u.pay.checked(n.OrderID, o, err) }
		})
	}
}

// noteOutcome raises the outcome of a payment whose screen the cashier had left.
func (u *UI) noteOutcome(o Outcome, err error) {
	id := o.OrderID
	switch {
	case err != nil:
		u.note(strings.TrimSpace("Order "+id) + ": NOT PAID — " + sentence(err))
	case o.State.Paid() && o.Verified:
		n := Notice{OrderID: id, State: o.State, Amount: o.Amount, ReceiptNo: o.ReceiptNo,
			Text: "Order " + id + ": PAID " + o.Amount.String()}
		if o.ReceiptNo != "" {
			n.Text += " — receipt " + o.ReceiptNo
		}
		u.raise(n)
	case o.State == pos.StateFailed:
		u.note("Order " + id + ": FAILED — not charged")
	default:
		u.note("Order " + id + ": pending — its outcome is not known yet")
	}
}

// openNotice opens the receipt of the notice's paid order.
func (u *UI) openNotice() {
	if u.noticeOrder == "" {
		return
	}
	back := u.current
	if back == u.receipt || back == u.signIn {
		back = u.sale
	}
	u.receipt.open(u.noticeOrder, back)
}

// checkNow inquires the pending payments now: the cart's own, else every one the
// status bar names.
func (u *UI) checkNow() {
	var ids []string
	if u.sale.payOrder != "" && u.sale.lock.Locked && u.sale.lockRun == nil {
		ids = []string{u.sale.payOrder}
	} else {
		for _, p := range u.status.Pending {
			ids = append(ids, p.OrderID)
		}
	}
	if len(ids) == 0 {
		u.note("No payment is pending.")
		return
	}
	u.checkA.btn.Disable()
	u.note("Checking " + plural(len(ids), "pending payment") + "…")
	u.async(func(ctx context.Context) func() {
		outs := make([]Outcome, len(ids))
		errs := make([]error, len(ids))
		for i, id := range ids {
			outs[i], errs[i] = u.till.Pending.CheckOrder(ctx, id)
		}
		return func() {
			u.checkA.btn.Enable()
			var still []string
			for i, id := range ids {
				if errs[i] != nil {
					still = append(still, "order "+id+": "+sentence(errs[i]))
				} else if !outs[i].State.Final() {
					still = append(still, "order "+id+" still pending")
				}
				if u.pay.orderID == id {
					u.pay.checked(id, outs[i], errs[i])
				}
			}
			if len(still) > 0 {
				u.note("Checked: " + strings.Join(still, "; ") + ".")
			} else {
				u.note("Checked: nothing is pending.")
			}
			u.sale.checkLock()
			u.refreshStatus() // the notices of what was resolved
		}
	})
}

// RefreshStatus asks pos for its standing and the payments resolved since, as the
// status ticker does every Options.StatusEvery.
func (u *UI) RefreshStatus() { u.refreshStatus() }

// refreshStatus follows up the payments left pending, asks pos for its standing
// and shows both in the status bar.
func (u *UI) refreshStatus() {
	u.async(func(ctx context.Context) func() {
		notes, _ := u.till.Pending.FollowUp(ctx) // what could not be inquired is tried again on the next tick
		st := u.till.Counter.Status(ctx)
		return func() {
			u.showStatus(st)
			for _, n := range notes {
				u.raise(n)
			}
		}
	})
}

func (u *UI) showStatus(st Status) {
	u.status = st
	if st.Live {
		u.modeText.Text = "LIVE"
		u.modeText.Color = colLive
	} else {
		u.modeText.Text = "SANDBOX"
		u.modeText.Color = colSandbox
	}
	u.modeText.Refresh()
	online := "Offline: card payments will wait"
	if st.Online {
		online = "Online"
	}
	if store := st.Store.Text(time.Now()); store != "" {
		online += " · " + store // the link to the store server (pos.StoreStatus)
	}
	u.onlineText.SetText(online)
	switch {
	case len(st.Pending) == 1:
		u.unknownText.SetText("Payment pending: order " + st.Pending[0].OrderID + " " + st.Pending[0].Amount.String())
	case len(st.Pending) > 1:
		u.unknownText.SetText(strconv.Itoa(len(st.Pending)) + " payments pending")
	default:
		u.unknownText.SetText(paymentsText(st.Unknown, st.InProgress))
	}
	if len(st.Pending) > 0 {
		u.unknownText.Importance = widget.WarningImportance
		u.checkA.btn.Show()
	} else {
		u.unknownText.Importance = widget.MediumImportance
		u.checkA.btn.Hide()
	}
	u.unknownText.Refresh()
	u.showJournal(st)
}

// paymentsText is the status bar's count of payments not final: those whose
// outcome is unknown, and those in progress (being created, authenticated or
// verified), which are not unknown (pos.TillStatus).
func paymentsText(unknown, inProgress int) string {
	var parts []string
	switch {
	case unknown == 1:
		parts = append(parts, "1 unknown payment")
	case unknown > 1:
		parts = append(parts, strconv.Itoa(unknown)+" unknown payments")
	}
	switch {
	case inProgress == 1:
		parts = append(parts, "1 payment in progress")
	case inProgress > 1:
		parts = append(parts, strconv.Itoa(inProgress)+" payments in progress")
	}
	if len(parts) == 0 {
		return "No unknown payments"
	}
	return strings.Join(parts, " · ")
}

// showJournal shows the journal's startup check in the status bar. A damaged
// journal's sentence (what is damaged, where the last backup is) is also shown
// once in a dialog, as soon as no other dialog is open.
func (u *UI) showJournal(st Status) {
	switch {
	case st.Damaged != "":
		u.journalText.Importance = widget.DangerImportance
		u.journalText.SetText("JOURNAL DAMAGED — card payments stopped")
		if !u.damageShown && (u.prompt == nil || u.prompt.closed) {
			u.damageShown = true
			u.showMessage("The journal is damaged", st.Damaged)
		}
	case st.Checking:
		u.journalText.Importance = widget.MediumImportance
		u.journalText.SetText("Checking journal…")
	default:
		u.journalText.Importance = widget.MediumImportance
		u.journalText.SetText("")
	}
}

// sentence turns an error from pos into a sentence a cashier can act on.
func sentence(err error) string {
	return pos.Sentence(err)
}

// showError shows msg in a dialog that Enter or Escape closes; the focus goes back
// to the current screen afterwards.
func (u *UI) showError(msg string) {
	u.showMessage("Cannot do that", msg)
}

func (u *UI) showMessage(title, msg string) {
	u.ask(title, msg, nil, func(p *prompt) { p.close() })
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
