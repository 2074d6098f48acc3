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

// heldLine is one held bill as the recall list shows it.
func heldLine(i int, b HeldBill) string {
	note := ""
	if b.Note != "" {
		note = " · " + b.Note
	}
	return fmt.Sprintf("%d.  %s  %s  %s%s", i+1, b.At.Format("15:04"), b.Total, plural(b.Items, "item"), note)
}

// heldBills puts the sale's cart aside, Hold [Ctrl+H], and brings a held one
// back, Held bills [Ctrl+R].
type heldBills struct {
	s       *saleScreen
	holdA   *action
	recallA *action
}

func newHeldBills(s *saleScreen) *heldBills {
	hb := &heldBills{s: s}
	hb.holdA = s.u.newAction("Hold", fyne.KeyH, fyne.KeyModifierControl, hb.hold)
	hb.recallA = s.u.newAction("Held bills", fyne.KeyR, fyne.KeyModifierControl, hb.recall)
	return hb
}

// hold puts the cart aside with a note to find it by, and starts a new sale.
func (hb *heldBills) hold() {
	h := hb.s.u.till.Catalog
	if hb.s.payment.locked() {
		return
	}
	if len(hb.s.lines) == 0 {
		hb.s.message.SetText("The cart is empty: there is nothing to hold.")
		return
	}
	note := newKeyEntry(hb.s.u)
	note.SetPlaceHolder("A name or a word to find it by (optional)")
	lines, imeis := append([]Line(nil), hb.s.lines...), append([]IMEI(nil), hb.s.serials.imeis...)
	hb.s.u.dialogs.ask("Hold this bill", fmt.Sprintf("%s, %s. It stays in the held bills (Ctrl+R) until it is recalled or discarded.", plural(len(lines), "line"), hb.s.bill.Total),
		[]*keyEntry{note}, func(p *prompt) {
			n := note.Text
			p.ok.Disable()
			hb.s.u.async(func(ctx context.Context) func() {
				held, err := h.HoldBill(ctx, lines, imeis, hb.s.u.user.ID, n)
				return func() {
					p.ok.Enable()
					if err != nil {
						p.say(sentence(err))
						return
					}
					p.close()
					hb.s.clear()
					hb.s.message.SetText(fmt.Sprintf("Bill held at %s (%s). Recall it with Ctrl+R.", held.At.Format("15:04"), held.Total))
				}
			})
		})
}

// recall lists the held bills with their time and total; the number typed
// recalls one into the empty cart, or with F8 discards it.
func (hb *heldBills) recall() {
	h := hb.s.u.till.Catalog
	if hb.s.payment.locked() {
		return
	}
	hb.s.u.asyncScreen(func(ctx context.Context) func() {
		list, err := h.HeldBills(ctx)
		return func() {
			switch {
			case err != nil:
				hb.s.message.SetText(sentence(err))
				return
			case len(list) == 0:
				hb.s.message.SetText("No bill is held.")
				return
			}
			var rows []string
			for i, b := range list {
				rows = append(rows, heldLine(i, b))
			}
			num := newKeyEntry(hb.s.u)
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
			discard := hb.s.u.newAction("Discard", fyne.KeyF8, 0, func() {
				b, ok := pick(p)
				if !ok {
					return
				}
				hb.s.u.asyncScreen(func(ctx context.Context) func() {
					err := h.DiscardBill(ctx, b.ID, hb.s.u.user.ID)
					return func() {
						if err != nil {
							p.say(sentence(err))
							return
						}
						p.close()
						hb.s.message.SetText(fmt.Sprintf("The bill held at %s (%s) is discarded.", b.At.Format("15:04"), b.Total))
					}
				})
			})
			p = hb.s.u.dialogs.askWithActions("Held bills", strings.Join(rows, "\n")+"\n\nType a bill's number and press Enter to recall it, or F8 to discard it.",
				nil, []*action{discard}, []*keyEntry{num}, func(p *prompt) {
					b, ok := pick(p)
					if !ok {
						return
					}
					if len(hb.s.lines) > 0 {
						p.say("The cart is not empty: finish or hold this sale before recalling another.")
						return
					}
					p.ok.Disable()
					hb.s.u.async(func(ctx context.Context) func() {
						got, err := h.RecallBill(ctx, b.ID, hb.s.u.user.ID)
						return func() {
							p.ok.Enable()
							if err != nil {
								p.say(sentence(err))
								return
							}
							p.close()
							hb.s.lines, hb.s.serials.imeis = got.Lines, got.IMEIs
							hb.s.reprice()
							hb.s.selectLine(len(hb.s.lines) - 1)
							hb.s.message.SetText(fmt.Sprintf("The bill held at %s is back in the cart.", got.At.Format("15:04")))
						}
					})
				})
		}
	})
}
