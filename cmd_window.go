package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"

	"galla/assets"
	"galla/gateway"
	"galla/pos"
	"galla/pos/journal"
	"galla/receipts"
	"galla/ui"
)

// cmdWindow opens the terminal window: it opens the journal, picks the payment
// service (the embedded sandbox unless a live one is configured), builds pos and
// hands it to ui.
func cmdWindow(c *cli, args []string) int {
	if _, err := c.parse(c.flagSet("galla"), args); err != nil {
		return exitBadInput
	}
	t, closeAll, err := openWindowTill(c)
	if err != nil {
		code := c.fail(exitFailed, "%s", err)
		if haveDisplay(c.getenv) {
			// Started from an icon, nobody reads standard error: say it in a window.
			a := app.NewWithID("in.galla.pos")
			ui.NewStartupProblem(a, err.Error()).ShowAndRun()
		}
		return code
	}
	defer closeAll()
	// The journal's startup check (DESIGN.md section 4) runs in the background so
	// that the window opens at once however long the journal is; payments wait for
	// it. Then restart (DESIGN.md section 2): settle what an earlier run left
	// unknown now rather than at the first payment; the status bar shows what
	// stays unknown. The engine runs it once more before a payment if this has not
	// finished, and never two at once.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reconcileAfterCheck(ctx, t, c.stderr)
	a := app.NewWithID("in.galla.pos")
	icon := fyne.NewStaticResource("icon.png", assets.Icon())
	a.SetIcon(icon)
	w := ui.New(a, t, ui.Options{Title: "Galla — " + t.terminal, Icon: icon, ReceiptDir: filepath.Join(c.dataDir, "receipts")})
	w.ShowAndRun()
	return exitOK
}

// reconcileAfterCheck waits for the journal's startup check that openWindowTill
// started and, when the journal is whole, reconciles as reconcileInBackground
// does: the reconciler appends, so it never runs on a damaged journal. It returns
// a channel closed when both are over. A damaged journal is said once on w; the
// status bar and every payment say it too (windowTill.Status, pos.Config.Health).
func reconcileAfterCheck(ctx context.Context, t *windowTill, w io.Writer) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-t.checked:
		case <-ctx.Done():
			return
		}
		if ok, err := t.j.Verified(); !ok || err != nil {
			if err != nil {
				fmt.Fprintln(w, "galla: "+pos.Sentence(err))
			}
			return
		}
		<-reconcileInBackground(ctx, t.eng, w)
	}()
	return done
}

// reconcileInBackground starts the engine's reconciliation and returns a channel
// closed when it is over. A failure is said once on w; the engine tries again
// before its next payment.
func reconcileInBackground(ctx context.Context, eng *pos.Engine, w io.Writer) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := eng.Reconcile(ctx); err != nil && ctx.Err() == nil {
			fmt.Fprintln(w, "galla: the payments left open by the last run could not all be checked yet: "+pos.Sentence(err))
		}
	}()
	return done
}

// openWindowTill opens what the headless commands open (openTill) plus what the
// window adds: the receipt renderer and the QR key. It returns the till and a
// function that closes it all. The journal is opened without its startup check
// (DESIGN.md section 4), which grows with every sale, so that the window opens at
// once: the check runs in the background from here on, the engine's payments wait
// for it (pos.Config.Health) and the status bar shows it (Status).
func openWindowTill(c *cli) (*windowTill, func(), error) {
	base, err := openTillWith(c, journal.Options{DeferVerify: true})
	if err != nil {
		return nil, nil, err
	}
	ctx := context.Background()
	cat, err := base.catalog(ctx)
	if err != nil {
		base.close()
		return nil, nil, err
	}
	rd, err := receipts.NewRenderer()
	if err != nil {
		base.close()
		return nil, nil, err
	}
	key, err := receiptKey(c.dataDir)
	if err != nil {
		base.close()
		return nil, nil, err
	}
	discount, err := pos.LoadDiscountPolicy(ctx, base.j)
	if err != nil {
		base.close()
		return nil, nil, err
	}
	t := &windowTill{
		c: c, cfg: base.cfg, ps: base.ps, j: base.j, eng: base.eng, cat: cat, rd: rd, qrKey: key,
		terminal:  base.cfg.Terminal,
		discount:  discount,
		approvers: map[string]pos.Staff{},
		otps:      map[string]chan string{},
		checked:   make(chan struct{}),
	}
	vctx, stopCheck := context.WithCancel(ctx)
	go func() {
		defer close(t.checked)
		// The result is kept by the journal (Verified) for the engine and Status;
		// a check stopped by closing the till leaves it unverified.
		_ = t.j.Verify(vctx)
	}()
	return t, func() {
		stopCheck()
		<-t.checked
		t.mu.Lock()
		if t.page != nil {
			_ = t.page.Close()
		}
		t.mu.Unlock()
		base.close()
	}, nil
}

// windowTill is ui.Till over the pos engine, the journal and the payment service.
// It converts between the screens' values and pos's; every rule stays in pos.
type windowTill struct {
	c        *cli
	cfg      config
	ps       paymentService
	j        *journal.Journal
	eng      *pos.Engine
	cat      *pos.Catalog
	rd       *receipts.Renderer
	qrKey    []byte // signs and checks the receipts' QR codes
	terminal string
	checked  chan struct{} // closed when the journal's startup check is over

	mu sync.Mutex
	// discount is the manager's discount policy as last loaded or saved (the
	// journal's "discount" setting).
	discount pos.DiscountPolicy
	// approvers are the managers whose PIN Authorize checked, by name: a line's
	// ApprovedBy counts only when it names one of them.
	approvers map[string]pos.Staff

	otps    map[string]chan string // orders whose sandbox authentication waits for the OTP
	lastErr time.Time
	page    *phonePage // serves the page the customer's phone opens, once started
}

var _ ui.Till = (*windowTill)(nil)

// sentenceError is an error that carries the sentence the cashier reads.
type sentenceError string

func (e sentenceError) Error() string    { return string(e) }
func (e sentenceError) Sentence() string { return string(e) }

func (t *windowTill) Status(ctx context.Context) ui.Status {
	st := ui.Status{Live: t.ps.live(), Online: true}
	if st.Live {
		t.mu.Lock()
		st.Online = t.lastErr.IsZero() || time.Since(t.lastErr) > time.Minute
		t.mu.Unlock()
	}
	if un, err := t.j.Unresolved(ctx); err == nil {
		st.Unknown = len(un)
	}
	switch done, err := t.j.Verified(); {
	case !done:
		st.Checking = true
	case err != nil:
		st.Damaged = pos.Sentence(err)
	}
	return st
}

func (t *windowTill) Staff(ctx context.Context) ([]ui.StaffMember, error) {
	list, err := t.j.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ui.StaffMember, 0, len(list))
	for _, s := range list {
		out = append(out, ui.StaffMember{Name: s.Name, Role: s.Role})
	}
	return out, nil
}

func (t *windowTill) AddStaff(ctx context.Context, name string, role ui.Role, pin string) error {
	_, err := t.eng.Roster().AddStaff(ctx, name, role, pin)
	return err
}

func (t *windowTill) SignIn(ctx context.Context, name, pin string) (ui.StaffMember, error) {
	list, err := t.j.List(ctx)
	if err != nil {
		return ui.StaffMember{}, err
	}
	for _, s := range list {
		if s.Name == name {
			got, err := t.eng.Roster().SignIn(ctx, s.ID, pin, t.eng.Now())
			if err != nil {
				return ui.StaffMember{}, err
			}
			return ui.StaffMember{Name: got.Name, Role: got.Role}, nil
		}
	}
	return ui.StaffMember{}, pos.ErrUnknownStaff
}

func (t *windowTill) Authorize(ctx context.Context, pin string) (ui.StaffMember, error) {
	m, err := t.eng.Roster().AuthoriseManager(ctx, pin, t.eng.Now())
	if err != nil {
		return ui.StaffMember{}, err
	}
	t.mu.Lock()
	t.approvers[m.Name] = pos.Staff{ID: m.ID, Name: m.Name, Role: m.Role}
	t.mu.Unlock()
	return ui.StaffMember{Name: m.Name, Role: m.Role}, nil
}

func (t *windowTill) Search(q string, limit int) []ui.Product { return t.cat.Search(q, limit) }

func (t *windowTill) Lookup(code string) (ui.Product, bool) { return t.cat.Lookup(code) }

// posLines turns the screen's lines into pos's, with the IMEIs given per product code.
func posLines(lines []ui.Line, imeis []ui.IMEI) []pos.Line {
	out := make([]pos.Line, 0, len(lines))
	used := make([]bool, len(imeis))
	for _, l := range lines {
		pl := pos.LineFor(l.Product, l.Qty)
		pl.Discount, pl.ApprovedBy = l.Discount, l.ApprovedBy
		for i, m := range imeis {
			if !used[i] && m.ProductCode == l.Product.ProductCode && len(pl.IMEIs) < pl.Qty {
				pl.IMEIs = append(pl.IMEIs, m.IMEI)
				used[i] = true
			}
		}
		out = append(out, pl)
	}
	return out
}

// checkDiscounts applies the cart's bounds and the manager's discount policy to
// each line. An approval counts only from a manager whose PIN Authorize checked;
// the name a screen puts on a line proves nothing by itself.
func (t *windowTill) checkDiscounts(pl []pos.Line) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, l := range pl {
		if l.Discount < 0 {
			return pos.ErrBadDiscount
		}
		if l.Discount > l.Gross() {
			return pos.ErrDiscountTooLarge
		}
		var by *pos.Staff
		if m, ok := t.approvers[l.ApprovedBy]; ok && l.ApprovedBy != "" {
			by = &m
		}
		if err := t.discount.Check(l, l.Discount, by); err != nil {
			return err
		}
	}
	return nil
}

func (t *windowTill) Price(lines []ui.Line) (ui.Bill, error) {
	var b ui.Bill
	pl := posLines(lines, nil)
	if err := t.checkDiscounts(pl); err != nil {
		return ui.Bill{}, err
	}
	for _, l := range pl {
		b.Lines = append(b.Lines, l.Amount())
	}
	tt := pos.ComputeTotals(pl)
	b.Gross, b.Discount, b.Taxable, b.CGST, b.SGST, b.Total = tt.Gross, tt.Discount, tt.Taxable, tt.CGST, tt.SGST, tt.Total
	return b, nil
}

func (t *windowTill) DiscountLimit(ui.Line) pos.Paise {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.discount.Limit
}

func (t *windowTill) NewCard(number, mm, yyyy, cvv, holder string) ui.Card {
	return gateway.NewCard(number, mm, yyyy, cvv, holder)
}

func (t *windowTill) CardBrand(number string) string {
	c := gateway.NewCard(number, "", "", "", "")
	defer c.Zero()
	return c.Brand()
}

func (t *windowTill) EMIOffers(ctx context.Context, lines []ui.Line) ([]ui.EMIOffer, error) {
	set, err := t.eng.EMIOffers(ctx, posLines(lines, nil))
	if errors.Is(err, pos.ErrNoEMIOffer) {
		return nil, nil
	}
	if err != nil {
		t.noteErr(err)
		return nil, err
	}
	var out []ui.EMIOffer
	for _, is := range set.Issuers {
		out = append(out, is.Plans...)
	}
	return out, nil
}

func (t *windowTill) ValidateScheme(ctx context.Context, lines []ui.Line, offer ui.EMIOffer, card ui.Card) error {
	gc, ok := card.(*gateway.Card)
	if !ok {
		return sentenceError("The card was not read; type it again.")
	}
	amount := pos.ComputeTotals(posLines(lines, nil)).Total
	return t.eng.ValidateScheme(ctx, offer, amount, gc)
}

// noteErr remembers when the service last failed to answer, for the status bar.
func (t *windowTill) noteErr(err error) {
	var ge *gateway.Error
	if errors.Is(err, gateway.ErrOutcomeUnknown) || errors.Is(err, gateway.ErrServer) || (err != nil && !errors.As(err, &ge)) {
		t.mu.Lock()
		t.lastErr = time.Now()
		t.mu.Unlock()
	}
}

func (t *windowTill) Pay(ctx context.Context, req ui.PayRequest, progress func(ui.Progress)) (ui.Outcome, error) {
	if progress == nil {
		progress = func(ui.Progress) {}
	}
	sale := pos.Sale{Lines: posLines(req.Lines, req.IMEIs), Staff: req.Cashier}
	if req.OrderID == "" {
		if err := t.checkDiscounts(sale.Lines); err != nil {
			return ui.Outcome{}, err
		}
	}
	checks := 0
	opt := pos.PayOptions{
		Progress: func(p pos.Progress) {
			up := ui.Progress{OrderID: p.OrderID}
			switch p.Step {
			case pos.StepJournaled:
				up.Step = ui.StepCreating
			case pos.StepCreated, pos.StepIMEIValidated, pos.StepPaying, pos.StepAbandoned:
				up.Step = ui.StepCreated
			case pos.StepAuthenticating:
				up.Step = ui.StepAuthenticating
			case pos.StepWaiting:
				up.Step = ui.StepAuthenticating
				if p.Attempt > 0 {
					up.Note = p.Message // a failed attempt on the phone: the customer may try again
				}
			case pos.StepVerifying, pos.StepUnverified:
				checks++
				up.Step, up.Checks = ui.StepVerifying, checks
			default:
				return // the outcome comes back as the result
			}
			progress(up)
		},
		Auth: t.authenticator(progress),
	}
	var (
		res *pos.Result
		err error
	)
	card, _ := req.Card.(*gateway.Card)
	switch req.Tender {
	case pos.TenderCash:
		res, err = t.eng.PayCash(ctx, sale, req.Tendered)
	case pos.TenderCard:
		if card == nil {
			return ui.Outcome{}, sentenceError("The card was not read; type it again.")
		}
		if req.OrderID != "" {
			res, err = t.eng.PayCard(ctx, req.OrderID, card, opt)
		} else {
			res, err = t.eng.CheckoutCard(ctx, sale, card, opt)
		}
	case pos.TenderEMI:
		if card == nil || req.Offer == nil {
			return ui.Outcome{}, sentenceError("Choose an EMI offer and type the card again.")
		}
		if req.OrderID != "" {
			res, err = t.eng.PayEMI(ctx, req.OrderID, card, opt)
		} else {
			res, err = t.eng.CheckoutEMI(ctx, sale, *req.Offer, card, opt)
		}
	case pos.TenderPhone:
		res, err = t.payOnPhone(ctx, sale, opt, progress)
	default:
		return ui.Outcome{}, sentenceError("Choose how the customer pays: card, EMI, cash or phone.")
	}
	if card != nil {
		card.Zero()
	}
	if err != nil {
		t.noteErr(err)
		return ui.Outcome{}, err
	}
	return outcomeOf(res), nil
}

// payOnPhone creates the order, offers it on the phone page and shows that page's
// address as a QR code; the customer pays on the phone and pos polls the verified
// status (DESIGN.md section 2).
func (t *windowTill) payOnPhone(ctx context.Context, sale pos.Sale, opt pos.PayOptions, progress func(ui.Progress)) (*pos.Result, error) {
	page, err := t.checkoutPage()
	if err != nil {
		return nil, err
	}
	shop, err := pos.LoadShop(ctx, t.j)
	if err != nil {
		return nil, err
	}
	o, err := t.eng.OpenOnPhone(ctx, sale, opt)
	if err != nil {
		return nil, err
	}
	addr := page.open(o.ID, phoneOrder{Token: o.Token, Amount: o.Amount, Shop: shop.Name})
	defer page.done(o.ID)
	progress(ui.Progress{OrderID: o.ID, Step: ui.StepAuthenticating, CheckoutURL: addr})
	return t.eng.Await(ctx, o.ID, opt)
}

// checkoutPage returns the page server for the customer's phone, starting it on
// first use with config.json's phone_page address (loopback unless the manager set
// a LAN address). With the embedded sandbox it also serves the sandbox's checkout;
// with the live service the page loads the configured checkout_script_url.
func (t *windowTill) checkoutPage() (*phonePage, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.page != nil {
		return t.page, nil
	}
	opt := phonePageOptions{Listen: t.cfg.PhonePage.Listen, ScriptURL: t.cfg.Gateway.CheckoutScriptURL, Interfaces: systemInterfaces}
	if !t.ps.live() {
		opt.Sandbox = t.ps.sandbox
	}
	p, err := startPhonePage(opt)
	if err != nil {
		return nil, err
	}
	t.page = p
	return p, nil
}

// outcomeOf turns pos's result into the screen's outcome.
func outcomeOf(res *pos.Result) ui.Outcome {
	out := ui.Outcome{Reason: res.Reason, CanRetry: res.CanRetry}
	if o := res.Order; o != nil {
		out.OrderID, out.Amount, out.Change = o.ID, o.Amount, o.Change
		if o.ReceiptNo > 0 {
			out.ReceiptNo = strconv.FormatUint(o.ReceiptNo, 10)
		}
	}
	switch res.Status {
	case pos.ResultPaid:
		out.State, out.Verified = pos.StatePaid, true
	case pos.ResultFailed:
		out.State, out.Verified = pos.StateFailed, true
	case pos.ResultUnverified:
		out.State, out.Unverified = pos.StateUnknown, true
	default:
		out.State = pos.StateUnknown
	}
	return out
}

// authenticator takes the customer through the issuer's step: with the embedded
// sandbox the OTP is typed in the window (SubmitOTP); with the live service the
// page opens in the system browser.
func (t *windowTill) authenticator(progress func(ui.Progress)) pos.Authenticator {
	return pos.AuthenticatorFunc(func(ctx context.Context, ch pos.Challenge) error {
		if t.ps.live() {
			page := filepath.Join(t.c.dataDir, "authenticate.html")
			if err := os.WriteFile(page, []byte(ch.Content), 0o600); err != nil {
				return err
			}
			progress(ui.Progress{OrderID: ch.OrderID, Step: ui.StepAuthenticating, AuthURL: (&url.URL{Scheme: "file", Path: page}).String()})
			return nil
		}
		wait := make(chan string, 1)
		t.mu.Lock()
		t.otps[ch.OrderID] = wait
		t.mu.Unlock()
		defer func() {
			t.mu.Lock()
			delete(t.otps, ch.OrderID)
			t.mu.Unlock()
		}()
		progress(ui.Progress{OrderID: ch.OrderID, Step: ui.StepAuthenticating, OTP: true})
		select {
		case otp := <-wait:
			return t.ps.client.SubmitAuthentication(ctx, ch.Content, url.Values{"otp": {otp}})
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}

func (t *windowTill) SubmitOTP(_ context.Context, orderID, otp string) error {
	t.mu.Lock()
	wait, ok := t.otps[orderID]
	t.mu.Unlock()
	if !ok {
		return sentenceError("No payment is waiting for a one-time password.")
	}
	select {
	case wait <- otp:
		return nil
	default:
		return sentenceError("The one-time password was already sent; wait for the result.")
	}
}

// receiptOf fills the receipt of a journaled order with the shop's settings.
func (t *windowTill) receiptOf(ctx context.Context, o *pos.Order, reprint int) (receipts.Receipt, error) {
	shop, err := pos.LoadShop(ctx, t.j)
	if err != nil {
		return receipts.Receipt{}, err
	}
	return pos.ReceiptFor(*o, shop, pos.ReceiptOptions{Terminal: t.terminal, QRKey: t.qrKey, Reprint: reprint}), nil
}

func (t *windowTill) Receipt(ctx context.Context, orderID string) ([]byte, error) {
	o, err := t.eng.Order(ctx, orderID)
	if err != nil {
		return nil, err
	}
	r, err := t.receiptOf(ctx, o, pos.NextReprint(*o))
	if err != nil {
		return nil, err
	}
	return t.png(r)
}

// printer is the configured printer, or an error saying how to set one up.
func (t *windowTill) printer(ctx context.Context) (receipts.Printer, receipts.Profile, error) {
	prof, ok, err := pos.LoadPrinter(ctx, t.j)
	if err != nil {
		return nil, prof, err
	}
	if !ok {
		return nil, prof, sentenceError("No receipt printer is set up; a manager can choose one in Settings (F10).")
	}
	pr, err := receipts.NewPrinter(prof)
	return pr, prof, err
}

func (t *windowTill) Print(ctx context.Context, orderID string, reprint bool) error {
	o, err := t.eng.Order(ctx, orderID)
	if err != nil {
		return err
	}
	pr, prof, err := t.printer(ctx)
	if err != nil {
		return err
	}
	n := pos.NextReprint(*o)
	r, err := t.receiptOf(ctx, o, n)
	if err != nil {
		return err
	}
	var job bytes.Buffer
	if err := receipts.ESCPOS(&job, r, prof); err != nil {
		return err
	}
	perr := pr.Print(ctx, job.Bytes())
	ev := pos.PrintEvent{Printer: string(prof.Transport) + ":" + prof.Address, Format: "escpos"}
	if err := t.eng.RecordPrint(ctx, orderID, n > 0, ev, perr); err != nil && perr == nil {
		return err
	}
	return perr
}

// refundReceiptOf is the receipt of o's latest done refund, numbered as its next
// copy.
func (t *windowTill) refundReceiptOf(ctx context.Context, o *pos.Order) (receipts.Receipt, pos.Refund, error) {
	ref, ok := pos.DoneRefund(*o, 0)
	if !ok {
		return receipts.Receipt{}, ref, sentenceError("Order " + o.ID + " has no done refund, so there is no refund receipt.")
	}
	shop, err := pos.LoadShop(ctx, t.j)
	if err != nil {
		return receipts.Receipt{}, ref, err
	}
	r, err := pos.RefundReceiptFor(*o, ref.UniqueTxnID, shop,
		pos.ReceiptOptions{Terminal: t.terminal, QRKey: t.qrKey, Reprint: pos.NextRefundReprint(ref), Cashier: staffName(ctx, t.j, ref.Staff)})
	return r, ref, err
}

// png draws r as an 80 mm PNG, the window's preview.
func (t *windowTill) png(r receipts.Receipt) ([]byte, error) {
	var b bytes.Buffer
	if err := t.rd.PNG(&b, r, 80); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (t *windowTill) RefundReceipt(ctx context.Context, orderID string) ([]byte, error) {
	o, err := t.eng.Order(ctx, orderID)
	if err != nil {
		return nil, err
	}
	r, _, err := t.refundReceiptOf(ctx, o)
	if err != nil {
		return nil, err
	}
	return t.png(r)
}

func (t *windowTill) PrintRefund(ctx context.Context, orderID string) error {
	o, err := t.eng.Order(ctx, orderID)
	if err != nil {
		return err
	}
	pr, prof, err := t.printer(ctx)
	if err != nil {
		return err
	}
	r, ref, err := t.refundReceiptOf(ctx, o)
	if err != nil {
		return err
	}
	var job bytes.Buffer
	if err := receipts.ESCPOS(&job, r, prof); err != nil {
		return err
	}
	perr := pr.Print(ctx, job.Bytes())
	ev := pos.PrintEvent{Printer: string(prof.Transport) + ":" + prof.Address, Format: "escpos", Refund: ref.UniqueTxnID}
	if err := t.eng.RecordPrint(ctx, orderID, r.Reprint > 0, ev, perr); err != nil && perr == nil {
		return err
	}
	return perr
}

// reportReceipt is day's report (X, or the sealed Z once closed) as its slip.
func (t *windowTill) reportReceipt(ctx context.Context, day time.Time) (receipts.Receipt, error) {
	rep, err := t.eng.Report(ctx, pos.ToDay(day))
	if err != nil {
		return receipts.Receipt{}, err
	}
	shop, err := pos.LoadShop(ctx, t.j)
	if err != nil {
		return receipts.Receipt{}, err
	}
	return pos.ReportReceipt(*rep, shop, pos.ReceiptOptions{Terminal: t.terminal}), nil
}

func (t *windowTill) ReportReceipt(ctx context.Context, day time.Time) ([]byte, error) {
	r, err := t.reportReceipt(ctx, day)
	if err != nil {
		return nil, err
	}
	return t.png(r)
}

func (t *windowTill) PrintReport(ctx context.Context, day time.Time) error {
	pr, prof, err := t.printer(ctx)
	if err != nil {
		return err
	}
	r, err := t.reportReceipt(ctx, day)
	if err != nil {
		return err
	}
	var job bytes.Buffer
	if err := receipts.ESCPOS(&job, r, prof); err != nil {
		return err
	}
	return pr.Print(ctx, job.Bytes())
}

func (t *windowTill) Orders(ctx context.Context, day time.Time) ([]ui.OrderSummary, error) {
	list, err := t.j.OrdersByDay(ctx, pos.ToDay(day))
	if err != nil {
		return nil, err
	}
	out := make([]ui.OrderSummary, 0, len(list))
	for _, o := range list {
		s := ui.OrderSummary{OrderID: o.ID, At: o.Opened, State: o.State, Tender: o.Tender, Amount: o.Amount,
			Refunded: o.Refunded, Cashier: o.Staff}
		if o.ReceiptNo > 0 {
			s.ReceiptNo = strconv.FormatUint(o.ReceiptNo, 10)
		}
		if o.CardLast4 != "" {
			s.Detail = o.CardBrand + " •••• " + o.CardLast4
		}
		if o.EMI != nil {
			s.Detail = strings.TrimPrefix(s.Detail+", "+pos.PlanName(o.EMI), ", ")
		}
		out = append(out, s)
	}
	return out, nil
}

func (t *windowTill) History(ctx context.Context, orderID string) ([]ui.OrderEvent, error) {
	evs, err := t.j.Events(ctx, orderID)
	if err != nil {
		return nil, err
	}
	out := make([]ui.OrderEvent, 0, len(evs))
	for _, ev := range evs {
		d := ev.Reason
		if ev.Outcome != nil {
			d = strings.TrimSpace(ev.Outcome.OrderStatus + " " + ev.Outcome.PaymentStatus)
		}
		if ev.Staff != "" {
			d = strings.TrimSpace(d + " (" + ev.Staff + ")")
		}
		out = append(out, ui.OrderEvent{At: ev.Time, Kind: string(ev.Kind), Detail: d})
	}
	return out, nil
}

func (t *windowTill) Refund(ctx context.Context, orderID string, amount pos.Paise, pin string) (ui.Outcome, error) {
	res, err := t.eng.Refund(ctx, pos.RefundRequest{OrderID: orderID, Amount: amount, PIN: pin})
	if err != nil {
		t.noteErr(err)
		return ui.Outcome{}, err
	}
	out := ui.Outcome{OrderID: orderID, Amount: amount, Reason: res.Reason}
	switch res.Status {
	case pos.RefundDone:
		out.Verified = true
	case pos.RefundFailed:
		return out, sentenceError("The refund was refused: " + res.Reason)
	}
	if res.Order != nil {
		out.State = res.Order.State
	}
	return out, nil
}

func (t *windowTill) XReport(ctx context.Context, day time.Time) (string, error) {
	r, err := t.eng.Report(ctx, pos.ToDay(day))
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	err = r.WriteText(&b)
	return b.String(), err
}

func (t *windowTill) CloseDay(ctx context.Context, day time.Time, pin string) (string, error) {
	r, note, err := closeDay(ctx, t.eng, t.j, pos.ToDay(day), pin)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	err = r.WriteText(&b)
	fmt.Fprintf(&b, "\n%s\n", note)
	return b.String(), err
}

func (t *windowTill) ExportCSV(ctx context.Context, day time.Time, w io.Writer) error {
	r, err := t.eng.Report(ctx, pos.ToDay(day))
	if err != nil {
		return err
	}
	return r.WriteCSV(w)
}

// OrderFromQR checks a receipt's QR text with the terminal's key and returns its
// order id.
func (t *windowTill) OrderFromQR(text string) (string, error) {
	p, err := receipts.ParseQR(t.qrKey, text)
	if err != nil {
		return "", sentenceError("This code is not a receipt of this terminal.")
	}
	return p.MerchantOrderID, nil
}

func (t *windowTill) Settings(ctx context.Context) (ui.Settings, error) {
	shop, err := pos.LoadShop(ctx, t.j)
	if err != nil {
		return ui.Settings{}, err
	}
	prof, _, err := pos.LoadPrinter(ctx, t.j)
	if err != nil {
		return ui.Settings{}, err
	}
	discount, err := pos.LoadDiscountPolicy(ctx, t.j)
	if err != nil {
		return ui.Settings{}, err
	}
	t.mu.Lock()
	g, phone := t.cfg.Gateway, t.cfg.PhonePage
	t.mu.Unlock()
	s := ui.Settings{ShopName: shop.Name, Address: strings.Join(shop.Address, ", "), GSTIN: shop.GSTIN,
		Live: g.BaseURL != "", GatewayURL: g.BaseURL, MerchantID: g.MerchantID, AccessCode: g.AccessCode, SecretSet: g.Secret != "",
		PrinterAddr: prof.Address, DiscountLimit: discount.Limit, PhoneListen: phone.Listen}
	if prof.Width == 58 || prof.Width == 32 {
		s.PrinterProfile = "58mm"
	} else if prof.Width != 0 {
		s.PrinterProfile = "80mm"
	}
	return s, nil
}

// saveSetting journals one setting as JSON.
func (t *windowTill) saveSetting(ctx context.Context, key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	now := t.eng.Now()
	_, err = t.j.Append(ctx, pos.Event{V: pos.EventVersion, Time: now, Day: pos.ToDay(now), Kind: pos.EvSettingsChanged,
		Setting: &pos.Setting{Key: key, Value: raw}})
	return err
}

// SaveSettings journals the shop, the discount policy (when it changed) and the
// printer, and writes the gateway and the phone page's address into the
// configuration file (mode 0600). The discount limit applies at once; the gateway
// change takes effect at the next start, the phone page's address the next time
// its server starts (the first pay on phone after a start).
func (t *windowTill) SaveSettings(ctx context.Context, s ui.Settings, secret string) error {
	discount := pos.DiscountPolicy{Limit: s.DiscountLimit}
	if err := discount.Validate(); err != nil {
		return err
	}
	if err := checkPhoneListen(s.PhoneListen); err != nil {
		return err
	}
	shop := pos.Shop{Name: s.ShopName, GSTIN: s.GSTIN}
	for _, a := range strings.Split(s.Address, ",") {
		if a = strings.TrimSpace(a); a != "" {
			shop.Address = append(shop.Address, a)
		}
	}
	if err := t.saveSetting(ctx, pos.SettingShop, shop); err != nil {
		return err
	}
	if cur, err := pos.LoadDiscountPolicy(ctx, t.j); err != nil || cur != discount {
		if err := t.saveSetting(ctx, pos.SettingDiscount, discount); err != nil {
			return err
		}
	}
	t.mu.Lock()
	t.discount = discount
	t.mu.Unlock()
	if s.PrinterAddr != "" {
		p := receipts.Profile{Transport: receipts.TransportFile, Address: s.PrinterAddr, Width: 80}
		if s.PrinterProfile == "58mm" {
			p.Width = 58
		}
		switch {
		case strings.ContainsAny(s.PrinterAddr, `/\`):
			// a file or a device node
		case strings.Contains(s.PrinterAddr, ":") || net.ParseIP(s.PrinterAddr) != nil:
			p.Transport = receipts.TransportTCP
		default:
			p.Transport = receipts.TransportSpooler
		}
		if err := t.saveSetting(ctx, pos.SettingPrinter, p); err != nil {
			return err
		}
	}
	t.mu.Lock()
	cfg := t.cfg
	t.mu.Unlock()
	if s.Live {
		cfg.Gateway.BaseURL = s.GatewayURL
	} else {
		cfg.Gateway.BaseURL = ""
	}
	cfg.Gateway.MerchantID, cfg.Gateway.AccessCode = s.MerchantID, s.AccessCode
	cfg.PhonePage.Listen = s.PhoneListen
	if secret != "" {
		cfg.Gateway.Secret = secret
	}
	if err := t.c.saveConfig(cfg); err != nil {
		return err
	}
	t.mu.Lock()
	t.cfg = cfg
	t.mu.Unlock()
	return nil
}

func (t *windowTill) PrinterProfiles() []string { return []string{"58mm", "80mm"} }

func (t *windowTill) TestPrint(ctx context.Context) error {
	pr, prof, err := t.printer(ctx)
	if err != nil {
		return err
	}
	shop, err := pos.LoadShop(ctx, t.j)
	if err != nil {
		return err
	}
	r := receipts.Receipt{Kind: receipts.KindSale, Shop: receipts.Shop{Name: shop.Name, Address: shop.Address, GSTIN: shop.GSTIN},
		Terminal: t.terminal, Time: t.eng.Now(), Footer: []string{"Test page: the printer works."}}
	var job bytes.Buffer
	if err := receipts.ESCPOS(&job, r, prof); err != nil {
		return err
	}
	return pr.Print(ctx, job.Bytes())
}

// haveDisplay reports whether a window can be shown: always on Windows and macOS,
// on Linux and the BSDs only with an X11 or Wayland display.
func haveDisplay(getenv func(string) string) bool {
	switch runtime.GOOS {
	case "windows", "darwin":
		return true
	}
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}
