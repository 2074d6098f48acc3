package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"galla/gateway"
	"galla/internal/config"
	"galla/pos"
)

// openTill opens the terminal for a command (the journal checked first).
func openTill(c *cli) (*terminal, error) { return openTerminal(c, false) }

// signalContext is cancelled by Ctrl-C, so a waiting checkout journals UNKNOWN and
// stops cleanly.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

// cardInput is the card JSON read from standard input by galla checkout.
type cardInput struct {
	Number      string `json:"number"`
	ExpiryMonth string `json:"expiry_month"`
	ExpiryYear  string `json:"expiry_year"`
	CVV         string `json:"cvv"`
	Holder      string `json:"holder"`
}

// cardFrom checks the payment service's address (card data goes nowhere
// else), then reads the card from in (standard input, after any PIN) and
// checks it. A nil card comes with the exit code of the sentence already said.
func (c *cli) cardFrom(in io.Reader) (*gateway.Card, int) {
	if _, err := config.Load(c.dataDir, c.getenv, c.gatewayURL, nil); err != nil {
		return nil, c.failOpen(err)
	}
	card, err := readCard(in)
	if err != nil {
		return nil, c.fail(exitBadInput, "%v", err)
	}
	if err := card.Check(time.Now()); err != nil {
		card.Zero()
		return nil, c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	return card, exitOK
}

// readCard reads the card JSON from r and wipes the bytes read.
func readCard(r io.Reader) (*gateway.Card, error) {
	raw, err := io.ReadAll(io.LimitReader(r, 4096))
	defer clear(raw)
	if err != nil {
		return nil, err
	}
	var in cardInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, errors.New("the card must be given on standard input as JSON: " +
			`{"number":"...","expiry_month":"MM","expiry_year":"YYYY","cvv":"...","holder":"..."}`)
	}
	return gateway.NewCard(in.Number, in.ExpiryMonth, in.ExpiryYear, in.CVV, in.Holder), nil
}

// checkoutOutput is what galla checkout prints (DESIGN.md section 6).
type checkoutOutput struct {
	MerchantOrderID string    `json:"merchant_order_id"`
	ServiceOrderID  string    `json:"service_order_id"`
	PaymentID       string    `json:"payment_id"`
	Status          string    `json:"status"`
	Verified        bool      `json:"verified"`
	Amount          pos.Paise `json:"amount"`
	ReceiptNo       uint64    `json:"receipt_no"`            // the number within its series (DocumentNo), or a receipt number from before series
	DocumentNo      string    `json:"document_no,omitempty"` // the document's number as printed: "T1/2627/000123"
	Reason          string    `json:"reason,omitempty"`
	Change          pos.Paise `json:"change,omitempty"`
	// Gateway names the payment service that took the payment: "sandbox" when
	// the embedded sandbox did (no money moved).
	Gateway string `json:"gateway,omitempty"`
	// InvoiceNo is the sale's document number once it is paid in full, "" before.
	InvoiceNo string `json:"invoice_no"`
	// Tenders are how the sale was paid: one for a single tender, each part of
	// a split sale in the order given.
	Tenders []tenderOutput `json:"tenders"`
}

// tenderOutput is one tender of galla checkout's answer.
type tenderOutput struct {
	Kind            pos.TenderKind `json:"kind"`
	Amount          pos.Paise      `json:"amount"`
	Status          string         `json:"status"`
	Verified        bool           `json:"verified"`
	MerchantOrderID string         `json:"merchant_order_id,omitempty"`
	PaymentID       string         `json:"payment_id,omitempty"`
	Change          pos.Paise      `json:"change,omitempty"`
	ConfirmedBy     string         `json:"confirmed_by,omitempty"` // UPI: the cashier who confirmed it
	NoteNo          string         `json:"note_no,omitempty"`
}

// tenderArg is one TENDER of --pay: kind[:PAISE], or note:NO[:PAISE].
type tenderArg struct {
	Kind   pos.TenderKind
	Amount pos.Paise // 0: the rest
	NoteNo string
}

// parseTenders reads --pay: TENDER[,TENDER...], the one tender without an amount
// taking the rest.
func parseTenders(s string) ([]tenderArg, error) {
	var out []tenderArg
	rest, cards := 0, 0
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		f := strings.Split(part, ":")
		ta := tenderArg{Kind: pos.TenderKind(strings.ToLower(f[0]))}
		amt := f[1:]
		switch ta.Kind {
		case pos.TenderCard, pos.TenderEMI:
			cards++
		case pos.TenderCash, pos.TenderUPI:
		case pos.TenderNote:
			if len(f) < 2 || f[1] == "" {
				return nil, fmt.Errorf("a credit note is tendered as note:CREDIT_NOTE_NO[:PAISE]; %q names no note", part)
			}
			ta.NoteNo, amt = f[1], f[2:]
		default:
			return nil, fmt.Errorf("%q is not a tender; use cash, upi, card, emi or note:CREDIT_NOTE_NO, each with :PAISE but one", part)
		}
		switch len(amt) {
		case 0:
			rest++
		case 1:
			n, err := strconv.ParseInt(amt[0], 10, 64)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("the amount of %q is paise, a whole number above 0 (₹1,500.00 is 150000)", part)
			}
			ta.Amount = pos.Paise(n)
		default:
			return nil, fmt.Errorf("%q has too many parts; a tender is KIND[:PAISE]", part)
		}
		out = append(out, ta)
	}
	switch {
	case len(out) == 0:
		return nil, errors.New("say how the sale is paid with --pay card, --pay emi, --pay cash, or several such as --pay cash:50000,card")
	case rest > 1:
		return nil, errors.New("only one tender may go without an amount (it takes the rest); give the others :PAISE")
	case cards > 1:
		return nil, errors.New("one card or EMI tender per command-line sale (the card is read once from standard input); take the other part in the terminal")
	}
	return out, nil
}

// cmdCheckout is galla checkout: a headless sale (DESIGN.md section 6).
func cmdCheckout(c *cli, args []string) int {
	fs := c.flagSet("galla checkout")
	items := fs.String("items", "", "SKU[:QTY],... (SKU or barcode)")
	pay := fs.String("pay", "", "TENDER[,TENDER...]: cash, upi, card, emi, note:CREDIT_NOTE_NO, each :PAISE but one (which takes the rest)")
	issuer := fs.String("issuer", "", "EMI: the issuing bank (HDFC, ICICI, AXIS)")
	tenure := fs.Int("tenure", 0, "EMI: the tenure in months")
	imeis := fs.String("imei", "", "IMEI,... one per serialised unit, in cart order")
	otp := fs.String("otp", "", "the sandbox's one-time password: completes authentication without a browser")
	cash := fs.Int64("cash", 0, "cash: the amount tendered in paise (default: exact)")
	overrideIMEI := fs.Bool("override-imei", false, "when the store server cannot be reached, sell the phones on the signed-in manager's authority (journaled, and flagged on the store's pages)")
	staff := fs.String("staff", "", "who sells: a member of staff, signed in with their PIN (GALLA_PIN, or the first line of standard input, before the card)")
	wait := fs.Duration("wait", 5*time.Minute, "how long to poll the payment's status before it is left UNKNOWN")
	var buyer pos.Buyer
	fs.StringVar(&buyer.Name, "customer-name", "", "the buyer's name, printed on the invoice (needed from ₹50,000 taxable, or with a GSTIN)")
	fs.StringVar(&buyer.Phone, "customer-phone", "", "the buyer's mobile number")
	fs.StringVar(&buyer.Address, "customer-address", "", "the buyer's address, printed on the invoice")
	fs.StringVar(&buyer.State, "customer-state", "", "the buyer's state: its GST code (29) or name (Karnataka)")
	fs.StringVar(&buyer.GSTIN, "customer-gstin", "", "a registered buyer's GSTIN: the sale is B2B")
	fs.StringVar(&buyer.ShipState, "deliver-state", "", "the state the shop delivers the goods to, when not handed over at the counter")
	fs.StringVar(&buyer.ShipAddress, "deliver-address", "", "the address the shop delivers the goods to, printed on the invoice with --deliver-state")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) > 0 {
		return c.fail(exitBadInput, "galla checkout takes no arguments besides its flags; %q is extra.", rest[0])
	}
	if buyer = buyer.Normal(); buyer.Check() != nil {
		return c.fail(exitBadInput, "%s", pos.Sentence(buyer.Check()))
	}
	tenders, err := parseTenders(*pay)
	if err != nil {
		return c.fail(exitBadInput, "%s.", upperFirst(err.Error()))
	}
	tender := tenders[0].Kind
	for _, ta := range tenders {
		if ta.Kind == pos.TenderCard || ta.Kind == pos.TenderEMI {
			tender = ta.Kind // the card is read for it
		}
	}
	if len(tenders) == 1 && tender != pos.TenderCard && tender != pos.TenderEMI && tender != pos.TenderCash && tender != pos.TenderNote {
		return c.fail(exitBadInput, "A sale paid by %s alone is taken in the terminal; on the command line %s is one part of a split sale, such as --pay %s:50000,card.", tender, tender, tender)
	}
	if tender == pos.TenderEMI && (*issuer == "" || *tenure <= 0) {
		return c.fail(exitBadInput, "An EMI sale needs --issuer NAME and --tenure MONTHS; see the offers with the terminal's EMI screen.")
	}
	if *wait <= 0 {
		return c.fail(exitBadInput, "--wait must be a positive duration such as 5m.")
	}
	in := bufio.NewReader(c.stdin)
	var pin string
	if *staff != "" {
		if pin, err = c.staffPIN(in); err != nil {
			return c.fail(exitBadInput, "%v", err)
		}
	}
	// The configuration (a forged service's address among its refusals) is
	// read before the journal is opened; the card is read only once the
	// counter can take it: the member signed in, and the live service one a
	// manager approved on this counter.
	if _, err := config.Load(c.dataDir, c.getenv, c.gatewayURL, nil); err != nil {
		return c.failOpen(err)
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	cashier, code := c.signIn(ctx, t, *staff, pin)
	if code != exitOK {
		return code
	}
	var card *gateway.Card
	if tender == pos.TenderCard || tender == pos.TenderEMI {
		if err := t.Checkout.GatewayHeld(tender); err != nil {
			return c.fail(checkoutErrorCode(err), "%s Nothing was read of the card, and nothing was sent.", pos.Sentence(err))
		}
		if card, code = c.cardFrom(in); card == nil {
			return code
		}
		defer card.Zero()
	}
	if _, err := t.Shelf.Catalog(ctx); err != nil {
		return c.fail(exitFailed, "The catalog cannot be read: %s", pos.Sentence(err))
	}
	var imeiList []string
	for s := range strings.SplitSeq(*imeis, ",") {
		if s = strings.TrimSpace(s); s != "" {
			imeiList = append(imeiList, s)
		}
	}
	lines, units, err := t.Shelf.ParseItems(ctx, *items, imeiList)
	if err != nil {
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	total, err := t.Shelf.Price(lines)
	if err != nil {
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	if code, ok := c.checkTenderSum(tenders, total.Total, "the sale is"); !ok {
		return code
	}
	c.warnShort(ctx, t, lines)
	if len(tenders) == 1 && tender == pos.TenderNote { // an exchange: paid wholly by a credit note
		return c.payByNote(ctx, t, lines, units, tenders[0].NoteNo, cashier)
	}
	overridePIN := ""
	if *overrideIMEI {
		if *staff == "" {
			return c.fail(exitBadInput, "--override-imei is a manager's decision: sign in with --staff NAME as a manager.")
		}
		overridePIN = pin // the signed-in member's PIN, which must be a manager's
	}
	if len(tenders) > 1 {
		f := splitFlags{cash: pos.Paise(*cash), issuer: *issuer, tenure: *tenure, otp: *otp, wait: *wait, cashier: cashier, overridePIN: overridePIN}
		if !buyer.IsZero() {
			f.buyer = &buyer
		}
		return c.splitCheckout(ctx, t, lines, units, tenders, card, f)
	}
	req := pos.PayRequest{Lines: lines, IMEIs: units, Tender: tender, Tendered: pos.Paise(*cash), Cashier: cashier,
		OTP: *otp, Unattended: true, Wait: *wait, OverrideIMEIPIN: overridePIN}
	if !buyer.IsZero() {
		req.Buyer = &buyer
	}
	if card != nil {
		req.Card = card
	}
	if tender == pos.TenderEMI {
		plan, oerr := t.Checkout.FindOffer(ctx, lines, *issuer, *tenure)
		if oerr != nil {
			return c.fail(exitBadInput, "%s", pos.Sentence(oerr))
		}
		req.Offer = &plan
	}
	res, err := t.Checkout.Pay(ctx, req, c.payProgress(t.Live()))
	if errors.Is(err, pos.ErrBuyerNeeded) {
		return c.fail(exitBadInput, "%s Give them with --customer-name, --customer-address and --customer-state.", pos.Sentence(err))
	}
	if err != nil {
		return c.fail(checkoutErrorCode(err), "%s", pos.Sentence(err))
	}
	return c.printCheckout(res, t.Terminal())
}

// checkoutErrorCode is the exit code of a checkout that ended in an error: bad
// input for what the cashier must correct, 4 when money may have moved but the
// journal could not record it, 5 when the journal could not be written before
// anything moved, FAILED for the rest (no payment was taken: an unknown outcome
// is a Result, never an error).
func checkoutErrorCode(err error) int {
	switch {
	case errors.Is(err, pos.ErrNotRecorded):
		return exitNotRecorded // money may have moved: never "try again"
	case errors.Is(err, pos.ErrNotJournaled):
		return exitCannotWork // the journal cannot be written; nothing moved
	}
	if _, ok := errors.AsType[*pos.StoreRefusal](err); ok || errors.Is(err, pos.ErrStoreOffline) {
		return exitBadInput // the store server refused, or could not be asked: nothing was recorded
	}
	for _, bad := range []error{pos.ErrEmptyCart, pos.ErrBadIMEI, pos.ErrIMEIMissing, pos.ErrOfferNotForCard,
		pos.ErrOfferOutdated, pos.ErrNoEMIOffer, pos.ErrCashShort, gateway.ErrInvalidCard, pos.ErrDayClosed, pos.ErrBuyerNeeded, pos.ErrIMEISold, pos.ErrNotInStock, pos.ErrNoShift,
		pos.ErrWrongPIN, pos.ErrBadPIN, pos.ErrTooManyOverrides, pos.ErrGatewayNotApproved, pos.ErrInterstateComposition} {
		if errors.Is(err, bad) {
			return exitBadInput
		}
	}
	return exitFailed
}

// printCheckout prints the answer of a checkout of one tender and returns its
// exit code. A new sale's answer is its sale's (merchant_order_id the sale's
// id, which galla pay, receipt, refund and void take; a card, EMI or phone
// tender's own id, the one the payment service knows, in tenders); an order
// of one tender, paid again from an older journal, answers as itself.
func (c *cli) printCheckout(res pos.PayOutcome, terminal string) int {
	var out checkoutOutput
	if res.Sale != nil {
		out = saleOutput(res.Sale, terminal, "", "")
		for i := range out.Tenders {
			if k := out.Tenders[i].Kind; k == pos.TenderCash || k == pos.TenderUPI || k == pos.TenderNote {
				out.Tenders[i].MerchantOrderID = "" // a tender taken at the counter: the sale's id is all there is to name
			}
		}
	} else {
		o := res.Order
		out = checkoutOutput{MerchantOrderID: o.ID, ServiceOrderID: o.ServiceOrderID, PaymentID: o.PaymentID,
			Verified: o.Verified, Amount: o.Amount, ReceiptNo: max(o.DocNo, o.ReceiptNo), DocumentNo: o.Number(terminal), Change: o.Change, Gateway: o.Gateway}
		if out.PaymentID == "" {
			if a := o.LastAttempt(); a != nil {
				out.PaymentID = a.PaymentID
			}
		}
		if o.DocNo > 0 || o.ReceiptNo > 0 {
			out.InvoiceNo = out.DocumentNo
		}
		tout := tenderOf(o)
		tout.MerchantOrderID = ""
		out.Tenders = []tenderOutput{tout}
	}
	code := exitOK
	switch res.State {
	case pos.StatePaid:
		out.Status = "PAID"
	case pos.StateFailed:
		out.Status, out.Reason, code = "FAILED", res.Reason, exitFailed
	default:
		out.Status, out.Reason, code = "UNKNOWN", res.Reason, exitUnknown
	}
	b, _ := json.Marshal(out)
	fmt.Fprintln(c.stdout, string(b))
	switch code {
	case exitFailed:
		fmt.Fprintf(c.stderr, "galla: The payment failed (%s); pay again on the same order in the terminal, or take another payment method.\n", strings.TrimSuffix(res.Reason, "."))
		if res.Sale != nil && res.Sale.Sale.State == pos.StateOpen {
			id := res.Sale.Sale.ID
			fmt.Fprintf(c.stderr, "galla: The sale %s stays open with nothing paid: pay again with galla pay %s (the card on standard input), take another payment method with galla pay %s --pay TENDER, or drop it with galla void %s.\n", id, id, id, id)
		}
	case exitUnknown:
		fmt.Fprintln(c.stderr, "galla: The payment's outcome is not known yet; do not charge again — run \"galla reconcile\" to resolve it.")
	}
	return code
}

// payProgress says on standard error what the customer must do to authenticate:
// open the live service's page, or (the embedded sandbox) run the checkout with
// --otp.
func (c *cli) payProgress(live bool) func(pos.PayProgress) {
	return func(p pos.PayProgress) {
		switch {
		case live && p.AuthURL != "":
			fmt.Fprintf(c.stderr, "galla: The customer authenticates the payment at %s ; waiting for the result.\n", p.AuthURL)
		case !live && p.OTP:
			fmt.Fprintln(c.stderr, "galla: The embedded sandbox needs the one-time password: run the checkout with --otp 123456.")
		}
	}
}

// cmdReconcile is galla reconcile: resolve every order whose outcome is not final.
func cmdReconcile(c *cli, args []string) int {
	rest, err := c.parse(c.flagSet("galla reconcile"), args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) > 0 {
		return c.fail(exitBadInput, "galla reconcile takes no arguments.")
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	rep, err := t.Pending.Reconcile(ctx)
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	for _, o := range rep.Resolved {
		fmt.Fprintf(c.stdout, "%s\t%s\t%s\n", o.ID, o.State, o.Amount)
	}
	for _, o := range rep.Open {
		fmt.Fprintf(c.stdout, "%s\t%s\t%s\t%s\n", o.ID, o.State, o.Amount, o.Reason)
	}
	for _, id := range rep.Busy {
		fmt.Fprintf(c.stdout, "%s\tBUSY\n", id)
	}
	fmt.Fprintf(c.stderr, "galla: %d orders checked, %d resolved, %d still open.\n", rep.Checked, len(rep.Resolved), len(rep.Open)+len(rep.Busy))
	if len(rep.Open)+len(rep.Busy) > 0 {
		return exitUnknown
	}
	return exitOK
}

// staffPIN reads the PIN of the member of staff named by --staff from GALLA_PIN
// or the first line of in (a card's JSON follows it).
func (c *cli) staffPIN(in *bufio.Reader) (string, error) {
	if p := c.getenv("GALLA_PIN"); p != "" {
		return p, nil
	}
	line, err := in.ReadString('\n')
	line = strings.TrimSpace(line)
	if (err != nil && !errors.Is(err, io.EOF)) || line == "" || strings.HasPrefix(line, "{") {
		return "", errors.New("--staff needs that member's PIN: give it in GALLA_PIN or on the first line of standard input, before the card")
	}
	return line, nil
}

// signIn signs name in with pin for a sale on the command line, as the window's
// sign-in does (journaled with the member's id), and returns the name the sale
// records. Once staff exist a sale needs a signed-in member; before any exists
// there is nobody to sign in (the first manager is added without a PIN too).
func (c *cli) signIn(ctx context.Context, t *terminal, name, pin string) (string, int) {
	has, err := t.Crew.HasStaff(ctx)
	if err != nil {
		return "", c.fail(exitCannotWork, "The staff list cannot be read: %s", pos.Sentence(err))
	}
	switch {
	case name == "" && !has:
		return "command line", exitOK
	case name == "":
		return "", c.fail(exitBadInput, "A sale is made by a signed-in member of staff: give --staff NAME and that member's PIN (GALLA_PIN, or the first line of standard input).")
	}
	m, err := t.Crew.SignIn(ctx, name, pin)
	if err != nil {
		return "", c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	if n := m.WrongPINsNotice(); n != "" {
		fmt.Fprintf(c.stderr, "galla: %s\n", n)
	}
	if m.MustChangePIN {
		return "", c.fail(exitBadInput, "%s's PIN is shorter than a manager's must now be: sign in once in the window to set a new one, or ask another manager for galla staff reset-pin %s.", m.Name, m.Name)
	}
	return m.Name, exitOK
}

// managerPIN reads a manager's PIN from GALLA_PIN or the first line of standard
// input.
func (c *cli) managerPIN(in *bufio.Reader) (string, error) {
	if p := c.getenv("GALLA_PIN"); p != "" {
		return p, nil
	}
	line, err := in.ReadString('\n')
	if err != nil && (!errors.Is(err, io.EOF) || line == "") {
		return "", errors.New("a manager's PIN is needed: give it on standard input or in GALLA_PIN")
	}
	return strings.TrimSpace(line), nil
}

// openAsManager reads a manager's PIN (GALLA_PIN or the first line of standard
// input) and opens the till for a command done on a manager's authority. When
// either fails it has said why, and t is nil with the exit code to return.
func (c *cli) openAsManager() (t *terminal, pin string, code int) {
	pin, err := c.managerPIN(bufio.NewReader(c.stdin))
	if err != nil {
		return nil, "", c.fail(exitBadInput, "%v.", err)
	}
	if t, err = openTill(c); err != nil {
		return nil, "", c.failOpen(err)
	}
	return t, pin, exitOK
}

// cmdRefund is galla refund MERCHANT_ORDER_ID [--amount PAISE].
func cmdRefund(c *cli, args []string) int {
	fs := c.flagSet("galla refund")
	amount := fs.Int64("amount", 0, "the amount to refund in paise (default: all that is left)")
	reason := fs.String("reason", "", "why, for the journal")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 1 {
		return c.fail(exitBadInput, "Name one order: galla refund MERCHANT_ORDER_ID [--amount PAISE].")
	}
	if *amount < 0 {
		return c.fail(exitBadInput, "--amount must be a positive number of paise.")
	}
	t, pin, failed := c.openAsManager()
	if t == nil {
		return failed
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	res, err := t.Returns.RefundOrder(ctx, pos.RefundRequest{OrderID: rest[0], Amount: pos.Paise(*amount), PIN: pin, Reason: *reason})
	if err != nil {
		code := exitFailed
		if errors.Is(err, pos.ErrNotRefundable) || errors.Is(err, pos.ErrOrderNotFound) || errors.Is(err, pos.ErrWrongPIN) || errors.Is(err, pos.ErrBadPIN) ||
			errors.Is(err, pos.ErrNoShift) {
			code = exitBadInput
		}
		return c.fail(code, "%s", pos.Sentence(err))
	}
	out := map[string]any{"merchant_order_id": res.Order.ID, "unique_txn_id": res.Refund.UniqueTxnID,
		"amount": res.Refund.Amount, "status": strings.ToUpper(string(res.Refund.Status)), "order_status": res.Order.State,
		"receipt_no": res.Refund.ReceiptNo, "refund_id": res.Refund.RefundID, "credit_note_no": res.Refund.Number(t.Terminal())}
	b, _ := json.Marshal(out)
	fmt.Fprintln(c.stdout, string(b))
	switch res.Status {
	case pos.RefundDone:
		return exitOK
	case pos.RefundFailed:
		return c.fail(exitFailed, "%s", res.Reason)
	}
	return c.fail(exitUnknown, "%s", res.Reason)
}

// dayFlag returns --day's value or today, the calendar date on the counter's
// clock (the business day, ADR 0010).
func (c *cli) dayFlag(day string) (string, error) {
	if day == "" {
		return pos.ToDay(c.now()), nil
	}
	if _, err := time.Parse(pos.DayLayout, day); err != nil {
		return "", fmt.Errorf("the day %q is not YYYY-MM-DD", day)
	}
	return day, nil
}

// cmdReport is galla report [--day YYYY-MM-DD] [--format text|csv|json|escpos|png|pdf]
// [--out FILE] [--print]: the X report of the day, or its sealed Z report once the
// day is closed. escpos, png and pdf draw it as the printed slip; --print prints
// that slip on the configured receipt printer.
func cmdReport(c *cli, args []string) int {
	fs := c.flagSet("galla report")
	dayText := fs.String("day", "", "the day, YYYY-MM-DD (default today)")
	format := fs.String("format", "text", "text, csv, json, escpos, png or pdf")
	out := fs.String("out", "", "write the report to this file instead of standard output")
	doPrint := fs.Bool("print", false, "print the report on the configured receipt printer")
	shift := fs.String("shift", "", "the X report of this shift (\"current\": the open or last one)")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) > 0 {
		return c.fail(exitBadInput, "galla report takes no arguments besides its flags.")
	}
	if *shift != "" {
		t, err := openTill(c)
		if err != nil {
			return c.failOpen(err)
		}
		defer t.close()
		return c.shiftReport(context.Background(), t, strings.TrimPrefix(*shift, "current"))
	}
	day, err := c.dayFlag(*dayText)
	if err != nil {
		return c.fail(exitBadInput, "%v; type it again.", err)
	}
	switch *format {
	case "text", "csv", "json", "escpos", "png", "pdf":
	default:
		return c.fail(exitBadInput, "The format %q is not known; use text, csv, json, escpos, png or pdf.", *format)
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx := context.Background()
	rep, err := t.Books.Report(ctx, day)
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	d, err := t.Documents.ReportDocument(ctx, rep)
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	var write func(io.Writer) error
	switch *format {
	case "text", "csv", "json":
		write = func(w io.Writer) error { return writeReport(w, rep, *format, t.Terminal()) }
	}
	return c.document(ctx, t, d, *format, *out, *doPrint, write)
}

// writeReport writes rep as text, csv or json; terminal names the counter's
// document numbers in the CSV.
func writeReport(w io.Writer, rep *pos.Report, format, terminal string) error {
	switch format {
	case "csv":
		return rep.WriteCSVFor(w, terminal)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.WriteText(w)
}

func (c *cli) writeReport(rep *pos.Report, format, terminal string) int {
	if err := writeReport(c.stdout, rep, format, terminal); err != nil {
		return c.fail(exitFailed, "The report cannot be written: %v.", err)
	}
	return exitOK
}

// cmdCloseDay is galla close-day [--day YYYY-MM-DD]: the Z report. With a receipt
// printer configured it prints the Z report too; a print that fails leaves the day
// closed (exit 0) and says how to print it again.
func cmdCloseDay(c *cli, args []string) int {
	fs := c.flagSet("galla close-day")
	dayText := fs.String("day", "", "the business day to close, YYYY-MM-DD (default the one open now)")
	format := fs.String("format", "text", "text or json")
	accept := fs.Bool("accept-unknown", false, "close even though payments are unknown: the manager accepts listing them")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) > 0 {
		return c.fail(exitBadInput, "galla close-day takes no arguments besides its flags.")
	}
	day := ""
	if *dayText != "" {
		if day, err = c.dayFlag(*dayText); err != nil {
			return c.fail(exitBadInput, "%v; type it again.", err)
		}
	}
	t, pin, failed := c.openAsManager()
	if t == nil {
		return failed
	}
	defer t.close()
	ctx := context.Background()
	res, err := t.Books.CloseDay(ctx, pos.CloseDayRequest{Day: day, PIN: pin, AcceptUnknown: *accept, Print: true})
	if err != nil {
		code := exitFailed
		if errors.Is(err, pos.ErrDayClosed) || errors.Is(err, pos.ErrBadDay) || errors.Is(err, pos.ErrWrongPIN) || errors.Is(err, pos.ErrBadPIN) ||
			errors.Is(err, pos.ErrShiftOpenAtClose) {
			code = exitBadInput
		}
		if u, ok := errors.AsType[*pos.UnknownPaymentsError](err); ok {
			for _, o := range u.Orders {
				fmt.Fprintf(c.stdout, "%s	%s	%s	%s	unknown\n", o.OrderID, o.At.Format("2006-01-02 15:04"), o.Tender, o.Amount)
			}
			return c.fail(exitBadInput, "%s With the manager's agreement, run galla close-day --accept-unknown.", pos.Sentence(err))
		}
		return c.fail(code, "%s", pos.Sentence(err))
	}
	fmt.Fprintln(c.stderr, "galla: "+res.Note)
	code := c.writeReport(res.Report, *format, t.Terminal())
	if st := t.Drawer.ShiftsText(ctx, res.Report.Day); st != "" && *format == "text" {
		fmt.Fprint(c.stdout, "\n"+st)
	}
	if res.Printed != "" {
		fmt.Fprintln(c.stderr, "galla: "+res.Printed)
	}
	if res.Checked != nil {
		if err := <-res.Checked; err != nil {
			return c.fail(exitCannotWork, "The day is closed, but the full check of the journal found damage: %s", pos.Sentence(err))
		}
		fmt.Fprintln(c.stderr, "galla: The whole journal, as the Z report sealed it, checks out.")
	}
	return code
}

// cmdCatalog is galla catalog import FILE | galla catalog list [--format text|json].
func cmdCatalog(c *cli, args []string) int {
	fs := c.flagSet("galla catalog")
	format := fs.String("format", "text", "list: text or json")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) == 0 || (rest[0] == "import" && len(rest) != 2) || (rest[0] == "list" && len(rest) != 1) ||
		(rest[0] != "import" && rest[0] != "list") {
		return c.fail(exitBadInput, "Use galla catalog import FILE, or galla catalog list [--format text|json].")
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx := context.Background()
	if rest[0] == "import" {
		f, err := os.Open(rest[1])
		if err != nil {
			return c.fail(exitBadInput, "The file %s cannot be opened (%v); check its name.", rest[1], err)
		}
		defer f.Close()
		var mpin string
		if has, herr := t.Crew.HasStaff(ctx); herr == nil && has {
			if mpin, err = c.managerPIN(bufio.NewReader(c.stdin)); err != nil {
				return c.fail(exitBadInput, "Importing a catalog changes prices: %v.", err)
			}
		}
		cat, formOnly, err := t.Shelf.ImportCatalogBy(ctx, f, strings.EqualFold(filepath.Ext(rest[1]), ".json"), mpin)
		switch {
		case errors.Is(err, pos.ErrHSNListChanged):
			return c.fail(exitCannotWork, "%s", pos.Sentence(err))
		case errors.Is(err, pos.ErrWrongPIN), errors.Is(err, pos.ErrBadPIN), errors.Is(err, pos.ErrTooManyOverrides):
			return c.fail(exitBadInput, "%s", pos.Sentence(err))
		case errors.Is(err, pos.ErrBadCatalog):
			return c.fail(exitBadInput, "%s", pos.Sentence(err))
		case err != nil:
			return c.fail(exitFailed, "%s", pos.Sentence(err))
		}
		fmt.Fprintf(c.stderr, "galla: %d products imported.\n", cat.Len())
		if len(formOnly) > 0 {
			fmt.Fprintf(c.stderr, "galla: %s\n", hsnFormOnlyLine(formOnly))
		}
		return exitOK
	}
	cat, err := t.Shelf.Catalog(ctx)
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	if *format == "json" {
		if err := cat.WriteJSON(c.stdout); err != nil {
			return exitFailed
		}
		return exitOK
	}
	if *format != "text" {
		return c.fail(exitBadInput, "The format %q is not known; use text or json.", *format)
	}
	for _, p := range cat.Products() {
		fmt.Fprintf(c.stdout, "%s\t%s\t%s\t%s\n", p.SKU, p.Name, p.Price, p.GSTRate)
	}
	return exitOK
}

// cmdStaff is galla staff list | add NAME --role cashier|manager | disable NAME |
// enable NAME | reset-pin NAME | unlock NAME. A new PIN (add, reset-pin) is the
// first line of standard input; once staff exist, every change takes a manager's
// PIN too (GALLA_PIN, or the next line).
func cmdStaff(c *cli, args []string) int {
	fs := c.flagSet("galla staff")
	roleText := fs.String("role", "", "add: cashier or manager")
	discount := fs.Int64("discount", -1, "limits: the largest line discount the cashier gives alone, in paise")
	refund := fs.Int64("refund", -1, "limits: the largest refund the cashier gives alone, in paise")
	clear := fs.Bool("shop", false, "limits: back to the shop's discount limit and no refund alone")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	usage := "Use " + commands()["staff"].usage + "; a new PIN and then a manager's PIN on standard input."
	if len(rest) == 0 || (rest[0] != "list" && len(rest) < 2) {
		return c.fail(exitBadInput, "%s", usage)
	}
	verb, name := rest[0], strings.Join(rest[1:], " ")
	changes := map[string]pos.StaffChange{"disable": pos.StaffDisable, "enable": pos.StaffEnable, "unlock": pos.StaffUnlock, "reset-pin": pos.StaffResetPIN}
	change, isChange := changes[verb]
	if verb != "list" && verb != "add" && verb != "limits" && !isChange {
		return c.fail(exitBadInput, "%s", usage)
	}
	var limits *pos.StaffLimits
	if verb == "limits" {
		switch {
		case *clear:
		case *discount < 0 || *refund < 0:
			return c.fail(exitBadInput, "Give both limits in paise: galla staff limits NAME --discount PAISE --refund PAISE (or --shop for the shop's).")
		default:
			limits = &pos.StaffLimits{Discount: pos.Paise(*discount), Refund: pos.Paise(*refund)}
		}
	}
	in := bufio.NewReader(c.stdin)
	var pin string
	if verb == "add" || verb == "reset-pin" {
		line, err := in.ReadString('\n')
		if err != nil && (!errors.Is(err, io.EOF) || line == "") {
			return c.fail(exitBadInput, "Give the new PIN on standard input.")
		}
		pin = strings.TrimSpace(line)
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx := context.Background()
	if verb == "list" {
		list, err := t.Crew.StaffList(ctx)
		if err != nil {
			return c.fail(exitCannotWork, "%s", pos.Sentence(err))
		}
		for _, s := range list {
			status := "active"
			switch {
			case s.Disabled:
				status = "disabled"
			case !s.LockedUntil.IsZero():
				status = "locked until " + s.LockedUntil.Format("2006-01-02 15:04")
			}
			lim := ""
			if s.Limits != nil {
				lim = fmt.Sprintf("\tdiscount %s, refund %s", s.Limits.Discount, s.Limits.Refund)
			}
			if s.Store {
				lim += "\tthe store's"
			}
			fmt.Fprintf(c.stdout, "%s\t%s\t%s\t%s%s\n", s.ID, s.Name, s.Role, status, lim)
		}
		return exitOK
	}
	has, err := t.Crew.HasStaff(ctx)
	if err != nil {
		return c.fail(exitCannotWork, "%s", pos.Sentence(err))
	}
	var mpin string
	if has {
		if mpin, err = c.managerPIN(in); err != nil {
			return c.fail(exitBadInput, "%v.", err)
		}
	}
	if verb == "add" {
		role, err := pos.ParseRole(*roleText)
		if err != nil {
			return c.fail(exitBadInput, "%s", pos.Sentence(err))
		}
		s, err := t.Crew.AddStaffBy(ctx, name, role, pin, mpin)
		if err != nil {
			return c.fail(exitBadInput, "%s", pos.Sentence(err))
		}
		fmt.Fprintf(c.stdout, "%s\t%s\t%s\n", s.ID, s.Name, s.Role)
		return exitOK
	}
	if verb == "limits" {
		s, err := t.Crew.SetStaffLimits(ctx, name, limits, mpin)
		if err != nil {
			return c.fail(exitBadInput, "%s", pos.Sentence(err))
		}
		fmt.Fprintf(c.stdout, "%s\t%s\t%s\tlimits\n", s.ID, s.Name, s.Role)
		return exitOK
	}
	s, err := t.Crew.ChangeStaff(ctx, name, change, pin, mpin)
	if err != nil {
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	fmt.Fprintf(c.stdout, "%s\t%s\t%s\t%s\n", s.ID, s.Name, s.Role, verb)
	return exitOK
}
