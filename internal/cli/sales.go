package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"galla/pos"
)

// openSaleOutput is one open sale as galla sales --open --format json prints it.
type openSaleOutput struct {
	Sale    string             `json:"sale"` // the sale's merchant_order_id: galla pay and galla void take it
	Opened  time.Time          `json:"opened"`
	Staff   string             `json:"staff,omitempty"`
	Amount  pos.Paise          `json:"amount"`
	Paid    pos.Paise          `json:"paid"`
	Pending pos.Paise          `json:"pending"` // tenders whose outcome is not final yet
	Due     pos.Paise          `json:"due"`     // what is left to pay
	Tenders []openTenderOutput `json:"tenders"`
}

// openTenderOutput is one tender of an open sale: checkout's tender, with why
// it failed.
type openTenderOutput struct {
	tenderOutput
	Reason string `json:"reason,omitempty"`
}

// cmdSales is galla sales --open [--format text|json]: the split sales still
// open (part paid, or a tender failed), also those of earlier days, oldest
// first, with what each tender paid and why a tender failed. galla pay
// SALE_ID --pay finishes one; galla void SALE_ID --reason voids it.
func cmdSales(c *cli, args []string) int {
	fs := c.flagSet("galla sales")
	open := fs.Bool("open", false, "list the sales still open")
	format := fs.String("format", "text", "text or json")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) > 0 || !*open {
		return c.fail(exitBadInput, "Use %s.", commands()["sales"].usage)
	}
	if *format != "text" && *format != "json" {
		return c.fail(exitBadInput, "The format %q is not known; use text or json.", *format)
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	sales, err := t.Checkout.OpenSales(context.Background())
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	if *format == "json" {
		out := make([]openSaleOutput, 0, len(sales))
		for _, st := range sales {
			out = append(out, openSaleOf(st))
		}
		b, _ := json.Marshal(out)
		fmt.Fprintln(c.stdout, string(b))
		return exitOK
	}
	if len(sales) == 0 {
		fmt.Fprintln(c.stdout, "No open sales.")
		return exitOK
	}
	for _, st := range sales {
		writeOpenSale(c, st)
	}
	return exitOK
}

// openSaleOf is st as galla sales prints it in JSON.
func openSaleOf(st *pos.SaleStatus) openSaleOutput {
	s := st.Sale
	out := openSaleOutput{Sale: s.ID, Opened: s.Opened, Staff: s.Staff, Amount: s.Amount, Paid: st.Paid, Pending: st.Pending, Due: st.Due,
		Tenders: []openTenderOutput{}}
	for _, tv := range st.Tenders {
		to := openTenderOutput{tenderOutput: tenderOutput{Kind: tv.Kind, Amount: tv.Amount, Status: "NOT_SENT", MerchantOrderID: tv.OrderID, NoteNo: tv.NoteNo}}
		if tv.Order != nil {
			to.tenderOutput = tenderOf(tv.Order)
			to.Amount = tv.Amount
		}
		if tv.Failed() {
			to.Reason = failReason(tv)
		}
		out.Tenders = append(out.Tenders, to)
	}
	return out
}

// writeOpenSale prints one open sale as text: a line of its id, when it was
// opened, its amount, what each tender paid and what is left; then a line for
// each tender that failed (with why) or is being checked.
func writeOpenSale(c *cli, st *pos.SaleStatus) {
	s := st.Sale
	var paid []string
	for _, tv := range st.Tenders {
		if tv.Paid() {
			paid = append(paid, string(tv.Kind)+" "+tv.Amount.String())
		}
	}
	byTender := ""
	if len(paid) > 0 {
		byTender = " (" + strings.Join(paid, ", ") + ")"
	}
	fmt.Fprintf(c.stdout, "%s\topened %s\tamount %s\tpaid %s%s\tdue %s\n", s.ID, s.Opened.Local().Format("2006-01-02 15:04"), s.Amount, st.Paid, byTender, st.Due)
	for _, tv := range st.Tenders {
		switch {
		case tv.Failed():
			fmt.Fprintf(c.stdout, "\tfailed: %s %s (order %s): %s\n", tv.Kind, tv.Amount, tv.OrderID, failReason(tv))
		case tv.Pending():
			fmt.Fprintf(c.stdout, "\tbeing checked: %s %s (order %s, %s); run \"galla reconcile\"\n", tv.Kind, tv.Amount, tv.OrderID, tv.State)
		}
	}
}

// failReason is why a tender failed, as a sentence.
func failReason(tv pos.TenderView) string {
	r := ""
	if tv.Order != nil {
		r = strings.TrimSpace(tv.Order.Reason)
		if a := tv.Order.LastAttempt(); r == "" && a != nil {
			r = strings.TrimSpace(a.Reason)
		}
	}
	switch {
	case tv.Order == nil:
		return "nothing was sent."
	case r == "":
		return "nothing was charged."
	case !strings.HasSuffix(r, "."):
		return r + "."
	}
	return r
}
