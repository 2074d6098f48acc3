package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"galla/pos"
)

// voidOutput is what galla void prints: the cancelled document and how each
// tender was given back.
type voidOutput struct {
	DocumentNo      string             `json:"document_no"`
	MerchantOrderID string             `json:"merchant_order_id"`
	Status          string             `json:"status"` // CANCELLED, or PENDING while a refund's answer is not in
	Reason          string             `json:"reason"`
	Manager         string             `json:"manager"`
	Tenders         []pos.CancelTender `json:"tenders"`
	Pending         string             `json:"pending,omitempty"`
}

// cmdVoid is galla void DOCUMENT_NO --reason TEXT: the cancellation of today's
// invoice whose supply did not happen, authorised by a manager's PIN on
// standard input or in GALLA_PIN. Every tender is given back and the invoice
// keeps its number, marked CANCELLED. It prints the result as JSON.
func cmdVoid(c *cli, args []string) int {
	fs := c.flagSet("galla void")
	reason := fs.String("reason", "", "why the invoice is cancelled, printed on it")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 1 {
		return c.fail(exitBadInput, "Name one invoice: %s.", commands()["void"].usage)
	}
	if strings.TrimSpace(*reason) == "" {
		return c.fail(exitBadInput, "Say why the invoice is cancelled with --reason, for example --reason \"customer left before delivery\".")
	}
	t, pin, failed := c.openAsManager()
	if t == nil {
		return failed
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	res, err := t.CancelDocument(ctx, rest[0], pin, *reason)
	if err != nil {
		code := exitFailed
		if errors.Is(err, pos.ErrNoCancel) || errors.Is(err, pos.ErrAlreadyCancelled) || errors.Is(err, pos.ErrOrderNotFound) ||
			errors.Is(err, pos.ErrWrongPIN) || errors.Is(err, pos.ErrBadPIN) {
			code = exitBadInput
		}
		if res != nil && len(res.Tenders) > 0 {
			code = exitFailed // something was given back before the refusal
		}
		return c.fail(code, "%s", pos.Sentence(err))
	}
	out := voidOutput{DocumentNo: res.Number, MerchantOrderID: res.OrderID, Status: strings.ToUpper(string(res.Status)),
		Reason: res.Reason, Manager: res.Manager, Tenders: res.Tenders, Pending: res.Pending}
	if out.Tenders == nil {
		out.Tenders = []pos.CancelTender{}
	}
	b, _ := json.Marshal(out)
	fmt.Fprintln(c.stdout, string(b))
	if res.Status == pos.CancelPending {
		return c.fail(exitUnknown, "%s", res.Pending)
	}
	return exitOK
}
