package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"galla/pos"
)

// voidOutput is what galla void prints: the cancelled document (or the voided
// open sale) and how each tender was given back.
type voidOutput struct {
	DocumentNo      string             `json:"document_no"` // "" for an open sale voided: it had no document
	MerchantOrderID string             `json:"merchant_order_id"`
	Status          string             `json:"status"` // CANCELLED (an invoice) or VOIDED (an open sale), or PENDING while a refund's answer is not in
	Reason          string             `json:"reason"`
	Manager         string             `json:"manager"`
	Tenders         []pos.CancelTender `json:"tenders"`
	Pending         string             `json:"pending,omitempty"`
}

// cmdVoid is galla void DOCUMENT_NO|SALE_ID --reason TEXT, authorised by a
// manager's PIN on standard input or in GALLA_PIN. What it does depends on what
// it is given:
//
//   - an open split sale's id (galla sales --open): the sale is voided
//     (Till.VoidSale): each paid tender is given back with its refund document
//     (the card through the service, cash from the drawer, a credit note back
//     onto its note), and the sale issues no invoice; a sale with nothing paid
//     and nothing in flight holds no money and is dropped with no PIN
//     (Checkout.DropSale);
//   - an invoice's number (or its sale's order id): today's invoice whose supply
//     did not happen is cancelled; every tender is given back and the invoice
//     keeps its number, marked CANCELLED.
//
// It prints the result as JSON.
func cmdVoid(c *cli, args []string) int {
	fs := c.flagSet("galla void")
	reason := fs.String("reason", "", "why the invoice is cancelled (printed on it), or the open sale voided")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 1 {
		return c.fail(exitBadInput, "Name one invoice or open sale: %s.", commands()["void"].usage)
	}
	if strings.TrimSpace(*reason) == "" {
		return c.fail(exitBadInput, "Say why the invoice is cancelled (or the open sale voided) with --reason, for example --reason \"customer left before delivery\".")
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	if st, err := t.Checkout.SaleStatus(ctx, rest[0]); err == nil && st.HoldsNoMoney() {
		return c.dropSale(ctx, t, rest[0], *reason)
	}
	pin, err := c.managerPIN(bufio.NewReader(c.stdin))
	if err != nil {
		return c.fail(exitBadInput, "%v.", err)
	}
	if openSale(ctx, t, rest[0]) {
		return c.voidSale(ctx, t, rest[0], pin, *reason)
	}
	res, err := t.Returns.CancelDocument(ctx, rest[0], pin, *reason)
	if err != nil {
		code := voidErrorCode(err)
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

// voidErrorCode is the exit code of a void or cancellation refused before
// anything was given back: bad input for what the manager must correct, FAILED
// for the rest.
func voidErrorCode(err error) int {
	for _, bad := range []error{pos.ErrNoCancel, pos.ErrAlreadyCancelled, pos.ErrOrderNotFound, pos.ErrWrongPIN, pos.ErrBadPIN, pos.ErrSaleClosed} {
		if errors.Is(err, bad) {
			return exitBadInput
		}
	}
	return exitFailed
}

// voidSale voids the open split sale id (Till.VoidSale) and prints galla void's
// answer: status VOIDED with each tender given back, or PENDING (exit 3) while
// a refund's answer is not in; voiding again continues it.
func (c *cli) voidSale(ctx context.Context, t *terminal, id, pin, reason string) int {
	st, err := t.Checkout.VoidSale(ctx, id, pin, reason)
	if err != nil && st == nil {
		return c.fail(voidErrorCode(err), "%s", pos.Sentence(err))
	}
	out := voidOutput{MerchantOrderID: id, Status: "VOIDED", Reason: reason, Tenders: givenBack(st)}
	if st.Sale.State == pos.StateVoided {
		out.Manager = voidedBy(ctx, t, id)
	} else {
		out.Status = "PENDING"
		out.Pending = fmt.Sprintf("The sale %s stays open: a refund's answer is not in yet; run \"galla reconcile\", then galla void %s again.", id, id)
		if err != nil {
			out.Pending = pos.Sentence(err)
		}
	}
	b, _ := json.Marshal(out)
	fmt.Fprintln(c.stdout, string(b))
	if out.Status == "PENDING" {
		return c.fail(exitUnknown, "%s", out.Pending)
	}
	return exitOK
}

// dropSale drops the open sale id that holds no money (Checkout.DropSale), with
// no PIN, and prints galla void's answer: status VOIDED, nothing given back.
func (c *cli) dropSale(ctx context.Context, t *terminal, id, reason string) int {
	if _, err := t.Checkout.DropSale(ctx, id, "", reason); err != nil {
		return c.fail(voidErrorCode(err), "%s", pos.Sentence(err))
	}
	b, _ := json.Marshal(voidOutput{MerchantOrderID: id, Status: "VOIDED", Reason: reason, Tenders: []pos.CancelTender{}})
	fmt.Fprintln(c.stdout, string(b))
	return exitOK
}

// givenBack lists what the void of st gave back: each paid tender's refund.
func givenBack(st *pos.SaleStatus) []pos.CancelTender {
	out := []pos.CancelTender{}
	for _, tv := range st.Tenders {
		if tv.Order == nil || len(tv.Order.Refunds) == 0 {
			continue
		}
		r := tv.Order.Refunds[len(tv.Order.Refunds)-1]
		out = append(out, pos.CancelTender{OrderID: tv.Order.ID, Tender: tv.Kind, Amount: r.Amount, Status: r.Status, NoteNo: tv.Order.NoteNo})
	}
	return out
}

// voidedBy names the manager whose PIN voided sale id, "" when it cannot be read.
func voidedBy(ctx context.Context, t *terminal, id string) string {
	evs, err := t.j.Orders.Events(ctx, id)
	if err != nil {
		return ""
	}
	staff := ""
	for _, ev := range evs {
		if ev.Kind == pos.EvSaleVoided {
			staff = ev.Staff
		}
	}
	members, err := t.Crew.Staff(ctx)
	if err != nil {
		return ""
	}
	for _, m := range members {
		if m.ID == staff {
			return m.Name
		}
	}
	return ""
}
