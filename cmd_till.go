package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"galla/assets"
	"galla/gateway"
	"galla/pos"
	"galla/pos/journal"
	"galla/receipts"
)

// till is what the headless till commands share: the journal, the payment service,
// the engine and the catalog.
type till struct {
	cfg config
	ps  paymentService
	j   *journal.Journal
	eng *pos.Engine
	cat *pos.Catalog
}

// openTill opens the journal and the payment service and builds the engine. The
// caller closes the journal with close. The journal is verified (bbolt's check and
// the hash chain) before it returns.
func openTill(c *cli) (*till, error) { return openTillWith(c, journal.Options{}) }

// openTillWith is openTill with the journal's options. With opts.DeferVerify the
// journal is not verified yet: the engine's payments wait for the caller's
// (*journal.Journal).Verify and are refused if it fails.
func openTillWith(c *cli, opts journal.Options) (*till, error) {
	cfg, err := c.loadConfig()
	if err != nil {
		return nil, err
	}
	// The journal first: its lock keeps a second process from loading the
	// embedded sandbox's state while this one may still change it.
	j, err := journal.Open(filepath.Join(c.dataDir, journalFile), opts)
	if err != nil {
		return nil, errors.New(pos.Sentence(err))
	}
	ps, err := openPaymentService(cfg.Gateway, c.dataDir)
	if err != nil {
		_ = j.Close()
		return nil, err
	}
	pcfg := pos.Config{
		Journal:  j,
		Gateway:  ps.client,
		Terminal: cfg.Terminal,
		Customer: pos.Customer{CountryCode: "91", Mobile: "9999999999", Email: "counter@galla.local"},
	}
	if opts.DeferVerify {
		pcfg.Health = j
	}
	eng, err := pos.New(pcfg)
	if err != nil {
		_ = j.Close()
		return nil, err
	}
	return &till{cfg: cfg, ps: ps, j: j, eng: eng}, nil
}

func (t *till) close() { _ = t.j.Close() }

// catalog returns the catalog last imported, or the sample catalog.
func (t *till) catalog(ctx context.Context) (*pos.Catalog, error) {
	if t.cat != nil {
		return t.cat, nil
	}
	cat, err := t.j.Catalog(ctx)
	if err == nil && cat == nil {
		cat, err = pos.LoadCatalogJSON(assets.SampleCatalog())
	}
	t.cat = cat
	return cat, err
}

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
	ReceiptNo       uint64    `json:"receipt_no"`
	Reason          string    `json:"reason,omitempty"`
	Change          pos.Paise `json:"change,omitempty"`
}

// cmdCheckout is galla checkout: a headless sale (DESIGN.md section 6).
func cmdCheckout(c *cli, args []string) int {
	fs := c.flagSet("galla checkout")
	items := fs.String("items", "", "SKU[:QTY],... (SKU or barcode)")
	pay := fs.String("pay", "", "card, emi or cash")
	issuer := fs.String("issuer", "", "EMI: the issuing bank (HDFC, ICICI, AXIS)")
	tenure := fs.Int("tenure", 0, "EMI: the tenure in months")
	imeis := fs.String("imei", "", "IMEI,... one per serialised unit, in cart order")
	otp := fs.String("otp", "", "the sandbox's one-time password: completes authentication without a browser")
	cash := fs.Int64("cash", 0, "cash: the amount tendered in paise (default: exact)")
	wait := fs.Duration("wait", 5*time.Minute, "how long to poll the payment's status before it is left UNKNOWN")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) > 0 {
		return c.fail(exitBadInput, "galla checkout takes no arguments besides its flags; %q is extra.", rest[0])
	}
	tender := pos.TenderKind(*pay)
	switch tender {
	case pos.TenderCard, pos.TenderEMI, pos.TenderCash:
	default:
		return c.fail(exitBadInput, "Say how the sale is paid with --pay card, --pay emi or --pay cash.")
	}
	if tender == pos.TenderEMI && (*issuer == "" || *tenure <= 0) {
		return c.fail(exitBadInput, "An EMI sale needs --issuer NAME and --tenure MONTHS; see the offers with the terminal's EMI screen.")
	}
	if *wait <= 0 {
		return c.fail(exitBadInput, "--wait must be a positive duration such as 5m.")
	}
	var card *gateway.Card
	if tender != pos.TenderCash {
		if card, err = readCard(c.stdin); err != nil {
			return c.fail(exitBadInput, "%v", err)
		}
		defer card.Zero()
		if err := card.Check(time.Now()); err != nil {
			return c.fail(exitBadInput, "%s", pos.Sentence(err))
		}
	}
	t, err := openTill(c)
	if err != nil {
		return c.fail(exitFailed, "%v", err)
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	cat, err := t.catalog(ctx)
	if err != nil {
		return c.fail(exitFailed, "The catalog cannot be read: %s", pos.Sentence(err))
	}
	lines, err := cartLines(cat, *items, *imeis)
	if err != nil {
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	sale := pos.Sale{Lines: lines, Staff: "command line"}
	opt := pos.PayOptions{Wait: *wait, Auth: t.authenticator(c, *otp)}

	var res *pos.Result
	switch tender {
	case pos.TenderCash:
		tendered := pos.Paise(*cash)
		if tendered == 0 {
			tendered = pos.ComputeTotals(lines).Total
		}
		res, err = t.eng.PayCash(ctx, sale, tendered)
	case pos.TenderCard:
		res, err = t.eng.CheckoutCard(ctx, sale, card, opt)
	case pos.TenderEMI:
		offers, oerr := t.eng.EMIOffers(ctx, lines)
		if oerr != nil {
			return c.fail(exitBadInput, "%s", pos.Sentence(oerr))
		}
		plan, ok := offers.Find(*issuer, *tenure, "")
		if !ok {
			return c.fail(exitBadInput, "No %s offer of %d months exists for this cart; the offers are: %s.", *issuer, *tenure, offerList(offers))
		}
		res, err = t.eng.CheckoutEMI(ctx, sale, plan, card, opt)
	}
	if err != nil {
		return c.fail(checkoutErrorCode(err), "%s", pos.Sentence(err))
	}
	return c.printCheckout(res)
}

// checkoutErrorCode is the exit code of a checkout that ended in an error: bad
// input for what the cashier must correct, FAILED for the rest (no payment was
// taken: an unknown outcome is a Result, never an error).
func checkoutErrorCode(err error) int {
	for _, bad := range []error{pos.ErrEmptyCart, pos.ErrBadIMEI, pos.ErrIMEIMissing, pos.ErrOfferNotForCard,
		pos.ErrOfferOutdated, pos.ErrNoEMIOffer, pos.ErrCashShort, gateway.ErrInvalidCard, pos.ErrDayClosed} {
		if errors.Is(err, bad) {
			return exitBadInput
		}
	}
	return exitFailed
}

func (c *cli) printCheckout(res *pos.Result) int {
	o := res.Order
	out := checkoutOutput{MerchantOrderID: o.ID, ServiceOrderID: o.ServiceOrderID, PaymentID: o.PaymentID,
		Verified: o.Verified, Amount: o.Amount, ReceiptNo: o.ReceiptNo, Change: o.Change}
	if out.PaymentID == "" {
		if a := o.LastAttempt(); a != nil {
			out.PaymentID = a.PaymentID
		}
	}
	code := exitOK
	switch res.Status {
	case pos.ResultPaid:
		out.Status = "PAID"
	case pos.ResultFailed:
		out.Status, out.Reason, code = "FAILED", res.Reason, exitFailed
	default:
		out.Status, out.Reason, code = "UNKNOWN", res.Reason, exitUnknown
	}
	b, _ := json.Marshal(out)
	fmt.Fprintln(c.stdout, string(b))
	switch code {
	case exitFailed:
		fmt.Fprintf(c.stderr, "galla: The payment failed (%s); pay again on the same order in the terminal, or take another payment method.\n", strings.TrimSuffix(res.Reason, "."))
	case exitUnknown:
		fmt.Fprintln(c.stderr, "galla: The payment's outcome is not known yet; do not charge again — run \"galla reconcile\" to resolve it.")
	}
	return code
}

// authenticator is how the checkout completes 3-D Secure: --otp posts the
// sandbox's OTP form; otherwise the authentication page's address is printed for a
// browser.
func (t *till) authenticator(c *cli, otp string) pos.Authenticator {
	if otp != "" {
		return pos.SandboxOTP(t.ps.client, otp)
	}
	return pos.AuthenticatorFunc(func(ctx context.Context, ch pos.Challenge) error {
		addr := formAction(ch.Content)
		if addr == "" {
			return nil
		}
		if t.ps.live() {
			fmt.Fprintf(c.stderr, "galla: The customer authenticates the payment at %s ; waiting for the result.\n", addr)
		} else {
			fmt.Fprintln(c.stderr, "galla: The embedded sandbox needs the one-time password: run the checkout with --otp 123456.")
		}
		return nil
	})
}

var actionRE = regexp.MustCompile(`(?i)<form[^>]*\saction\s*=\s*["']([^"']+)["']`)

// formAction returns the address the authentication form posts to.
func formAction(content string) string {
	m := actionRE.FindStringSubmatch(content)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// cartLines builds the sale's lines from "SKU[:QTY],..." and the IMEIs, which go to
// the serialised units in cart order.
func cartLines(cat *pos.Catalog, items, imeis string) ([]pos.Line, error) {
	cart := pos.NewCart(cat)
	for it := range strings.SplitSeq(items, ",") {
		it = strings.TrimSpace(it)
		if it == "" {
			continue
		}
		code, qtyText, hasQty := strings.Cut(it, ":")
		qty := 1
		if hasQty {
			n, err := strconv.Atoi(qtyText)
			if err != nil {
				return nil, fmt.Errorf("quantity %q: %w", qtyText, pos.ErrBadQuantity)
			}
			qty = n
		}
		if _, err := cart.Add(code, qty); err != nil {
			return nil, err
		}
	}
	if cart.Len() == 0 {
		return nil, pos.ErrEmptyCart
	}
	var list []string
	for s := range strings.SplitSeq(imeis, ",") {
		if s = strings.TrimSpace(s); s != "" {
			list = append(list, s)
		}
	}
	for _, l := range cart.Lines() {
		if !l.Serialised || len(list) == 0 {
			continue
		}
		n := min(l.Qty, len(list))
		if err := cart.SetIMEIs(l.SKU, list[:n]); err != nil {
			return nil, err
		}
		list = list[n:]
	}
	if len(list) > 0 {
		return nil, pos.ErrTooManyIMEIs
	}
	lines, _, err := cart.Checkout()
	return lines, err
}

func offerList(s *pos.OfferSet) string {
	var parts []string
	for _, is := range s.Issuers {
		var months []string
		for _, p := range is.Plans {
			months = append(months, fmt.Sprintf("%d (%s)", p.TenureMonths, p.Program))
		}
		parts = append(parts, is.Issuer+" "+strings.Join(months, ", "))
	}
	return strings.Join(parts, "; ")
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
		return c.fail(exitFailed, "%v", err)
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	rep, err := t.eng.Reconcile(ctx)
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
	pin, err := c.managerPIN(bufio.NewReader(c.stdin))
	if err != nil {
		return c.fail(exitBadInput, "%v.", err)
	}
	t, err := openTill(c)
	if err != nil {
		return c.fail(exitFailed, "%v", err)
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	res, err := t.eng.Refund(ctx, pos.RefundRequest{OrderID: rest[0], Amount: pos.Paise(*amount), PIN: pin, Reason: *reason})
	if err != nil {
		code := exitFailed
		if errors.Is(err, pos.ErrNotRefundable) || errors.Is(err, pos.ErrOrderNotFound) || errors.Is(err, pos.ErrWrongPIN) || errors.Is(err, pos.ErrBadPIN) {
			code = exitBadInput
		}
		return c.fail(code, "%s", pos.Sentence(err))
	}
	out := map[string]any{"merchant_order_id": res.Order.ID, "unique_txn_id": res.Refund.UniqueTxnID,
		"amount": res.Refund.Amount, "status": strings.ToUpper(string(res.Refund.Status)), "order_status": res.Order.State,
		"receipt_no": res.Refund.ReceiptNo, "refund_id": res.Refund.RefundID}
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

// dayFlag returns --day's value or today.
func dayFlag(day string) (string, error) {
	if day == "" {
		return pos.ToDay(time.Now()), nil
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
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) > 0 {
		return c.fail(exitBadInput, "galla report takes no arguments besides its flags.")
	}
	day, err := dayFlag(*dayText)
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
		return c.fail(exitFailed, "%v", err)
	}
	defer t.close()
	ctx := context.Background()
	rep, err := t.eng.Report(ctx, day)
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	s, code := t.reportSlip(ctx, c, rep, *doPrint)
	if code != exitOK {
		return code
	}
	s.format, s.out = *format, *out
	switch *format {
	case "text", "csv", "json":
		s.write = func(w io.Writer) error { return writeReport(w, rep, *format) }
	}
	return s.run(ctx, c)
}

// reportSlip is the slip of rep with the shop and printer of the settings; a
// missing printer is an error only when it is to print.
func (t *till) reportSlip(ctx context.Context, c *cli, rep *pos.Report, print bool) (slip, int) {
	shop, err := pos.LoadShop(ctx, t.j)
	if err != nil {
		return slip{}, c.fail(exitFailed, "The shop's settings cannot be read (%v); set the shop's name, address and GSTIN again.", err)
	}
	profile, havePrinter, err := pos.LoadPrinter(ctx, t.j)
	if err != nil {
		return slip{}, c.fail(exitFailed, "The printer settings cannot be read (%v); set the receipt printer again.", err)
	}
	if print && !havePrinter {
		return slip{}, c.fail(exitBadInput, "No receipt printer is configured; write the report to a file with --out instead.")
	}
	if !havePrinter {
		profile = receipts.Profile{Width: 80}
	}
	noun := rep.Kind + " report"
	r := pos.ReportReceipt(*rep, shop, pos.ReceiptOptions{Terminal: t.cfg.Terminal})
	return slip{r: r, print: print, profile: profile, noun: noun}, exitOK
}

// writeReport writes rep as text, csv or json.
func writeReport(w io.Writer, rep *pos.Report, format string) error {
	switch format {
	case "csv":
		return rep.WriteCSV(w)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.WriteText(w)
}

func (c *cli) writeReport(rep *pos.Report, format string) int {
	if err := writeReport(c.stdout, rep, format); err != nil {
		return c.fail(exitFailed, "The report cannot be written: %v.", err)
	}
	return exitOK
}

// cmdCloseDay is galla close-day [--day YYYY-MM-DD]: the Z report. With a receipt
// printer configured it prints the Z report too; a print that fails leaves the day
// closed (exit 0) and says how to print it again.
func cmdCloseDay(c *cli, args []string) int {
	fs := c.flagSet("galla close-day")
	dayText := fs.String("day", "", "the day to close, YYYY-MM-DD (default today)")
	format := fs.String("format", "text", "text or json")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) > 0 {
		return c.fail(exitBadInput, "galla close-day takes no arguments besides its flags.")
	}
	day, err := dayFlag(*dayText)
	if err != nil {
		return c.fail(exitBadInput, "%v; type it again.", err)
	}
	pin, err := c.managerPIN(bufio.NewReader(c.stdin))
	if err != nil {
		return c.fail(exitBadInput, "%v.", err)
	}
	t, err := openTill(c)
	if err != nil {
		return c.fail(exitFailed, "%v", err)
	}
	defer t.close()
	ctx := context.Background()
	rep, note, err := closeDay(ctx, t.eng, t.j, day, pin)
	if err != nil {
		code := exitFailed
		if errors.Is(err, pos.ErrDayClosed) || errors.Is(err, pos.ErrBadDay) || errors.Is(err, pos.ErrWrongPIN) || errors.Is(err, pos.ErrBadPIN) {
			code = exitBadInput
		}
		return c.fail(code, "%s", pos.Sentence(err))
	}
	fmt.Fprintln(c.stderr, "galla: "+note)
	code := c.writeReport(rep, *format)
	if msg := t.printZ(ctx, rep); msg != "" {
		fmt.Fprintln(c.stderr, "galla: "+msg)
	}
	return code
}

// printZ prints the Z report just taken on the configured printer, if there is
// one, and returns the sentence to say: where it printed, or why it did not and how
// to print it again. It returns "" when no printer is configured.
func (t *till) printZ(ctx context.Context, rep *pos.Report) string {
	again := fmt.Sprintf("print it again with \"galla report --day %s --print\"", rep.Day)
	shop, err := pos.LoadShop(ctx, t.j)
	if err != nil {
		return fmt.Sprintf("The Z report was not printed: the shop's settings cannot be read (%v); the day is closed all the same — %s.", err, again)
	}
	profile, ok, err := pos.LoadPrinter(ctx, t.j)
	if err != nil {
		return fmt.Sprintf("The Z report was not printed: the printer settings cannot be read (%v); the day is closed all the same — %s.", err, again)
	}
	if !ok {
		return ""
	}
	var b bytes.Buffer
	r := pos.ReportReceipt(*rep, shop, pos.ReceiptOptions{Terminal: t.cfg.Terminal})
	if err := receipts.ESCPOS(&b, r, profile); err != nil {
		return fmt.Sprintf("The Z report was not printed: it cannot be drawn for the printer (%v); the day is closed all the same — %s.", err, again)
	}
	pr, err := receipts.NewPrinter(profile)
	if err == nil {
		err = pr.Print(ctx, b.Bytes())
	}
	if err != nil {
		return fmt.Sprintf("The Z report was not printed (%s); the day is closed all the same — %s.", printerProblem(err), again)
	}
	return fmt.Sprintf("Z report no. %d printed on %s.", rep.ZNo, profile.Address)
}

// printerProblem says what is wrong with the printer without the receipt advice
// of receipts.PrinterError's sentence.
func printerProblem(err error) string {
	var pe *receipts.PrinterError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	who := "printer " + pe.Name
	if pe.Transport == receipts.TransportTCP {
		who = "the printer at " + pe.Name
	}
	if pe.Offline {
		return who + " is offline: out of paper or its cover is open"
	}
	return who + " is not answering"
}

// closeDay takes the Z report of day and then writes the hot backup of the journal
// that DESIGN.md section 4 asks for at day close. The note says where the backup
// went, or that it failed: the day stays closed either way.
func closeDay(ctx context.Context, eng *pos.Engine, j *journal.Journal, day, pin string) (*pos.Report, string, error) {
	rep, err := eng.CloseDay(ctx, day, pin)
	if err != nil {
		return nil, "", err
	}
	path, err := j.BackupDay(day)
	if err != nil {
		return rep, fmt.Sprintf("Day %s is closed with Z report no. %d, but the backup could not be written (%v); copy the data folder by hand.", day, rep.ZNo, err), nil
	}
	return rep, fmt.Sprintf("Day %s is closed with Z report no. %d; backup written to %s.", day, rep.ZNo, path), nil
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
		return c.fail(exitFailed, "%v", err)
	}
	defer t.close()
	ctx := context.Background()
	if rest[0] == "import" {
		f, err := os.Open(rest[1])
		if err != nil {
			return c.fail(exitBadInput, "The file %s cannot be opened (%v); check its name.", rest[1], err)
		}
		defer f.Close()
		var cat *pos.Catalog
		if strings.EqualFold(filepath.Ext(rest[1]), ".json") {
			cat, err = pos.ImportJSON(f)
		} else {
			cat, err = pos.ImportCSV(f)
		}
		if err != nil {
			return c.fail(exitBadInput, "%s", pos.Sentence(err))
		}
		if err := t.j.PutCatalog(ctx, cat, "command line"); err != nil {
			return c.fail(exitFailed, "%s", pos.Sentence(err))
		}
		fmt.Fprintf(c.stderr, "galla: %d products imported.\n", cat.Len())
		return exitOK
	}
	cat, err := t.catalog(ctx)
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
		fmt.Fprintf(c.stdout, "%s\t%s\t%s\t%d%%\n", p.SKU, p.Name, p.Price, p.GSTRate)
	}
	return exitOK
}

// cmdStaff is galla staff add NAME --role cashier|manager. The new member's PIN is
// the first line of standard input; once staff exist, adding one takes a manager's
// PIN too (GALLA_PIN, or the second line).
func cmdStaff(c *cli, args []string) int {
	fs := c.flagSet("galla staff")
	roleText := fs.String("role", "", "cashier or manager")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) < 2 || rest[0] != "add" {
		return c.fail(exitBadInput, "Use galla staff add NAME --role cashier|manager, with the new PIN on standard input.")
	}
	role, err := pos.ParseRole(*roleText)
	if err != nil {
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	name := strings.Join(rest[1:], " ")
	in := bufio.NewReader(c.stdin)
	line, err := in.ReadString('\n')
	if err != nil && (!errors.Is(err, io.EOF) || line == "") {
		return c.fail(exitBadInput, "Give the new staff member's PIN on standard input.")
	}
	pin := strings.TrimSpace(line)
	t, err := openTill(c)
	if err != nil {
		return c.fail(exitFailed, "%v", err)
	}
	defer t.close()
	ctx := context.Background()
	all, err := t.j.List(ctx)
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	if len(all) > 0 {
		mpin, err := c.managerPIN(in)
		if err != nil {
			return c.fail(exitBadInput, "%v.", err)
		}
		if _, err := t.eng.Roster().AuthoriseManager(ctx, mpin, time.Now()); err != nil {
			return c.fail(exitBadInput, "%s", pos.Sentence(err))
		}
	}
	s, err := t.eng.Roster().AddStaff(ctx, name, role, pin)
	if err != nil {
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	fmt.Fprintf(c.stdout, "%s\t%s\t%s\n", s.ID, s.Name, s.Role)
	return exitOK
}
