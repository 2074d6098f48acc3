package main

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

// cardFromStdin checks the payment service's address (card data goes nowhere
// else), then reads the card from standard input and checks it. A nil card comes
// with the exit code of the sentence already said.
func (c *cli) cardFromStdin() (*gateway.Card, int) {
	if _, err := config.Load(c.dataDir, c.getenv, c.gatewayURL, nil); err != nil {
		return nil, c.failOpen(err)
	}
	card, err := readCard(c.stdin)
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
}

// cmdCheckout is galla checkout: a headless sale (DESIGN.md section 6).
func cmdCheckout(c *cli, args []string) int {
	fs := c.flagSet("galla checkout")
	items := fs.String("items", "", "SKU[:QTY],... (SKU or barcode)")
	pay := fs.String("pay", "", "card, emi, cash, or note:CREDIT_NOTE_NO")
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
	if note, ok := strings.CutPrefix(*pay, "note:"); ok { // an exchange: paid by a credit note (cmd_return.go)
		return c.checkoutByNote(*items, *imeis, note)
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
		var code int
		if card, code = c.cardFromStdin(); card == nil {
			return code
		}
		defer card.Zero()
	} else if _, err := config.Load(c.dataDir, c.getenv, c.gatewayURL, nil); err != nil {
		return c.failOpen(err)
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	if _, err := t.Catalog(ctx); err != nil {
		return c.fail(exitFailed, "The catalog cannot be read: %s", pos.Sentence(err))
	}
	var imeiList []string
	for s := range strings.SplitSeq(*imeis, ",") {
		if s = strings.TrimSpace(s); s != "" {
			imeiList = append(imeiList, s)
		}
	}
	lines, units, err := t.ParseItems(ctx, *items, imeiList)
	if err != nil {
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	req := pos.PayRequest{Lines: lines, IMEIs: units, Tender: tender, Tendered: pos.Paise(*cash), Cashier: "command line",
		OTP: *otp, Unattended: true, Wait: *wait}
	if card != nil {
		req.Card = card
	}
	if tender == pos.TenderEMI {
		plan, oerr := t.FindOffer(ctx, lines, *issuer, *tenure)
		if oerr != nil {
			return c.fail(exitBadInput, "%s", pos.Sentence(oerr))
		}
		req.Offer = &plan
	}
	res, err := t.Pay(ctx, req, c.payProgress(t.Live()))
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
	for _, bad := range []error{pos.ErrEmptyCart, pos.ErrBadIMEI, pos.ErrIMEIMissing, pos.ErrOfferNotForCard,
		pos.ErrOfferOutdated, pos.ErrNoEMIOffer, pos.ErrCashShort, gateway.ErrInvalidCard, pos.ErrDayClosed} {
		if errors.Is(err, bad) {
			return exitBadInput
		}
	}
	return exitFailed
}

func (c *cli) printCheckout(res pos.PayOutcome, terminal string) int {
	o := res.Order
	out := checkoutOutput{MerchantOrderID: o.ID, ServiceOrderID: o.ServiceOrderID, PaymentID: o.PaymentID,
		Verified: o.Verified, Amount: o.Amount, ReceiptNo: max(o.DocNo, o.ReceiptNo), DocumentNo: o.Number(terminal), Change: o.Change, Gateway: o.Gateway}
	if out.PaymentID == "" {
		if a := o.LastAttempt(); a != nil {
			out.PaymentID = a.PaymentID
		}
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
	rep, err := t.Reconcile(ctx)
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
		return c.failOpen(err)
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	res, err := t.RefundOrder(ctx, pos.RefundRequest{OrderID: rest[0], Amount: pos.Paise(*amount), PIN: pin, Reason: *reason})
	if err != nil {
		code := exitFailed
		if errors.Is(err, pos.ErrNotRefundable) || errors.Is(err, pos.ErrOrderNotFound) || errors.Is(err, pos.ErrWrongPIN) || errors.Is(err, pos.ErrBadPIN) {
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
		return c.failOpen(err)
	}
	defer t.close()
	ctx := context.Background()
	rep, err := t.Report(ctx, day)
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	d, err := t.ReportDocument(ctx, rep)
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	var write func(io.Writer) error
	switch *format {
	case "text", "csv", "json":
		write = func(w io.Writer) error { return writeReport(w, rep, *format) }
	}
	return c.document(ctx, t, d, *format, *out, *doPrint, write)
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
		return c.failOpen(err)
	}
	defer t.close()
	ctx := context.Background()
	res, err := t.CloseDayWithBackup(ctx, day, pin)
	if err != nil {
		code := exitFailed
		if errors.Is(err, pos.ErrDayClosed) || errors.Is(err, pos.ErrBadDay) || errors.Is(err, pos.ErrWrongPIN) || errors.Is(err, pos.ErrBadPIN) {
			code = exitBadInput
		}
		return c.fail(code, "%s", pos.Sentence(err))
	}
	fmt.Fprintln(c.stderr, "galla: "+res.Note)
	code := c.writeReport(res.Report, *format)
	if msg := t.PrintZ(ctx, res.Report); msg != "" {
		fmt.Fprintln(c.stderr, "galla: "+msg)
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
		cat, err := t.ImportCatalog(ctx, f, strings.EqualFold(filepath.Ext(rest[1]), ".json"), "command line")
		switch {
		case errors.Is(err, pos.ErrBadCatalog):
			return c.fail(exitBadInput, "%s", pos.Sentence(err))
		case err != nil:
			return c.fail(exitFailed, "%s", pos.Sentence(err))
		}
		fmt.Fprintf(c.stderr, "galla: %d products imported.\n", cat.Len())
		return exitOK
	}
	cat, err := t.Catalog(ctx)
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

// cmdStaff is galla staff list | add NAME --role cashier|manager | disable NAME |
// enable NAME | reset-pin NAME | unlock NAME. A new PIN (add, reset-pin) is the
// first line of standard input; once staff exist, every change takes a manager's
// PIN too (GALLA_PIN, or the next line).
func cmdStaff(c *cli, args []string) int {
	fs := c.flagSet("galla staff")
	roleText := fs.String("role", "", "add: cashier or manager")
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
	if verb != "list" && verb != "add" && !isChange {
		return c.fail(exitBadInput, "%s", usage)
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
		list, err := t.StaffList(ctx)
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
			fmt.Fprintf(c.stdout, "%s\t%s\t%s\t%s\n", s.ID, s.Name, s.Role, status)
		}
		return exitOK
	}
	has, err := t.HasStaff(ctx)
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
		s, err := t.AddStaffBy(ctx, name, role, pin, mpin)
		if err != nil {
			return c.fail(exitBadInput, "%s", pos.Sentence(err))
		}
		fmt.Fprintf(c.stdout, "%s\t%s\t%s\n", s.ID, s.Name, s.Role)
		return exitOK
	}
	s, err := t.ChangeStaff(ctx, name, change, pin, mpin)
	if err != nil {
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	fmt.Fprintf(c.stdout, "%s\t%s\t%s\t%s\n", s.ID, s.Name, s.Role, verb)
	return exitOK
}
