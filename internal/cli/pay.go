package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"galla/gateway"
	"galla/pos"
)

// cmdPay is galla pay ID: what it does depends on what ID is.
//
//   - An open split sale (galla sales --open lists them): --pay TENDER[,TENDER...]
//     finishes it, with galla checkout's tender syntax and flags (a tender
//     without an amount takes what is left, the card read once from standard
//     input, --otp for the embedded sandbox, --staff as checkout signs in); the
//     output and exit codes are checkout's for a split sale.
//   - Any other order: a card or EMI sale (or a split sale's tender) whose
//     payment verifiably failed is paid again on the same order (DESIGN.md
//     sections 3 and 6), the card read from standard input; the output and the
//     exit codes are checkout's. An open split sale named without --pay is
//     such an order when it has a card or EMI tender: that tender is paid again
//     on its own order, and the sale's answer printed.
//
// Either moves money on a manager's authority: --staff names the manager, whose
// PIN comes in GALLA_PIN or on the first line of standard input, before the
// card; the sign-in and the approval are journaled naming them (payManager).
func cmdPay(c *cli, args []string) int {
	fs := c.flagSet("galla pay")
	pay := fs.String("pay", "", "an open sale: TENDER[,TENDER...] for what is left: cash, upi, card, emi, note:CREDIT_NOTE_NO, each :PAISE but one (which takes the rest)")
	issuer := fs.String("issuer", "", "an open sale's EMI tender: the issuing bank (HDFC, ICICI, AXIS)")
	tenure := fs.Int("tenure", 0, "an open sale's EMI tender: the tenure in months")
	cash := fs.Int64("cash", 0, "an open sale's cash tender: the amount handed over in paise (default: exact)")
	staff := fs.String("staff", "", "the manager who takes the payment, signed in with their PIN (GALLA_PIN, or the first line of standard input, before the card)")
	otp := fs.String("otp", "", "the embedded sandbox's one-time password, to complete authentication at once")
	wait := fs.Duration("wait", 5*time.Minute, "how long to poll the payment's status before it is left UNKNOWN")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 1 {
		return c.fail(exitBadInput, "Name one sale or order: %s.", commands()["pay"].usage)
	}
	if *wait <= 0 {
		return c.fail(exitBadInput, "--wait must be a positive duration such as 5m.")
	}
	id := rest[0]
	var tenders []tenderArg
	if *pay != "" {
		if tenders, err = parseTenders(*pay); err != nil {
			return c.fail(exitBadInput, "%s.", upperFirst(err.Error()))
		}
		for _, ta := range tenders {
			if ta.Kind == pos.TenderEMI && (*issuer == "" || *tenure <= 0) {
				return c.fail(exitBadInput, "An EMI tender needs --issuer NAME and --tenure MONTHS; see the offers with the terminal's EMI screen.")
			}
		}
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	open := openSale(ctx, t, id)
	switch {
	case open && *pay == "" && !cardTender(ctx, t, id):
		return c.fail(exitBadInput, "%s is an open sale: name how the rest is paid with --pay, such as --pay card or --pay cash:50000,card (galla sales --open shows what is left).", id)
	case open && *pay != "":
		f := splitFlags{cash: pos.Paise(*cash), issuer: *issuer, tenure: *tenure, otp: *otp, wait: *wait}
		return c.finishSale(ctx, t, id, tenders, *staff, f)
	case *pay != "":
		return c.fail(exitBadInput, "%s is not an open sale, so --pay has nothing to finish (galla sales --open lists the open sales); to pay again an order whose card payment failed, give galla pay ORDER_ID the card alone.", id)
	}
	in := bufio.NewReader(c.stdin)
	pin, err := c.payPIN(in, *staff)
	if err != nil {
		return c.fail(exitBadInput, "%v", err)
	}
	if err := t.Checkout.GatewayHeld(pos.TenderCard); err != nil {
		return c.fail(checkoutErrorCode(err), "%s Nothing was read of the card, and nothing was sent.", pos.Sentence(err))
	}
	card, code := c.cardFrom(in)
	if card == nil {
		return code
	}
	defer card.Zero()
	m, code := c.payManager(ctx, t, *staff, pin)
	if code != exitOK {
		return code
	}
	o, err := t.Checkout.PayAgainOrder(ctx, id)
	switch {
	case errors.Is(err, pos.ErrOrderNotFound), errors.Is(err, pos.ErrNotPayableAgain):
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	case err != nil:
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	req := pos.PayRequest{OrderID: o.ID, Tender: o.Tender, Card: card, OTP: *otp, Unattended: true, Wait: *wait,
		Cashier: m.Name}
	res, err := t.Checkout.Pay(ctx, req, c.payProgress(t.Live()))
	if err != nil {
		return c.fail(checkoutErrorCode(err), "%s", pos.Sentence(err))
	}
	if open {
		return c.printSplit(ctx, t, id, res) // the sale named: its answer, as checkout prints it
	}
	return c.printCheckout(res, t.Terminal())
}

// cardTender reports whether open sale id has a card or EMI tender: galla
// pay ID with the card alone pays it again on the same order when it
// verifiably failed (as checkout's FAILED answer says), and says why not
// otherwise (an outcome not known is reconciled, never paid again).
func cardTender(ctx context.Context, t *terminal, id string) bool {
	st, err := t.Checkout.SaleStatus(ctx, id)
	if err != nil {
		return false
	}
	for _, tv := range st.Tenders {
		if tv.Order != nil && (tv.Kind == pos.TenderCard || tv.Kind == pos.TenderEMI) {
			return true
		}
	}
	return false
}

// payPIN reads the PIN of the manager galla pay names with --staff: a
// payment taken again moves money, so it is a manager's act.
func (c *cli) payPIN(in *bufio.Reader, staff string) (string, error) {
	if staff == "" {
		return "", errors.New("galla pay takes money on a manager's authority: give --staff NAME of a manager and their PIN (GALLA_PIN, or the first line of standard input, before the card)")
	}
	return c.staffPIN(in)
}

// payManager signs the manager staff in with pin and journals their approval
// of the payment (staff.override, what "pay"), naming them.
func (c *cli) payManager(ctx context.Context, t *terminal, staff, pin string) (pos.StaffMember, int) {
	m, code := c.signInManager(ctx, t, staff, pin, "Taking a payment with galla pay")
	if code != exitOK {
		return m, code
	}
	if _, err := t.Crew.Authorize(ctx, pin, pos.Override{What: "pay", By: m.ID}); err != nil {
		return pos.StaffMember{}, c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	return m, exitOK
}

// openSale reports whether id is a split sale still open: its tenders may be
// taken or it may be voided.
func openSale(ctx context.Context, t *terminal, id string) bool {
	o, err := t.Books.Order(ctx, id)
	return err == nil && o.State == pos.StateOpen // only a split sale is ever OPEN
}

// finishSale takes tenders for what is left of the open split sale id, as
// galla checkout takes a split sale's: the staff PIN and the card read from
// standard input, the tenders in the order given.
func (c *cli) finishSale(ctx context.Context, t *terminal, id string, tenders []tenderArg, staff string, f splitFlags) int {
	in := bufio.NewReader(c.stdin)
	pin, err := c.payPIN(in, staff)
	if err != nil {
		return c.fail(exitBadInput, "%v", err)
	}
	var card *gateway.Card
	for _, ta := range tenders {
		if ta.Kind == pos.TenderCard || ta.Kind == pos.TenderEMI {
			if err := t.Checkout.GatewayHeld(ta.Kind); err != nil {
				return c.fail(checkoutErrorCode(err), "%s Nothing was read of the card, and nothing was sent.", pos.Sentence(err))
			}
			var code int
			if card, code = c.cardFrom(in); card == nil {
				return code
			}
			defer card.Zero()
		}
	}
	m, code := c.payManager(ctx, t, staff, pin)
	if code != exitOK {
		return code
	}
	f.cashier = m.Name
	st, err := t.Checkout.SaleStatus(ctx, id)
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	switch {
	case st.Sale.State != pos.StateOpen: // completed just now by a tender resolved since
		return c.fail(exitBadInput, "The sale %s is %s: nothing is left to pay; galla receipt %s prints it.", id, st.Sale.State, id)
	case st.Due == 0:
		return c.fail(exitBadInput, "Nothing is left to pay on the sale %s while %s of it is being checked; run \"galla reconcile\" to resolve it, then finish or void the sale.", id, st.Pending)
	}
	if code, ok := c.checkTenderSum(tenders, st.Due, "what is left to pay of the sale "+id+" is"); !ok {
		return code
	}
	return c.payTenders(ctx, t, id, tenders, card, f)
}

// splitFlags are the flags of galla checkout a split sale uses.
type splitFlags struct {
	cash        pos.Paise // tendered for the cash tender; 0: exact
	issuer, otp string
	tenure      int
	wait        time.Duration
	cashier     string     // the signed-in member who sells
	buyer       *pos.Buyer // who the invoice names; nil: none
	// overridePIN is --override-imei's manager PIN: the sale's phones go
	// without the store's reservation when the store cannot be asked.
	overridePIN string
}

// checkTenderSum refuses tenders whose amounts cannot pay total: more than the
// total, or (all with amounts) not adding up to it. what names the total in the
// sentence ("the sale is", "left to pay is").
func (c *cli) checkTenderSum(tenders []tenderArg, total pos.Paise, what string) (int, bool) {
	var sum pos.Paise
	rest := false
	for _, ta := range tenders {
		sum += ta.Amount
		rest = rest || ta.Amount == 0
	}
	switch {
	case rest && sum >= total:
		return c.fail(exitBadInput, "The tenders with amounts add up to %s, which leaves nothing for the one without; %s %s.", sum, what, total), false
	case !rest && sum != total:
		return c.fail(exitBadInput, "The tenders add up to %s but %s %s; give one tender no amount and it takes the rest.", sum, what, total), false
	}
	return 0, true
}

// splitCheckout takes a sale paid by several tenders (DESIGN.md section 2, Split
// tender): the sale is journaled, then each tender in the order given, each card
// or EMI tender its own order at the service. A tender that fails leaves the sale
// open with what was paid, for the terminal to finish or void.
func (c *cli) splitCheckout(ctx context.Context, t *terminal, lines []pos.CartLine, units []pos.UnitIMEI, tenders []tenderArg, card *gateway.Card, f splitFlags) int {
	st, err := t.Checkout.OpenSale(ctx, pos.PayRequest{Lines: lines, IMEIs: units, Cashier: f.cashier, Buyer: f.buyer, OverrideIMEIPIN: f.overridePIN})
	if err != nil {
		return c.fail(checkoutErrorCode(err), "%s", pos.Sentence(err))
	}
	return c.payTenders(ctx, t, st.Sale.ID, tenders, card, f)
}

// payTenders takes tenders on the open split sale id, each in the order given,
// and prints where the sale stands: paid (its invoice), or open with what was
// paid when a tender fails.
func (c *cli) payTenders(ctx context.Context, t *terminal, id string, tenders []tenderArg, card *gateway.Card, f splitFlags) int {
	var last pos.PayOutcome
	for _, ta := range tenders {
		req := pos.PayRequest{Sale: id, Tender: ta.Kind, Amount: ta.Amount, NoteNo: ta.NoteNo, Cashier: f.cashier,
			OTP: f.otp, Unattended: true, Wait: f.wait}
		switch ta.Kind {
		case pos.TenderCash:
			req.Tendered = f.cash
		case pos.TenderCard, pos.TenderEMI:
			req.Card = card
			if ta.Kind == pos.TenderEMI {
				plan, oerr := t.Checkout.FindSaleOffer(ctx, id, ta.Amount, f.issuer, f.tenure)
				if oerr != nil {
					return c.splitStopped(ctx, t, id, oerr)
				}
				req.Offer = &plan
			}
		}
		res, err := t.Checkout.Pay(ctx, req, c.payProgress(t.Live()))
		if err != nil {
			return c.splitStopped(ctx, t, id, err)
		}
		last = res
		if res.State != pos.StatePaid {
			break
		}
	}
	return c.printSplit(ctx, t, id, last)
}

// splitStopped reports a tender refused before any money moved for it: the
// sale stays open with the tenders already paid.
func (c *cli) splitStopped(ctx context.Context, t *terminal, id string, err error) int {
	code := checkoutErrorCode(err)
	if st, serr := t.Checkout.SaleStatus(ctx, id); serr == nil && st.Paid > 0 {
		c.printSplitJSON(st, t.Terminal(), "OPEN", "")
		return c.fail(code, "%s The sale %s stays open with %s paid: finish it with galla pay %s --pay TENDER, or void it with galla void %s --reason TEXT (or in the terminal).", pos.Sentence(err), id, st.Paid, id, id)
	}
	return c.fail(code, "%s", pos.Sentence(err))
}

// printSplit prints a split sale's answer and returns the exit code: 0 when
// paid in full, 1 when the last tender failed, 3 when its outcome is unknown.
func (c *cli) printSplit(ctx context.Context, t *terminal, id string, last pos.PayOutcome) int {
	st, err := t.Checkout.SaleStatus(ctx, id)
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	switch {
	case st.Complete():
		c.printSplitJSON(st, t.Terminal(), "PAID", "")
		return exitOK
	case last.State == pos.StateFailed && st.Paid == 0:
		c.printSplitJSON(st, t.Terminal(), "FAILED", last.Reason)
		return c.fail(exitFailed, "The %s payment failed (%s); the sale %s stays open with nothing paid: pay again on the same order with galla pay %s (the card on standard input), take another payment method with galla pay %s --pay TENDER, or drop it with galla void %s (or in the terminal).",
			tenderNoun(last.Order), strings.TrimSuffix(last.Reason, "."), id, id, id, id)
	case last.State == pos.StateFailed:
		c.printSplitJSON(st, t.Terminal(), "FAILED", last.Reason)
		return c.fail(exitFailed, "The %s payment failed (%s); the sale %s stays open with %s paid: take the rest with galla pay %s --pay TENDER, or void the sale with galla void %s --reason TEXT (or in the terminal).",
			tenderNoun(last.Order), strings.TrimSuffix(last.Reason, "."), id, st.Paid, id, id)
	default:
		c.printSplitJSON(st, t.Terminal(), "UNKNOWN", last.Reason)
		return c.fail(exitUnknown, "The outcome of the %s payment is not known yet; do not charge again — run \"galla reconcile\" to resolve it. The sale %s stays open.", tenderNoun(last.Order), id)
	}
}

func tenderNoun(o *pos.Order) string {
	if o == nil {
		return "last"
	}
	return string(o.Tender)
}

// printSplitJSON prints checkout's answer for a split sale.
func (c *cli) printSplitJSON(st *pos.SaleStatus, terminal, status, reason string) {
	b, _ := json.Marshal(saleOutput(st, terminal, status, reason))
	fmt.Fprintln(c.stdout, string(b))
}

// saleOutput is checkout's answer for sale st: the sale's id, document and
// amount, and its tenders.
func saleOutput(st *pos.SaleStatus, terminal, status, reason string) checkoutOutput {
	s := st.Sale
	out := checkoutOutput{MerchantOrderID: s.ID, Status: status, Verified: s.Verified, Amount: s.Amount, ReceiptNo: max(s.DocNo, s.ReceiptNo), Reason: reason,
		Tenders: []tenderOutput{}}
	if s.DocNo > 0 || s.ReceiptNo > 0 {
		out.InvoiceNo = s.Number(terminal)
		out.DocumentNo = out.InvoiceNo
	}
	for _, tv := range st.Tenders {
		to := tenderOutput{Kind: tv.Kind, Amount: tv.Amount, Status: "NOT_STARTED", MerchantOrderID: tv.OrderID}
		if tv.Order != nil {
			to = tenderOf(tv.Order)
			to.Amount = tv.Amount
		}
		out.Change += to.Change
		// The sale's service ids are its card or EMI tender's: the one that
		// paid it once complete, else the latest tried (a failure names it).
		if (to.Kind == pos.TenderCard || to.Kind == pos.TenderEMI) && (tv.Paid() || !st.Complete()) {
			out.ServiceOrderID, out.PaymentID, out.Gateway = tv.Order.ServiceOrderID, to.PaymentID, tv.Order.Gateway
		}
		out.Tenders = append(out.Tenders, to)
	}
	return out
}

// tenderOf is one tender's part of checkout's answer.
func tenderOf(o *pos.Order) tenderOutput {
	to := tenderOutput{Kind: o.Tender, Amount: o.Amount, Status: string(o.State), Verified: o.Verified, MerchantOrderID: o.ID,
		PaymentID: o.PaymentID, Change: o.Change, ConfirmedBy: o.ConfirmedBy, NoteNo: o.NoteNo}
	if to.PaymentID == "" {
		if a := o.LastAttempt(); a != nil {
			to.PaymentID = a.PaymentID
		}
	}
	return to
}

// upperFirst capitalises the first letter of a sentence.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
