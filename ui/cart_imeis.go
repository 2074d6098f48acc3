package ui

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"galla/pos"
)

// cartIMEIs is the IMEI of each phone in the cart, asked for before the cart is
// paid (haveIMEIs).
type cartIMEIs struct {
	s     *saleScreen
	imeis []IMEI
	// offer is the open prompt's units on hand as an IMEI is typed (kept for
	// tests).
	offer *widget.Label
}

// missingIMEIs is how many serialised units of the cart have no IMEI yet.
func (ci *cartIMEIs) missingIMEIs() int {
	n := 0
	have := map[string]int{}
	for _, m := range ci.imeis {
		have[m.ProductCode]++
	}
	for _, l := range ci.s.lines {
		if !l.Product.Serialised {
			continue
		}
		k := l.Product.ProductCode
		got := min(have[k], l.Qty)
		have[k] -= got
		n += l.Qty - got
	}
	return n
}

// haveIMEIs reports whether every phone in the cart has its IMEI; when one is
// missing it asks for them all (each scanned or typed, checked as typed and
// against the sales of the journal) and runs then once they are in.
func (ci *cartIMEIs) haveIMEIs(then func()) bool {
	if ci.missingIMEIs() == 0 {
		return true
	}
	type unit struct {
		code, name, sku string
		n, of           int
	}
	var units []unit
	for _, l := range ci.s.lines {
		if l.Product.Serialised {
			for n := 1; n <= l.Qty; n++ {
				units = append(units, unit{l.Product.ProductCode, l.Product.Name, l.Product.SKU, n, l.Qty})
			}
		}
	}
	fields := make([]*keyEntry, len(units))
	used := make([]bool, len(ci.imeis))
	for i, u := range units {
		e := newKeyEntry(ci.s.u)
		// The field says which; the phone it is of is named above the
		// fields, where a long name is not cut off.
		e.SetPlaceHolder(fmt.Sprintf("IMEI %d: 15 digits", i+1))
		for j, m := range ci.imeis {
			if !used[j] && m.ProductCode == u.code {
				e.SetText(m.IMEI)
				used[j] = true
				break
			}
		}
		fields[i] = e
	}
	// The units on hand of the phone whose IMEI is being typed, offered as
	// its digits come (nothing when stock is not kept).
	offer := widget.NewLabel("")
	offer.Wrapping = fyne.TextWrapWord
	ci.offer = offer
	asked := 0
	for i, e := range fields {
		u := units[i]
		e.OnChanged = func(typed string) {
			asked++
			n := asked
			st := ci.s.u.till.Stock
			ci.s.u.async(func(ctx context.Context) func() {
				on, err := st.Offer(ctx, u.sku, strings.TrimSpace(typed), 5)
				return func() {
					if n != asked {
						return
					}
					switch {
					case err != nil || len(on) == 0:
						offer.SetText("")
					default:
						offer.SetText(fmt.Sprintf("On hand of %s: %s", u.name, strings.Join(on, ", ")))
					}
				}
			})
		}
	}
	text := "Every phone sold carries its IMEI: scan the box's barcode or type the 15 digits (dial *#06# on the phone to see it)."
	for i, u := range units {
		text += fmt.Sprintf("\nIMEI %d: %s, unit %d of %d", i+1, u.name, u.n, u.of)
	}
	ci.s.u.dialogs.askWith("IMEI of each phone", text,
		offer, fields, func(p *prompt) {
			var list []IMEI
			seen := map[string]bool{}
			for i, e := range fields {
				t := strings.TrimSpace(e.Text)
				if err := pos.CheckIMEI(t); err != nil {
					p.say(fmt.Sprintf("IMEI %d is not right: %s", i+1, sentence(err)))
					ci.s.u.win.Canvas().Focus(e)
					return
				}
				if seen[t] {
					p.say(fmt.Sprintf("IMEI %d is typed twice: each phone has its own.", i+1))
					ci.s.u.win.Canvas().Focus(e)
					return
				}
				seen[t] = true
				list = append(list, IMEI{ProductCode: units[i].code, IMEI: t})
			}
			chk := ci.s.u.till.IMEIs
			p.ok.Disable()
			ci.s.u.asyncScreen(func(ctx context.Context) func() {
				var err error
				bad := -1
				for i, m := range list {
					if err = chk.CheckIMEIFree(ctx, m.IMEI); err != nil {
						bad = i
						break
					}
				}
				return func() {
					p.ok.Enable()
					if err != nil {
						p.say(fmt.Sprintf("IMEI %d: %s", bad+1, sentence(err)))
						ci.s.u.win.Canvas().Focus(fields[bad])
						if pos.MayOverrideStock(err) {
							ci.askStockOverride(p, list[bad].IMEI, err)
						}
						return
					}
					ci.imeis = list
					p.close()
					then()
				}
			})
		})
	return false
}

// imeisFor is have, or when it is empty the IMEIs scanned at the cart for the
// serialised units of lines.
func (ci *cartIMEIs) imeisFor(lines []Line, have []IMEI) []IMEI {
	if len(have) > 0 {
		return have
	}
	var out []IMEI
	for _, l := range lines {
		if !l.Product.Serialised {
			continue
		}
		for n := 1; n <= l.Qty; n++ {
			if imei := nthIMEI(ci.imeis, l.Product.ProductCode, unitsBefore(ci.s.lines, l, n)); imei != "" {
				out = append(out, IMEI{ProductCode: l.Product.ProductCode, IMEI: imei})
			}
		}
	}
	return out
}

// askStockOverride asks, over the IMEI prompt p, for a manager's PIN that
// allows the unit imei to be sold though it is not in stock (cause says why);
// the override is journaled with the manager's name, and the IMEIs are then
// checked again. Escape goes back to the IMEIs with nothing allowed.
func (ci *cartIMEIs) askStockOverride(p *prompt, imei string, cause error) {
	u := ci.s.u
	pin := newKeyEntry(u)
	pin.Password = true
	pin.SetPlaceHolder("Manager PIN")
	st, by := u.till.Stock, u.user.Name
	u.dialogs.ask("Manager override", sentence(cause)+" A manager's PIN sells it though it is not in stock (journaled with the manager's name); Escape goes back to the IMEIs.",
		[]*keyEntry{pin}, func(op *prompt) {
			code := pin.Text
			pin.SetText("")
			if code == "" {
				op.say("Type a manager's PIN, then Enter; Escape goes back.")
				return
			}
			op.ok.Disable()
			u.asyncScreen(func(ctx context.Context) func() {
				_, err := st.AllowIMEIs(ctx, []string{imei}, code, by)
				return func() {
					op.ok.Enable()
					if err != nil {
						op.say(sentence(err))
						return
					}
					op.close()
					p.confirm() // checked again: allowed now
				}
			})
		})
}
