package pos

import (
	"errors"
	"fmt"
	"galla/gateway"
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
// It is gateway.Luhn, the one implementation.
func Luhn(digits string) bool { return gateway.Luhn(digits) }

// LuhnCheckDigit returns the digit that, appended to digits, makes a string Luhn
// accepts; ok is false when digits is empty or holds anything but ASCII digits.
func LuhnCheckDigit(digits string) (d byte, ok bool) { return gateway.LuhnCheckDigit(digits) }

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
