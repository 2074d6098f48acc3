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
	o, err := t.PayAgainOrder(ctx, id)
	switch {
	case errors.Is(err, pos.ErrOrderNotFound), errors.Is(err, pos.ErrNotPayableAgain):
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	case err != nil:
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	req := pos.PayRequest{OrderID: o.ID, Tender: o.Tender, Card: card, OTP: *otp, Unattended: true, Wait: *wait,
		Cashier: "command line"}
	res, err := t.Pay(ctx, req, c.payProgress(t.Live()))
	if err != nil {
		return c.fail(checkoutErrorCode(err), "%s", pos.Sentence(err))
	}
	return c.printCheckout(res, t.Terminal())
}
