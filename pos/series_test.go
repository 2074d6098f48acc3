package pos

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/internal/testclock"
)

func TestFinancialYear(t *testing.T) {
	utc := time.UTC
	tests := []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 4, 1, 0, 0, 0, 0, IST), "2627"},
		{time.Date(2027, 3, 31, 23, 59, 59, 0, IST), "2627"},
		{time.Date(2027, 4, 1, 0, 0, 0, 0, IST), "2728"},
		// 31 March 18:30 UTC is already 1 April in India.
		{time.Date(2027, 3, 31, 18, 29, 59, 0, utc), "2627"},
		{time.Date(2027, 3, 31, 18, 30, 0, 0, utc), "2728"},
		{time.Date(2099, 6, 1, 0, 0, 0, 0, IST), "9900"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, FinancialYear(tt.at), "FinancialYear(%v)", tt.at)
	}
}

func TestDocNumber(t *testing.T) {
	tests := []struct {
		terminal, series string
		no               uint64
		want             string
	}{
		{"T1", "2627", 123, "T1/2627/000123"},
		{"T1", "B2627", 12, "T1/B2627/00012"},
		{"T1", "C2627", 12, "T1/C2627/00012"},
		{"TILL", "C2627", 99999, "TILL/C2627/99999"},
		{"", "2627", 1, "2627/000001"},
		{"T1", "2627", 0, ""},
	}
	for _, tt := range tests {
		got := DocNumber(tt.terminal, tt.series, tt.no)
		assert.Equal(t, tt.want, got, "DocNumber(%q, %q, %d)", tt.terminal, tt.series, tt.no)
		assert.LessOrEqual(t, len(got), MaxDocNumber)
		if got != "" {
			s, n, ok := ParseDocNumber(got)
			assert.True(t, ok, "ParseDocNumber(%q)", got)
			assert.Equal(t, tt.series, s)
			assert.Equal(t, tt.no, n)
		}
	}
	assert.Equal(t, "T1-000123", Number("T1", "", 0, 123), "a document from before series keeps its number")
	for _, bad := range []string{"T1-000123", "T1/2627", "T1/X2627/00001", "T1/2627/abc", "T1/2627/000000", "a/b/c/d"} {
		_, _, ok := ParseDocNumber(bad)
		assert.False(t, ok, "ParseDocNumber(%q)", bad)
	}
	assert.NoError(t, CheckTerminal("T1"))
	assert.NoError(t, CheckTerminal("TILL"))
	for _, bad := range []string{"", "TILL5", "T/1", "T 1"} {
		assert.Error(t, CheckTerminal(bad), "CheckTerminal(%q)", bad)
	}
}

func TestSaleDocKind(t *testing.T) {
	taxed := []Line{{SKU: "A", GSTRate: Percent(18)}, {SKU: "B", GSTRate: Percent(0)}}
	exempt := []Line{{SKU: "B", GSTRate: Percent(0)}}
	reg := Shop{GSTIN: "27AAPFU0939F1ZV"}
	comp := Shop{GSTIN: "27AAPFU0939F1ZV", Composition: true}
	assert.Equal(t, DocInvoice, SaleDocKind(reg, taxed))
	assert.Equal(t, DocBillOfSupply, SaleDocKind(reg, exempt), "exempt goods only")
	assert.Equal(t, DocBillOfSupply, SaleDocKind(comp, taxed), "a composition shop")
	assert.Equal(t, DocInvoice, SaleDocKind(Shop{}, exempt), "a RECEIPT without GSTIN uses the invoice series")
}

// TestSeriesRestartOnFirstApril sells on 31 March and 1 April (IST) and checks
// the numbers the engine hands out: each series counts from 1, restarts with the
// financial year, and a composition shop's sales are bills of supply.
func TestSeriesRestartOnFirstApril(t *testing.T) {
	j := newMemJournal()
	clock := testclock.New(time.Date(2027, 3, 31, 23, 58, 0, 0, IST))
	e, err := New(Config{Journal: j, Clock: clock})
	require.NoError(t, err)
	cat, err := LoadCatalogJSON(catalogJSON(t))
	require.NoError(t, err)
	sell := func() *Order {
		t.Helper()
		c := NewCart(cat)
		_, err := c.Add("ACC-CBL", 1)
		require.NoError(t, err)
		lines, _, err := c.Checkout()
		require.NoError(t, err)
		res, err := sellCash(t.Context(), e, Sale{Lines: lines}, Rupees(499))
		require.NoError(t, err)
		return res.Order
	}
	var got []string
	got = append(got, sell().Number("T1"), sell().Number("T1"))
	clock.Advance(3 * time.Minute) // 1 April 00:01 IST
	got = append(got, sell().Number("T1"))
	shop, _ := json.Marshal(Shop{Name: "S", GSTIN: "27AAPFU0939F1ZV", State: "27", Composition: true})
	_, err = j.Append(t.Context(), Event{Kind: EvSettingsChanged, Time: clock.Now(), Setting: &Setting{Key: SettingShop, Value: shop}})
	require.NoError(t, err)
	got = append(got, sell().Number("T1"), sell().Number("T1"))
	assert.Equal(t, []string{"T1/2627/000001", "T1/2627/000002", "T1/2728/000001", "T1/B2728/00001", "T1/B2728/00002"}, got)
}

func TestSaleTitleFollowsTheSeries(t *testing.T) {
	reg := Shop{GSTIN: "27AAPFU0939F1ZV"}
	assert.Equal(t, "BILL OF SUPPLY", ReceiptFor(Order{Series: "B2627", DocNo: 3}, reg, ReceiptOptions{}).Title, "exempt goods only")
	assert.Equal(t, "TAX INVOICE", ReceiptFor(Order{Series: "2627", DocNo: 3}, reg, ReceiptOptions{}).Title)
	assert.Equal(t, "RECEIPT", ReceiptFor(Order{Series: "2627", DocNo: 3}, Shop{}, ReceiptOptions{}).Title)
	assert.Equal(t, "TAX INVOICE", ReceiptFor(Order{ReceiptNo: 3}, reg, ReceiptOptions{}).Title, "a document from before series")
}

// TestNoNumberSkippedAcrossACrash stops the terminal as a sale's completion is
// journaled: the number it would have taken was never handed out, and the next
// sale takes it.
func TestNoNumberSkippedAcrossACrash(t *testing.T) {
	j := newMemJournal()
	clock := testclock.New(time.Date(2026, 11, 22, 10, 0, 0, 0, IST))
	e, err := New(Config{Journal: j, Clock: clock})
	require.NoError(t, err)
	cat, err := LoadCatalogJSON(catalogJSON(t))
	require.NoError(t, err)
	sell := func() (*Result, error) {
		c := NewCart(cat)
		_, err := c.Add("ACC-CBL", 1)
		require.NoError(t, err)
		lines, _, err := c.Checkout()
		require.NoError(t, err)
		return sellCash(t.Context(), e, Sale{Lines: lines}, Rupees(499))
	}
	first, err := sell()
	require.NoError(t, err)
	assert.Equal(t, "T1/2627/000001", first.Order.Number("T1"))
	j.failNext = func(ev Event) error {
		if ev.Kind == EvSaleCompleted {
			require.Equal(t, uint64(2), ev.DocNo, "the sale would take number 2")
			return errCrash
		}
		return nil
	}
	_, err = sell()
	require.Error(t, err)
	j.failNext = nil
	e, err = New(Config{Journal: j, Clock: clock}) // the terminal restarted
	require.NoError(t, err)
	last, err := j.LastDocNo(t.Context(), "2627")
	require.NoError(t, err)
	assert.Equal(t, uint64(1), last, "nothing was handed out")
	next, err := sell()
	require.NoError(t, err)
	assert.Equal(t, "T1/2627/000002", next.Order.Number("T1"), "the next sale takes 2: none skipped")
}

func TestTillRefusesALongTerminalName(t *testing.T) {
	r := newRig(t)
	_, err := NewTill(t.Context(), TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t), Terminal: "COUNTER1"})
	require.Error(t, err)
	assert.Contains(t, Sentence(err), "1 to 4 letters or digits")
	_, err = NewTill(t.Context(), TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t), Terminal: "T12"})
	assert.NoError(t, err)
}
