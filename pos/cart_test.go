package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testCatalog returns a small catalog: a serialised phone, a cable and a book.
func testCatalog(t *testing.T) *Catalog {
	t.Helper()
	c, err := NewCatalog([]Product{
		{SKU: "PH-1", Barcode: "8806095124018", Name: "Samsung Galaxy S24", Brand: "Samsung", ProductCode: "SAMSUNG-S24", Price: Rupees(74999), GSTRate: Percent(18), HSN: "8517", Serialised: true},
		{SKU: "CBL-1", Barcode: "8904130501013", Name: "USB-C Cable", Price: Rupees(499), GSTRate: Percent(18), HSN: "8544"},
		{SKU: "BK-1", Name: "Book", Price: Rupees(399), GSTRate: Percent(0), HSN: "4901"},
	})
	require.NoError(t, err)
	return c
}

const (
	imei1 = "490154203237518"
	imei2 = "356938035643809"
)

func TestCartAdd(t *testing.T) {
	cart := NewCart(testCatalog(t))
	l, err := cart.Scan("8806095124018")
	require.NoError(t, err)
	assert.Equal(t, Line{SKU: "PH-1", Name: "Samsung Galaxy S24", Brand: "Samsung", ProductCode: "SAMSUNG-S24", HSN: "8517", Qty: 1, UnitPrice: Rupees(74999), GSTRate: Percent(18), Serialised: true}, l)

	_, err = cart.Add("cbl-1", 2)
	require.NoError(t, err)
	l, err = cart.Scan("8904130501013")
	require.NoError(t, err)
	assert.Equal(t, 3, l.Qty, "a product scanned again gets another unit on its line")
	assert.Equal(t, Rupees(1497), l.Amount())
	assert.Equal(t, 2, cart.Len())

	tests := []struct {
		code string
		qty  int
		want error
	}{
		{"nope", 1, ErrUnknownProduct},
		{"4111111111111111", 1, ErrUnknownProduct},
		{"BK-1", 0, ErrBadQuantity},
		{"BK-1", -1, ErrBadQuantity},
		{"BK-1", MaxQty + 1, ErrBadQuantity},
		{"CBL-1", MaxQty - 2, ErrBadQuantity}, // 3 + 997 > MaxQty
	}
	for _, tt := range tests {
		_, err := cart.Add(tt.code, tt.qty)
		assert.ErrorIs(t, err, tt.want, "Add(%q, %d)", tt.code, tt.qty)
		if err != nil {
			assert.NotContains(t, err.Error(), "4111111111111111", "a typed card number stays out of errors")
		}
	}
	assert.Equal(t, 2, cart.Len(), "failed adds change nothing")
	assert.Equal(t, 3, cart.Lines()[1].Qty)
}

func TestCartEdit(t *testing.T) {
	cart := NewCart(testCatalog(t))
	_, err := cart.Add("CBL-1", 3)
	require.NoError(t, err)
	_, err = cart.Add("BK-1", 1)
	require.NoError(t, err)

	steps := []struct {
		name string
		do   func() error
		want error
	}{
		{"discount", func() error { return cart.SetDiscount("CBL-1", Rupees(100)) }, nil},
		{"discount above gross", func() error { return cart.SetDiscount("CBL-1", Rupees(1497)+1) }, ErrDiscountTooLarge},
		{"negative discount", func() error { return cart.SetDiscount("CBL-1", -1) }, ErrBadDiscount},
		{"discount of the whole line", func() error { return cart.SetDiscount("BK-1", Rupees(399)) }, nil},
		{"discount not in cart", func() error { return cart.SetDiscount("PH-1", 1) }, ErrNotInCart},
		{"quantity below discount", func() error { return cart.SetQty("BK-1", 1) }, nil},
		{"quantity", func() error { return cart.SetQty("cbl-1", 5) }, nil},
		{"quantity zero", func() error { return cart.SetQty("CBL-1", 0) }, ErrBadQuantity},
		{"quantity too large", func() error { return cart.SetQty("CBL-1", MaxQty+1) }, ErrBadQuantity},
		{"quantity under the discount", func() error {
			if err := cart.SetDiscount("CBL-1", Rupees(900)); err != nil {
				return err
			}
			return cart.SetQty("CBL-1", 1)
		}, ErrDiscountTooLarge},
		{"quantity not in cart", func() error { return cart.SetQty("PH-1", 1) }, ErrNotInCart},
		{"IMEI on a cable", func() error { return cart.SetIMEI("CBL-1", 0, imei1) }, ErrNotSerialised},
		{"remove", func() error { return cart.Remove("BK-1") }, nil},
		{"remove again", func() error { return cart.Remove("BK-1") }, ErrNotInCart},
	}
	for _, s := range steps {
		err := s.do()
		if s.want == nil {
			require.NoError(t, err, s.name)
		} else {
			require.ErrorIs(t, err, s.want, s.name)
		}
	}
	lines := cart.Lines()
	require.Len(t, lines, 1)
	assert.Equal(t, 5, lines[0].Qty)
	assert.Equal(t, Rupees(900), lines[0].Discount)
	assert.Equal(t, Rupees(5*499-900), lines[0].Amount())
	tot := cart.Totals()
	assert.Equal(t, Rupees(5*499-900), tot.Total)
	assert.Equal(t, tot.Total, tot.Taxable+tot.Tax+tot.RoundOff)

	cart.Clear()
	_, _, err = cart.Checkout()
	assert.ErrorIs(t, err, ErrEmptyCart)
}

func TestCartIMEIs(t *testing.T) {
	cart := NewCart(testCatalog(t))
	_, err := cart.Add("PH-1", 2)
	require.NoError(t, err)
	assert.ErrorIs(t, cart.CheckIMEIs(), ErrIMEIMissing)

	steps := []struct {
		name string
		do   func() error
		want error
	}{
		{"bad check digit", func() error { return cart.SetIMEI("PH-1", 0, "490154203237519") }, ErrIMEICheckDigit},
		{"short", func() error { return cart.SetIMEI("PH-1", 0, "4901542032375") }, ErrBadIMEI},
		{"unit out of range", func() error { return cart.SetIMEI("PH-1", 2, imei1) }, ErrTooManyIMEIs},
		{"second unit first", func() error { return cart.SetIMEI("PH-1", 1, imei2) }, nil},
		{"same IMEI twice", func() error { return cart.SetIMEI("PH-1", 0, imei2) }, ErrDuplicateIMEI},
		{"first unit", func() error { return cart.SetIMEI("PH-1", 0, imei1) }, nil},
		{"set again, same unit", func() error { return cart.SetIMEI("PH-1", 0, imei1) }, nil},
		{"list too long", func() error { return cart.SetIMEIs("PH-1", []string{imei1, imei2, imei1}) }, ErrTooManyIMEIs},
		{"list with a repeat", func() error { return cart.SetIMEIs("PH-1", []string{imei1, imei1}) }, ErrDuplicateIMEI},
		{"list with a bad one", func() error { return cart.SetIMEIs("PH-1", []string{imei1, "x"}) }, ErrIMEIDigits},
	}
	for _, s := range steps {
		err := s.do()
		if s.want == nil {
			require.NoError(t, err, s.name)
		} else {
			require.ErrorIs(t, err, s.want, s.name)
		}
	}
	assert.Equal(t, []string{imei1, imei2}, cart.Lines()[0].IMEIs, "failed calls change nothing")
	assert.NoError(t, cart.CheckIMEIs())

	// Lines returns copies.
	cart.Lines()[0].IMEIs[0] = "tampered"
	assert.Equal(t, imei1, cart.Lines()[0].IMEIs[0])

	// Fewer units drop the extra IMEIs; clearing a unit makes it missing again.
	require.NoError(t, cart.SetQty("PH-1", 1))
	assert.Equal(t, []string{imei1}, cart.Lines()[0].IMEIs)
	require.NoError(t, cart.SetIMEI("PH-1", 0, ""))
	assert.Empty(t, cart.Lines()[0].IMEIs)
	assert.Equal(t, 1, cart.Lines()[0].MissingIMEIs())
	require.NoError(t, cart.SetIMEIs("PH-1", []string{imei2}))
	assert.Equal(t, 0, cart.Lines()[0].MissingIMEIs())

	lines, tot, err := cart.Checkout()
	require.NoError(t, err)
	assert.Equal(t, ComputeTotals(lines), tot)
	assert.Equal(t, Rupees(74999), tot.Total)
}
