package pos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/assets"
)

// eanValid reports whether s is an EAN-13 with a valid check digit.
func eanValid(s string) bool {
	if len(s) != 13 || !allDigits(s) {
		return false
	}
	sum := 0
	for i := 0; i < 12; i++ {
		d := int(s[i] - '0')
		if i%2 == 1 {
			d *= 3
		}
		sum += d
	}
	return (10-sum%10)%10 == int(s[12]-'0')
}

func TestDefaultCatalog(t *testing.T) {
	c, err := DefaultCatalog()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, c.Len(), 35)

	codes := map[string]Product{}
	for _, p := range c.Products() {
		codes[p.ProductCode] = p
		assert.True(t, eanValid(p.Barcode), "%s: barcode %s is not a valid EAN-13", p.SKU, p.Barcode)
		if p.HSN == "8517" {
			assert.True(t, p.Serialised, "%s: a phone carries an IMEI", p.SKU)
			assert.Equal(t, Percent(18), p.GSTRate, "%s: GST of a phone", p.SKU)
		}
		if strings.HasPrefix(p.ProductCode, "ACC-") {
			assert.Less(t, p.Price, Rupees(3000), "%s: an accessory is under ₹3,000", p.SKU)
			assert.Equal(t, Percent(18), p.GSTRate, "%s: GST of an accessory", p.SKU)
		}
	}
	// The ADR's brand-offer table: every product code is in the sample catalog.
	adr := map[string][]string{
		"8517": {"SAMSUNG-S24", "SAMSUNG-A55", "SAMSUNG-M35", "SAMSUNG-ZFLIP6", "ONEPLUS-12", "ONEPLUS-12R", "ONEPLUS-NORD4", "XIAOMI-14", "XIAOMI-REDMI13", "APPLE-IP15", "APPLE-IP15PRO"},
		"":     {"LG-OLED55C4", "LG-FRIDGE655", "LG-WM9KG", "SONY-X80L55", "SONY-WH1000XM5", "VOLTAS-AC15", "VOLTAS-AC2T"},
	}
	for hsn, list := range adr {
		for _, code := range list {
			p, ok := codes[code]
			if !assert.True(t, ok, "product code %s of the ADR table is missing", code) {
				continue
			}
			assert.GreaterOrEqual(t, p.Price, Rupees(3000), "%s: bank EMI needs ₹3,000 or more", code)
			if hsn != "" {
				assert.Equal(t, hsn, p.HSN, code)
			} else {
				assert.False(t, p.Serialised, "%s: no IMEI", code)
			}
		}
	}
	assert.Equal(t, Rupees(74999), codes["SAMSUNG-S24"].Price)
	rates := map[Rate]bool{}
	for _, p := range c.Products() {
		rates[p.GSTRate] = true
	}
	// The rates in force since the GST rationalisation of September 2025: TVs and
	// air conditioners moved from 28% to 18%, solar devices from 12% to 5%.
	assert.True(t, rates[Percent(0)] && rates[Percent(5)] && rates[Percent(18)], "the sample has 0%%, 5%% and 18%% items: %v", rates)
	assert.False(t, rates[Percent(12)] || rates[Percent(28)], "no sample item is at a rate no longer used for it: %v", rates)

	// SampleCatalog returns a copy each time.
	a := assets.SampleCatalog()
	a[0] = 'X'
	assert.Equal(t, byte('['), assets.SampleCatalog()[0])
}

func TestImportCSV(t *testing.T) {
	in := "\ufeffSKU, name ,price,gst_rate,hsn,barcode,serialised,brand,product_code\n" +
		"PH-1,\"Phone One, 8GB\",\"74,999.00\",18,8517,8901234567890,yes,Samsung,SAMSUNG-S24\n" +
		"\n" +
		"ACC-1,Cable,499,18%,85444299,,no,,\n" +
		"BK-1,Book,399.5,0,4901,8901234567891,,,\n"
	c, err := ImportCSV(strings.NewReader(in))
	require.NoError(t, err)
	want := []Product{
		{SKU: "PH-1", Barcode: "8901234567890", Name: "Phone One, 8GB", Brand: "Samsung", ProductCode: "SAMSUNG-S24", Price: 7499900, GSTRate: Percent(18), HSN: "8517", Serialised: true},
		{SKU: "ACC-1", Name: "Cable", Price: 49900, GSTRate: Percent(18), HSN: "85444299"},
		{SKU: "BK-1", Barcode: "8901234567891", Name: "Book", Price: 39950, GSTRate: Percent(0), HSN: "4901"},
	}
	assert.Equal(t, want, c.Products())

	lookups := []struct {
		code string
		sku  string
		ok   bool
	}{
		{"PH-1", "PH-1", true},
		{"ph-1", "PH-1", true},
		{" 8901234567891 \n", "BK-1", true},
		{"890123456789", "", false},
		{"", "", false},
	}
	for _, tt := range lookups {
		p, ok := c.Lookup(tt.code)
		assert.Equal(t, tt.ok, ok, "Lookup(%q)", tt.code)
		assert.Equal(t, tt.sku, p.SKU, "Lookup(%q)", tt.code)
	}
}

// problemsOf returns the "line: message" of each problem of an *ImportError.
func problemsOf(t *testing.T, err error) []string {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, ErrBadCatalog)
	var ie *ImportError
	require.True(t, errors.As(err, &ie), "error %v is not an *ImportError", err)
	var out []string
	for _, p := range ie.Problems {
		out = append(out, fmt.Sprintf("%d: %s", p.Line, p.Msg))
	}
	return out
}

func TestImportCSVProblems(t *testing.T) {
	head := "sku,barcode,name,brand,product_code,price,gst_rate,hsn,serialised\n"
	tests := []struct {
		name string
		in   string
		want []string // "line: message start"
	}{
		{"empty", "", []string{"0: the file is empty"}},
		{"header only", head, []string{"0: the file holds no products"}},
		{"missing column", "sku,name,price,hsn\nA,B,1,1234\n", []string{`1: the required column "gst_rate" is missing`}},
		{"unknown column", "sku,name,price,gst_rate,hsn,colour\n", []string{`1: unknown column "colour"`}},
		{"twice", "sku,name,price,gst_rate,hsn,sku\n", []string{`1: column "sku" appears twice`}},
		{"every bad row", head +
			"OK-1,123,Good,,,10.00,18,8517,no\n" + // line 2: barcode 123 is fine
			",,No SKU,,,10,18,8517,\n" + // 3
			"B-1,12a,Bad barcode,,,10,18,8517,\n" + // 4
			"B-2,,,,,10,18,8517,\n" + // 5: no name
			"B-3,,Free,,,0,18,8517,\n" + // 6
			"B-4,,Odd rate,,,10,15,8517,\n" + // 7
			"B-5,,Short HSN,,,10,18,851,\n" + // 8
			"B-6,,Words,,,ten,eighteen,8517,maybe\n" + // 9
			"ok-1,,Dup SKU,,,10,18,8517,\n" + // 10
			"B-7,123,Dup barcode,,,10,18,8517,\n" + // 11
			"B-8,,Short row\n" + // 12
			"B 9,,Space in SKU,,,10,18,8517,\n" + // 13
			"B-10,,Old rate,,,10,12,8517,\n" + // 14
			"B-11,,Cigarettes,,,10,28,2402,\n" + // 15: 28% without its cess
			"B-12,,Five-digit HSN,,,10,18,85171,\n", // 16
			[]string{
				"3: the SKU is missing",
				"4: the barcode must be digits only",
				"5: the name is missing",
				"6: the price must be more than zero",
				"7: the GST rate 15% is not one of the rates in force since 22 September 2025 (0, 0.25, 1.5, 3, 5, 18, 28 or 40)",
				`8: the HSN code "851" must be 4, 6 or 8 digits`,
				"9: the price must be rupees",
				"9: the GST rate must be a number of percent: 0, 0.25, 1.5, 3, 5, 18, 28 or 40",
				"9: serialised must be yes or no",
				"10: the SKU is already used by line 2",
				"11: the barcode is already used by line 2",
				"12: the row has 3 fields; the header has 9",
				"13: the SKU may not contain spaces",
				"14: the GST rate 12% is not one of the rates in force since 22 September 2025",
				"15: 28% is kept only for goods that also bear a compensation cess",
				`16: the HSN code "85171" must be 4, 6 or 8 digits`,
			}},
		{"bad quote", head + "A,,\"Name,,,10,18,8517,\n", []string{"2: the row cannot be read"}},
		{"barcode is a SKU", head + "111,,A,,,10,18,8517,\nB,111,B,,,10,18,8517,\n", []string{"3: the barcode is the SKU of line 2"}},
		{"multi-line row", head + "A,,\"Two\nlines\",,,10,18,8517,\nB,,B,,,-1,18,8517,\n", []string{"2: the name must be plain text", "4: the price must be more than zero"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ImportCSV(strings.NewReader(tt.in))
			assert.Nil(t, c, "nothing is imported when a row is bad")
			got := problemsOf(t, err)
			require.Len(t, got, len(tt.want), "problems: %q", got)
			for i := range tt.want {
				assert.True(t, strings.HasPrefix(got[i], tt.want[i]), "problem %d = %q; want it to start %q", i, got[i], tt.want[i])
			}
		})
	}
}

// The rates since 22 September 2025 import with their decimals and cess; they
// write back the same.
func TestImportRatesAndCess(t *testing.T) {
	in := "sku,name,price,gst_rate,hsn,cess_rate\n" +
		"DIA-1,Cut diamond,100250.00,0.25,71023910,\n" +
		"GOLD-1,Gold coin 1g,10150,1.5,7118,\n" +
		"PAN-1,Pan masala 100g,188,28,2106,60\n" +
		"CAR-1,Car 1500cc,1400000,40,870323,\n" +
		"PH-1,Phone,59000,18%,8517,\n"
	c, err := ImportCSV(strings.NewReader(in))
	require.NoError(t, err)
	ps := c.Products()
	assert.Equal(t, []Rate{RateBP(25), RateBP(150), Percent(28), Percent(40), Percent(18)},
		[]Rate{ps[0].GSTRate, ps[1].GSTRate, ps[2].GSTRate, ps[3].GSTRate, ps[4].GSTRate})
	assert.Equal(t, Percent(60), ps[2].Cess)
	assert.True(t, ps[0].Cess.IsZero())
	// A pan masala line: ₹188.00 = taxable 100.00 + GST 28.00 + cess 60.00.
	assert.Equal(t, LineTax{Amount: 18800, Taxable: 10000, Tax: 2800, CGST: 1400, SGST: 1400, Cess: 6000}, LineFor(ps[2], 1).Tax())

	var js bytes.Buffer
	require.NoError(t, c.WriteJSON(&js))
	assert.Contains(t, js.String(), `"gst_rate": 0.25`)
	assert.Contains(t, js.String(), `"cess_rate": 60`)
	back, err := ImportJSON(&js)
	require.NoError(t, err)
	assert.Equal(t, ps, back.Products())
	var cs bytes.Buffer
	require.NoError(t, c.WriteCSV(&cs))
	back, err = ImportCSV(&cs)
	require.NoError(t, err)
	assert.Equal(t, ps, back.Products())
}

func TestImportCSVTooManyProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString("sku,name,price,gst_rate,hsn\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "S%d,Name,0,18,8517\n", i)
	}
	_, err := ImportCSV(strings.NewReader(b.String()))
	got := problemsOf(t, err)
	assert.Len(t, got, maxProblems+1)
	assert.Contains(t, got[len(got)-1], "too many problems")
}

func TestImportJSON(t *testing.T) {
	in := `[
  {"sku": "PH-1", "barcode": "8901234567890", "name": "Phone", "brand": "Samsung",
   "product_code": "SAMSUNG-S24", "price": "74999.00", "gst_rate": 18, "hsn": "8517", "serialised": true},
  {"sku": "ACC-1", "name": "Cable", "price": 499, "gst_rate": 18, "hsn": "8544"},
  {"sku": "ACC-2", "name": "Case", "price": 99.5, "gst_rate": 5, "hsn": "3926"}
]`
	c, err := ImportJSON(strings.NewReader(in))
	require.NoError(t, err)
	want := []Product{
		{SKU: "PH-1", Barcode: "8901234567890", Name: "Phone", Brand: "Samsung", ProductCode: "SAMSUNG-S24", Price: 7499900, GSTRate: Percent(18), HSN: "8517", Serialised: true},
		{SKU: "ACC-1", Name: "Cable", Price: 49900, GSTRate: Percent(18), HSN: "8544"},
		{SKU: "ACC-2", Name: "Case", Price: 9950, GSTRate: Percent(5), HSN: "3926"},
	}
	assert.Equal(t, want, c.Products())
}

func TestImportJSONProblems(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"not an array", `{"sku":"A"}`, []string{"1: the file must hold a JSON array"}},
		{"empty array", `[]`, []string{"0: the file holds no products"}},
		{"empty file", ``, []string{"1: the JSON text ends too early"}},
		{"truncated", "[\n{\"sku\":\"A\",", []string{"2: the JSON text"}},
		{"syntax", "[\n{\"sku\":\"A\"},\n{\"sku\" \"B\"}\n]", []string{`2: the field "gst_rate" is missing`, "3: the JSON text is broken here"}},
		{"trailing", `[{"sku":"A","name":"A","price":"1","gst_rate":0,"hsn":"4901"}] x`, []string{"1: "}},
		{"every bad item", `[
{"sku":"A","name":"A","price":"1.00","gst_rate":0,"hsn":"4901"},
{"sku":"B","name":"B","price":"1.00","hsn":"4901"},
{"sku":"C","name":"C","price":"1.00","gst_rate":0,"hsn":"4901","colour":"red"},
{"sku":"D","name":"D","price":"1e3","gst_rate":0,"hsn":"4901"},
{"sku":"E","name":"E","price":"1.00","gst_rate":"18","hsn":"4901"},
"F",
{"sku":"a","name":"dup","price":"1.00","gst_rate":0,"hsn":"4901"},
{"sku":"G","name":"G","gst_rate":0,"hsn":"4901"},
{"sku":"H","name":"H","price":"-5","gst_rate":7,"hsn":"49"}
]`, []string{
			`3: the field "gst_rate" is missing`,
			`4: unknown field "colour"`,
			"5: the price must be rupees",
			`6: the field "gst_rate" has the wrong type`,
			"7: each product must be a JSON object",
			"8: the SKU is already used by line 2",
			`9: the field "price" is missing`,
			"10: the price must be more than zero",
			"10: the GST rate 7% is not one of",
			`10: the HSN code "49" must be 4, 6 or 8 digits`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LoadCatalogJSON([]byte(tt.in))
			assert.Nil(t, c)
			got := problemsOf(t, err)
			require.Len(t, got, len(tt.want), "problems: %q", got)
			for i := range tt.want {
				assert.True(t, strings.HasPrefix(got[i], tt.want[i]), "problem %d = %q; want it to start %q", i, got[i], tt.want[i])
			}
		})
	}
}

func TestNewCatalog(t *testing.T) {
	good := Product{SKU: " A ", Name: "A", Price: 100, GSTRate: Percent(18), HSN: "8517"}
	c, err := NewCatalog([]Product{good})
	require.NoError(t, err)
	assert.Equal(t, "A", c.Products()[0].SKU, "fields are trimmed")

	_, err = NewCatalog([]Product{good, {SKU: "a", Name: "B", Price: MaxPrice + 1, GSTRate: Percent(18), HSN: "8517"}})
	var ie *ImportError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, []Problem{
		{Item: 2, SKU: "a", Msg: "the price is more than ₹1,00,00,000.00"},
		{Item: 2, SKU: "a", Msg: "the SKU is already used by item 1"},
	}, ie.Problems)
	assert.Equal(t, "pos: import catalog: 2 problems; item 2 (SKU a): the price is more than ₹1,00,00,000.00; item 2 (SKU a): the SKU is already used by item 1", err.Error())

	_, err = NewCatalog(nil)
	assert.ErrorIs(t, err, ErrBadCatalog)
}

func TestCatalogRoundTrip(t *testing.T) {
	c, err := DefaultCatalog()
	require.NoError(t, err)

	var j bytes.Buffer
	require.NoError(t, c.WriteJSON(&j))
	fromJSON, err := ImportJSON(&j)
	require.NoError(t, err)
	assert.Equal(t, c.Products(), fromJSON.Products())

	var csv bytes.Buffer
	require.NoError(t, c.WriteCSV(&csv))
	fromCSV, err := ImportCSV(&csv)
	require.NoError(t, err)
	assert.Equal(t, c.Products(), fromCSV.Products())

	// A Product's own JSON form round-trips too (the journal stores it).
	p := c.Products()[0]
	data, err := json.Marshal(p)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"price":"74999.00"`)
	var back Product
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, p, back)
}

func TestSearch(t *testing.T) {
	c, err := DefaultCatalog()
	require.NoError(t, err)
	skus := func(ps []Product) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.SKU)
		}
		return out
	}
	tests := []struct {
		query string
		limit int
		want  []string // exactly these, in this order
	}{
		{"PH-SAM-S24-256-GRY", 5, []string{"PH-SAM-S24-256-GRY"}},
		{"ph-sam-s24", 5, []string{"PH-SAM-S24-256-BLK", "PH-SAM-S24-256-GRY"}},
		{"s24", 10, []string{"PH-SAM-S24-256-BLK", "PH-SAM-S24-256-GRY", "ACC-CASE-S24", "ACC-SG-S24"}},
		{"galaxy s24 case", 10, []string{"ACC-CASE-S24"}},
		{"  IPHONE 15 pro ", 10, []string{"PH-APL-IP15PRO-128"}},
		{"8806095124018", 10, []string{"PH-SAM-S24-256-BLK"}},
		{"voltas", 10, []string{"AC-VOL-15T-3S", "AC-VOL-2T-5S"}},
		{"ton", 10, []string{"AC-VOL-15T-3S", "AC-VOL-2T-5S"}},
		{"zzz", 10, nil},
		{"!!!", 10, nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, skus(c.Search(tt.query, tt.limit)), "Search(%q, %d)", tt.query, tt.limit)
	}

	// Barcode prefix: every Samsung (880609...) product, each once.
	got := c.Search("880609", 100)
	require.NotEmpty(t, got)
	for _, p := range got {
		assert.True(t, strings.HasPrefix(p.Barcode, "880609"), p.SKU)
	}
	assert.Len(t, slices.Compact(slices.Sorted(slices.Values(skus(got)))), len(got), "no product twice")

	// Substring after word prefix: "phone" is a word of no name but is inside
	// "Headphones" and "Earphones".
	got = c.Search("phones", 10)
	assert.ElementsMatch(t, []string{"AU-SONY-WH1000XM5", "ACC-EAR-BASS100"}, skus(got))

	assert.Len(t, c.Search("a", 3), 3, "limit")
	assert.Len(t, c.Search("", 0), min(c.Len(), DefaultSearchLimit), "empty query lists the catalog")
}

// genCatalog builds n products with names like a large store's, deterministically.
func genCatalog(tb testing.TB, n int) *Catalog {
	tb.Helper()
	brands := []string{"Samsung", "OnePlus", "Xiaomi", "Apple", "LG", "Sony", "Voltas", "boAt", "Portronics", "Philips", "Havells", "Bajaj", "Godrej", "Whirlpool", "Realme", "Vivo", "Oppo", "Lenovo", "HP", "Dell"}
	kinds := []string{"Smartphone", "LED TV", "Refrigerator", "Washing Machine", "Split AC", "Headphones", "Earbuds", "Charger", "Cable", "Power Bank", "Laptop", "Mixer Grinder", "Iron", "Fan", "Speaker", "Smartwatch", "Trimmer", "Kettle"}
	colours := []string{"Black", "Blue", "Silver", "Green", "White", "Red", "Grey", "Gold"}
	r := rand.New(rand.NewPCG(1, 2))
	ps := make([]Product, n)
	for i := range ps {
		b := brands[r.IntN(len(brands))]
		k := kinds[r.IntN(len(kinds))]
		ps[i] = Product{
			SKU:     fmt.Sprintf("%s-%s-%06d", strings.ToUpper(b[:2]), strings.ToUpper(k[:2]), i),
			Barcode: fmt.Sprintf("890%010d", i*7919%10_000_000_000),
			Name:    fmt.Sprintf("%s %s %s%d %s", b, k, string(rune('A'+r.IntN(26))), r.IntN(900)+100, colours[r.IntN(len(colours))]),
			Brand:   b, Price: Paise(r.IntN(10_000_000) + 100), GSTRate: []Rate{Percent(5), RateBP(25), Percent(18), Percent(40)}[r.IntN(4)], HSN: "8517",
		}
	}
	c, err := NewCatalog(ps)
	require.NoError(tb, err)
	return c
}

// searchQueries are what a cashier types, letter by letter.
var searchQueries = []string{"s", "sa", "sam", "samsung", "samsung tv", "led tv bl", "890000", "8900001234", "sa-le-00", "phone", "a5", "k717", "zzzz", "xiaomi power bank gold"}

// naiveMatch is the rule Search implements, checked one product at a time; key is
// the product's name and brand words, each preceded by a space.
func naiveMatch(p Product, key, q string) bool {
	q = strings.ToLower(strings.TrimSpace(q))
	if strings.HasPrefix(strings.ToLower(p.SKU), q) || (allDigits(q) && strings.HasPrefix(p.Barcode, q)) {
		return true
	}
	toks := words(q)
	if len(toks) == 0 {
		return false
	}
	for _, t := range toks {
		if !strings.Contains(key, t) {
			return false
		}
	}
	return true
}

func TestSearchLarge(t *testing.T) {
	c := genCatalog(t, 20_000)
	ps := c.Products()
	keys := map[string]string{}
	for _, p := range ps {
		keys[p.SKU] = " " + strings.Join(words(p.Name+" "+p.Brand), " ")
	}
	for _, q := range searchQueries {
		want := 0
		for _, p := range ps {
			if naiveMatch(p, keys[p.SKU], q) {
				want++
			}
		}
		for _, limit := range []int{10, len(ps)} {
			got := c.Search(q, limit)
			assert.LessOrEqual(t, len(got), limit)
			seen := map[string]bool{}
			for _, p := range got {
				assert.True(t, naiveMatch(p, keys[p.SKU], q), "Search(%q) gave %s %q which does not match", q, p.SKU, p.Name)
				assert.False(t, seen[p.SKU], "Search(%q) gave %s twice", q, p.SKU)
				seen[p.SKU] = true
			}
			assert.Equal(t, min(want, limit), len(got), "Search(%q, %d) found %d of the %d matches", q, limit, len(got), want)
		}
	}
}

// BenchmarkCatalogSearch measures one search as typed over 50,000 products (the
// budget of DESIGN.md section 7 is 1 ms); compare with BenchmarkCatalogSearchFloor.
func BenchmarkCatalogSearch(b *testing.B) {
	c := genCatalog(b, 50_000)
	i := 0
	for b.Loop() {
		c.Search(searchQueries[i%len(searchQueries)], 20)
		i++
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(time.Millisecond), "x-budget")
}

// BenchmarkCatalogSearchFloor is the floor: one map lookup of a scanned barcode.
func BenchmarkCatalogSearchFloor(b *testing.B) {
	c := genCatalog(b, 50_000)
	i := 0
	for b.Loop() {
		c.Lookup(searchQueries[i%len(searchQueries)])
		i++
	}
}

// checkCatalog asserts the invariants of any catalog an import returns.
func checkCatalog(t *testing.T, c *Catalog) {
	t.Helper()
	require.NotNil(t, c)
	ps := c.Products()
	require.NotEmpty(t, ps)
	skus, barcodes := map[string]bool{}, map[string]bool{}
	for _, p := range ps {
		require.Empty(t, validate(p, true), "imported product %+v is not valid", p)
		k := strings.ToLower(p.SKU)
		require.False(t, skus[k], "SKU %q twice", p.SKU)
		skus[k] = true
		if p.Barcode != "" {
			require.False(t, barcodes[p.Barcode], "barcode %q twice", p.Barcode)
			barcodes[p.Barcode] = true
		}
		got, ok := c.Lookup(p.SKU)
		require.True(t, ok)
		require.Equal(t, p, got)
	}
	var j bytes.Buffer
	require.NoError(t, c.WriteJSON(&j))
	again, err := ImportJSON(&j)
	require.NoError(t, err, "re-import of the export")
	require.Equal(t, ps, again.Products())
}

func FuzzImportCSV(f *testing.F) {
	f.Add("sku,name,price,gst_rate,hsn\nA,B,1.00,18,8517\n")
	f.Add("sku,barcode,name,brand,product_code,price,gst_rate,hsn,serialised\nPH-1,8901234567890,Phone,Samsung,SAMSUNG-S24,74999.00,18,8517,yes\n")
	f.Add("sku,name,price,gst_rate,hsn\nA,B,0,15,85\nA,\"x\n")
	f.Add("\ufeffsku,name,price,gst_rate,hsn\n\"A\",\"B,C\",\"1,499.50\",5%,12345678\n")
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ImportCSV(strings.NewReader(in))
		if err != nil {
			require.Nil(t, c)
			require.ErrorIs(t, err, ErrBadCatalog)
			require.NotEmpty(t, Sentence(err))
			return
		}
		checkCatalog(t, c)
	})
}

func FuzzImportJSON(f *testing.F) {
	f.Add(`[{"sku":"A","name":"B","price":"1.00","gst_rate":18,"hsn":"8517"}]`)
	f.Add(string(assets.SampleCatalog()))
	f.Add(`[{"sku":"A","name":"B","price":1e3,"gst_rate":18,"hsn":"8517"},{"sku":"a"}]`)
	f.Add(`[{"sku":"A","name":"B","price":"1","gst_rate":"18","hsn":8517}] []`)
	f.Fuzz(func(t *testing.T, in string) {
		c, err := LoadCatalogJSON([]byte(in))
		if err != nil {
			require.Nil(t, c)
			require.ErrorIs(t, err, ErrBadCatalog)
			require.NotEmpty(t, Sentence(err))
			return
		}
		checkCatalog(t, c)
	})
}

// TestSampleCatalogFindsWhatCashiersType checks that the words a counter uses for
// everyday items find them in the sample catalog as typed.
func TestSampleCatalogFindsWhatCashiersType(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	for _, q := range []string{"charger", "cable", "case", "earphones", "s24", "iphone"} {
		assert.NotEmpty(t, cat.Search(q, 10), "Search(%q)", q)
	}
}

// A catalog stored by the journal under the rates of its day (12%, 28% without
// cess) still opens; importing it again is refused with the row named.
func TestRestoreCatalogKeepsOldRates(t *testing.T) {
	old := `[{"sku":"PEN","name":"Pen","price":"10.00","gst_rate":12,"hsn":"9608"},
{"sku":"TV","name":"TV","price":"77990.00","gst_rate":28,"hsn":"8528"}]`
	c, err := RestoreCatalogJSON([]byte(old))
	require.NoError(t, err)
	assert.Equal(t, Percent(12), c.Products()[0].GSTRate)
	_, err = LoadCatalogJSON([]byte(old))
	got := problemsOf(t, err)
	require.Len(t, got, 2)
	assert.Contains(t, got[0], "1: the GST rate 12% is not one of the rates in force")
	assert.Contains(t, got[1], "2: 28% is kept only for goods that also bear a compensation cess")
	// The HSN is checked either way.
	_, err = RestoreCatalogJSON([]byte(`[{"sku":"PEN","name":"Pen","price":"10.00","gst_rate":12,"hsn":"96"}]`))
	assert.ErrorIs(t, err, ErrBadCatalog)
}
