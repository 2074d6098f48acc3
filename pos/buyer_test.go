package pos

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inv is the title of a registered shop's invoice of taxable goods, the one
// document Rule 46(d) and 46(e) bind.
const inv = "TAX INVOICE"

// goodGSTIN is the GST portal's own example of a valid GSTIN, of Maharashtra (27).
const goodGSTIN = "27AAPFU0939F1ZV"

// The ₹50,000 rule (CGST Rule 46(e)): an unregistered buyer's invoice of taxable
// value ₹49,999.99 needs nobody's name; one of ₹50,000.00 needs name, address and
// state, and says which are missing.
func TestCheckBuyerThreshold(t *testing.T) {
	assert.NoError(t, CheckBuyer(inv, 49_999_99, Buyer{}))
	err := CheckBuyer(inv, 50_000_00, Buyer{})
	require.ErrorIs(t, err, ErrBuyerNeeded)
	assert.Equal(t, "The taxable value is ₹50,000.00, ₹50,000.00 or more: the invoice must name the buyer (CGST Rule 46(e)). "+
		"Record the buyer's name, address and state, then take the payment; nothing has been charged.", Sentence(err))
	err = CheckBuyer(inv, 50_000_00, Buyer{Name: "Asha Rao", Phone: "98450 12345"})
	require.ErrorIs(t, err, ErrBuyerNeeded)
	assert.Contains(t, Sentence(err), "Record the buyer's address and state, then")
	// A state may be given by its name.
	assert.NoError(t, CheckBuyer(inv, 50_000_00, Buyer{Name: "Asha Rao", Address: "12 MG Road, Bengaluru", State: "karnataka"}))
	assert.NoError(t, CheckBuyer(inv, 1_00_00_000_00, Buyer{Name: "Asha Rao", Address: "12 MG Road, Bengaluru", State: "29"}))
	// A receipt (a shop without a GSTIN) and a bill of supply are not tax
	// invoices: no buyer needed; a bad GSTIN is still refused.
	assert.NoError(t, CheckBuyer("RECEIPT", 50_000_00, Buyer{}))
	assert.NoError(t, CheckBuyer("BILL OF SUPPLY", 50_000_00, Buyer{}))
	assert.Error(t, CheckBuyer("RECEIPT", 50_000_00, Buyer{GSTIN: "27AAPFU0939F1ZW"}))
	assert.False(t, BuyerNeeded(49_999_99, Buyer{}))
	assert.True(t, BuyerNeeded(50_000_00, Buyer{}))
}

// B2B: a bad GSTIN is refused with a sentence; a good one makes the sale B2B,
// gives the buyer its state, and needs the buyer's name and address whatever the
// amount (Rule 46(d)).
func TestCheckBuyerGSTIN(t *testing.T) {
	for _, bad := range []string{"27AAPFU0939F1ZW", "27AAPFU0939F1Z", "99AAPFU0939F1ZV"} {
		err := CheckBuyer(inv, 100_00, Buyer{Name: "Urban Mobiles", Address: "Pune", GSTIN: bad})
		require.Error(t, err, bad)
		assert.Contains(t, Sentence(err), "The buyer's GSTIN is not valid: ", bad)
		assert.Contains(t, Sentence(err), "Without a GSTIN the sale is to an unregistered buyer.", bad)
	}
	b := Buyer{Name: "Urban Mobiles", Address: "Shop 4, FC Road, Pune", GSTIN: " 27aapfu0939f1zv "}.Normal()
	assert.Equal(t, Buyer{Name: "Urban Mobiles", Address: "Shop 4, FC Road, Pune", GSTIN: goodGSTIN, State: "27"}, b)
	assert.True(t, b.Registered())
	assert.NoError(t, CheckBuyer(inv, 100_00, b))
	err := CheckBuyer(inv, 100_00, Buyer{GSTIN: goodGSTIN})
	require.ErrorIs(t, err, ErrBuyerNeeded)
	assert.Contains(t, Sentence(err), "A sale to a registered buyer (GSTIN 27AAPFU0939F1ZV) names the buyer on the invoice (CGST Rule 46(d)). Record the buyer's name and address, then")
	err = CheckBuyer(inv, 100_00, Buyer{Name: "Urban Mobiles", Address: "Pune", GSTIN: goodGSTIN, State: "29"})
	require.Error(t, err)
	assert.Equal(t, "The buyer's GSTIN 27AAPFU0939F1ZV is registered in Maharashtra (27), but the buyer's state is Karnataka (29); a registered buyer's state is the GSTIN's.", Sentence(err))
}

func TestCheckBuyerContact(t *testing.T) {
	assert.NoError(t, CheckBuyer(inv, 0, Buyer{Phone: "+91 98450-12345"}))
	assert.Equal(t, "9845012345", Buyer{Phone: "+91 98450-12345"}.Normal().Phone)
	err := CheckBuyer(inv, 0, Buyer{Phone: "12345"})
	require.Error(t, err)
	assert.Equal(t, "The customer's phone number 12345 is not a mobile number: give its ten digits, starting with 6, 7, 8 or 9.", Sentence(err))
	err = CheckBuyer(inv, 0, Buyer{State: "Atlantis"})
	require.ErrorIs(t, err, ErrStateCode)
}

// Place of supply (IGST Act s.10) for a shop in Maharashtra (27).
func TestPlaceOfSupply(t *testing.T) {
	tests := []struct {
		name  string
		buyer Buyer
		want  Place
	}{
		{"walk-in", Buyer{}, Place{State: "27", Rule: "s.10(1)(c)"}},
		{"unregistered, address in the state", Buyer{Name: "A", Address: "Pune", State: "27"}, Place{State: "27", Rule: "s.10(1)(c)"}},
		{"unregistered, address in Karnataka: s.10(1)(ca)", Buyer{Name: "A", Address: "Bengaluru", State: "29"}, Place{State: "29", Interstate: true, Rule: "s.10(1)(ca)"}},
		{"unregistered, a state but no address recorded", Buyer{Name: "A", State: "29"}, Place{State: "27", Rule: "s.10(1)(c)"}},
		{"registered in Karnataka, taken at the counter", Buyer{Name: "B", Address: "Bengaluru", State: "29", GSTIN: "29AAPFU0939F1ZR"}, Place{State: "27", Rule: "s.10(1)(c)"}},
		{"delivered to Goa", Buyer{Name: "C", Address: "Panaji", State: "30", ShipState: "30"}, Place{State: "30", Interstate: true, Rule: "s.10(1)(a)"}},
		{"delivered within the state", Buyer{ShipState: "27"}, Place{State: "27", Rule: "s.10(1)(a)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, PlaceOfSupply("27", tt.buyer))
		})
	}
	assert.Equal(t, Place{Rule: "s.10(1)(c)"}, PlaceOfSupply("", Buyer{Name: "A", Address: "Bengaluru", State: "29"}), "a shop without a state sells within it")
}

// The till refuses to take the payment of a sale whose invoice needs the buyer
// until the buyer is recorded: nothing is journaled, nothing charged. With the
// buyer the sale is paid and the order records them.
func TestPayNeedsTheBuyerFrom50000(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	phone := func(price Paise) []CartLine {
		return []CartLine{{Product: Product{SKU: "PH", Name: "Phone", HSN: "8517", Price: price, GSTRate: Percent(18)}, Qty: 1}}
	}
	ctx := t.Context()
	// A shop without a GSTIN issues receipts, which Rule 46 does not bind.
	out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: phone(59_000_00), Tender: TenderCash, Cashier: "Meera"}, nil)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, out.State)
	_, _, err = tl.Setup.SetShop(ctx, ShopDetails{Name: "Galla Mobiles", Address: "14 FC Road, Pune", State: "27", GSTIN: goodGSTIN}, managerPIN)
	require.NoError(t, err)
	// ₹58,999.99 at 18%: taxable 58,999.99 / 1.18 = 49,999.99.
	out, err = tl.Checkout.Pay(ctx, PayRequest{Lines: phone(58_999_99), Tender: TenderCash, Cashier: "Meera"}, nil)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, out.State)
	assert.Nil(t, out.SaleOrder().Buyer)

	// ₹59,000.00: taxable 50,000.00.
	before := len(r.j.events)
	_, err = tl.Checkout.Pay(ctx, PayRequest{Lines: phone(59_000_00), Tender: TenderCash, Cashier: "Meera"}, nil)
	require.ErrorIs(t, err, ErrBuyerNeeded)
	assert.Contains(t, Sentence(err), "The taxable value is ₹50,000.00")
	assert.Equal(t, before, len(r.j.events), "a refused sale journals nothing")

	_, err = tl.Checkout.Pay(ctx, PayRequest{Lines: phone(59_000_00), Tender: TenderCash, Cashier: "Meera", Buyer: &Buyer{Name: "Asha", GSTIN: "27AAPFU0939F1ZW"}}, nil)
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrBuyerNeeded))
	assert.Contains(t, Sentence(err), "The buyer's GSTIN is not valid")

	buyer := &Buyer{Name: "Asha Rao", Address: "12 MG Road, Bengaluru", State: "Karnataka", Phone: "9845012345"}
	out, err = tl.Checkout.Pay(ctx, PayRequest{Lines: phone(59_000_00), Tender: TenderCash, Cashier: "Meera", Buyer: buyer}, nil)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, out.State)
	require.NotNil(t, out.SaleOrder().Buyer)
	assert.Equal(t, Buyer{Name: "Asha Rao", Address: "12 MG Road, Bengaluru", State: "29", Phone: "9845012345"}, *out.SaleOrder().Buyer)
	o, err := r.e.Order(ctx, out.SaleID())
	require.NoError(t, err)
	assert.Equal(t, out.SaleOrder().Buyer, o.Buyer, "the buyer is journaled with the sale")

	// An exempt-only sale is a bill of supply: no buyer needed at any value.
	book := []CartLine{{Product: Product{SKU: "ATLAS", Name: "Atlas set", HSN: "4901", Price: 60_000_00}, Qty: 1}}
	out, err = tl.Checkout.Pay(ctx, PayRequest{Lines: book, Tender: TenderCash, Cashier: "Meera"}, nil)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, out.State)
}

// A customer recorded with a phone number is found again at the next visit,
// whatever way the number is typed.
func TestRememberBuyer(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	_, ok, err := tl.Customers.FindBuyer(ctx, "9845012345")
	require.NoError(t, err)
	assert.False(t, ok)
	require.NoError(t, tl.Customers.RememberBuyer(ctx, "Meera", Buyer{Name: "Asha Rao", Phone: "98450 12345", Address: "12 MG Road, Bengaluru", State: "Karnataka", ShipState: "29"}))
	b, ok, err := tl.Customers.FindBuyer(ctx, "+91 98450-12345")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, Buyer{Name: "Asha Rao", Phone: "9845012345", Address: "12 MG Road, Bengaluru", State: "29"}, b)
	assert.Error(t, tl.Customers.RememberBuyer(ctx, "Meera", Buyer{Phone: "9845012345", GSTIN: "27AAPFU0939F1ZW"}), "a bad GSTIN is not remembered")
	b, _, _ = tl.Customers.FindBuyer(ctx, "9845012345")
	assert.Equal(t, "Asha Rao", b.Name)
	assert.NoError(t, tl.Customers.RememberBuyer(ctx, "Meera", Buyer{Name: "No phone"}), "nothing to remember it by")
	assert.Equal(t, StateChoice{Code: "35", Label: "Andaman and Nicobar Islands (35)"}, StateChoices()[0])
}
