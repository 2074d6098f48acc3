package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"galla/pos"
)

// Errors of the fake till; the screens show pos.Sentence of them.
var (
	errFakeWrongPIN  = fmt.Errorf("fake: %w", pos.ErrWrongPIN)
	errFakeNoOffer   = errors.New("fake: offer not applicable")
	errFakePrinter   = errors.New("fake: printer offline")
	errFakeBadQR     = errors.New("fake: not a receipt QR")
	errFakeNoStaffed = errors.New("fake: name taken")
)

// fakeTill is the state of the scripted till of the screens' tests: what a test
// sets and reads. The services the window calls are the fakes that share it
// (fakeCheckout, fakeBooks, ...: servicesOf, fake_services_test.go). It is safe
// for concurrent use: the screens call it from background goroutines.
type fakeTill struct {
	mu sync.Mutex
	// composition is a shop under the composition scheme: its sale screen
	// states no tax (the fake's shop is otherwise registered).
	composition bool
	status      Status
	staff       []StaffMember
	pins        map[string]string // name -> PIN
	short       map[string]bool   // name -> signs in with MustChangePIN
	products    []Product
	offers      []EMIOffer
	printErr    error
	orders      []OrderSummary
	events      map[string][]OrderEvent
	settings    Settings
	secret      string
	// accessCode is the access code as stored (never shown).
	accessCode string
	// savedBy lists who saved the settings; overrides the approvals asked for
	// (with the manager who gave them); signOuts the sign-outs ("Asha:idle").
	savedBy   []StaffMember
	overrides []string
	signOuts  []string
	closed    []time.Time
	// note is a line the X report ends with, when set.
	note    string
	refunds []pos.Paise
	// reports lists the reports printed ("print:2026-11-22") and drawn ("png:...").
	reports []string
	// stock is the fake's goods on hand (stock_test.go).
	stock fakeStock

	cards    []*fakeCard // every card NewCard made
	otp      chan string // the OTP typed in the window, for a payment waiting on it
	requests []PayRequest
	printed  []string
	schemes  int
	// holdPay, when set, keeps the next Pay waiting after order creation until it
	// is closed.
	holdPay chan struct{}
	// phoneFails fails that many pay-on-phone payments (verified, retry allowed).
	phoneFails int
	// left holds the payments Pay left pending (UNKNOWN), as their outcome stands
	// now; resolve decides one and queues its notice for FollowUp.
	left    map[string]Outcome
	notices []Notice
	checked []string // the orders CheckOrder was asked about
	// inFlight holds the orders whose Pay call has not returned.
	inFlight map[string]bool
	// vpa is the shop's UPI address (settings_upi_test.go).
	vpa string
	// returnReqs lists the returns asked of the Returns screen (returns_test.go).
	returnReqs []pos.ReturnRequest
	// emiChecks lists the brand-EMI orders opened before the card
	// (CheckEMIOrder), cancelled those cancelled (CancelEMIOrder).
	emiChecks []PayRequest
	cancelled []string
	// now is the clock of the business day (the harness's); nil means time.Now.
	now func() time.Time
	// held are the bills put aside (Holder).
	held []HeldBill
}

func newFakeTill() *fakeTill {
	return &fakeTill{
		status: Status{Online: true},
		staff:  []StaffMember{{ID: "001", Name: "Asha", Role: RoleManager}, {ID: "002", Name: "Ravi", Role: RoleCashier}},
		pins:   map[string]string{"Asha": "4321", "Ravi": "1234"},
		products: []Product{
			{SKU: "S24", Barcode: "8801643000011", Name: "Samsung Galaxy S24", Brand: "SAMSUNG", ProductCode: "SAMSUNG-S24", Price: pos.Rupees(74999), GSTRate: pos.Percent(18), Serialised: true},
			{SKU: "CABLE", Barcode: "8901000000017", Name: "USB-C cable", Price: pos.Rupees(499), GSTRate: pos.Percent(18)},
			{SKU: "TV55", Barcode: "8806090000019", Name: "LG OLED 55 C4", Brand: "LG", ProductCode: "LG-OLED55C4", Price: pos.Rupees(139990), GSTRate: pos.Percent(28)},
		},
		offers: []EMIOffer{
			{Issuer: "HDFC", Program: "bank", Subvention: "standard", TenureMonths: 6, RateBP: 150000, Monthly: 1305000, Interest: 330000, TotalPayable: 7830000, AuthAmount: pos.Rupees(74999)},
			{Issuer: "HDFC", Brand: "SAMSUNG", Program: "brand", Subvention: "no-cost", TenureMonths: 3, RateBP: 150000, Monthly: 2499967, Interest: 0, Benefit: 187000, TotalPayable: 7499900, AuthAmount: pos.Rupees(74999), IMEIRequired: true},
			{Issuer: "ICICI", Program: "bank", Subvention: "standard", TenureMonths: 12, RateBP: 160000, Monthly: 680000, Interest: 660000, TotalPayable: 8160000, AuthAmount: pos.Rupees(74999)},
		},
		events:   map[string][]OrderEvent{},
		settings: Settings{ShopName: "Sharma Mobiles", PrinterProfile: "80mm", DiscountLimit: pos.DefaultDiscountLimit},
		otp:      make(chan string, 1),
		left:     map[string]Outcome{},
		inFlight: map[string]bool{},
	}
}

// leave records a payment Pay leaves pending, as the real till follows it up.
func (f *fakeTill) leave(out Outcome) (Outcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.left[out.OrderID] = out
	f.status.Pending = append(f.status.Pending, PendingPayment{OrderID: out.OrderID, Amount: out.Amount, State: pos.StateUnknown})
	f.status.Unknown = len(f.status.Pending)
	return out, nil
}

// resolve decides the pending payment of id as state in the background (PAID gets
// receipt "R-id") and queues its notice.
func (f *fakeTill) resolve(id string, state pos.OrderState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.left[id]
	out.State, out.Verified, out.Unverified = state, true, false
	n := Notice{OrderID: id, State: state, Amount: out.Amount, Text: "Order " + id + ": " + string(state) + " — not charged"}
	if state.Paid() {
		out.ReceiptNo = "R-" + id
		n.ReceiptNo = out.ReceiptNo
		n.Text = "Order " + id + ": PAID " + out.Amount.String() + " — receipt " + out.ReceiptNo
	}
	f.left[id] = out
	f.notices = append(f.notices, n)
	f.status.Pending = slices.DeleteFunc(f.status.Pending, func(p PendingPayment) bool { return p.OrderID == id })
	f.status.Unknown = len(f.status.Pending)
}

func (f *fakePending) CheckOrder(_ context.Context, id string) (Outcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.checked = append(f.checked, id)
	out, ok := f.left[id]
	if !ok {
		return Outcome{}, pos.ErrOrderNotFound
	}
	return out, nil
}

// CartLock says what pos says: locked while in flight or pending, sold when paid.
func (f *fakePending) CartLock(_ context.Context, id string) CartLock {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inFlight[id] {
		return CartLock{Locked: true, Reason: "The payment of order " + id + " is in progress."}
	}
	out, ok := f.left[id]
	switch {
	case !ok || out.State == pos.StateFailed:
		return CartLock{Reason: "Order " + id + " was not charged."}
	case out.State.Paid():
		return CartLock{Paid: true, Reason: "Order " + id + " is PAID."}
	}
	return CartLock{Locked: true, Reason: "The payment of order " + id + " is pending (fake)."}
}

func (f *fakePending) FollowUp(context.Context) ([]Notice, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.notices
	f.notices = nil
	return n, nil
}

func (f *fakePending) Status(context.Context) Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.status
	st.Pending = slices.Clone(st.Pending)
	st.InProgress += len(f.inFlight) // as pos: a payment whose call runs is in progress
	return st
}

func (f *fakeStaffer) Staff(context.Context) ([]StaffMember, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]StaffMember(nil), f.staff...), nil
}

func (f *fakeStaffer) AddStaff(_ context.Context, name string, role Role, pin string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := pos.CheckPIN(pin); err != nil {
		return err
	}
	if len(f.staff) == 0 && role != RoleManager {
		return pos.ErrFirstStaffManager
	}
	if _, ok := f.pins[name]; ok {
		return errFakeNoStaffed
	}
	f.staff = append(f.staff, StaffMember{ID: fmt.Sprintf("%03d", len(f.staff)+1), Name: name, Role: role})
	f.pins[name] = pin
	return nil
}

func (f *fakeStaffer) SignIn(_ context.Context, name, pin string) (StaffMember, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.staff {
		if s.Name == name && f.pins[name] == pin {
			s.MustChangePIN = f.short[name]
			return s, nil
		}
	}
	return StaffMember{}, errFakeWrongPIN
}

func (f *fakeStaffer) ChangeOwnPIN(_ context.Context, name, oldPIN, newPIN string) (StaffMember, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.staff {
		if s.Name != name || f.pins[name] != oldPIN {
			continue
		}
		if err := pos.CheckRolePIN(s.Role, newPIN); err != nil {
			return StaffMember{}, err
		}
		f.pins[name] = newPIN
		delete(f.short, name)
		return s, nil
	}
	return StaffMember{}, errFakeWrongPIN
}

func (f *fakeStaffer) SignOut(_ context.Context, m StaffMember, idle bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	how := "locked"
	if idle {
		how = "idle"
	}
	f.signOuts = append(f.signOuts, m.Name+":"+how)
	return nil
}

func (f *fakeStaffer) Authorize(_ context.Context, pin string, o Override) (StaffMember, error) {
	return f.authorize(pin, o)
}

// authorize is Authorize, for the services whose own calls take a manager's PIN.
func (f *fakeTill) authorize(pin string, o Override) (StaffMember, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.staff {
		if s.Manager() && f.pins[s.Name] == pin {
			if o.What != "" {
				f.overrides = append(f.overrides, fmt.Sprintf("%s %s %s by %s approved by %s", o.What, o.SKU, o.Amount.Plain(), o.By, s.ID))
			}
			return s, nil
		}
	}
	return StaffMember{}, errFakeWrongPIN
}

func (f *fakeCatalog) Search(q string, limit int) []Product {
	var out []Product
	q = strings.ToLower(q)
	for _, p := range f.products {
		if strings.Contains(strings.ToLower(p.Name+" "+p.SKU+" "+p.Barcode), q) && len(out) < limit {
			out = append(out, p)
		}
	}
	return out
}

func (f *fakeCatalog) Lookup(code string) (Product, bool) {
	for _, p := range f.products {
		if strings.EqualFold(p.SKU, code) || p.Barcode == code {
			return p, true
		}
	}
	return Product{}, false
}

// Price uses pos's own tax rule on the lines, and pos's discount policy with the
// limit of the settings; an approval names one of the fake's staff.
func (f *fakeCatalog) Price(lines []Line) (Bill, error) {
	var pl []pos.Line
	var b Bill
	for _, l := range lines {
		line := pos.Line{SKU: l.Product.SKU, Name: l.Product.Name, Qty: l.Qty, UnitPrice: l.Product.Price, Discount: l.Discount, GSTRate: l.Product.GSTRate}
		if err := (pos.DiscountPolicy{Limit: f.DiscountLimit(l)}).Check(line, l.Discount, f.staffNamed(l.ApprovedBy)); err != nil {
			return Bill{}, err
		}
		pl = append(pl, line)
		b.Lines = append(b.Lines, pos.Paise(l.Qty)*l.Product.Price-l.Discount)
	}
	t := pos.ComputeTotals(pl)
	b.Gross, b.Discount, b.Taxable, b.CGST, b.SGST, b.Total = t.Gross, t.Discount, t.Taxable, t.CGST, t.SGST, t.Total
	b.IGST = t.Interstate().IGST
	return b, nil
}

func (f *fakeCatalog) DiscountLimit(Line) pos.Paise {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.settings.DiscountLimit
}

// staffNamed returns the staff member called name as pos sees one, or nil.
func (f *fakeTill) staffNamed(name string) *pos.Staff {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.staff {
		if name != "" && s.Name == name {
			return &pos.Staff{Name: s.Name, Role: s.Role}
		}
	}
	return nil
}

// fakeCard keeps only what the tests need; it prints masked like the real one.
type fakeCard struct {
	number, mm, yyyy, cvv, holder string
	zeroed                        bool
}

func (c *fakeCard) Last4() string {
	if len(c.number) < 4 {
		return c.number
	}
	return c.number[len(c.number)-4:]
}
func (c *fakeCard) Brand() string  { return brandOf(c.number) }
func (c *fakeCard) String() string { return c.Brand() + " •••• " + c.Last4() }
func (c *fakeCard) Zero()          { c.number, c.cvv, c.zeroed = "", "", true }
func (c *fakeCard) Check(now time.Time) error {
	if len(c.number) < 12 || !pos.Luhn(c.number) {
		return errors.New("fake: card number mistyped")
	}
	if c.yyyy < now.Format("2006") || len(c.cvv) < 3 || c.holder == "" {
		return errors.New("fake: card details incomplete")
	}
	return nil
}

func brandOf(n string) string {
	switch {
	case strings.HasPrefix(n, "4"):
		return "VISA"
	case strings.HasPrefix(n, "5"):
		return "MASTERCARD"
	case strings.HasPrefix(n, "34"), strings.HasPrefix(n, "37"):
		return "AMEX"
	}
	return "UNKNOWN"
}

func (f *fakeCheckout) NewCard(number, mm, yyyy, cvv, holder string) Card {
	c := &fakeCard{number: number, mm: mm, yyyy: yyyy, cvv: cvv, holder: holder}
	f.mu.Lock()
	f.cards = append(f.cards, c)
	f.mu.Unlock()
	return c
}

func (f *fakeCheckout) CardBrand(number string) string { return brandOf(number) }

func (f *fakeCheckout) EMIOffers(_ context.Context, lines []Line) ([]EMIOffer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]EMIOffer(nil), f.offers...), nil
}

// ValidateScheme accepts HDFC offers on HDFC cards (4386…) only.
func (f *fakeCheckout) ValidateScheme(_ context.Context, _ []Line, o EMIOffer, c Card) error {
	f.mu.Lock()
	f.schemes++
	f.mu.Unlock()
	fc := c.(*fakeCard)
	if o.Issuer == "HDFC" && !strings.HasPrefix(fc.number, "4386") {
		return errFakeNoOffer
	}
	return nil
}

// Pay scripts the sandbox cards: …0002 fails, …9995 answers unverified, …0119 never
// answers (UNKNOWN), others wait for the OTP 123456 (5555… is frictionless).
func (f *fakeCheckout) Pay(ctx context.Context, req PayRequest, progress func(Progress)) (Outcome, error) {
	if progress == nil {
		progress = func(Progress) {}
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	id := req.OrderID
	if id == "" {
		id = fmt.Sprintf("G-%04d", len(f.requests))
	}
	hold := f.holdPay
	f.holdPay = nil
	f.inFlight[id] = true
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.inFlight, id)
		f.mu.Unlock()
	}()
	var total pos.Paise
	for _, l := range req.Lines {
		total += pos.Paise(l.Qty)*l.Product.Price - l.Discount
	}
	out := Outcome{OrderID: id, Amount: total}
	paid := func() (Outcome, error) {
		out.State, out.Verified, out.ReceiptNo = pos.StatePaid, true, "R-"+id
		f.record(OrderSummary{OrderID: id, State: pos.StatePaid, Tender: req.Tender, Amount: total, Cashier: req.Cashier})
		return out, nil
	}
	switch req.Tender {
	case pos.TenderCash:
		out.Change = req.Tendered - total
		return paid()
	case pos.TenderPhone:
		progress(Progress{OrderID: id, Step: StepCreated})
		progress(Progress{OrderID: id, Step: StepAuthenticating, CheckoutURL: "http://127.0.0.1:7071/pay/" + id})
		if hold != nil { // the customer has not paid yet
			select {
			case <-hold:
			case <-ctx.Done():
			}
		}
		f.mu.Lock()
		fail := f.phoneFails > 0
		if fail {
			f.phoneFails--
		}
		f.mu.Unlock()
		if fail {
			out.State, out.Verified, out.Reason, out.CanRetry = pos.StateFailed, true, "The customer's bank declined the payment.", true
			f.record(OrderSummary{OrderID: id, State: pos.StateFailed, Tender: req.Tender, Amount: total, Cashier: req.Cashier})
			return out, nil
		}
		return paid()
	}
	card := req.Card.(*fakeCard)
	last4 := card.Last4()
	number := card.number
	card.Zero()
	progress(Progress{OrderID: id, Step: StepCreated})
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return Outcome{}, ctx.Err()
		}
	}
	switch last4 {
	case "0002":
		out.State, out.Verified, out.Reason, out.CanRetry = pos.StateFailed, true, "The bank declined the card.", true
		return out, nil
	case "9995":
		out.State, out.Unverified = pos.StateUnknown, true
		return out, nil
	case "0119":
		progress(Progress{OrderID: id, Step: StepVerifying, Checks: 3, NextCheck: 5 * time.Second})
		out.State = pos.StateUnknown
		return f.leave(out)
	}
	if !strings.HasPrefix(number, "5555") {
		progress(Progress{OrderID: id, Step: StepAuthenticating, OTP: true})
		select {
		case otp := <-f.otp:
			if otp != "123456" {
				out.State, out.Verified, out.Reason, out.CanRetry = pos.StateFailed, true, "The customer's authentication failed.", true
				return out, nil
			}
		case <-ctx.Done():
			// As the real till: the wait ends and the payment is left pending.
			out.State, out.Reason = pos.StateUnknown, "the checkout stopped waiting for the payment's answer"
			return f.leave(out)
		}
	}
	progress(Progress{OrderID: id, Step: StepVerifying, Checks: 1, NextCheck: time.Second})
	return paid()
}

// CheckEMIOrder opens a brand-EMI order and validates its IMEIs as the service
// would: an IMEI whose type allocation code is not Samsung's ("35") is not of
// the brand. The order ids are E-0001, E-0002, ...
func (f *fakeCheckout) CheckEMIOrder(_ context.Context, req PayRequest) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.emiChecks = append(f.emiChecks, req)
	for _, m := range req.IMEIs {
		if !strings.HasPrefix(m.IMEI, "35") {
			return "", &pos.IMEIError{Problems: []pos.IMEIProblem{{SKU: "S24", Name: "Samsung Galaxy S24", IMEI: m.IMEI, Reason: "it is not a phone of this brand"}}}
		}
	}
	return fmt.Sprintf("E-%04d", len(f.emiChecks)), nil
}

func (f *fakeCheckout) CancelEMIOrder(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancelled = append(f.cancelled, id)
	return nil
}

func (f *fakeTill) record(o OrderSummary) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o.At = time.Date(2026, 11, 22, 11, 42, len(f.orders), 0, time.Local)
	f.orders = append(f.orders, o)
	f.events[o.OrderID] = append(f.events[o.OrderID], OrderEvent{At: o.At, Kind: "order.intent", Detail: "Sale journaled"}, OrderEvent{At: o.At.Add(9 * time.Second), Kind: "payment.outcome", Detail: "Verified answer: " + string(o.State)})
}

func (f *fakeCheckout) SubmitOTP(_ context.Context, _, otp string) error {
	select {
	case f.otp <- otp:
		return nil
	default:
		return errors.New("fake: no payment waits for an OTP")
	}
}

func (f *fakeDocuments) Receipt(_ context.Context, orderID string) ([]byte, error) {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 96))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	img.Set(10, 10, color.Black)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (f *fakeDocuments) Print(_ context.Context, orderID string, reprint bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.printErr != nil {
		return f.printErr
	}
	kind := "print"
	if reprint {
		kind = "reprint"
	}
	f.printed = append(f.printed, kind+":"+orderID)
	return nil
}

func (f *fakeBooks) Orders(context.Context, time.Time) ([]OrderSummary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := append([]OrderSummary(nil), f.orders...)
	for i, o := range out {
		// What pos decides of each order, as a fake: the screen only shows it.
		if o.State != pos.StatePaid && o.State != pos.StatePartlyRefunded {
			out[i].NoRefund = "Only a paid order can be refunded; this one is " + string(o.State) + "."
			continue
		}
		out[i].Refundable, out[i].MinRefund = o.Amount-o.Refunded, pos.MinRefund
	}
	return out, nil
}

func (f *fakeBooks) History(_ context.Context, id string) ([]OrderEvent, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]OrderEvent(nil), f.events[id]...), nil
}

func (f *fakeReturns) Refund(ctx context.Context, id string, amount pos.Paise, pin string) (Outcome, error) {
	if _, err := f.authorize(pin, Override{}); err != nil {
		return Outcome{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, o := range f.orders {
		if o.OrderID == id {
			f.orders[i].Refunded += amount
			f.orders[i].State = pos.StatePartlyRefunded
			if f.orders[i].Refunded == o.Amount {
				f.orders[i].State = pos.StateRefunded
			}
			f.refunds = append(f.refunds, amount)
			return Outcome{OrderID: id, State: f.orders[i].State, Verified: true, Amount: amount}, nil
		}
	}
	return Outcome{}, pos.ErrOrderNotFound
}

func (f *fakeBooks) XReport(_ context.Context, day time.Time) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	text := fmt.Sprintf("X REPORT %s\norders %d", day.Format(pos.DayLayout), len(f.orders))
	if f.note != "" {
		text += "\n\n" + f.note
	}
	return text, nil
}

func (f *fakeBooks) CloseDay(ctx context.Context, r pos.CloseDayRequest) (*pos.CloseDayResult, error) {
	m, err := f.authorize(r.PIN, Override{})
	if err != nil {
		return nil, err
	}
	day, err := time.ParseInLocation(pos.DayLayout, r.Day, time.Local)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, d := range f.closed {
		if d.Equal(day) {
			return nil, pos.ErrDayClosed
		}
	}
	f.closed = append(f.closed, day)
	return &pos.CloseDayResult{Report: &pos.Report{Day: r.Day, ZNo: 1}, Note: "closed by " + m.Name}, nil
}

// BackupSpace is a fixed space of seventeen backups.
func (f *fakeBooks) BackupSpace() (pos.BackupSpace, bool, error) {
	return pos.BackupSpace{Files: 17, Bytes: 20_400_000_000}, true, nil
}

// ZText is the fake's Z: its number, day and who closed it.
func (f *fakeBooks) ZText(_ context.Context, res *pos.CloseDayResult) string {
	return fmt.Sprintf("Z REPORT %d %s %s", res.Report.ZNo, res.Report.Day, res.Note)
}

// RefundReceipt draws a PNG only for an order with a refund.
func (f *fakeDocuments) RefundReceipt(ctx context.Context, orderID string) ([]byte, error) {
	f.mu.Lock()
	refunded := false
	for _, o := range f.orders {
		refunded = refunded || o.OrderID == orderID && o.Refunded > 0
	}
	f.mu.Unlock()
	if !refunded {
		return nil, pos.ErrNotRefundable
	}
	return f.Receipt(ctx, orderID)
}

func (f *fakeDocuments) PrintRefund(_ context.Context, orderID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.printErr != nil {
		return f.printErr
	}
	f.printed = append(f.printed, "refund:"+orderID)
	return nil
}

func (f *fakeDocuments) ReportReceipt(ctx context.Context, day time.Time) ([]byte, error) {
	f.mu.Lock()
	f.reports = append(f.reports, "png:"+day.Format(pos.DayLayout))
	f.mu.Unlock()
	return f.Receipt(ctx, "report")
}

func (f *fakeDocuments) PrintReport(_ context.Context, day time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.printErr != nil {
		return f.printErr
	}
	f.reports = append(f.reports, "print:"+day.Format(pos.DayLayout))
	return nil
}

func (f *fakeBooks) ExportCSV(_ context.Context, _ time.Time, w io.Writer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	fmt.Fprintln(w, "order_id,state,amount")
	for _, o := range f.orders {
		fmt.Fprintf(w, "%s,%s,%d\n", o.OrderID, o.State, o.Amount)
	}
	return nil
}

func (f *fakeBooks) OrderFromQR(text string) (string, error) {
	if id, ok := strings.CutPrefix(text, "galla:"); ok {
		return id, nil
	}
	return "", errFakeBadQR
}

func (f *fakeAdmin) Settings(context.Context) (Settings, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.settings, nil
}

// SaveSettings keeps s as pos would: a new access code replaces the stored one
// (shown masked afterwards), an empty one keeps it; the secret likewise.
func (f *fakeAdmin) SaveSettings(_ context.Context, by StaffMember, s Settings, secret string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !by.Manager() {
		return pos.ErrNotManager
	}
	f.savedBy = append(f.savedBy, by)
	if secret != "" {
		f.secret = secret
		s.SecretSet = true
	}
	if s.AccessCode != "" && s.AccessCode != f.settings.AccessCodeShown {
		f.accessCode = s.AccessCode
		s.AccessCodeShown = "••••" + s.AccessCode[max(0, len(s.AccessCode)-2):]
	}
	s.AccessCode = ""
	f.settings = s
	return nil
}

func (f *fakeAdmin) PrinterProfiles() []string { return []string{"58mm", "80mm"} }

func (f *fakeDocuments) TestPrint(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.printErr
}

// FindSales finds orders as pos would, simply: a document number whole or
// without its counter, a number alone, or a card's last four; a tender gives its
// sale's row.
func (f *fakeBooks) FindSales(_ context.Context, text string) ([]OrderSummary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []OrderSummary
	for _, o := range f.orders {
		doc := o.ReceiptNo
		_, tail, _ := strings.Cut(doc, "/")
		_, no, _ := strings.Cut(tail, "/")
		if doc != "" && (text == doc || text == tail || strings.TrimLeft(no, "0") == strings.TrimLeft(text, "0")) || o.CardLast4 != "" && o.CardLast4 == text {
			out = append(out, o)
		}
	}
	return out, nil
}
