package pos

import (
	"errors"
	"fmt"
)

// ErrCashShort is matched (errors.Is) by a *CashShortError.
var ErrCashShort = errors.New("the cash tendered is less than the total")

// CashShortError reports cash tendered below the amount due.
type CashShortError struct {
	Total    Paise // the amount due
	Tendered Paise // what the customer handed over
}

// Error states the tender, the total and the shortfall.
func (e *CashShortError) Error() string {
	return fmt.Sprintf("pos: cash: %s tendered for %s: %s short", e.Tendered, e.Total, e.Short())
}

// Short returns how much more cash is needed.
func (e *CashShortError) Short() Paise { return e.Total - e.Tendered }

// Is makes a *CashShortError match ErrCashShort.
func (e *CashShortError) Is(target error) bool { return target == ErrCashShort }

// CashTender is cash handed over by the customer.
type CashTender struct {
	Tendered Paise `json:"tendered"`
}

// Change returns the change due on a sale of total: Tendered − total. Cash short of
// the total is a *CashShortError (ErrCashShort); a negative tender or total matches
// ErrBadAmount.
func (c CashTender) Change(total Paise) (Paise, error) {
	if c.Tendered < 0 || total < 0 {
		return 0, fmt.Errorf("pos: cash: %w", ErrBadAmount)
	}
	if c.Tendered < total {
		return 0, &CashShortError{Total: total, Tendered: c.Tendered}
	}
	return c.Tendered - total, nil
}

// QuickTenders suggests cash amounts for one-tap entry: the exact total, then the
// total rounded up to the next ₹10, ₹50, ₹100, ₹500 and ₹2,000, without repeats and in
// increasing order.
func QuickTenders(total Paise) []Paise {
	if total <= 0 {
		return nil
	}
	out := []Paise{total}
	for _, s := range [...]Paise{Rupees(10), Rupees(50), Rupees(100), Rupees(500), Rupees(2000)} {
		v := (total + s - 1) / s * s
		if v > out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}
