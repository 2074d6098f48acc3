package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPaiseString(t *testing.T) {
	tests := []struct {
		p    Paise
		want string
	}{
		{0, "₹0.00"},
		{5, "₹0.05"},
		{99900, "₹999.00"},
		{100000, "₹1,000.00"},
		{12345678, "₹1,23,456.78"},
		{1234567890, "₹1,23,45,678.90"},
		{-150, "-₹1.50"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.p.String(), "Paise(%d).String()", int64(tt.p))
	}
}

func TestParsePaise(t *testing.T) {
	good := map[string]Paise{"1499": 149900, "1,499.50": 149950, "₹1,23,456.7": 12345670, "Rs. 99": 9900, ".5": 50, "0.05": 5}
	for in, want := range good {
		got, err := ParsePaise(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, "ParsePaise(%q)", in)
	}
	for _, in := range []string{"", "abc", "1.234", "1.", "--1", "1e5", "₹"} {
		_, err := ParsePaise(in)
		assert.ErrorIs(t, err, ErrBadAmount, "ParsePaise(%q)", in)
	}
}
