package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"galla/pos"
)

// returnOutput is what galla return prints: the credit note and what it reverses.
type returnOutput struct {
	CreditNoteNo    string           `json:"credit_note_no"` // "" while a card refund's answer is not in
	InvoiceNo       string           `json:"invoice_no"`
	MerchantOrderID string           `json:"merchant_order_id"`
	UniqueTxnID     string           `json:"unique_txn_id"`
	To              pos.RefundTo     `json:"to"`
	Amount          pos.Paise        `json:"amount"`
	Taxable         pos.Paise        `json:"taxable"`
	Tax             pos.Paise        `json:"tax"`
	Status          string           `json:"status"`
	Items           []pos.ReturnItem `json:"items"`
}

// cmdReturn is galla return DOCUMENT_NO [--items SKU:QTY,...] [--imei IMEI,...]
// [--damaged] [--amount PAISE] --to card|cash|note [--reason TEXT]: goods (or a price
// adjustment) taken back on a sale, authorised by a manager's PIN on standard
// input or in GALLA_PIN. It prints the credit note as JSON.
func cmdReturn(c *cli, args []string) int {
	fs := c.flagSet("galla return")
	itemsFlag := fs.String("items", "", "the goods that come back: SKU[:QTY],...")
	imeiFlag := fs.String("imei", "", "the IMEIs of the serialised units that come back: IMEI,... (one item)")
	amount := fs.Int64("amount", 0, "a price adjustment without goods, in paise")
	toFlag := fs.String("to", "", "where the money goes: card, cash or note")
	reason := fs.String("reason", "", "why, printed on the credit note")
	damaged := fs.Bool("damaged", false, "the units named by --imei come back damaged: set aside, not back in stock")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 1 {
		return c.fail(exitBadInput, "Name one invoice: %s.", commands()["return"].usage)
	}
	to, err := pos.ParseRefundTo(*toFlag)
	if err != nil {
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	if *amount < 0 {
		return c.fail(exitBadInput, "--amount must be a positive number of paise.")
	}
	items, err := parseReturnItems(*itemsFlag, *imeiFlag)
	if err != nil {
		return c.fail(exitBadInput, "%v.", err)
	}
	if (len(items) == 0) == (*amount == 0) {
		return c.fail(exitBadInput, "Give the goods that come back (--items SKU:QTY,...) or a price adjustment (--amount PAISE), one of the two.")
	}
	t, pin, failed := c.openAsManager()
	if t == nil {
		return failed
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	res, err := t.Returns.Return(ctx, pos.ReturnRequest{Document: rest[0], Items: items, Amount: pos.Paise(*amount), To: to, Reason: *reason, PIN: pin})
	if err != nil {
		code := exitFailed
		var refusal *pos.StoreRefusal
		if errors.Is(err, pos.ErrNotRefundable) || errors.Is(err, pos.ErrOrderNotFound) || errors.Is(err, pos.ErrWrongPIN) ||
			errors.Is(err, pos.ErrBadPIN) || errors.As(err, &refusal) {
			code = exitBadInput
		}
		return c.fail(code, "%s", pos.Sentence(err))
	}
	out := returnOutput{CreditNoteNo: res.CreditNote, InvoiceNo: res.Order.InvoiceNumber(t.Terminal()), MerchantOrderID: res.Order.ID,
		UniqueTxnID: res.Refund.UniqueTxnID, To: res.Refund.To, Amount: res.Refund.Amount, Status: strings.ToUpper(string(res.Status)),
		Items: res.Refund.Items}
	for _, it := range res.Refund.Items {
		out.Taxable += it.Taxable
		out.Tax += it.Tax
	}
	b, _ := json.Marshal(out)
	fmt.Fprintln(c.stdout, string(b))
	if *damaged && res.Status == pos.RefundDone {
		for _, it := range res.Refund.Items {
			for _, m := range it.IMEIs {
				if err := t.Stock.SetAside(ctx, m, res.Manager.ID, "returned damaged: "+*reason); err != nil {
					return c.fail(exitFailed, "The return is done, but IMEI %s could not be set aside as damaged: %s", m, pos.Sentence(err))
				}
			}
		}
	}
	switch res.Status {
	case pos.RefundDone:
		return exitOK
	case pos.RefundFailed:
		return c.fail(exitFailed, "%s", res.Reason)
	}
	return c.fail(exitUnknown, "%s", res.Reason)
}

// parseReturnItems reads --items SKU[:QTY],... and --imei IMEI,... (the IMEIs of
// the one item named).
func parseReturnItems(items, imeis string) ([]pos.ReturnQty, error) {
	var out []pos.ReturnQty
	for _, f := range strings.Split(items, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		sku, qty, found := strings.Cut(f, ":")
		n := 1
		if found {
			var err error
			if n, err = strconv.Atoi(qty); err != nil || n < 1 {
				return nil, fmt.Errorf("the quantity in %q is not a whole number from 1", f)
			}
		}
		out = append(out, pos.ReturnQty{SKU: strings.TrimSpace(sku), Qty: n})
	}
	var list []string
	for _, m := range strings.Split(imeis, ",") {
		if m = strings.TrimSpace(m); m != "" {
			list = append(list, m)
		}
	}
	if len(list) > 0 {
		if len(out) != 1 {
			return nil, errors.New("--imei names the units of one item: give --items with that one SKU")
		}
		out[0].IMEIs = list
	}
	return out, nil
}

// payByNote is galla checkout --items ... --pay note:CREDIT_NOTE_NO: a sale
// paid wholly by a credit note to spend (an exchange's new sale), a sale with
// the note its one tender. It prints the checkout JSON, with the note's value
// left in "note_left".
func (c *cli) payByNote(ctx context.Context, t *terminal, lines []pos.CartLine, units []pos.UnitIMEI, note, cashier string) int {
	if strings.TrimSpace(note) == "" {
		return c.fail(exitBadInput, "Name the credit note: --pay note:T1/C2627/00012.")
	}
	o, left, err := t.Checkout.PayByNote(ctx, pos.Sale{Lines: pos.SaleLines(lines, units), Staff: cashier}, note)
	if err != nil {
		code := exitFailed
		if o == nil && (errors.Is(err, pos.ErrNoteSpent) || errors.Is(err, pos.ErrOrderNotFound) || pos.Sentence(err) != pos.GenericSentence) {
			code = exitBadInput // nothing was journaled, or the note does not cover it
		}
		return c.fail(code, "%s", pos.Sentence(err))
	}
	st, err := t.Checkout.SaleStatus(ctx, o.ID)
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	out := struct {
		checkoutOutput
		Note     string    `json:"note"`
		NoteLeft pos.Paise `json:"note_left"`
	}{saleOutput(st, t.Terminal(), string(o.State), ""), note, left}
	for i := range out.Tenders {
		out.Tenders[i].MerchantOrderID = "" // a tender taken at the counter: the sale's id is all there is to name
		out.Tenders[i].NoteNo = ""          // the note is named once, in note
	}
	b, _ := json.Marshal(out)
	fmt.Fprintln(c.stdout, string(b))
	return exitOK
}
