package ui

import (
	"context"
	"fmt"
	"strings"
)

// confirmClose is the window's close intercept. With no payment open it closes
// the window; with payments not final (in progress on this counter or left
// pending) it asks first, naming each, so that nobody closes the counter on a
// customer still paying without knowing.
func (u *UI) confirmClose() {
	if u.dialogs.prompt != nil && u.dialogs.prompt.title == closeTitle {
		return // already asking
	}
	u.async(func(ctx context.Context) func() {
		st := u.till.Counter.Status(ctx)
		return func() {
			names := u.openPayments(st)
			if len(names) == 0 {
				u.win.Close()
				return
			}
			text := "Not final yet:\n" + strings.Join(names, "\n") +
				"\nClosed now, they are checked again when Galla starts (nothing is charged twice)."
			p := u.dialogs.ask(closeTitle, text, nil, func(p *prompt) {
				p.close()
				u.win.Close()
			})
			p.ok.SetText("Close Galla  [Enter]")
			p.cancel.SetText("Keep it open  [Esc]")
			p.cancel.Show()
			u.win.Canvas().Focus(p.cancel) // the safe answer has the focus
		}
	})
}

// closeTitle heads the dialog asked on closing with payments open.
const closeTitle = "Close Galla with payments open?"

// openPayments names the payments not final: those whose call runs in this
// window (order and amount), those pos lists as left pending, and a count of
// the rest in progress that the window does not follow.
func (u *UI) openPayments(st Status) []string {
	var out []string
	seen := map[string]bool{}
	for _, run := range []*payRun{u.pay.run, u.sale.payment.lockRun} {
		if run == nil || seen[run.orderID] {
			continue
		}
		seen[run.orderID] = true
		what := tenderName(run.req.Tender) + " payment"
		if run.req.Sale != "" {
			what += " of sale " + run.req.Sale
		}
		if run.req.Amount > 0 {
			what += ", " + run.req.Amount.String()
		}
		if run.orderID != "" {
			what += " (order " + run.orderID + ")"
		}
		out = append(out, "• "+what+": in progress now")
	}
	ours := len(out)
	for _, p := range st.Pending {
		if seen[p.OrderID] {
			continue
		}
		seen[p.OrderID] = true
		out = append(out, fmt.Sprintf("• Order %s, %s: its outcome is not known yet", p.OrderID, p.Amount))
	}
	if more := st.InProgress - ours; more > 0 {
		out = append(out, "• "+plural(more, "other payment")+" in progress")
	}
	return out
}
