package pos

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLuhn(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"79927398713", true},
		{"79927398710", false},
		{"490154203237518", true},
		{"4111111111111111", true},
		{"4111111111111112", false},
		{"0", true},
		{"", false},
		{"7992739871a", false},
		{" 79927398713", false},
		{"١٢٣", false}, // Arabic-Indic digits are not ASCII digits
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Luhn(tt.in), "Luhn(%q)", tt.in)
	}
}

func TestLuhnCheckDigit(t *testing.T) {
	tests := []struct {
		in     string
		want   byte
		wantOK bool
	}{
		{"7992739871", '3', true},
		{"49015420323751", '8', true},
		{"", 0, false},
		{"12x", 0, false},
	}
	for _, tt := range tests {
		d, ok := LuhnCheckDigit(tt.in)
		assert.Equal(t, tt.wantOK, ok, "LuhnCheckDigit(%q) ok", tt.in)
		assert.Equal(t, tt.want, d, "LuhnCheckDigit(%q)", tt.in)
	}
}

func TestCheckIMEI(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"490154203237518", nil},
		{"356938035643809", nil},
		{"490154203237519", ErrIMEICheckDigit},
		{"49015420323751", ErrIMEILength},
		{"4901542032375180", ErrIMEILength},
		{"", ErrIMEILength},
		{"49015420323751X", ErrIMEIDigits},
		{"4901 5420 3237 518", ErrIMEIDigits},
		{"-49015420323751", ErrIMEIDigits},
	}
	for _, tt := range tests {
		err := CheckIMEI(tt.in)
		if tt.want == nil {
			assert.NoError(t, err, "CheckIMEI(%q)", tt.in)
			continue
		}
		assert.ErrorIs(t, err, tt.want, "CheckIMEI(%q)", tt.in)
		assert.ErrorIs(t, err, ErrBadIMEI, "CheckIMEI(%q)", tt.in)
		assert.NotContains(t, err.Error(), tt.in[:min(len(tt.in), 6)]+"x", "the IMEI stays out of the error")
	}
}

// refLuhn is the textbook Luhn check written differently (a doubling table, digits
// counted from the left), to check Luhn against.
func refLuhn(s string) bool {
	if s == "" {
		return false
	}
	dbl := [10]int{0, 2, 4, 6, 8, 1, 3, 5, 7, 9}
	sum := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return false
		}
		d := int(c - '0')
		if (len(s)-1-i)%2 == 1 {
			d = dbl[d]
		}
		sum += d
	}
	return sum%10 == 0
}

func FuzzCheckIMEI(f *testing.F) {
	for _, s := range []string{"490154203237518", "490154203237519", "", "12345678901234x", "0000000000000000", "3569380356438091"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		require.Equal(t, refLuhn(s), Luhn(s), "Luhn(%q)", s)
		err := CheckIMEI(s)
		valid := len(s) == IMEILength && refLuhn(s)
		if valid {
			require.NoError(t, err, "CheckIMEI(%q)", s)
		} else {
			require.Error(t, err, "CheckIMEI(%q)", s)
			require.True(t, errors.Is(err, ErrBadIMEI), "CheckIMEI(%q) = %v; want ErrBadIMEI", s, err)
		}
		if len(s) > 0 && len(s) < 40 {
			if d, ok := LuhnCheckDigit(s); ok {
				require.True(t, Luhn(s+string(d)), "LuhnCheckDigit(%q) = %c", s, d)
			}
		}
	})
}
