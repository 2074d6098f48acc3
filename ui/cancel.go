package ui

import (
	"context"
	"strings"

	"galla/pos"
)

// Canceller cancels an issued invoice whose supply did not happen (pos/cancel.go).
type Canceller interface {
	// CanCancelOrder says why the invoice of order orderID may not be cancelled
	// now, or "" when it may.
	CanCancelOrder(ctx context.Context, orderID string) string
	// CancelDocument gives every tender of the sale back and marks its invoice
	// CANCELLED, authorised by a manager's PIN, with the reason printed on it.
	CancelDocument(ctx context.Context, doc, pin, reason string) (*pos.CancelResult, error)
}

// askCancel cancels the chosen order's invoice (Ctrl+D) after asking why and
// for a manager's PIN.
func (s *journalScreen) askCancel() {
	c := s.u.till.Returns
	o, ok := s.selectedOrder()
	if !ok {
		return
	}
	s.u.async(func(ctx context.Context) func() {
		why := c.CanCancelOrder(ctx, o.OrderID)
		return func() {
			if why != "" {
				s.message.SetText(why)
				return
			}
			s.confirmCancel(c, o)
		}
	})
}

func (s *journalScreen) confirmCancel(c Canceller, o OrderSummary) {
	reason := newKeyEntry(s.u)
	reason.SetPlaceHolder("Why (printed on the invoice)")
	pin := newKeyEntry(s.u)
	pin.Password = true
	pin.SetPlaceHolder("Manager PIN")
	title := "Cancel invoice " + firstOf(o.ReceiptNo, o.OrderID)
	s.u.dialogs.ask(title, refundNames(o)+"\nOnly when the goods were not handed over: every payment of this sale is given back (no credit note) and the invoice keeps its number, marked CANCELLED.",
		[]*keyEntry{reason, pin}, func(p *prompt) {
			code := pin.Text
			pin.SetText("")
			why := strings.TrimSpace(reason.Text)
			if why == "" {
				p.say("Type why the invoice is cancelled; it is printed on it.")
				return
			}
			p.ok.Disable()
			p.message.SetText("Cancelling…")
			s.u.async(func(ctx context.Context) func() {
				res, err := c.CancelDocument(ctx, o.OrderID, code, why)
				return func() {
					p.ok.Enable()
					if err != nil {
						p.say(sentence(err))
						return
					}
					p.close()
					s.load(s.day)
					s.message.SetText(res.Sentence())
				}
			})
		})
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
