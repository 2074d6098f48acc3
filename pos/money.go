package pos

import (
	"errors"
	"fmt"
	"galla/receipts"
	"strconv"
	"strings"
)

// Paise is an amount of Indian money in paise (1 rupee = 100 paise). Money is never
// a float anywhere in Galla.
type Paise int64

// Rupees returns the amount of whole rupees r as Paise.
func Rupees(r int64) Paise { return Paise(r * 100) }

// String formats p with the rupee sign and Indian digit grouping: ₹1,23,456.78.
func (p Paise) String() string {
	if p < 0 {
		return "-₹" + (-p).Plain()
	}
	return "₹" + p.Plain()
}

// Plain formats p with Indian digit grouping and no currency sign: 1,23,456.78
// (receipts.Amount, the one formatter of Indian grouping).
func (p Paise) Plain() string { return receipts.Amount(int64(p)) }

// ErrBadAmount is returned by ParsePaise for text that is not an amount of money.
var ErrBadAmount = errors.New("not an amount of money")

// ParsePaise reads an amount in rupees as a person types it: "1499", "1,499.50",
// "₹1,23,456.7", "Rs. 99". At most two decimals.
func ParsePaise(s string) (Paise, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(t, "₹")
	t = strings.TrimPrefix(strings.TrimPrefix(t, "Rs."), "Rs")
	t = strings.ReplaceAll(strings.TrimSpace(t), ",", "")
	if t == "" {
		return 0, fmt.Errorf("%q: %w", s, ErrBadAmount)
	}
	neg := strings.HasPrefix(t, "-")
	t = strings.TrimPrefix(t, "-")
	whole, frac, hasFrac := strings.Cut(t, ".")
	if whole == "" && !hasFrac || len(frac) > 2 || !allDigits(whole) || !allDigits(frac) || (hasFrac && frac == "") {
		return 0, fmt.Errorf("%q: %w", s, ErrBadAmount)
	}
	if len(whole) > 15 {
		return 0, fmt.Errorf("%q: %w", s, ErrBadAmount)
	}
	var r int64
	if whole != "" {
		r, _ = strconv.ParseInt(whole, 10, 64)
	}
	for len(frac) < 2 {
		frac += "0"
	}
	f, _ := strconv.ParseInt(frac, 10, 64)
	v := r*100 + f
	if neg {
		v = -v
	}
	return Paise(v), nil
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
