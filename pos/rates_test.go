package pos

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/assets"
	"galla/pos/hsn"
)

// ist is India Standard Time, where the notifications' days begin.
var ist = time.FixedZone("IST", 5*3600+1800)

// panMasala is a row of pan masala as it was sold before 1 February 2026: 28%
// GST and a 60% compensation cess (₹188.00 = 100.00 + 28.00 + 60.00).
func panMasala(gst, cess Rate) Product {
	return Product{SKU: "PM-1", Name: "Pan masala", HSN: "2106", Price: 188_00, GSTRate: gst, Cess: cess}
}

// TestRatesAcrossFebruary2026 walks the schedule over the night of 31 January
// to 1 February 2026 (Notification 19/2025-CT(Rate), 03/2025-Compensation
// Cess): pan masala at 28% + 60% cess is sold up to 23:59 on 31 January and
// refused from midnight, when it is 40% with no cess; the 14% schedule (28%) is
// gone for every good.
func TestRatesAcrossFebruary2026(t *testing.T) {
	jan31 := time.Date(2026, 1, 31, 23, 59, 59, 0, ist)
	feb1 := time.Date(2026, 2, 1, 0, 0, 0, 0, ist)
	sep21 := time.Date(2025, 9, 21, 12, 0, 0, 0, ist)
	sep22 := time.Date(2025, 9, 22, 0, 0, 0, 0, ist)

	assert.Equal(t, "2025-09-22", RatesOn(jan31).From)
	assert.Equal(t, "2026-02-01", RatesOn(feb1).From)
	assert.Equal(t, "2017-07-01", RatesOn(sep21).From)

	old := LineFor(panMasala(Percent(28), Percent(60)), 1)
	now := LineFor(panMasala(Percent(40), Rate{}), 1)
	require.NoError(t, CheckSaleRates([]Line{old}, jan31), "28% + 60% cess on 31 January 2026")
	err := CheckSaleRates([]Line{old}, feb1)
	require.Error(t, err)
	assert.Equal(t, "Pan masala (SKU PM-1) is in the catalog at 28% with a 60% cess, which cannot be charged on 1 February 2026: "+
		"28% is not a GST rate in force since 1 February 2026 (Notification 19/2025-Central Tax (Rate) and 03/2025-Compensation Cess (Rate); "+
		"the rates are 0, 0.25, 1.5, 3, 5, 18 or 40); pan masala and tobacco are 40% and bear no compensation cess. "+
		"Correct its row in the catalog (galla catalog import) before selling it.", Sentence(err))
	require.NoError(t, CheckSaleRates([]Line{now}, feb1), "40% without cess from 1 February 2026")
	// 40% with the old cess kept is refused: the cess is nil.
	err = CheckSaleRates([]Line{LineFor(panMasala(Percent(40), Percent(60)), 1)}, feb1)
	require.Error(t, err)
	assert.Contains(t, Sentence(err), "no compensation cess is levied since 1 February 2026 (Notification 19/2025-Central Tax (Rate) and 03/2025-Compensation Cess (Rate)), so a 60% cess is not")
	// Before, 28% went only with the cess, and the cess only with 28%.
	assert.Contains(t, Sentence(CheckSaleRates([]Line{LineFor(panMasala(Percent(28), Rate{}), 1)}, jan31)),
		"since 22 September 2025 (Notification 9/2025-Central Tax (Rate)) 28% is kept only for goods that also bear a compensation cess")
	assert.Contains(t, Sentence(CheckSaleRates([]Line{LineFor(panMasala(Percent(40), Percent(60)), 1)}, jan31)),
		"a compensation cess goes only with 28%, not with 40%")
	// 12% went on 22 September 2025.
	phone := Product{SKU: "PH", Name: "Phone", HSN: "8517", Price: 112_00, GSTRate: Percent(12)}
	require.NoError(t, CheckSaleRates([]Line{LineFor(phone, 1)}, sep21))
	assert.Contains(t, Sentence(CheckSaleRates([]Line{LineFor(phone, 1)}, sep22)), "12% is not a GST rate in force since 22 September 2025 (Notification 9/2025-Central Tax (Rate)")

	// A catalog imported on either day: the same rule, per row, naming it.
	cat, err := NewCatalog([]Product{panMasala(Percent(28), Percent(60)), {SKU: "CBL", Name: "Cable", HSN: "8544", Price: 499_00, GSTRate: Percent(18)}})
	require.NoError(t, err)
	_, err = cat.CheckRates(Shop{}, jan31, nil)
	require.NoError(t, err)
	_, err = cat.CheckRates(Shop{}, feb1, nil)
	var ie *ImportError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Problems, 1)
	assert.Equal(t, "PM-1", ie.Problems[0].SKU)
	assert.Contains(t, ie.Problems[0].Msg, "the row cannot be sold today: 28% is not a GST rate in force since 1 February 2026")
}

// TestPanMasalaIsNotInvoicedAt28PercentIn2026 is the defect: pan masala at 28%
// + 60% cess was invoiced on 26 November 2026. The till refuses the sale with a
// sentence and journals nothing; at 40% it sells, with no cess.
func TestPanMasalaIsNotInvoicedAt28PercentIn2026(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	r.clock.Advance(4 * 24 * time.Hour) // 26 November 2026
	require.Equal(t, "2026-11-26", ToDay(r.clock.Now()))
	before := len(r.j.events)
	_, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{{Product: panMasala(Percent(28), Percent(60)), Qty: 1}}, Tender: TenderCash, Cashier: "Meera"}, nil)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(Sentence(err), "Pan masala (SKU PM-1) is in the catalog at 28% with a 60% cess, which cannot be charged on 26 November 2026: 28% is not a GST rate in force since 1 February 2026"), Sentence(err))
	assert.Equal(t, before, len(r.j.events), "a refused sale journals nothing")

	out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{{Product: panMasala(Percent(40), Rate{}), Qty: 1}}, Tender: TenderCash, Cashier: "Meera"}, nil)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, out.State)
	// ₹188.00 at 40%: taxable 134.29 (188/1.4 = 134.2857); CGST = SGST = 20% of
	// it, 26.858 → 26.86; 134.29 + 53.72 = 188.01, round-off −0.01; no cess.
	tt := ComputeTotals(out.Order.Lines)
	assert.Equal(t, Paise(134_29), tt.Taxable)
	assert.Equal(t, Paise(26_86), tt.CGST)
	assert.Equal(t, Paise(26_86), tt.SGST)
	assert.Equal(t, Paise(0), tt.Cess)
	assert.Equal(t, Paise(-1), tt.RoundOff)
}

// TestShopRatesSchedule: the shop's choice is a schedule by date, typed in
// Settings or galla shop set --rates, and the plain list a shop kept before
// reads as its choice on every day.
func TestShopRatesSchedule(t *testing.T) {
	sr, err := ParseRateList("0, 5, 18, 28; from 2026-02-01: 0, 5, 18, 40")
	require.NoError(t, err)
	assert.Equal(t, ShopRates{
		{Rates: []Rate{Percent(0), Percent(5), Percent(18), Percent(28)}},
		{From: "2026-02-01", Rates: []Rate{Percent(0), Percent(5), Percent(18), Percent(40)}},
	}, sr)
	assert.Equal(t, "0, 5, 18, 28; from 2026-02-01: 0, 5, 18, 40", sr.String())
	shop := Shop{Rates: sr}
	jan31 := time.Date(2026, 1, 31, 12, 0, 0, 0, ist)
	feb1 := time.Date(2026, 2, 1, 12, 0, 0, 0, ist)
	assert.Equal(t, []Rate{Percent(0), Percent(5), Percent(18), Percent(28)}, shop.RatesOn(jan31))
	assert.Equal(t, []Rate{Percent(0), Percent(5), Percent(18), Percent(40)}, shop.RatesOn(feb1))

	// An old list: one choice for every day, within the rates in force.
	var old Shop
	require.NoError(t, json.Unmarshal([]byte(`{"name":"Galla","rates":[0,5,18,28]}`), &old))
	assert.Equal(t, ShopRates{{Rates: []Rate{Percent(0), Percent(5), Percent(18), Percent(28)}}}, old.Rates)
	assert.Equal(t, []Rate{Percent(0), Percent(5), Percent(18), Percent(28)}, old.RatesOn(jan31))
	assert.Equal(t, []Rate{Percent(0), Percent(5), Percent(18)}, old.RatesOn(feb1), "28% is gone from 1 February 2026")
	raw, err := json.Marshal(shop)
	require.NoError(t, err)
	var back Shop
	require.NoError(t, json.Unmarshal(raw, &back))
	assert.True(t, back.Rates.Equal(shop.Rates), "%s", raw)

	// Refusals name what is wrong.
	for _, tt := range []struct{ in, want string }{
		{"0, 5; from 2026-02-01: 28", `The rate list has "28", which is not a GST rate in force from 2026-02-01`},
		{"5, 12", `The rate list has "12", which is not a GST rate in force since 22 September 2025`},
		{"5; 18", "say from which day it applies"},
		{"5; from 2026-02-01: 18; from 2026-01-01: 5", "must go forward in time"},
		{"5; from 2026-02-30: 18", "a later choice starts with the day it applies from"},
	} {
		_, err := ParseRateList(tt.in)
		require.Error(t, err, tt.in)
		assert.Contains(t, Sentence(err), tt.want, tt.in)
	}
	for _, all := range []string{"", "all", "0, 0.25, 1.5, 3, 5, 18, 28, 40"} {
		sr, err := ParseRateList(all)
		require.NoError(t, err)
		assert.Nil(t, sr, all)
	}
}

func TestParseCrore(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Paise
	}{
		{"12.5", 12_50_00_000_00}, // ₹12,50,00,000.00
		{"5", 5_00_00_000_00},
		{"0.75", 75_00_000_00},        // ₹75,00,000.00
		{"4.9999999", 4_99_99_999_00}, // to the rupee
		{" 1 crore", 1_00_00_000_00},
		{"0.0375", 3_75_000_00}, // a fraction with a leading zero is decimal, not octal
		{"08", 8_00_00_000_00},
	} {
		got, err := ParseCrore(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, "ParseCrore(%q)", tt.in)
	}
	for _, bad := range []string{"", "-1", "1.", "1.23456789", "12,5", "ten", "12345678"} {
		_, err := ParseCrore(bad)
		assert.Error(t, err, bad)
	}
	assert.Equal(t, Paise(5_00_00_000_00), EInvoiceTurnover)
}

// testHSNList is an HSN list as a shop loads it (galla hsn import), written
// for the tests: chapters, headings, subheadings and, under two subheadings,
// India's 8-digit tariff items.
func testHSNList(t *testing.T) *hsn.Master {
	t.Helper()
	m, err := hsn.Read("# made for the test\n" +
		"61\tApparel; knitted\n6109\tT-shirts, singlets and other vests; knitted\n" +
		"610910\tT-shirts; of cotton, knitted\n61091000\tT-shirts of cotton for men\n" +
		"610990\tT-shirts; of other textiles, knitted\n61099010\tOf wool\n61099020\tOf silk\n61099030\tOf man-made fibres\n61099040\tOf linen\n61099050\tOf ramie\n61099090\tOther\n" +
		"85\tElectrical machinery\n8517\tTelephone sets, including smartphones and other telephones for cellular networks\n" +
		"851713\tTelephone sets; smartphones for cellular or other wireless networks\n" +
		"851714\tTelephone sets; other\n85171410\tSatellite phones\n85171490\tOther telephones\n" +
		"8544\tInsulated wire, cable and other electric conductors\n854442\tInsulated electric conductors; fitted with connectors\n" +
		"8524\tFlat panel display modules\n")
	require.NoError(t, err)
	return m
}

// TestHSNAtImport: with the HSN list a shop loaded, a code it does not have
// is refused with a sentence naming it: a 4-digit code must be a heading, a
// 6-digit code a subheading, an 8-digit code's first six digits a
// subheading; services (chapter 99) are refused; a shop above ₹5 crore
// turnover gives six digits.
func TestHSNAtImport(t *testing.T) {
	day := time.Date(2026, 11, 26, 12, 0, 0, 0, ist)
	row := func(hsn string) *Catalog {
		cat, err := NewCatalog([]Product{{SKU: "PH", Name: "Phone", HSN: hsn, Price: 59000_00, GSTRate: Percent(18)}})
		require.NoError(t, err)
		return cat
	}
	list := testHSNList(t)
	small := Shop{Turnover: 4_00_00_000_00}
	big := Shop{Turnover: 12_50_00_000_00}
	for _, tt := range []struct {
		hsn  string
		shop Shop
	}{
		{"8517", small},
		{"851713", small},
		{"851713", big},
		{"85171300", big}, // under subheading 851713, whose items the list leaves out
		{"85171410", big}, // a tariff item of the list
		{"854442", big},
		{"85444299", big},
		{"8524", small},
	} {
		formOnly, err := row(tt.hsn).CheckRates(tt.shop, day, list)
		assert.NoError(t, err, "HSN %q, turnover %s", tt.hsn, tt.shop.Turnover)
		assert.Empty(t, formOnly, "HSN %q: checked against the list", tt.hsn)
	}
	const check = "; check the code on the invoice from your supplier"
	for _, tt := range []struct {
		hsn  string
		shop Shop
		want string
	}{
		{"8517", big, "the HSN code 8517 has 4 digits; a shop whose aggregate turnover is above ₹5,00,00,000.00 gives six (Notification 78/2020-Central Tax), such as 8517xx"},
		{"8599", small, "the HSN code 8599 is not a heading of the HSN list loaded (galla hsn import)" + check},
		{"8599", big, "the HSN code 8599 is not a heading of the HSN list loaded (galla hsn import)" + check},
		{"0000", small, "the HSN code 0000 is not an HSN code of goods: chapter 00 does not exist (goods are chapters 01 to 97, without 77)" + check},
		{"7788", small, "the HSN code 7788 is not an HSN code of goods: chapter 77 does not exist (goods are chapters 01 to 97, without 77)" + check},
		{"9901", small, "the HSN code 9901 is a services code (SAC, chapter 99), not goods; a catalog row is goods, so check the code on the invoice from your supplier"},
		{"980100", big, "the HSN code 980100 is of chapter 98, India's chapter for special cases such as project imports and baggage, not goods sold from a catalog" + check},
		{"851799", big, "the HSN code 851799 is not a subheading of the HSN list loaded (galla hsn import): heading 8517 has no subheading 851799" + check},
		{"85179900", big, "the HSN code 85179900 is not in the HSN list loaded (galla hsn import): its first six digits 851799 are not a subheading of heading 8517 (an 8-digit tariff item extends a subheading)" + check},
		{"85991300", small, "the HSN code 85991300 is not in the HSN list loaded (galla hsn import): its heading 8599 is not" + check},
		{"85171400", big, "the HSN code 85171400 is not a tariff item of the HSN list loaded (galla hsn import): subheading 851714 has the tariff items 85171410 and 85171490" + check},
	} {
		var ie *ImportError
		_, err := row(tt.hsn).CheckRates(tt.shop, day, list)
		require.ErrorAs(t, err, &ie, "HSN %s", tt.hsn)
		require.Len(t, ie.Problems, 1)
		assert.Equal(t, 1, ie.Problems[0].Item)
		assert.Equal(t, tt.want, ie.Problems[0].Msg, "HSN %s", tt.hsn)
	}
}

// TestHSNWithoutAList: with no HSN list loaded, a code the built-in master
// lists is checked against it (an 8-digit code by its subheading); any other
// code is checked for its form only and accepted, and CheckRates names it
// (once) among the codes so checked; a code of no chapter of goods, or too
// short for the shop's turnover, is refused all the same.
func TestHSNWithoutAList(t *testing.T) {
	day := time.Date(2026, 11, 26, 12, 0, 0, 0, ist)
	small := Shop{Turnover: 4_00_00_000_00}
	big := Shop{Turnover: 12_50_00_000_00}
	cat, err := NewCatalog([]Product{
		{SKU: "PH", Name: "Phone", HSN: "851713", Price: 59000_00, GSTRate: Percent(18)},
		{SKU: "PH8", Name: "Phone", HSN: "85171300", Price: 59000_00, GSTRate: Percent(18)},
		{SKU: "CBL", Name: "Cable", HSN: "8544", Price: 499_00, GSTRate: Percent(18)},
		{SKU: "TSH", Name: "T-shirt", HSN: "610910", Price: 499_00, GSTRate: Percent(5)},
		{SKU: "TSH2", Name: "T-shirt", HSN: "610910", Price: 599_00, GSTRate: Percent(5)},
		{SKU: "ODD", Name: "Odd thing", HSN: "85991300", Price: 99_00, GSTRate: Percent(18)},
	})
	require.NoError(t, err)
	formOnly, err := cat.CheckRates(small, day, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"610910", "85991300"}, formOnly)

	for _, tt := range []struct {
		hsn  string
		shop Shop
		want string
	}{
		{"7788", small, "the HSN code 7788 is not an HSN code of goods: chapter 77 does not exist"},
		{"9954", small, "the HSN code 9954 is a services code (SAC, chapter 99)"},
		{"9801", small, "the HSN code 9801 is of chapter 98"},
		{"0012", small, "chapter 00 does not exist"},
		{"8517", big, "the HSN code 8517 has 4 digits"},
		{"6109", big, "the HSN code 6109 has 4 digits"},
	} {
		c, err := NewCatalog([]Product{{SKU: "X", Name: "X", HSN: tt.hsn, Price: 100_00, GSTRate: Percent(18)}})
		require.NoError(t, err)
		formOnly, err := c.CheckRates(tt.shop, day, nil)
		var ie *ImportError
		require.ErrorAs(t, err, &ie, "HSN %s", tt.hsn)
		assert.Contains(t, ie.Problems[0].Msg, tt.want)
		assert.Empty(t, formOnly)
	}
}

// TestBuiltinHSNCoversTheSampleCatalog: every HSN code of the sample catalog
// Galla ships is one the built-in master lists, so that the sample imports
// with its codes checked and described; a row added with a code it lacks
// fails here until the code is added to pos/hsn/builtin.go.
func TestBuiltinHSNCoversTheSampleCatalog(t *testing.T) {
	cat, err := LoadCatalogJSON(assets.SampleCatalog())
	require.NoError(t, err)
	require.NotZero(t, cat.Len())
	for _, p := range cat.Products() {
		assert.True(t, builtinHas(p.HSN), "SKU %s: HSN %s is not in the built-in master", p.SKU, p.HSN)
		assert.NotEmpty(t, HSNDescription(p.HSN), "SKU %s: HSN %s", p.SKU, p.HSN)
	}
	formOnly, err := cat.CheckRates(Shop{}, time.Date(2026, 11, 26, 12, 0, 0, 0, ist), nil)
	require.NoError(t, err)
	assert.Empty(t, formOnly)
}

// TestHSNDescription: table 12's desc is the built-in master's text of the
// code's subheading, else its heading; "" for a code it does not list.
func TestHSNDescription(t *testing.T) {
	for _, tt := range []struct{ code, want string }{
		{"851713", "Smartphones"},
		{"85171300", "Smartphones"},
		{"8517", "Telephone sets"},
		{"854442", "Cables with connectors"},
		{"85444299", "Cables with connectors"},
		{"847130", "Laptops and tablets"},
		{"3926", "Other articles of plastics"},
		{"71023910", "Other non-industrial diamonds"},
		{"7118", "Coins"},
		{"1006", "Rice"},
		// a subheading the master lacks: its heading's text
		{"85179900", "Telephone sets"},
		{"8599", ""},
		{"85", ""},
		{"", ""},
	} {
		assert.Equal(t, tt.want, HSNDescription(tt.code), "HSNDescription(%q)", tt.code)
	}
}

// TestHSNTariffItems: with a list that gives India's tariff items of a
// subheading, an 8-digit code under it must be one of them, refused with a
// sentence naming the code and the subheading's items; under a subheading
// whose items the list does not give, it is checked by its first six
// digits; desc is the tariff item's text when the list has it, else the
// subheading's or heading's, cut to 30 characters at a word.
func TestHSNTariffItems(t *testing.T) {
	m := testHSNList(t)
	const check = "; check the code on the invoice from your supplier"
	for _, tt := range []struct{ code, want string }{
		{"61091000", ""},
		{"61099050", ""},
		{"85171410", ""},
		{"85171300", ""}, // the list gives no tariff item of 851713: checked by six digits
		{"851714", ""},
		{"6109", ""},
		{"61091090", "the HSN code 61091090 is not a tariff item of the HSN list loaded (galla hsn import): subheading 610910 has the tariff item 61091000" + check},
		{"61099099", "the HSN code 61099099 is not a tariff item of the HSN list loaded (galla hsn import): subheading 610990 has 6 tariff items, 61099010, 61099020, 61099030, 61099040 and 2 more" + check},
		{"85171200", "the HSN code 85171200 is not in the HSN list loaded (galla hsn import): its first six digits 851712 are not a subheading of heading 8517 (an 8-digit tariff item extends a subheading)" + check},
	} {
		assert.Equal(t, tt.want, hsnUnknown(m, tt.code), "hsnUnknown(%s)", tt.code)
	}
	for _, tt := range []struct{ code, want string }{
		{"61091000", "T-shirts of cotton for men"}, // the tariff item's
		{"85171410", "Satellite phones"},
		{"85171300", "Telephone sets; smartphones"}, // the subheading's: no item listed
		{"61091090", "T-shirts; of cotton, knitted"},
		{"610990", "T-shirts; of other textiles"}, // cut at 30, the comma dropped
		{"6109", "T-shirts, singlets"},            // "and other" only joins what was cut
		{"8517", "Telephone sets"},
		{"85444299", "Insulated electric conductors"},
		{"8599", ""},
	} {
		assert.Equal(t, tt.want, hsnDescription(m, tt.code), "hsnDescription(%s)", tt.code)
	}
}

// TestHSNDescriptionsOfTheBuiltin: every code of the built-in master has
// its own text as desc, whole (1 to 30 characters: never cut).
func TestHSNDescriptionsOfTheBuiltin(t *testing.T) {
	m := hsn.Builtin()
	require.NotZero(t, m.Len())
	for _, code := range m.Codes() {
		full, _ := m.Description(code)
		got := HSNDescription(code)
		assert.Equal(t, full, got, "HSNDescription(%s)", code)
		assert.True(t, utf8.RuneCountInString(got) >= 1 && utf8.RuneCountInString(got) <= 30, "HSNDescription(%s) = %q", code, got)
	}
}

// TestShortHSNDesc: at most 30 characters, whole words, no parenthesis left
// open, no joining word or comma at the end.
func TestShortHSNDesc(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Rice", "Rice"},
		{"exactly thirty characters here", "exactly thirty characters here"},
		{"Potatoes, fresh (chilled or frozen)", "Potatoes, fresh"},
		{"Lamps; portable, electric, designed to function", "Lamps; portable, electric"},
		{"Sacks and bags, of a kind used for the packing of goods", "Sacks and bags, of a kind used"},
		{"Sacks and bags, of a kind for the packing of goods", "Sacks and bags"},
		{"Pneumonoultramicroscopicsilicovolcanoconiosis", "Pneumonoultramicroscopicsilico"},
		{"Naïve café crème brûlée, flambée à la française", "Naïve café crème brûlée"},
	} {
		got := shortHSNDesc(tt.in)
		assert.Equal(t, tt.want, got, "shortHSNDesc(%q)", tt.in)
		assert.LessOrEqual(t, len([]rune(got)), 30, got)
	}
}
