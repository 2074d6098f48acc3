package ui

import (
	"context"
	"fmt"
	"time"

	"galla/pos"
)

// Serials checks an IMEI as it is scanned: its check digit, then that no sale
// holds it (sold and not returned). pos.IMEIs implements it.
type Serials interface {
	CheckIMEIFree(ctx context.Context, imei string) error
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
