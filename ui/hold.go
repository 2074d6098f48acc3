package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"

	"galla/pos"
)

// HeldBill is a cart put aside (pos's own type).
type HeldBill = pos.HeldBill

// Holder holds carts aside and recalls them; the bills are journaled, so a crash
// loses none. pos.Shelf implements it.
type Holder interface {
	HoldBill(ctx context.Context, lines []Line, imeis []IMEI, staff, note string) (HeldBill, error)
	HeldBills(ctx context.Context) ([]HeldBill, error)
	RecallBill(ctx context.Context, id, staff string) (HeldBill, error)
	DiscardBill(ctx context.Context, id, staff string) error
}

// hold puts the cart aside with a note to find it by, and starts a new sale.
func (s *saleScreen) hold() {
	h := s.u.till.Catalog
	if s.locked() {
		return
	}
	if len(s.lines) == 0 {
		s.message.SetText("The cart is empty: there is nothing to hold.")
		return
	}
	note := newKeyEntry(s.u)
	note.SetPlaceHolder("A name or a word to find it by (optional)")
	lines, imeis := append([]Line(nil), s.lines...), append([]IMEI(nil), s.imeis...)
	s.u.dialogs.ask("Hold this bill", fmt.Sprintf("%s, %s. It stays in the held bills (Ctrl+R) until it is recalled or discarded.", plural(len(lines), "line"), s.bill.Total),
		[]*keyEntry{note}, func(p *prompt) {
			n := note.Text
			p.ok.Disable()
			s.u.async(func(ctx context.Context) func() {
				held, err := h.HoldBill(ctx, lines, imeis, s.u.user.ID, n)
				return func() {
					p.ok.Enable()
					if err != nil {
						p.say(sentence(err))
						return
					}
					p.close()
					s.clear()
					s.message.SetText(fmt.Sprintf("Bill held at %s (%s). Recall it with Ctrl+R.", held.At.Format("15:04"), held.Total))
				}
			})
		})
}

// heldLine is one held bill as the recall list shows it.
func heldLine(i int, b HeldBill) string {
	note := ""
	if b.Note != "" {
		note = " · " + b.Note
	}
	return fmt.Sprintf("%d.  %s  %s  %s%s", i+1, b.At.Format("15:04"), b.Total, plural(b.Items, "item"), note)
}

// recall lists the held bills with their time and total; the number typed
// recalls one into the empty cart, or with F8 discards it.
func (s *saleScreen) recall() {
	h := s.u.till.Catalog
	if s.locked() {
		return
	}
	s.u.async(func(ctx context.Context) func() {
		list, err := h.HeldBills(ctx)
		return func() {
			switch {
			case err != nil:
				s.message.SetText(sentence(err))
				return
			case len(list) == 0:
				s.message.SetText("No bill is held.")
				return
			}
			var rows []string
			for i, b := range list {
				rows = append(rows, heldLine(i, b))
			}
			num := newKeyEntry(s.u)
			num.SetPlaceHolder("Number of the bill")
			if len(list) == 1 {
				num.SetText("1")
			}
			pick := func(p *prompt) (HeldBill, bool) {
				n, err := strconv.Atoi(strings.TrimSpace(num.Text))
				if err != nil || n < 1 || n > len(list) {
					p.say(fmt.Sprintf("Type the number of a bill, 1 to %d.", len(list)))
					return HeldBill{}, false
				}
				return list[n-1], true
			}
			var p *prompt
			discard := s.u.newAction("Discard", fyne.KeyF8, 0, func() {
				b, ok := pick(p)
				if !ok {
					return
				}
				s.u.async(func(ctx context.Context) func() {
					err := h.DiscardBill(ctx, b.ID, s.u.user.ID)
					return func() {
						if err != nil {
							p.say(sentence(err))
							return
						}
						p.close()
						s.message.SetText(fmt.Sprintf("The bill held at %s (%s) is discarded.", b.At.Format("15:04"), b.Total))
					}
				})
			})
			p = s.u.dialogs.askWithActions("Held bills", strings.Join(rows, "\n")+"\n\nType a bill's number and press Enter to recall it, or F8 to discard it.",
				nil, []*action{discard}, []*keyEntry{num}, func(p *prompt) {
					b, ok := pick(p)
					if !ok {
						return
					}
					if len(s.lines) > 0 {
						p.say("The cart is not empty: finish or hold this sale before recalling another.")
						return
					}
					p.ok.Disable()
					s.u.async(func(ctx context.Context) func() {
						got, err := h.RecallBill(ctx, b.ID, s.u.user.ID)
						return func() {
							p.ok.Enable()
							if err != nil {
								p.say(sentence(err))
								return
							}
							p.close()
							s.lines, s.imeis = got.Lines, got.IMEIs
							s.reprice()
							s.selectLine(len(s.lines) - 1)
							s.message.SetText(fmt.Sprintf("The bill held at %s is back in the cart.", got.At.Format("15:04")))
						}
					})
				})
		}
	})
}
