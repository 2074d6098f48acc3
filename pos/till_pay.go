package pos

import (
	"context"
	"errors"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"galla/gateway"
)

// CardData is the one owning type of card data as a front end holds it: its
// formatting methods print only the brand and last four digits, and Zero wipes it.
// NewCard makes one (a *gateway.Card).
type CardData interface {
	Last4() string
	Brand() string
	Check(now time.Time) error
	Zero()
}

// NewCard makes the owning card value from what was typed.
func (t *Till) NewCard(number, expiryMonth, expiryYear, cvv, holder string) CardData {
	return gateway.NewCard(number, expiryMonth, expiryYear, cvv, holder)
}

// CardBrand names the brand of a card number as typed (VISA, MASTERCARD, ...).
func (t *Till) CardBrand(number string) string {
	c := gateway.NewCard(number, "", "", "", "")
	defer c.Zero()
	return c.Brand()
}

// OfferSort is an order the EMI offers can be shown in.
type OfferSort int

// The orders of EMI offers; the first is the default (DESIGN.md section 2: the
// cheapest total cost first, so no-cost plans lead).
const (
	ByTotalCost OfferSort = iota
	ByMonthly
	ByTenure
	ByIssuer
)

// OfferSorts names the orders for the screen, in OfferSort order.
var OfferSorts = [...]string{"total cost", "monthly instalment", "tenure", "issuer"}

// SortOffers orders offers by by, stably; ties go to the lower instalment.
func SortOffers(offers []EMIPlan, by OfferSort) {
	slices.SortStableFunc(offers, func(a, b EMIPlan) int {
		var d int64
		switch by {
		case ByMonthly:
			d = int64(a.Monthly - b.Monthly)
		case ByTenure:
			d = int64(a.TenureMonths - b.TenureMonths)
		case ByIssuer:
			return strings.Compare(a.Issuer, b.Issuer)
		default:
			d = int64(a.TotalPayable - b.TotalPayable)
			if d == 0 {
				d = int64(a.Monthly - b.Monthly)
			}
		}
		switch {
		case d < 0:
			return -1
		case d > 0:
			return 1
		}
		return 0
	})
}

// OfferMatches reports whether every word of a filter fits the offer: a number is
// the tenure in months ("6" is not "16"), any other word a part of the issuer, the
// brand or the plan ("hdfc no-cost 6"). Words are lower case.
func OfferMatches(f EMIPlan, words []string) bool {
	hay := strings.ToLower(f.Issuer + " " + f.Brand + " " + f.Subvention)
	for _, w := range words {
		if n, err := strconv.Atoi(w); err == nil {
			if n != f.TenureMonths {
				return false
			}
			continue
		}
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// EMIFrom is the offer the "EMI from" hint names: the no-cost plan with the lowest
// instalment, else the plan with the lowest total cost. ok is false when there is
// no offer.
func EMIFrom(offers []EMIPlan) (best EMIPlan, ok bool) {
	for _, o := range offers {
		if o.Subvention != "no-cost" {
			continue
		}
		if !ok || o.Monthly < best.Monthly {
			best, ok = o, true
		}
	}
	if ok {
		return best, true
	}
	for _, o := range offers {
		if !ok || o.TotalPayable < best.TotalPayable || (o.TotalPayable == best.TotalPayable && o.Monthly < best.Monthly) {
			best, ok = o, true
		}
	}
	return best, ok
}

// EMIOffers lists the EMI plans for the lines (one product or the whole cart) in
// the default order (ByTotalCost); none is an empty list.
func (t *Till) EMIOffers(ctx context.Context, lines []CartLine) ([]EMIPlan, error) {
	set, err := t.eng.EMIOffers(ctx, SaleLines(lines, nil))
	if errors.Is(err, ErrNoEMIOffer) {
		return nil, nil
	}
	if err != nil {
		t.noteErr(err)
		return nil, err
	}
	var out []EMIPlan
	for _, is := range set.Issuers {
		out = append(out, is.Plans...)
	}
	SortOffers(out, ByTotalCost)
	return out, nil
}

// FindOffer returns the offer of issuer and tenure for the lines, or a sentence
// listing the offers there are.
func (t *Till) FindOffer(ctx context.Context, lines []CartLine, issuer string, months int) (EMIPlan, error) {
	set, err := t.eng.EMIOffers(ctx, SaleLines(lines, nil))
	if err != nil {
		return EMIPlan{}, err
	}
	plan, ok := set.Find(issuer, months, "")
	if !ok {
		return EMIPlan{}, Errorf("No %s offer of %d months exists for this cart; the offers are: %s.", issuer, months, offerList(set))
	}
	return plan, nil
}

func offerList(s *OfferSet) string {
	var parts []string
	for _, is := range s.Issuers {
		var months []string
		for _, p := range is.Plans {
			months = append(months, strconv.Itoa(p.TenureMonths)+" ("+p.Program+")")
		}
		parts = append(parts, is.Issuer+" "+strings.Join(months, ", "))
	}
	return strings.Join(parts, "; ")
}

// ErrNotPayableAgain reports an order that cannot be paid again: not card or EMI,
// paid, out of attempts, or not verifiably failed (then it is inquired, never
// charged again).
var ErrNotPayableAgain = errors.New("the order cannot be paid again")

// PayAgainOrder returns order id when it may be paid again on the same order (a
// card or EMI sale whose payment verifiably failed, with attempts left), or a
// sentence saying why not.
func (t *Till) PayAgainOrder(ctx context.Context, id string) (*Order, error) {
	o, err := t.eng.Order(ctx, id)
	if errors.Is(err, ErrOrderNotFound) {
		return nil, wrapf(ErrOrderNotFound, "No sale with the order number %s is in the journal; check the number on the receipt.", id)
	}
	if err != nil {
		return nil, err
	}
	no := func(format string, a ...any) (*Order, error) { return nil, wrapf(ErrNotPayableAgain, format, a...) }
	switch {
	case o.Tender != TenderCard && o.Tender != TenderEMI:
		return no("The sale %s is paid in %s, not by card or EMI; nothing can be paid again on it.", o.ID, o.Tender)
	case o.State.Paid():
		return no("The sale %s is already paid; print the receipt instead of charging again.", o.ID)
	case o.State == StateFailed && errors.Is(o.CanPay(), ErrAttemptsUsed):
		return no("The sale %s has used all its payment attempts; start a new sale or take another payment method.", o.ID)
	case o.State == StateFailed && o.CanPay() == nil:
		return o, nil
	case o.State == StateFailed || o.State == StateAbandoned:
		return no("The sale %s cannot be paid again; start a new sale.", o.ID)
	}
	return no("The payment of the sale %s has not verifiably failed (it is %s); do not charge again — run \"galla reconcile\" to resolve it.", o.ID, o.State)
}

// errNoCard says that a card tender came without the card.
var errNoCard = sentenceErr("The card was not read; type it again.")

// ValidateScheme asks the service whether card's issuer gives offer today.
func (t *Till) ValidateScheme(ctx context.Context, lines []CartLine, offer EMIPlan, card CardData) error {
	gc, ok := card.(*gateway.Card)
	if !ok {
		return errNoCard
	}
	amount := ComputeTotals(SaleLines(lines, nil)).Total
	return t.eng.ValidateScheme(ctx, offer, amount, gc)
}

// PayStep is where a payment stands, as the progress screen shows it.
type PayStep int

// The steps of a payment.
const (
	PayCreating       PayStep = iota // journaling and creating the order
	PayCreated                       // order created
	PayAuthenticating                // the customer authenticates (OTP, 3-D Secure, phone)
	PayVerifying                     // polling the verified status
	PayDone                          // an outcome
)

// PayRequest asks the till to take a payment for a cart.
type PayRequest struct {
	OrderID  string // empty for a new order; a FAILED order's id to pay it again
	Lines    []CartLine
	Tender   TenderKind
	Card     CardData   // card and EMI
	Offer    *EMIPlan   // EMI
	IMEIs    []UnitIMEI // serialised units
	Tendered Paise      // cash; 0 is the exact amount
	Cashier  string
	// Buyer is who the invoice names (CheckBuyer decides whether it must); nil
	// names nobody.
	Buyer *Buyer
	// OTP completes the embedded sandbox's authentication at once (the command
	// line's --otp). Without it the till waits for SubmitOTP, unless Unattended
	// (nobody is there to type it): then it reports the step and polls.
	OTP        string
	Unattended bool
	// Wait bounds the polling; 0 is the engine's default.
	Wait time.Duration
	// Sale, when set, takes this payment as one tender of that split-tender sale
	// (OpenSale): Amount of it (0: all that is left; Lines are the sale's). The
	// tenders are card, EMI, phone, cash, UPI (confirmed by the cashier) and
	// note (NoteNo).
	Sale   string
	Amount Paise
	NoteNo string
	// OverrideIMEIPIN is a manager's PIN that lets the phones of a new sale go
	// without the store server's reservation when the store cannot be asked
	// (ErrStoreOffline); the override is journaled with the manager's id, and
	// the store's pages flag it. A sold unit the store refuses is never
	// overridden.
	OverrideIMEIPIN string
	// AskIMEIOverride, when set and no OverrideIMEIPIN is given, is called when
	// the store server cannot be asked about the sale's phones (cause is
	// ErrStoreOffline, or why the last PIN approved nothing) and returns a
	// manager's PIN for the override; the sale waits for it, its card in
	// memory. An error (the cashier declined) refuses the sale with
	// ErrStoreOffline: nothing reserved, journaled or charged.
	AskIMEIOverride func(ctx context.Context, cause error) (pin string, err error)
}

// PayProgress is a report from a payment in flight.
type PayProgress struct {
	OrderID     string
	Step        PayStep
	OTP         bool          // the embedded sandbox waits for the OTP (SubmitOTP, or --otp)
	AuthURL     string        // live: the authentication page for the customer
	CheckoutURL string        // pay on phone: the page the customer opens
	Checks      int           // status inquiries made so far
	NextCheck   time.Duration // until the next inquiry
	Note        string        // a sentence for the cashier while waiting (a phone attempt failed; the customer may try again)
}

// PayOutcome is how a payment ended, as the front ends show it.
type PayOutcome struct {
	OrderID    string
	State      OrderState // PAID, FAILED or UNKNOWN
	Verified   bool       // the service's answer carried a good signature
	Unverified bool       // an answer came but could not be verified
	Reason     string     // for FAILED: why, as a sentence
	CanRetry   bool       // FAILED with attempts left on the same order
	Amount     Paise
	Change     Paise // cash
	ReceiptNo  string
	Order      *Order // the journaled order
	// Drawer is a sentence when a cash tender was taken and the cash drawer
	// did not open.
	Drawer string
	// Sale is, for a tender of a split sale, where the sale stands after it:
	// complete (with its ReceiptNo) once its tenders cover it.
	Sale *SaleStatus
}

// Pay takes a payment and reports progress (progress may be nil) until an
// outcome: PAID, FAILED or UNKNOWN. It wipes the card when the call is done.
func (t *Till) Pay(ctx context.Context, req PayRequest, progress func(PayProgress)) (PayOutcome, error) {
	if progress == nil {
		progress = func(PayProgress) {}
	}
	card, _ := req.Card.(*gateway.Card)
	if card != nil {
		defer card.Zero()
	}
	sale := Sale{Lines: SaleLines(req.Lines, req.IMEIs), Staff: req.Cashier}
	ctx = t.imeiOverrideFor(ctx, req)
	if req.Sale != "" {
		return t.payTender(ctx, req, card, progress)
	}
	if req.OrderID == "" {
		if err := t.checkDiscounts(sale.Lines); err != nil {
			return PayOutcome{}, err
		}
		// Every phone sold carries its IMEI, and no IMEI is sold twice
		// (DESIGN.md section 10); cash lands in a counted drawer.
		if err := t.checkSale(ctx, sale.Lines, req.Tender); err != nil {
			return PayOutcome{}, err
		}
		if err := t.CheckBuyer(ctx, req.Lines, req.Buyer); err != nil {
			return PayOutcome{}, err
		}
		if req.Buyer != nil {
			if b := req.Buyer.Normal(); !b.IsZero() {
				sale.Buyer = &b
			}
		}
	}
	checks := 0
	// The order is in flight from its first report until Pay returns: its cart is
	// locked to it (CartLock) and FollowUp leaves it to this call.
	var orderID string
	if req.OrderID != "" {
		orderID = req.OrderID
		t.paying(orderID)
	}
	defer func() {
		// A final order's outcome went to the caller; one still unresolved (the
		// wait was cancelled or ran out, or the call failed midway) is followed up.
		if orderID != "" {
			o, err := t.eng.Order(context.WithoutCancel(ctx), orderID)
			t.payReturned(orderID, err == nil && !o.Unresolved())
		}
	}()
	opt := t.payOptions(req, &orderID, &checks, progress)
	var (
		res *Result
		err error
	)
	switch req.Tender {
	case TenderCash:
		tendered := req.Tendered
		if tendered == 0 {
			tendered = ComputeTotals(sale.Lines).Total
		}
		res, err = t.eng.PayCash(ctx, sale, tendered)
	case TenderCard:
		if card == nil {
			return PayOutcome{}, errNoCard
		}
		if req.OrderID != "" {
			res, err = t.eng.PayCard(ctx, req.OrderID, card, opt)
		} else {
			res, err = t.eng.CheckoutCard(ctx, sale, card, opt)
		}
	case TenderEMI:
		if card == nil || (req.Offer == nil && req.OrderID == "") {
			return PayOutcome{}, sentenceErr("Choose an EMI offer and type the card again.")
		}
		if req.OrderID != "" {
			res, err = t.eng.PayEMI(ctx, req.OrderID, card, opt)
		} else {
			res, err = t.eng.CheckoutEMI(ctx, sale, *req.Offer, card, opt)
		}
	case TenderPhone:
		res, err = t.payOnPhone(ctx, func() (*Order, error) { return t.eng.OpenOnPhone(ctx, sale, opt) }, opt, progress)
	default:
		return PayOutcome{}, sentenceErr("Choose how the customer pays: card, EMI, cash or phone.")
	}
	if err != nil {
		t.noteErr(err)
		return PayOutcome{}, err
	}
	out := payOutcomeOf(res, t.cfg.Terminal)
	if req.Tender == TenderCash {
		out.Drawer = t.drawer(ctx)
	}
	if o := res.Order; o != nil && o.Sale != "" {
		// A split sale's tender paid again on its own order (galla pay): the
		// sale is completed once its tenders cover it.
		if st, serr := t.eng.SettleSale(ctx, o.Sale); serr == nil {
			out.Sale = st
		}
	}
	if out.OrderID != "" && out.OrderID != orderID {
		t.payReturned(orderID, true)
		orderID = out.OrderID
	}
	return out, nil
}

// payOptions are the engine's options of a Pay call: its progress reports
// turned into the screens' steps (following a sale moved to a fresh order id),
// and the authenticator.
func (t *Till) payOptions(req PayRequest, orderIDp *string, checks *int, progress func(PayProgress)) PayOptions {
	return PayOptions{
		Wait: req.Wait,
		Progress: func(p Progress) {
			if p.OrderID != "" && p.OrderID != *orderIDp {
				// A lost create order answer opens the sale again under a new id;
				// the abandoned one is final.
				t.payReturned(*orderIDp, true)
				*orderIDp = p.OrderID
				t.paying(*orderIDp)
			}
			up := PayProgress{OrderID: p.OrderID}
			switch p.Step {
			case StepJournaled:
				up.Step = PayCreating
			case StepCreated, StepIMEIValidated, StepPaying, StepAbandoned:
				up.Step = PayCreated
			case StepAuthenticating:
				up.Step = PayAuthenticating
			case StepWaiting:
				up.Step = PayAuthenticating
				if p.Attempt > 0 {
					up.Note = p.Message // a failed attempt on the phone: the customer may try again
				}
			case StepVerifying, StepUnverified:
				*checks++
				up.Step, up.Checks = PayVerifying, *checks
			default:
				return // the outcome comes back as the result
			}
			progress(up)
		},
		Auth: t.authenticator(req, progress),
	}
}

// drawer opens the cash drawer after a cash tender; a failure is a sentence for
// the screen, never an error of the sale (the cash is journaled).
func (t *Till) drawer(ctx context.Context) string {
	if err := t.OpenDrawer(ctx); err != nil {
		return Sentence(err)
	}
	return ""
}

// CheckEMIOrder opens the EMI order of req and validates its IMEIs with the
// service before the card is asked for (Engine.OpenEMIChecked: the service needs
// the order's token for the IMEI validation); Pay then takes the card on the
// order it returns (req.OrderID). A refused IMEI is a sentence naming the IMEI
// and the phone. req.OverrideIMEIPIN or req.AskIMEIOverride lets the phones go
// without the store's reservation when the store cannot be asked, as in Pay.
//
// With req.Sale set, the order is a tender of that split sale, of req.Amount
// (0: all that is left), with the sale's phones (reserved when the sale was
// opened): tender.added and the tender's order.intent are journaled, its order
// created and its IMEIs validated (Engine.OpenSaleTenderChecked); Pay with
// req.Sale and req.OrderID then takes the card on it, and CancelEMIOrder closes
// it when the cashier goes back, the sale staying open with its other tenders.
func (t *Till) CheckEMIOrder(ctx context.Context, req PayRequest) (string, error) {
	if req.Offer == nil {
		return "", sentenceErr("Choose an EMI offer first.")
	}
	if req.Sale != "" {
		o, err := t.eng.OpenSaleTenderChecked(ctx, req.Sale, req.Amount, *req.Offer, req.Cashier, PayOptions{}, req.IMEIs...)
		if err != nil {
			t.noteErr(err)
			return "", err
		}
		return o.ID, nil
	}
	sale := Sale{Lines: SaleLines(req.Lines, req.IMEIs), Staff: req.Cashier}
	if err := t.checkDiscounts(sale.Lines); err != nil {
		return "", err
	}
	// The order opened here is the sale's (Pay then only takes the card on it):
	// it passes what any new sale passes, the store's reservation of its phones
	// included, with a manager's override when the store cannot be asked.
	if err := t.checkSale(ctx, sale.Lines, TenderEMI); err != nil {
		return "", err
	}
	if err := t.CheckBuyer(ctx, req.Lines, req.Buyer); err != nil {
		return "", err
	}
	if req.Buyer != nil {
		if b := req.Buyer.Normal(); !b.IsZero() {
			sale.Buyer = &b
		}
	}
	ctx = t.imeiOverrideFor(ctx, req)
	o, err := t.eng.OpenEMIChecked(ctx, sale, *req.Offer, PayOptions{})
	if err != nil {
		t.noteErr(err)
		return "", err
	}
	return o.ID, nil
}

// errNoPhonePage says that pay on phone is not set up on this terminal.
var errNoPhonePage = sentenceErr("Pay on phone is not available on this terminal; take another payment method.")

// payOnPhone creates the order, offers it on the phone page and reports that
// page's address for the QR code; the customer pays on the phone and the engine
// polls the verified status (DESIGN.md section 2).
func (t *Till) payOnPhone(ctx context.Context, open func() (*Order, error), opt PayOptions, progress func(PayProgress)) (*Result, error) {
	if t.cfg.Phone == nil {
		return nil, errNoPhonePage
	}
	if err := t.cfg.Phone.Start(); err != nil {
		return nil, err
	}
	shop, err := LoadShop(ctx, t.j)
	if err != nil {
		return nil, err
	}
	o, err := open()
	if err != nil {
		return nil, err
	}
	addr := t.cfg.Phone.Offer(o.ID, PhoneOrder{Token: o.Token, Amount: o.Amount, Shop: shop.Name})
	defer t.cfg.Phone.Withdraw(o.ID)
	progress(PayProgress{OrderID: o.ID, Step: PayAuthenticating, CheckoutURL: addr})
	return t.eng.Await(ctx, o.ID, opt)
}

// payOutcomeOf turns the engine's result into the front ends' outcome.
func payOutcomeOf(res *Result, terminal string) PayOutcome {
	out := PayOutcome{Reason: res.Reason, CanRetry: res.CanRetry, Order: res.Order}
	if o := res.Order; o != nil {
		out.OrderID, out.Amount, out.Change = o.ID, o.Amount, o.Change
		out.ReceiptNo = o.Number(terminal)
	}
	switch res.Status {
	case ResultPaid:
		out.State, out.Verified = StatePaid, true
	case ResultFailed:
		out.State, out.Verified = StateFailed, true
	case ResultUnverified:
		out.State, out.Unverified = StateUnknown, true
	default:
		out.State = StateUnknown
	}
	return out
}

// authenticator takes the customer through the issuer's step. With the embedded
// sandbox the OTP comes from req.OTP, or is typed in the window (SubmitOTP) unless
// req.Unattended; with the live service the page is published for the customer
// (AuthPages) or its address is reported.
func (t *Till) authenticator(req PayRequest, progress func(PayProgress)) Authenticator {
	return AuthenticatorFunc(func(ctx context.Context, ch Challenge) error {
		if t.live {
			addr := FormAction(ch.Content)
			if t.cfg.AuthPages != nil {
				page, err := t.cfg.AuthPages.Publish(ch.OrderID, ch.Content)
				if err != nil {
					return err
				}
				addr = page
			}
			if addr != "" {
				progress(PayProgress{OrderID: ch.OrderID, Step: PayAuthenticating, AuthURL: addr})
			}
			return nil
		}
		if t.captured(ctx, ch) {
			// A frictionless card: its form posts straight on and the payment is
			// captured at once (contract section 4); nobody is asked for an OTP.
			return nil
		}
		if req.OTP != "" {
			return t.eng.gw.SubmitAuthentication(ctx, ch.Content, url.Values{"otp": {req.OTP}})
		}
		progress(PayProgress{OrderID: ch.OrderID, Step: PayAuthenticating, OTP: true})
		if req.Unattended {
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
		select {
		case otp := <-wait:
			return t.eng.gw.SubmitAuthentication(ctx, ch.Content, url.Values{"otp": {otp}})
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}

// captured asks the service once whether the payment of ch is already captured
// on a verified answer (the embedded sandbox's frictionless card). The answer is
// not journaled here: the engine's poll that follows records it.
func (t *Till) captured(ctx context.Context, ch Challenge) bool {
	o, err := t.eng.Order(ctx, ch.OrderID)
	if err != nil || o.ServiceOrderID == "" || ch.PaymentID == "" {
		return false
	}
	q, err := t.eng.gw.InquirePayment(ctx, o.ServiceOrderID, ch.PaymentID)
	return err == nil && q != nil && q.Verified && q.PaymentInfoData.PaymentStatus == gateway.PaymentCaptured
}

// SubmitOTP completes the embedded sandbox's authentication step of orderID.
func (t *Till) SubmitOTP(_ context.Context, orderID, otp string) error {
	t.mu.Lock()
	wait, ok := t.otps[orderID]
	t.mu.Unlock()
	if !ok {
		return sentenceErr("No payment is waiting for a one-time password.")
	}
	select {
	case wait <- otp:
		return nil
	default:
		return sentenceErr("The one-time password was already sent; wait for the result.")
	}
}

var actionRE = regexp.MustCompile(`(?i)<form[^>]*\saction\s*=\s*["']([^"']+)["']`)

// FormAction returns the address an authentication page's form posts to, "" when
// it has none.
func FormAction(content string) string {
	m := actionRE.FindStringSubmatch(content)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}
