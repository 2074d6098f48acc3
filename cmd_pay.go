package main

import (
	"errors"
	"time"

	"galla/pos"
)

// cmdPay is galla pay MERCHANT_ORDER_ID [--otp CODE] [--wait DURATION]: pay again,
// on the same order, a card or EMI sale whose payment verifiably failed (DESIGN.md
// sections 3 and 6). The card is read from standard input as for galla checkout;
// the output and the exit codes are checkout's.
func cmdPay(c *cli, args []string) int {
	fs := c.flagSet("galla pay")
	otp := fs.String("otp", "", "the embedded sandbox's one-time password, to complete authentication at once")
	wait := fs.Duration("wait", 5*time.Minute, "how long to poll the payment's status before it is left UNKNOWN")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 1 {
		return c.fail(exitBadInput, "Name one order: galla pay MERCHANT_ORDER_ID [--otp CODE] [--wait DURATION], with the card on standard input.")
	}
	if *wait <= 0 {
		return c.fail(exitBadInput, "--wait must be a positive duration such as 5m.")
	}
	id := rest[0]
	card, code := c.cardFromStdin()
	if card == nil {
		return code
	}
	defer card.Zero()
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	o, err := t.Order(ctx, id)
	if errors.Is(err, pos.ErrOrderNotFound) {
		return c.fail(exitBadInput, "No sale with the order number %s is in the journal; check the number on the receipt.", id)
	}
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	if msg := payAgainRefusal(o); msg != "" {
		return c.fail(exitBadInput, "%s", msg)
	}
	req := pos.PayRequest{OrderID: o.ID, Tender: o.Tender, Card: card, OTP: *otp, Unattended: true, Wait: *wait,
		Cashier: "command line"}
	res, err := t.Pay(ctx, req, c.payProgress(t.Live()))
	if err != nil {
		return c.fail(checkoutErrorCode(err), "%s", pos.Sentence(err))
	}
	return c.printCheckout(res)
}

// payAgainRefusal says why o cannot be paid again, or "" when it can: only a card
// or EMI order whose payment verifiably failed, with attempts left, is paid again.
func payAgainRefusal(o *pos.Order) string {
	switch {
	case o.Tender != pos.TenderCard && o.Tender != pos.TenderEMI:
		return "The sale " + o.ID + " is paid in " + string(o.Tender) + ", not by card or EMI; nothing can be paid again on it."
	case o.State.Paid():
		return "The sale " + o.ID + " is already paid; print the receipt instead of charging again."
	case o.State == pos.StateFailed && errors.Is(o.CanPay(), pos.ErrAttemptsUsed):
		return "The sale " + o.ID + " has used all its payment attempts; start a new sale or take another payment method."
	case o.State == pos.StateFailed && o.CanPay() == nil:
		return ""
	case o.State == pos.StateFailed || o.State == pos.StateAbandoned:
		return "The sale " + o.ID + " cannot be paid again; start a new sale."
	}
	return "The payment of the sale " + o.ID + " has not verifiably failed (it is " + string(o.State) +
		"); do not charge again — run \"galla reconcile\" to resolve it."
}
