package ui

import (
	"context"
	"fmt"
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

func moreSales(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf("; %d sales carried it, the newest is chosen", n)
}
