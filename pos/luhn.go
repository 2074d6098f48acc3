package pos

import (
	"errors"
	"fmt"
)

// ErrBadIMEI is matched (errors.Is) by every reason CheckIMEI refuses an IMEI.
var ErrBadIMEI = errors.New("not a valid IMEI")

// The reasons CheckIMEI gives; each also matches ErrBadIMEI.
var (
	ErrIMEILength     = fmt.Errorf("%w: an IMEI has 15 digits", ErrBadIMEI)
	ErrIMEIDigits     = fmt.Errorf("%w: an IMEI has digits only", ErrBadIMEI)
	ErrIMEICheckDigit = fmt.Errorf("%w: the check digit is wrong", ErrBadIMEI)
)

// IMEILength is the number of digits of an IMEI (14 digits and a Luhn check digit).
const IMEILength = 15

// Luhn reports whether digits is a non-empty string of ASCII digits whose last digit
// is the Luhn (mod 10) check digit of the others.
func Luhn(digits string) bool {
	if digits == "" {
		return false
	}
	sum := 0
	double := false
	for i := len(digits) - 1; i >= 0; i-- {
		c := digits[i]
		if c < '0' || c > '9' {
			return false
		}
		d := int(c - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// LuhnCheckDigit returns the digit that, appended to digits, makes a string Luhn
// accepts; ok is false when digits is empty or holds anything but ASCII digits.
func LuhnCheckDigit(digits string) (d byte, ok bool) {
	if digits == "" || !allDigits(digits) {
		return 0, false
	}
	for c := byte('0'); c <= '9'; c++ {
		if Luhn(digits + string(c)) {
			return c, true
		}
	}
	return 0, false // unreachable: one of ten digits always completes the sum
}

// CheckIMEI checks s as an IMEI exactly as given (no spaces): 15 ASCII digits whose
// last is the Luhn check digit. The error is ErrIMEIDigits, ErrIMEILength or
// ErrIMEICheckDigit, each of which matches ErrBadIMEI. The IMEI is never part of the
// error's text.
func CheckIMEI(s string) error {
	if !allDigits(s) {
		return ErrIMEIDigits
	}
	if len(s) != IMEILength {
		return ErrIMEILength
	}
	if !Luhn(s) {
		return ErrIMEICheckDigit
	}
	return nil
}
