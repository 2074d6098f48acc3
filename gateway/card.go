package gateway

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Card brands reported by Card.Brand.
const (
	BrandVisa       = "VISA"
	BrandMastercard = "MASTERCARD"
	BrandAmex       = "AMEX"
	BrandRuPay      = "RUPAY"
	BrandDiners     = "DINERS"
	BrandDiscover   = "DISCOVER"
	BrandUnknown    = "UNKNOWN"
)

// Card is the one owning type of card data (DESIGN.md section 5). The number and
// the CVV live in unexported byte slices that Zero wipes; String, GoString, Format
// (every verb), MarshalJSON and slog's LogValue show only the brand and the last
// four digits, as in "VISA •••• 1111". The caller zeroes the card once the payment
// call has returned (a card may serve scheme validation and then the EMI payment).
type Card struct {
	number []byte
	cvv    []byte
	// Holder is the card holder's name as printed on the card.
	Holder string
	// ExpiryMonth is the two-digit expiry month, "01" to "12".
	ExpiryMonth string
	// ExpiryYear is the four-digit expiry year.
	ExpiryYear string
}

// NewCard builds a Card. Spaces and dashes in the number are dropped; the month is
// padded to two digits and a two-digit year gets its century ("27" is 2027);
// surrounding spaces are trimmed. Nothing is validated here: see Check.
func NewCard(number, expiryMonth, expiryYear, cvv, holder string) *Card {
	c := &Card{
		number:      make([]byte, 0, len(number)),
		cvv:         []byte(strings.TrimSpace(cvv)),
		Holder:      strings.TrimSpace(holder),
		ExpiryMonth: strings.TrimSpace(expiryMonth),
		ExpiryYear:  strings.TrimSpace(expiryYear),
	}
	for i := range len(number) {
		if b := number[i]; b != ' ' && b != '-' && b != '\t' {
			c.number = append(c.number, b)
		}
	}
	if len(c.ExpiryMonth) == 1 && c.ExpiryMonth[0] >= '1' && c.ExpiryMonth[0] <= '9' {
		c.ExpiryMonth = "0" + c.ExpiryMonth
	}
	if len(c.ExpiryYear) == 2 && allDigits([]byte(c.ExpiryYear)) {
		c.ExpiryYear = "20" + c.ExpiryYear
	}
	return c
}

// Last4 returns the last four digits of the number ("" when it has fewer than four
// characters or the card is nil).
func (c *Card) Last4() string {
	if c == nil || len(c.number) < 4 {
		return ""
	}
	return string(c.number[len(c.number)-4:])
}

// Brand returns the card brand by the number's issuer identification range: VISA,
// MASTERCARD, AMEX, RUPAY, DINERS, DISCOVER or UNKNOWN. 65 is shared by RuPay and
// Discover: 6521 and 6522 are RuPay, the rest Discover; 6011 is Discover and the
// rest of 60 RuPay.
func (c *Card) Brand() string {
	if c == nil {
		return BrandUnknown
	}
	return brandOf(c.number)
}

func brandOf(n []byte) string {
	if len(n) < 2 || !allDigits(n) {
		return BrandUnknown
	}
	p := func(k int) int { // the first k digits as a number, or -1
		if len(n) < k {
			return -1
		}
		v, _ := strconv.Atoi(string(n[:k]))
		return v
	}
	p2, p3, p4 := p(2), p(3), p(4)
	switch {
	case n[0] == '4':
		return BrandVisa
	case p2 == 34 || p2 == 37:
		return BrandAmex
	case p2 == 36 || p2 == 38 || (p3 >= 300 && p3 <= 305):
		return BrandDiners
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720:
		return BrandMastercard
	case p4 == 6011:
		return BrandDiscover
	case p4 == 6521 || p4 == 6522:
		return BrandRuPay
	case p2 == 65:
		return BrandDiscover
	case p2 == 60 || p2 == 81 || p2 == 82 || p3 == 508:
		return BrandRuPay
	}
	return BrandUnknown
}

// Check validates the card as the service will (contract section 4): 12 to 19
// digits passing the Luhn check, an expiry month 01 to 12 and a four-digit year
// not before now's month, a CVV of 3 digits (4 for American Express), a holder name
// of 1 to 50 characters. The error, matching ErrInvalidCard, is one sentence and
// never holds a digit of the number beyond the last four.
func (c *Card) Check(now time.Time) error {
	if c == nil {
		return fmt.Errorf("%w: no card was given", ErrInvalidCard)
	}
	switch {
	case !allDigits(c.number):
		return fmt.Errorf("%w: the card number must hold digits only", ErrInvalidCard)
	case len(c.number) < 12 || len(c.number) > 19:
		return fmt.Errorf("%w: the card number must have 12 to 19 digits, not %d", ErrInvalidCard, len(c.number))
	case !luhn(c.number):
		return fmt.Errorf("%w: the card number ending %s is mistyped (its check digit is wrong)", ErrInvalidCard, c.Last4())
	}
	month, err := strconv.Atoi(c.ExpiryMonth)
	if err != nil || len(c.ExpiryMonth) != 2 || month < 1 || month > 12 {
		return fmt.Errorf("%w: the expiry month must be 01 to 12", ErrInvalidCard)
	}
	year, err := strconv.Atoi(c.ExpiryYear)
	if err != nil || len(c.ExpiryYear) != 4 {
		return fmt.Errorf("%w: the expiry year must have four digits", ErrInvalidCard)
	}
	if year < now.Year() || (year == now.Year() && month < int(now.Month())) {
		return fmt.Errorf("%w: the card expired at the end of %s/%s", ErrInvalidCard, c.ExpiryMonth, c.ExpiryYear)
	}
	want := 3
	if c.Brand() == BrandAmex {
		want = 4
	}
	if len(c.cvv) != want || !allDigits(c.cvv) {
		return fmt.Errorf("%w: the CVV must have %d digits", ErrInvalidCard, want)
	}
	if n := utf8.RuneCountInString(c.Holder); n < 1 || n > 50 {
		return fmt.Errorf("%w: the card holder's name must have 1 to 50 characters", ErrInvalidCard)
	}
	return nil
}

// Zero wipes the number and the CVV. The card then prints as having no digits.
func (c *Card) Zero() {
	if c == nil {
		return
	}
	clear(c.number)
	clear(c.cvv)
	c.number = c.number[:0]
	c.cvv = c.cvv[:0]
}

// String returns the brand and the last four digits, "VISA •••• 1111".
func (c Card) String() string {
	if l := c.Last4(); l != "" && allDigits(c.number) {
		return c.Brand() + " •••• " + l
	}
	return c.Brand() + " ••••"
}

// GoString returns the same as String inside gateway.Card{...}, for %#v.
func (c Card) GoString() string { return "gateway.Card{" + c.String() + "}" }

// Format prints the same as String for every verb and flag, so no verb (%v, %+v,
// %#v, %s, %q, %x, %d) can reach the digits.
func (c Card) Format(f fmt.State, verb rune) {
	switch verb {
	case 'v':
		if f.Flag('#') {
			_, _ = f.Write([]byte(c.GoString()))
			return
		}
	case 'q':
		_, _ = f.Write([]byte(strconv.Quote(c.String())))
		return
	}
	_, _ = f.Write([]byte(c.String()))
}

// MarshalJSON encodes the card as the JSON string of String.
func (c Card) MarshalJSON() ([]byte, error) {
	return []byte(strconv.Quote(c.String())), nil
}

// LogValue is what slog logs for a card: the same as String.
func (c Card) LogValue() slog.Value { return slog.StringValue(c.String()) }

// Luhn reports whether digits, all decimal digits, pass the Luhn check. It also
// checks IMEIs (15 digits).
func Luhn(digits string) bool {
	return len(digits) > 0 && allDigits([]byte(digits)) && luhn([]byte(digits))
}

// LuhnCheckDigit returns the digit that, appended to digits, makes a string Luhn
// accepts (an IMEI's 15th digit); ok is false when digits is empty or holds
// anything but ASCII digits.
func LuhnCheckDigit(digits string) (d byte, ok bool) {
	if !allDigits([]byte(digits)) {
		return 0, false
	}
	for c := byte('0'); c <= '9'; c++ {
		if Luhn(digits + string(c)) {
			return c, true
		}
	}
	return 0, false // unreachable: one of ten digits always completes the sum
}

func luhn(d []byte) bool {
	if len(d) == 0 {
		return false
	}
	sum := 0
	double := false
	for i := len(d) - 1; i >= 0; i-- {
		v := int(d[i] - '0')
		if double {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
		double = !double
	}
	return sum%10 == 0
}

func allDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
