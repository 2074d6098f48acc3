package pos

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"galla/gateway"
)

// Checkout takes the customer's money for a sale: a sale of one tender (cash,
// card, EMI, pay on the customer's phone, a credit note) or a split sale of
// several (UPI to the shop's VPA among them), the EMI offers and the scheme's
// check, a failed card or EMI payment taken again on the same order, the
// one-time password of the sandbox's authentication step, and a manager's
// approval of a sale's phones that the store server could not be asked about.
// What every new sale passes first is its too (checkSale): the journal ready,
// the IMEIs, and the Drawer's open shift for cash.
type Checkout struct{ *core }

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
func (co *Checkout) NewCard(number, expiryMonth, expiryYear, cvv, holder string) CardData {
	return gateway.NewCard(number, expiryMonth, expiryYear, cvv, holder)
}

// CardBrand names the brand of a card number as typed (VISA, MASTERCARD, ...).
func (co *Checkout) CardBrand(number string) string {
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
func (co *Checkout) EMIOffers(ctx context.Context, lines []CartLine) ([]EMIPlan, error) {
	set, err := co.eng.Payments.EMIOffers(ctx, SaleLines(lines, nil))
	if errors.Is(err, ErrNoEMIOffer) {
		return nil, nil
	}
	if err != nil {
		co.noteErr(err)
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
func (co *Checkout) FindOffer(ctx context.Context, lines []CartLine, issuer string, months int) (EMIPlan, error) {
	set, err := co.eng.Payments.EMIOffers(ctx, SaleLines(lines, nil))
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
// sentence saying why not. id may name an open split sale: its latest card or
// EMI tender is the order, when that may be paid again.
func (co *Checkout) PayAgainOrder(ctx context.Context, id string) (*Order, error) {
	o, err := co.eng.Order(ctx, id)
	if errors.Is(err, ErrOrderNotFound) {
		return nil, wrapf(ErrOrderNotFound, "No sale with the order number %s is in the journal; check the number on the receipt.", id)
	}
	if err != nil {
		return nil, err
	}
	no := func(format string, a ...any) (*Order, error) { return nil, wrapf(ErrNotPayableAgain, format, a...) }
	if paidApart(o) && o.State != StateOpen {
		st, err := co.eng.Sales.SaleStatus(ctx, o.ID)
		if err != nil {
			return nil, err
		}
		var kinds []string
		card := false
		for _, tv := range st.Tenders {
			if tv.Paid() {
				kinds = append(kinds, string(tv.Kind))
				card = card || tv.Kind == TenderCard || tv.Kind == TenderEMI
			}
		}
		switch {
		case o.State.Paid() && !card && len(kinds) > 0:
			return no("The sale %s is paid in %s, not by card or EMI; nothing can be paid again on it.", o.ID, strings.Join(kinds, " and "))
		case o.State.Paid():
			return no("The sale %s is already paid; print the receipt instead of charging again.", o.ID)
		}
		return no("The sale %s cannot be paid again (it is %s); start a new sale.", o.ID, saleStateWords(o.State))
	}
	if o.State == StateOpen {
		// An open sale: its card or EMI tender that verifiably failed, the
		// latest tried, is paid again on its own order.
		st, err := co.eng.Sales.SettleSale(ctx, o.ID)
		if err != nil {
			return nil, err
		}
		for i := len(st.Tenders) - 1; i >= 0; i-- {
			tv := st.Tenders[i]
			if tv.Order == nil || (tv.Kind != TenderCard && tv.Kind != TenderEMI) {
				continue
			}
			if tv.State == StateFailed && tv.Amount > st.Due {
				return nil, &TenderError{Amount: tv.Amount, Due: st.Due, Pending: st.Pending}
			}
			return co.PayAgainOrder(ctx, tv.Order.ID)
		}
		return no("The sale %s has no card or EMI payment to pay again; take what is left with galla pay %s --pay TENDER.", o.ID, o.ID)
	}
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

// gatewayHeld refuses a card, EMI or pay-on-phone tender while the live
// service is not the one a manager approved on this counter
// (TillConfig.GatewayHold), before any order is made or card data sent.
func (co *Checkout) gatewayHeld(kind TenderKind) error {
	switch hold := co.cfg.GatewayHold; {
	case hold == "":
		return nil
	case kind == TenderCard, kind == TenderEMI, kind == TenderPhone:
		return sentenceWrap{sentence: hold, err: ErrGatewayNotApproved}
	}
	return nil
}

// ErrGatewayNotApproved is the refusal of a card, EMI or pay-on-phone tender
// while the live service is not the one a manager approved on this counter;
// nothing was sent.
var ErrGatewayNotApproved = errors.New("the payment service is not approved on this counter")

// errNoCard says that a card tender came without the card.
var errNoCard = sentenceErr("The card was not read; type it again.")

// ValidateScheme asks the service whether card's issuer gives offer today.
func (co *Checkout) ValidateScheme(ctx context.Context, lines []CartLine, offer EMIPlan, card CardData) error {
	if err := co.gatewayHeld(TenderEMI); err != nil {
		return err
	}
	gc, ok := card.(*gateway.Card)
	if !ok {
		return errNoCard
	}
	amount := ComputeTotals(SaleLines(lines, nil)).Total
	return co.eng.Payments.ValidateScheme(ctx, offer, amount, gc)
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

// SaleID is the id of the sale the payment is for: what its receipt, the CSV,
// the journal, a refund and galla pay take. OrderID is the tender's, what the
// payment service knows; for an order of one tender (an older journal's,
// paid again) the two are the same.
func (o PayOutcome) SaleID() string {
	if o.Sale != nil && o.Sale.Sale != nil {
		return o.Sale.Sale.ID
	}
	return o.OrderID
}

// SaleOutcome is the outcome as the sale's: its id, amount, order and
// document, once the sale is complete; an outcome of no sale, or of a sale not
// complete, is o as it is. A receipt, the CSV and a refund take the sale's.
func (o PayOutcome) SaleOutcome() PayOutcome {
	st := o.Sale
	if st == nil || st.Sale == nil || !st.Complete() {
		return o
	}
	o.OrderID, o.Amount, o.Order = st.Sale.ID, st.Sale.Amount, st.Sale
	return o
}

// SaleOrder is the journaled order of the sale the payment is for (its lines,
// buyer and document), Order for an order of one tender.
func (o PayOutcome) SaleOrder() *Order {
	if o.Sale != nil && o.Sale.Sale != nil {
		return o.Sale.Sale
	}
	return o.Order
}

// Pay takes a payment and reports progress (progress may be nil) until an
// outcome: PAID, FAILED or UNKNOWN. It wipes the card when the call is done.
func (co *Checkout) Pay(ctx context.Context, req PayRequest, progress func(PayProgress)) (PayOutcome, error) {
	if progress == nil {
		progress = func(PayProgress) {}
	}
	card, _ := req.Card.(*gateway.Card)
	if card != nil {
		defer card.Zero()
	}
	if err := co.gatewayHeld(req.Tender); err != nil {
		return PayOutcome{}, err
	}
	if req.Sale != "" {
		return co.payTender(ctx, req, card, progress, nil)
	}
	if req.OrderID == "" {
		return co.paySale(ctx, req, card, progress)
	}
	// An order that failed, paid again on the same order: a card or EMI
	// tender (or an order of one tender an older journal holds).
	checks := 0
	// The order is in flight from its first report until Pay returns: its cart is
	// locked to it (CartLock) and FollowUp leaves it to this call.
	orderID := req.OrderID
	co.pending.paying(orderID)
	defer func() {
		// A final order's outcome went to the caller; one still unresolved (the
		// wait was cancelled or ran out, or the call failed midway) is followed up.
		o, err := co.eng.Order(context.WithoutCancel(ctx), orderID)
		co.pending.payReturned(orderID, err == nil && !o.Unresolved())
	}()
	opt := co.payOptions(req, &orderID, &checks, progress)
	var (
		res *Result
		err error
	)
	switch {
	case req.Tender != TenderCard && req.Tender != TenderEMI:
		return PayOutcome{}, wrapf(ErrNotPayableAgain, "Only a card or EMI payment is paid again on its order; take the %s as a new tender.", req.Tender)
	case card == nil:
		return PayOutcome{}, errNoCard
	case req.Tender == TenderCard:
		res, err = co.eng.Payments.PayCard(ctx, req.OrderID, card, opt)
	default:
		res, err = co.eng.Payments.PayEMI(ctx, req.OrderID, card, opt)
		if err == nil {
			co.mu.Lock()
			delete(co.emiSales, req.OrderID) // paid on, its sale is no longer dropped with it
			co.mu.Unlock()
		}
	}
	if err != nil {
		co.noteErr(err)
		return PayOutcome{}, err
	}
	out := payOutcomeOf(res, co.cfg.Terminal)
	if o := res.Order; o != nil && o.Sale != "" {
		// A split sale's tender paid again on its own order (galla pay): the
		// sale is completed once its tenders cover it.
		if st, serr := co.eng.Sales.SettleSale(context.WithoutCancel(ctx), o.Sale); serr == nil {
			out.Sale = st
			if st.Complete() {
				out.ReceiptNo = st.Sale.Number(co.cfg.Terminal)
			}
		}
	}
	if out.OrderID != "" && out.OrderID != orderID {
		co.pending.payReturned(orderID, true)
		orderID = out.OrderID
	}
	return out, nil
}

// paySale is Pay for a new sale: the sale is opened (OpenSale: its
// pre-checks, its phones reserved) and req is taken as its one tender
// (payTender), so every sale is written one way, whatever pays for it. A
// tender refused before any money moved drops the sale it opened, which holds
// nothing: a refused sale leaves no sale open. A tender that failed (declined,
// verified not charged) is FAILED and its sale stays open, to pay it again,
// replace it or drop it; the outcome names the sale (PayOutcome.Sale).
func (co *Checkout) paySale(ctx context.Context, req PayRequest, card *gateway.Card, progress func(PayProgress)) (PayOutcome, error) {
	// What is refused before anything is journaled: a tender this call does
	// not take, a card not read or expired, an EMI without its offer, cash
	// without a counted drawer, pay on phone where its page cannot be served.
	switch req.Tender {
	case TenderCash:
		if err := co.drawer.CashNeedsShift(ctx); err != nil {
			return PayOutcome{}, err
		}
	case TenderCard, TenderEMI:
		if req.Tender == TenderEMI && req.Offer == nil {
			return PayOutcome{}, sentenceErr("Choose an EMI offer and type the card again.")
		}
		if card == nil {
			return PayOutcome{}, errNoCard
		}
		if err := card.Check(co.eng.Now()); err != nil {
			return PayOutcome{}, fmt.Errorf("pos: checkout: %w", err)
		}
	case TenderPhone:
		if co.cfg.Phone == nil {
			return PayOutcome{}, errNoPhonePage
		}
		if err := co.cfg.Phone.Start(); err != nil {
			return PayOutcome{}, err
		}
	default:
		return PayOutcome{}, sentenceErr("Choose how the customer pays: card, EMI, cash or phone.")
	}
	sale, err := co.saleOf(ctx, req.Lines, req.IMEIs, req.Cashier, req.Buyer, co.imeiApprover(req))
	if err != nil {
		return PayOutcome{}, err
	}
	open := &opening{sale: sale}
	req.Amount = 0
	out, err := co.payTender(ctx, req, card, progress, open)
	if err != nil && open.id != "" {
		out.Sale = co.dropRefused(ctx, open.id, req.Cashier, "refused before payment: "+Sentence(err))
	}
	return out, err
}

// opening is a new sale payTender opens with its one tender (Sales.openWith):
// the sale's intent is journaled with the tender's, in one commit. id is the
// sale's once journaled.
type opening struct {
	sale Sale
	id   string
}

// dropRefused drops sale id, opened for a tender that was refused or left
// before any money moved (reason): it holds nothing, so it is closed as a
// cashier drops a sale (journaled as dropped). It returns the sale as it
// stands when it still holds money (a tender in flight or paid), and nil once
// dropped.
func (co *Checkout) dropRefused(ctx context.Context, id, cashier, reason string) *SaleStatus {
	ctx = context.WithoutCancel(ctx)
	st, err := co.eng.Sales.SaleStatus(ctx, id)
	if err != nil {
		co.noteErr(err)
		return nil
	}
	if !st.HoldsNoMoney() {
		return st
	}
	if _, err := co.eng.Sales.DropSale(ctx, id, cashier, reason); err != nil {
		co.noteErr(err)
		return st
	}
	return nil
}

// payOptions are the engine's options of a Pay call: its progress reports
// turned into the screens' steps (following a sale moved to a fresh order id),
// and the authenticator.
func (co *Checkout) payOptions(req PayRequest, orderIDp *string, checks *int, progress func(PayProgress)) PayOptions {
	return PayOptions{
		Wait: req.Wait,
		Progress: func(p Progress) {
			if p.OrderID != "" && p.OrderID != *orderIDp {
				// A lost create order answer opens the sale again under a new id;
				// the abandoned one is final.
				co.pending.payReturned(*orderIDp, true)
				*orderIDp = p.OrderID
				co.pending.paying(*orderIDp)
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
		Auth: co.authenticator(req, progress),
	}
}

// openDrawer opens the cash drawer after a cash tender; a failure is a sentence for
// the screen, never an error of the sale (the cash is journaled).
func (co *Checkout) openDrawer(ctx context.Context) string {
	if err := co.drawer.OpenDrawer(ctx); err != nil {
		return Sentence(err)
	}
	return ""
}

// CheckEMIOrder opens the EMI tender of req and validates its IMEIs with the
// service before the card is asked for (Engine.Sales.OpenSaleTenderChecked:
// the service needs the order's token for the IMEI validation), and returns
// the tender's order: Pay then takes the card on it (req.OrderID). A refused
// IMEI is a sentence naming the IMEI and the phone.
//
// Without req.Sale it is a new sale: the sale is opened first (OpenSale, as
// Pay opens one: req.OverrideIMEIPIN or req.AskIMEIOverride lets the phones go
// without the store's reservation when the store cannot be asked) and the
// tender is of all of it; IMEIs refused drop the sale, which holds nothing,
// and CancelEMIOrder drops it with its tender when the cashier goes back.
//
// With req.Sale set, the order is a tender of that split sale, of req.Amount
// (0: all that is left), with the sale's phones (reserved when the sale was
// opened); CancelEMIOrder closes it when the cashier goes back, the sale
// staying open with its other tenders.
func (co *Checkout) CheckEMIOrder(ctx context.Context, req PayRequest) (string, error) {
	if req.Offer == nil {
		return "", sentenceErr("Choose an EMI offer first.")
	}
	if req.Sale != "" {
		o, err := co.eng.Sales.OpenSaleTenderChecked(ctx, req.Sale, req.Amount, *req.Offer, req.Cashier, PayOptions{}, req.IMEIs...)
		if err != nil {
			co.noteErr(err)
			return "", err
		}
		return o.ID, nil
	}
	// A new sale: it is opened as any new sale is (OpenSale: what every new
	// sale passes, the store's reservation of its phones included, with a
	// manager's override when the store cannot be asked), and the EMI tender
	// of all of it is its one tender. IMEIs refused drop the sale, which
	// holds nothing; CancelEMIOrder drops it with its tender.
	sale, err := co.saleOf(ctx, req.Lines, req.IMEIs, req.Cashier, req.Buyer, co.imeiApprover(req))
	if err != nil {
		return "", err
	}
	id, o, unlock, err := co.eng.Sales.openWith(ctx, sale, TenderEMI, req.Offer, PayOptions{}, req.IMEIs...)
	if unlock != nil {
		unlock()
	}
	if err == nil {
		o, err = co.eng.Payments.checkIMEIsFirst(ctx, o, *req.Offer, PayOptions{})
	}
	if err != nil {
		co.noteErr(err)
		if id != "" {
			co.dropRefused(ctx, id, req.Cashier, "refused before payment: "+Sentence(err))
		}
		return "", err
	}
	co.mu.Lock()
	co.emiSales[o.ID] = id
	co.mu.Unlock()
	return o.ID, nil
}

// errNoPhonePage says that pay on phone is not set up on this terminal.
var errNoPhonePage = sentenceErr("Pay on phone is not available on this terminal; take another payment method.")

// payOnPhone creates the order, offers it on the phone page and reports that
// page's address for the QR code; the customer pays on the phone and the engine
// polls the verified status (DESIGN.md section 2).
func (co *Checkout) payOnPhone(ctx context.Context, open func() (*Order, error), opt PayOptions, progress func(PayProgress)) (*Result, error) {
	if co.cfg.Phone == nil {
		return nil, errNoPhonePage
	}
	if err := co.cfg.Phone.Start(); err != nil {
		return nil, err
	}
	shop, err := LoadShop(ctx, co.j)
	if err != nil {
		return nil, err
	}
	o, err := open()
	if err != nil {
		return nil, err
	}
	addr := co.cfg.Phone.Offer(o.ID, PhoneOrder{Token: o.Token, Amount: o.Amount, Shop: shop.Name})
	defer co.cfg.Phone.Withdraw(o.ID)
	progress(PayProgress{OrderID: o.ID, Step: PayAuthenticating, CheckoutURL: addr})
	return co.eng.Payments.Await(ctx, o.ID, opt)
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
func (co *Checkout) authenticator(req PayRequest, progress func(PayProgress)) Authenticator {
	return AuthenticatorFunc(func(ctx context.Context, ch Challenge) error {
		if co.live {
			addr := FormAction(ch.Content)
			if co.cfg.AuthPages != nil {
				page, err := co.cfg.AuthPages.Publish(ch.OrderID, ch.Content)
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
		if req.OTP != "" {
			// Given with the sale (the command line's --otp): posted at once. A
			// frictionless card's step is over already, and its page answers
			// the post by sending on to the merchant (contract section 4), so
			// the inquiry below would be one more round trip for nothing.
			return co.ec.gw.SubmitAuthentication(ctx, ch.Content, url.Values{"otp": {req.OTP}})
		}
		if co.captured(ctx, ch) {
			// A frictionless card: its form posts straight on and the payment is
			// captured at once (contract section 4); nobody is asked for an OTP.
			return nil
		}
		progress(PayProgress{OrderID: ch.OrderID, Step: PayAuthenticating, OTP: true})
		if req.Unattended {
			return nil
		}
		wait := make(chan string, 1)
		co.mu.Lock()
		co.otps[ch.OrderID] = wait
		co.mu.Unlock()
		defer func() {
			co.mu.Lock()
			delete(co.otps, ch.OrderID)
			co.mu.Unlock()
		}()
		select {
		case otp := <-wait:
			return co.ec.gw.SubmitAuthentication(ctx, ch.Content, url.Values{"otp": {otp}})
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}

// captured asks the service once whether the payment of ch is already captured
// on a verified answer (the embedded sandbox's frictionless card). The answer is
// not journaled here: the engine's poll that follows records it.
func (co *Checkout) captured(ctx context.Context, ch Challenge) bool {
	o, err := co.eng.Order(ctx, ch.OrderID)
	if err != nil || o.ServiceOrderID == "" || ch.PaymentID == "" {
		return false
	}
	q, err := co.ec.gw.InquirePayment(ctx, o.ServiceOrderID, ch.PaymentID)
	return err == nil && q != nil && q.Verified && q.PaymentInfoData.PaymentStatus == gateway.PaymentCaptured
}

// SubmitOTP completes the embedded sandbox's authentication step of orderID.
func (co *Checkout) SubmitOTP(_ context.Context, orderID, otp string) error {
	co.mu.Lock()
	wait, ok := co.otps[orderID]
	co.mu.Unlock()
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

// openSale opens the sale of lines and their phones' IMEIs for cashier and
// buyer (nil: none; checked as for a sale of one tender, CheckBuyer, before
// anything is journaled), with the manager's approval of the sale's phones when
// the store server cannot be asked (nil: none). The discounts are checked as
// for any sale.
func (co *Checkout) openSale(ctx context.Context, lines []CartLine, imeis []UnitIMEI, cashier string, buyer *Buyer, approve IMEIApprover) (*SaleStatus, error) {
	sale, err := co.saleOf(ctx, lines, imeis, cashier, buyer, approve)
	if err != nil {
		return nil, err
	}
	o, err := co.eng.Sales.OpenSale(ctx, sale)
	if err != nil {
		co.noteErr(err)
		return nil, err
	}
	return saleView(o, nil) // no tender yet: none is loaded
}

// saleOf is the sale of lines and their phones' IMEIs for cashier and buyer,
// checked as openSale checks one before anything is journaled.
func (co *Checkout) saleOf(ctx context.Context, lines []CartLine, imeis []UnitIMEI, cashier string, buyer *Buyer, approve IMEIApprover) (Sale, error) {
	sale := Sale{Lines: SaleLines(lines, imeis), Staff: cashier, OverrideIMEIs: approve}
	if err := co.shelf.checkDiscounts(sale.Lines); err != nil {
		return Sale{}, err
	}
	// Every phone sold carries its IMEI, and no IMEI is sold twice (DESIGN.md
	// section 10), whatever pays for it.
	if err := co.checkSale(ctx, sale.Lines, TenderSplit); err != nil {
		return Sale{}, err
	}
	if err := co.customers.CheckBuyer(ctx, lines, buyer); err != nil {
		return Sale{}, err
	}
	if buyer != nil {
		if b := buyer.Normal(); !b.IsZero() {
			sale.Buyer = &b
		}
	}
	return sale, nil
}

// SaleStatus reads a split sale and its tenders, completing it first when its
// tenders now cover it (a tender resolved by Check now, or paid again with
// galla pay).
func (co *Checkout) SaleStatus(ctx context.Context, id string) (*SaleStatus, error) {
	return co.eng.Sales.SettleSale(ctx, id)
}

// OpenSales lists the split sales left part paid, with their tenders, so the
// counter shows them again after a restart.
func (co *Checkout) OpenSales(ctx context.Context) ([]*SaleStatus, error) {
	sales, err := co.eng.Sales.OpenSales(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*SaleStatus, 0, len(sales))
	for _, s := range sales {
		st, err := co.eng.Sales.SaleStatus(ctx, s.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// DropSale closes open sale saleID that holds no money (nothing paid, nothing
// in flight) for the signed-in cashier, with no manager's PIN: nothing is given
// back (Engine.Sales.DropSale); reason "" says nothing was paid. A sale with
// money on it is voided (VoidSale).
func (co *Checkout) DropSale(ctx context.Context, saleID, staff, reason string) (*SaleStatus, error) {
	return co.eng.Sales.DropSale(ctx, saleID, staff, reason)
}

// VoidSale voids a split sale left part paid, authorised by a manager's PIN:
// each paid tender is refunded with its document (Engine.Sales.VoidSale).
func (co *Checkout) VoidSale(ctx context.Context, saleID, pin, reason string) (*SaleStatus, error) {
	sale, err := co.eng.Order(ctx, saleID)
	if err != nil {
		return nil, err
	}
	// The checks every money-moving call passes: the till's wrong-PIN stop,
	// and a counted drawer when cash is given back.
	if err := co.crew.gate(); err != nil {
		return nil, err
	}
	if err := co.drawer.givingBackNeedsShift(ctx, sale); err != nil {
		return nil, err
	}
	st, err := pinCounted(co.crew, func() (*SaleStatus, error) { return co.eng.Sales.VoidSale(ctx, saleID, pin, reason) })
	if err != nil {
		co.noteErr(err)
	}
	return st, err
}

// payTender is Pay for one tender of a split sale: the tender is journaled on
// the sale with its own order's intent, paid as a whole sale of that tender
// would be, and the sale is completed once its tenders cover it. With open
// the sale is new: it is opened with the tender, of all of it (Sales.openWith),
// and open.id names it once journaled.
func (co *Checkout) payTender(ctx context.Context, req PayRequest, card *gateway.Card, progress func(PayProgress), open *opening) (PayOutcome, error) {
	var (
		res *Result
		st  *SaleStatus
		err error
	)
	orderID, checks := "", 0
	defer func() {
		if orderID != "" {
			o, err := co.eng.Order(context.WithoutCancel(ctx), orderID)
			co.pending.payReturned(orderID, err == nil && !o.Unresolved())
		}
	}()
	opt := co.payOptions(req, &orderID, &checks, progress)
	service := func(kind TenderKind, plan *EMIPlan) (*Order, error) {
		var (
			o   *Order
			err error
		)
		if open != nil {
			var unlock func()
			open.id, o, unlock, err = co.eng.Sales.openWith(ctx, open.sale, kind, plan, opt, req.IMEIs...)
			if unlock != nil {
				unlock()
			}
			req.Sale = open.id
		} else {
			o, err = co.eng.Sales.OpenSaleTender(ctx, req.Sale, kind, req.Amount, plan, req.Cashier, opt, req.IMEIs...)
		}
		if o != nil && o.ID != orderID {
			co.pending.payReturned(orderID, true)
			orderID = o.ID
			co.pending.paying(orderID)
		}
		return o, err
	}
	switch req.Tender {
	case TenderCash:
		if err := co.drawer.CashNeedsShift(ctx); err != nil {
			return PayOutcome{}, err // cash lands in a counted drawer, in a split sale too
		}
		if open != nil {
			open.id, res, st, err = co.eng.Sales.saleCashOpening(ctx, open.sale, req.Tendered)
			req.Sale = open.id
		} else {
			res, st, err = co.eng.Sales.SaleCash(ctx, req.Sale, req.Amount, req.Tendered, req.Cashier)
		}
	case TenderUPI:
		res, st, err = co.eng.Sales.SaleUPI(ctx, req.Sale, req.Amount, req.Cashier)
	case TenderNote:
		if req.NoteNo != "" && co.ec.cfg.Notes != nil {
			if err := co.returns.checkNoteTender(ctx, req.NoteNo); err != nil {
				return PayOutcome{}, err // a number that is no credit note of ours (or, enrolled, no note at all): nothing journaled
			}
		}
		res, st, err = co.eng.Sales.SaleNote(ctx, req.Sale, req.NoteNo, req.Amount, req.Cashier)
	case TenderCard, TenderEMI:
		if card == nil {
			return PayOutcome{}, errNoCard
		}
		if err := card.Check(co.eng.Now()); err != nil {
			return PayOutcome{}, err
		}
		if req.Tender == TenderEMI && req.OrderID == "" {
			// A new tender: the offer is checked against the card before anything
			// is journaled, so a card that does not take it adds no tender. A
			// tender's order opened before the card (CheckEMIOrder) is paid as a
			// one-tender sale's is: the EMI payment call checks the scheme again,
			// and a refusal is journaled (payment.refused), so the tender is FAILED
			// at once and reserves nothing of the sale.
			if req.Offer == nil {
				return PayOutcome{}, sentenceErr("Choose an EMI offer and type the card again.")
			}
			amount := req.Amount
			if amount == 0 && open != nil {
				amount = ComputeTotals(open.sale.Lines).Total // all of the sale it opens
			}
			if amount == 0 {
				cur, serr := co.eng.Sales.SaleStatus(ctx, req.Sale)
				if serr != nil {
					return PayOutcome{}, serr
				}
				amount = cur.Due
			}
			if err := co.eng.Payments.ValidateScheme(ctx, *req.Offer, amount, card); err != nil {
				co.noteErr(err)
				return PayOutcome{}, err
			}
		}
		var o *Order
		if req.OrderID != "" {
			o, err = co.tenderAgain(ctx, req)
			if o != nil {
				orderID = o.ID
				co.pending.paying(orderID)
			}
		} else {
			o, err = service(req.Tender, req.Offer)
		}
		if err == nil {
			res, err = co.eng.Payments.pay(ctx, o.ID, card, opt)
			if err != nil && req.Tender == TenderEMI && req.OrderID == "" {
				// An order opened here and refused before payment is closed; one
				// opened before the card (CheckEMIOrder) stays for the card typed
				// again, and is closed when the cashier goes back.
				co.cancelUnpaid(ctx, o.ID, err)
			}
		}
	case TenderPhone:
		res, err = co.payOnPhone(ctx, func() (*Order, error) { return service(TenderPhone, nil) }, opt, progress)
	default:
		return PayOutcome{}, sentenceErr("Choose how the customer pays this part: cash, UPI, card, EMI, phone or a credit note.")
	}
	if err != nil {
		co.noteErr(err)
		return PayOutcome{}, err
	}
	if res.Order != nil && orderID == "" {
		orderID = res.Order.ID
	}
	if st == nil {
		// The sale is read, and completed when covered, also after the caller
		// stopped waiting (an OTP step left): the tender's outcome stands.
		if st, err = co.eng.Sales.SettleSale(context.WithoutCancel(ctx), req.Sale); err != nil {
			co.noteErr(err)
			return PayOutcome{}, err
		}
	}
	out := payOutcomeOf(res, co.cfg.Terminal)
	out.Sale = st
	if req.Tender == TenderCash {
		out.Drawer = co.openDrawer(ctx)
	}
	if st.Complete() {
		out.ReceiptNo = st.Sale.Number(co.cfg.Terminal)
	}
	return out, nil
}

// tenderAgain is the tender's order req.OrderID of the split sale, to be paid
// again on the same order after a verified failure, when its amount is still
// left to pay.
func (co *Checkout) tenderAgain(ctx context.Context, req PayRequest) (*Order, error) {
	st, err := co.eng.Sales.SaleStatus(ctx, req.Sale)
	if err != nil {
		return nil, err
	}
	for _, tv := range st.Tenders {
		if tv.Order == nil || tv.Order.ID != req.OrderID {
			continue
		}
		if tv.State == StateFailed && tv.Amount > st.Due {
			return nil, &TenderError{Amount: tv.Amount, Due: st.Due, Pending: st.Pending}
		}
		return tv.Order, nil
	}
	return nil, wrapf(ErrNotPayableAgain, "The order %s is not a tender of the sale %s; start the tender again.", req.OrderID, req.Sale)
}

// cancelUnpaid closes a tender's order that was refused before any payment was
// sent (the IMEIs, most often), so the sale's due amount is free again.
func (co *Checkout) cancelUnpaid(ctx context.Context, id string, cause error) {
	co.eng.Payments.closeUnpaid(ctx, id, "refused before payment: "+Sentence(cause))
}

// FindSaleOffer returns the EMI offer of issuer and tenure for amount of split
// sale saleID (0: all that is left), or a sentence listing the offers there are.
func (co *Checkout) FindSaleOffer(ctx context.Context, saleID string, amount Paise, issuer string, months int) (EMIPlan, error) {
	set, err := co.saleOffers(ctx, saleID, amount)
	if err != nil {
		return EMIPlan{}, err
	}
	plan, ok := set.Find(issuer, months, "")
	if !ok {
		return EMIPlan{}, Errorf("No %s offer of %d months exists for %s of this sale; the offers are: %s.", issuer, months, set.Amount, offerList(set))
	}
	return plan, nil
}

// SaleEMIOffers lists the EMI plans for amount of split sale saleID (0: all
// that is left), cheapest total cost first; none is an empty list.
func (co *Checkout) SaleEMIOffers(ctx context.Context, saleID string, amount Paise) ([]EMIPlan, error) {
	set, err := co.saleOffers(ctx, saleID, amount)
	if errors.Is(err, ErrNoEMIOffer) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []EMIPlan
	for _, is := range set.Issuers {
		out = append(out, is.Plans...)
	}
	SortOffers(out, ByTotalCost)
	return out, nil
}

func (co *Checkout) saleOffers(ctx context.Context, saleID string, amount Paise) (*OfferSet, error) {
	st, err := co.eng.Sales.SaleStatus(ctx, saleID)
	if err != nil {
		return nil, err
	}
	if amount == 0 {
		amount = st.Due
	}
	if amount <= 0 || amount > st.Due {
		return nil, &TenderError{Amount: amount, Due: st.Due, Pending: st.Pending}
	}
	return co.eng.Payments.EMIOffers(ctx, partLines(st.Sale.Lines, amount))
}

// OpenSale journals the cart of req (its lines, IMEIs, cashier and buyer) as
// a sale to be paid by one or more tenders (Pay with PayRequest.Sale). With req.OverrideIMEIPIN, a manager's
// PIN, or req.AskIMEIOverride, which asks for one, the sale's phones go without
// the store server's reservation when the store cannot be asked
// (ErrStoreOffline), as for a sale of one tender (Pay): the override is
// journaled as a staff.override what=imei naming the manager, and a unit the
// store says is sold is never overridden.
func (co *Checkout) OpenSale(ctx context.Context, req PayRequest) (*SaleStatus, error) {
	return co.openSale(ctx, req.Lines, req.IMEIs, req.Cashier, req.Buyer, co.imeiApprover(req))
}

// CancelEMIOrder closes the EMI tender id that CheckEMIOrder opened, when the
// cashier leaves it before its card (back to the offers, or other IMEIs typed):
// no payment was sent on it, so it is abandoned. The sale CheckEMIOrder opened
// for it is dropped with it, its phones free at this counter again; a split
// sale's EMI tender is closed so, the sale staying open with its other
// tenders. An order with a payment sent, or in flight, is never cancelled
// (ErrNotCancellable).
func (co *Checkout) CancelEMIOrder(ctx context.Context, id string) error {
	co.mu.Lock()
	busy := co.inFlight[id]
	co.mu.Unlock()
	if busy {
		return ErrNotCancellable
	}
	o, err := co.eng.Order(ctx, id)
	if err != nil {
		return err
	}
	if o.Tender != TenderEMI {
		return ErrNotCancellable
	}
	if _, err = co.eng.Payments.Cancel(ctx, id, "left before the card: the EMI offer or the IMEIs were changed"); err != nil {
		return err
	}
	co.mu.Lock()
	sale := co.emiSales[id]
	delete(co.emiSales, id)
	co.mu.Unlock()
	if sale != "" {
		// The sale was opened for this tender alone: it holds nothing now.
		co.dropRefused(ctx, sale, o.Staff, "left before the card: the EMI offer or the IMEIs were changed")
	}
	return nil
}

// UPIRequest builds the dynamic UPI QR for amount of split sale saleID (0: all
// that is left): the reference is the sale's id and the tender's number.
func (co *Checkout) UPIRequest(ctx context.Context, saleID string, amount Paise) (UPIRequest, error) {
	vpa, err := LoadVPA(ctx, co.j)
	if err != nil {
		return UPIRequest{}, err
	}
	st, err := co.eng.Sales.SaleStatus(ctx, saleID)
	if err != nil {
		return UPIRequest{}, err
	}
	if amount == 0 {
		amount = st.Due
	}
	if amount <= 0 || amount > st.Due {
		return UPIRequest{}, &TenderError{Amount: amount, Due: st.Due, Pending: st.Pending}
	}
	shop, err := LoadShop(ctx, co.j)
	if err != nil {
		return UPIRequest{}, err
	}
	ref := fmt.Sprintf("%s-%d", saleID, len(st.Sale.Tenders)+1)
	link, err := UPILink(vpa, shop.Name, amount, ref, "Sale "+saleID)
	if err != nil {
		return UPIRequest{}, err
	}
	return UPIRequest{Link: link, Ref: ref, Amount: amount, VPA: vpa}, nil
}

// checkSale is what a new sale must pass before any payment: the IMEI of every
// serialised unit (CheckSerials) and, for cash, an open shift where shifts are
// kept (CashNeedsShift).
func (co *Checkout) checkSale(ctx context.Context, lines []Line, tender TenderKind) error {
	if err := co.ec.journalReady(ctx); err != nil {
		return err // a damaged or unchecked journal says so first
	}
	if err := co.imeis.CheckSerials(ctx, lines, ""); err != nil {
		return err
	}
	if tender == TenderCash {
		return co.drawer.CashNeedsShift(ctx)
	}
	return nil
}

// PayByNote takes a sale paid wholly by a credit note to spend (tender
// "note:NUMBER"), an exchange's new sale: the sale is opened and the note is
// its one tender (Sales.SaleNote), redeemed in the credit-note ledger (on the
// order that issued it, and at the store server first when the terminal is
// enrolled: a note of another counter is spent here when the store approves
// it), and the sale is completed and numbered. A sale above what is left on
// the note is refused before anything is journaled; a smaller one leaves the
// rest on the note. A note refused when redeemed (the store refusing, or not
// answering) closes its tender unpaid and drops the sale, which took nothing.
//
// It returns the sale's order, complete, and what is left on the note
// afterwards (the store's word when enrolled, else this journal's); on a
// refusal once the tender was journaled, the tender's order, closed unpaid.
func (co *Checkout) PayByNote(ctx context.Context, sale Sale, number string) (*Order, Paise, error) {
	if err := co.checkSale(ctx, sale.Lines, TenderNote); err != nil {
		return nil, 0, err // every phone carries its IMEI, sold once
	}
	printed := strings.TrimSpace(number)
	if co.eng.StoreDesk.decisions() != nil && co.eng.StoreDesk.foreignNote(number) {
		if err := checkNoteNumber(number); err != nil {
			return nil, 0, err // the store decides what is left on another counter's note
		}
	} else {
		_, ref, err := co.returns.findNote(ctx, number)
		if err != nil {
			return nil, 0, err
		}
		total := ComputeTotals(sale.Lines).Total
		switch {
		case ref.To != RefundToNote:
			return nil, 0, Errorf("Credit note %s was refunded, not issued to spend.", number)
		case ref.NoteLeft() == 0:
			return nil, 0, wrapf(ErrNoteSpent, "Credit note %s is spent: nothing is left on it.", number)
		case total > ref.NoteLeft():
			return nil, 0, wrapf(ErrNoteSpent, "Credit note %s has %s left; the sale is %s. Take out items, or take the sale in another tender.", number, ref.NoteLeft(), total)
		}
		printed = ref.Number(co.cfg.Terminal)
	}
	s, err := co.eng.Sales.OpenSale(ctx, sale) // its phones reserved store-wide, before the note is touched
	if err != nil {
		return nil, 0, err
	}
	res, st, err := co.eng.Sales.SaleNote(ctx, s.ID, printed, 0, sale.Staff)
	if err != nil {
		var tender *Order
		if cur, serr := co.eng.Sales.SaleStatus(context.WithoutCancel(ctx), s.ID); serr == nil && len(cur.Tenders) > 0 {
			tender = cur.Tenders[len(cur.Tenders)-1].Order
		}
		co.dropRefused(ctx, s.ID, sale.Staff, "the credit note was refused: "+Sentence(err))
		return tender, 0, err
	}
	left := res.NoteLeft
	if left < 0 {
		if left, err = co.returns.NoteBalance(ctx, printed); err != nil {
			return st.Sale, 0, err
		}
	}
	return st.Sale, left, nil
}

// imeiApprover is the manager's approval req asks for of the sale's phones when
// the store server cannot be asked: a manager's PIN given (OverrideIMEIPIN),
// or asked when needed (AskIMEIOverride); nil when neither.
func (co *Checkout) imeiApprover(req PayRequest) IMEIApprover {
	if req.OverrideIMEIPIN == "" && req.AskIMEIOverride == nil {
		return nil
	}
	return &imeiApproval{crew: co.crew, pin: req.OverrideIMEIPIN, ask: req.AskIMEIOverride, cashier: req.Cashier}
}
