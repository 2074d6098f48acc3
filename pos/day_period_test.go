package pos

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos/gstr"
)

// periodTill is a till with the shop's GSTIN set, for the dates of its documents.
func periodTill(t *testing.T) (*rig, *Till) {
	r, tl := newShiftTill(t)
	_, _, err := tl.Setup.SetShop(t.Context(), ShopDetails{Name: "Galla Mobiles", Address: "1 MG Road, Pune", State: "27", GSTIN: "27AAPFU0939F1ZV"}, managerPIN)
	require.NoError(t, err)
	return r, tl
}

// sellCable sells a cable for cash on tl and returns its order.
func sellCable(t *testing.T, r *rig, tl *Till) *Order {
	t.Helper()
	res, err := tl.Checkout.Pay(t.Context(), PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CBL", 1)}, Tender: TenderCash, Cashier: "meera"}, nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, res.State)
	return res.SaleOrder()
}

// csvSaleDays is day's CSV (Books.ExportCSV): each order's sale_day.
func csvSaleDays(t *testing.T, tl *Till, day time.Time) map[string]string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, tl.Books.ExportCSV(t.Context(), day, &b))
	rows, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	require.Equal(t, "sale_day", rows[0][1])
	out := map[string]string{}
	for _, row := range rows[1:] {
		out[row[0]] = row[1]
	}
	return out
}

// documentDates are the documents of the days from to to, with the date each
// is listed under.
func documentDates(t *testing.T, tl *Till, from, to time.Time) map[string]string {
	t.Helper()
	docs, err := tl.Documents.ExportDocuments(t.Context(), from, to)
	require.NoError(t, err)
	out := map[string]string{}
	for _, d := range docs {
		out[d.Number] = ToDay(d.Date)
	}
	return out
}

// gstr1Docs are the document ranges of month's GSTR-1.
func gstr1Docs(t *testing.T, tl *Till, year int, month time.Month) []string {
	t.Helper()
	ret, err := tl.Documents.GSTR1(t.Context(), gstr.Month{Year: year, Month: month})
	require.NoError(t, err)
	var out []string
	if ret.DocIssue == nil {
		return out
	}
	for _, det := range ret.DocIssue.DocDet {
		for _, d := range det.Docs {
			out = append(out, d.From+".."+d.To)
		}
	}
	return out
}

// TestSaleAfterTheZOnTheTill: on Sun 22 Nov a sale, the Z, then a sale at
// 20:30 on a shift opened after the Z (ADR 0010). The evening's sale is dated
// the 22nd everywhere: its order and document, the CSV's sale_day, November's
// GSTR-1, the X report (the open period only), the shift's business day, the
// journal's list of the 22nd. The second Z of the date covers the evening only;
// the next calendar date's sale is the 23rd's.
func TestSaleAfterTheZOnTheTill(t *testing.T) {
	r, tl := periodTill(t)
	ctx := t.Context()
	day := r.clock.Now() // Sun 22 Nov 10:00
	morning := sellCable(t, r, tl)
	z1, err := tl.Books.CloseDay(ctx, CloseDayRequest{PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, "2026-11-22", z1.Report.Day)

	r.clock.Advance(10*time.Hour + 30*time.Minute)
	assert.Equal(t, "2026-11-22", tl.Books.BusinessDay())
	assert.Equal(t, 22, tl.Books.BusinessDate().Day(), "the journal and the close dialog name the 22nd")
	_, err = tl.Drawer.OpenShift(ctx, "meera", 0)
	require.NoError(t, err)
	evening := sellCable(t, r, tl)
	assert.Equal(t, "2026-11-22", evening.Day)

	// The document and the accountant's files.
	fy := FinancialYear(day)
	assert.Equal(t, map[string]string{"T1/" + fy + "/000001": "2026-11-22", "T1/" + fy + "/000002": "2026-11-22"},
		documentDates(t, tl, day, day))
	assert.Equal(t, map[string]string{morning.ID: "2026-11-22", evening.ID: "2026-11-22"}, csvSaleDays(t, tl, day))
	assert.Equal(t, []string{"T1/" + fy + "/000001..T1/" + fy + "/000002"}, gstr1Docs(t, tl, 2026, time.November))

	// F9: the X report is the open period's, the journal lists the date's.
	x, err := tl.Books.XReport(ctx, day)
	require.NoError(t, err)
	assert.Contains(t, x, "X report — 2026-11-22")
	assert.Regexp(t, `cash \(1\)\s+₹499.00`, x, "the sale after the Z only")
	orders, err := tl.Books.Orders(ctx, tl.Books.BusinessDate())
	require.NoError(t, err)
	assert.Len(t, orders, 2)

	// The shift of the evening.
	s, err := tl.Drawer.CurrentShift(ctx)
	require.NoError(t, err)
	require.NotNil(t, s)
	sr, err := tl.Drawer.ShiftReport(ctx, s.ID)
	require.NoError(t, err)
	var text strings.Builder
	require.NoError(t, sr.WriteText(&text))
	assert.Contains(t, text.String(), "Business day 2026-11-22")
	_, err = tl.Drawer.CloseShift(ctx, "meera", CashCount{Paise: Rupees(499)})
	require.NoError(t, err)

	// The second Z of the 22nd: the evening's sale.
	z2, err := tl.Books.CloseDay(ctx, CloseDayRequest{PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, "2026-11-22", z2.Report.Day)
	assert.Equal(t, 2, z2.Report.Period)
	assert.Equal(t, z1.Report.ZNo+1, z2.Report.ZNo)
	assert.Equal(t, Rupees(499), z2.Report.GrossSales)
	assert.Contains(t, tl.Books.ZText(ctx, z2), "2026-11-22, Z 2 of 22 Nov")
	_, err = tl.Books.CloseDay(ctx, CloseDayRequest{PIN: managerPIN})
	assert.ErrorIs(t, err, ErrDayClosed)
	assert.Equal(t, map[string]string{morning.ID: "2026-11-22", evening.ID: "2026-11-22"}, csvSaleDays(t, tl, day), "the date's CSV after its second Z")

	// The next calendar date.
	r.clock.Advance(12 * time.Hour)
	_, err = tl.Drawer.OpenShift(ctx, "meera", 0)
	require.NoError(t, err)
	next := sellCable(t, r, tl)
	assert.Equal(t, "2026-11-23", next.Day)
	assert.Equal(t, map[string]string{next.ID: "2026-11-23"}, csvSaleDays(t, tl, r.clock.Now()))
}

// TestMonthEndSaleAfterTheZOnTheTill: the sale of 31 Dec after its Z is
// December's, in the CSV, its document and GSTR-1; January's holds none.
func TestMonthEndSaleAfterTheZOnTheTill(t *testing.T) {
	r, tl := periodTill(t)
	ctx := t.Context()
	r.clock.Advance(39 * 24 * time.Hour) // Thu 31 Dec 10:00
	day := r.clock.Now()
	require.Equal(t, "2026-12-31", ToDay(day))
	morning := sellCable(t, r, tl)
	_, err := tl.Books.CloseDay(ctx, CloseDayRequest{PIN: managerPIN})
	require.NoError(t, err)
	r.clock.Advance(11 * time.Hour) // 21:00
	evening := sellCable(t, r, tl)
	fy := FinancialYear(day)
	assert.Equal(t, map[string]string{morning.ID: "2026-12-31", evening.ID: "2026-12-31"}, csvSaleDays(t, tl, day))
	assert.Equal(t, map[string]string{"T1/" + fy + "/000001": "2026-12-31", "T1/" + fy + "/000002": "2026-12-31"},
		documentDates(t, tl, day, day))
	assert.Equal(t, []string{"T1/" + fy + "/000001..T1/" + fy + "/000002"}, gstr1Docs(t, tl, 2026, time.December))
	assert.Empty(t, gstr1Docs(t, tl, 2027, time.January))
}
