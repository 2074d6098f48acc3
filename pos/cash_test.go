package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCashChange(t *testing.T) {
	tests := []struct {
		tendered, total Paise
		want            Paise
		err             error
	}{
		{Rupees(2000), 149950, 50050, nil},
		{149950, 149950, 0, nil},
		{Rupees(1000), 149950, 0, ErrCashShort},
		{-1, 100, 0, ErrBadAmount},
		{100, -1, 0, ErrBadAmount},
	}
	for _, tt := range tests {
		got, err := CashTender{Tendered: tt.tendered}.Change(tt.total)
		if tt.err != nil {
			assert.ErrorIs(t, err, tt.err, "Change(%d) of %d", tt.total, tt.tendered)
			continue
		}
		assert.NoError(t, err)
		assert.Equal(t, tt.want, got, "CashTender{%d}.Change(%d)", tt.tendered, tt.total)
	}

	_, err := CashTender{Tendered: Rupees(1000)}.Change(149950)
	var short *CashShortError
	if assert.ErrorAs(t, err, &short) {
		assert.Equal(t, Paise(49950), short.Short())
		assert.Equal(t, "pos: cash: ₹1,000.00 tendered for ₹1,499.50: ₹499.50 short", err.Error())
	}
}

func TestQuickTenders(t *testing.T) {
	tests := []struct {
		total Paise
		want  []Paise
	}{
		{123456, []Paise{123456, 124000, 125000, 130000, 150000, 200000}},
		{Rupees(500), []Paise{Rupees(500), Rupees(2000)}},
		{Rupees(2000), []Paise{Rupees(2000)}},
		{1, []Paise{1, Rupees(10), Rupees(50), Rupees(100), Rupees(500), Rupees(2000)}},
		{0, nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, QuickTenders(tt.total), "QuickTenders(%d)", tt.total)
	}
}
