package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"galla/pos"
)

// Serials checks an IMEI as it is scanned: its check digit, then that no sale
// holds it (sold and not returned). pos.IMEIs implements it.
type Serials interface {
	CheckIMEIFree(ctx context.Context, imei string) error
}

// missingIMEIs is how many serialised units of the cart have no IMEI yet.
func (s *saleScreen) missingIMEIs() int {
	n := 0
	have := map[string]int{}
	for _, m := range s.imeis {
		have[m.ProductCode]++
	}
	for _, l := range s.lines {
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
func (s *saleScreen) haveIMEIs(then func()) bool {
	if s.missingIMEIs() == 0 {
		return true
	}
	type unit struct {
		code, name string
		n, of      int
	}
	var units []unit
	for _, l := range s.lines {
		if l.Product.Serialised {
			for n := 1; n <= l.Qty; n++ {
				units = append(units, unit{l.Product.ProductCode, l.Product.Name, n, l.Qty})
			}
		}
	}
	fields := make([]*keyEntry, len(units))
	used := make([]bool, len(s.imeis))
	for i, u := range units {
		e := newKeyEntry(s.u)
		e.SetPlaceHolder(fmt.Sprintf("IMEI of %s, unit %d of %d (15 digits)", u.name, u.n, u.of))
		for j, m := range s.imeis {
			if !used[j] && m.ProductCode == u.code {
				e.SetText(m.IMEI)
				used[j] = true
				break
			}
		}
		fields[i] = e
	}
	s.u.dialogs.ask("IMEI of each phone", "Every phone sold carries its IMEI: scan the box's barcode or type the 15 digits (dial *#06# on the phone to see it).",
		fields, func(p *prompt) {
			var list []IMEI
			seen := map[string]bool{}
			for i, e := range fields {
				t := strings.TrimSpace(e.Text)
				if err := pos.CheckIMEI(t); err != nil {
					p.say(fmt.Sprintf("IMEI %d is not right: %s", i+1, sentence(err)))
					s.u.win.Canvas().Focus(e)
					return
				}
				if seen[t] {
					p.say(fmt.Sprintf("IMEI %d is typed twice: each phone has its own.", i+1))
					s.u.win.Canvas().Focus(e)
					return
				}
				seen[t] = true
				list = append(list, IMEI{ProductCode: units[i].code, IMEI: t})
			}
			chk := s.u.till.IMEIs
			p.ok.Disable()
			s.u.async(func(ctx context.Context) func() {
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
						s.u.win.Canvas().Focus(fields[bad])
						return
					}
					s.imeis = list
					p.close()
					then()
				}
			})
		})
	return false
}

// unitsBefore is the index, among the units of l's product code in lines, of
// unit n (1-based) of line l.
func unitsBefore(lines []Line, l Line, n int) int {
	k := 0
	for _, o := range lines {
		if o.Product.ProductCode != l.Product.ProductCode || !o.Product.Serialised {
			continue
		}
		if o.Product.SKU == l.Product.SKU && o.Qty == l.Qty && o.Discount == l.Discount {
			return k + n - 1
		}
		k += o.Qty
	}
	return k + n - 1
}

// nthIMEI is the k-th IMEI (0-based) given for product code, or "".
func nthIMEI(imeis []IMEI, code string, k int) string {
	for _, m := range imeis {
		if m.ProductCode == code {
			if k == 0 {
				return m.IMEI
			}
			k--
		}
	}
	return ""
}

// imeisFor is have, or when it is empty the IMEIs scanned at the cart for the
// serialised units of lines.
func (s *saleScreen) imeisFor(lines []Line, have []IMEI) []IMEI {
	if len(have) > 0 {
		return have
	}
	var out []IMEI
	for _, l := range lines {
		if !l.Product.Serialised {
			continue
		}
		for n := 1; n <= l.Qty; n++ {
			if imei := nthIMEI(s.imeis, l.Product.ProductCode, unitsBefore(s.lines, l, n)); imei != "" {
				out = append(out, IMEI{ProductCode: l.Product.ProductCode, IMEI: imei})
			}
		}
	}
	return out
}

// IMEIFinder finds the sales of an IMEI; pos.IMEIs implements it.
type IMEIFinder interface {
	FindIMEI(ctx context.Context, imei string) ([]OrderSummary, error)
}

// findIMEI handles a scanned or typed IMEI on the journal screen: it opens the
// day of the newest sale that carried it and picks that sale. It reports whether
// text was an IMEI.
func (s *journalScreen) findIMEI(text string) bool {
	f := s.u.till.IMEIs
	if pos.CheckIMEI(text) != nil {
		return false
	}
	s.message.SetText("Looking for the IMEI…")
	s.u.async(func(ctx context.Context) func() {
		found, err := f.FindIMEI(ctx, text)
		return func() {
			switch {
			case err != nil:
				s.message.SetText(sentence(err))
			case len(found) == 0:
				s.message.SetText("No sale in the journal carries this IMEI.")
			default:
				o := found[0]
				s.message.SetText(fmt.Sprintf("This IMEI was sold on %s (%s, %s)%s.", o.At.Format("2 Jan 2006 15:04"), o.State, o.Amount, moreSales(len(found))))
				day := o.At
				if d, err := time.ParseInLocation(pos.DayLayout, o.Day, o.At.Location()); err == nil {
					day = d.Add(12 * time.Hour) // the business day it is listed under
				}
				s.pick = o.OrderID
				s.load(day)
			}
		}
	})
	return true
}

func moreSales(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf("; %d sales carried it, the newest is chosen", n)
}
