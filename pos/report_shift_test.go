package pos

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShiftSalesAreTheDaysSales: in one shift Meera sells a case (₹1,499) in
// cash, a cable (₹499) in cash whose invoice is then cancelled, and opens
// a split sale of a case with ₹500 paid in cash that stays open. The shift's
// sales by cashier are the X report's gross sales, by tender (₹1,499 in cash,
// one sale): the cancelled invoice and the open sale are in no sales total.
// The drawer holds the open sale's ₹500 and nothing of the cancelled one.
func TestShiftSalesAreTheDaysSales(t *testing.T) {
	r, tl := newShiftTill(t)
	ctx := t.Context()
	_, err := tl.Drawer.OpenShift(ctx, "meera", Rupees(2000))
	require.NoError(t, err)
	sold, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CASE", 1)}, Tender: TenderCash, Cashier: "meera"}, nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, sold.State)
	cancelled, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CBL", 1)}, Tender: TenderCash, Cashier: "meera"}, nil)
	require.NoError(t, err)
	_, err = tl.Returns.CancelDocument(ctx, cancelled.OrderID, managerPIN, "customer left")
	require.NoError(t, err)
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CASE", 1)}, Cashier: "meera"})
	require.NoError(t, err)
	_, err = tl.Checkout.Pay(ctx, PayRequest{Sale: st.Sale.ID, Tender: TenderCash, Amount: Rupees(500), Cashier: "meera"}, nil)
	require.NoError(t, err)

	x, err := tl.Books.Report(ctx, r.e.Today())
	require.NoError(t, err)
	require.Equal(t, Rupees(1499), x.GrossSales)
	rep, err := tl.Drawer.ShiftReport(ctx, "")
	require.NoError(t, err)
	require.Len(t, rep.ByCashier, 1)
	c := rep.ByCashier[0]
	assert.Equal(t, x.GrossSales, c.Amount, "the shift's sales are the day's")
	assert.Equal(t, map[TenderKind]Paise{TenderCash: Rupees(1499)}, c.ByTender)
	assert.Equal(t, 1, c.Count, "one sale")
	assert.Equal(t, Rupees(1499+499+500), rep.CashSales, "cash taken, the cancelled sale's and the open sale's too")
	assert.Equal(t, Rupees(499), rep.CashRefunds, "the cancelled sale's cash given back")
	assert.Equal(t, Rupees(2000+1499+500), rep.Expected)
}

// TestShiftReportListsEveryTender: the sales by cashier name UPI and credit
// notes as they name cash and cards.
func TestShiftReportListsEveryTender(t *testing.T) {
	rep := &ShiftReport{Shift: &Shift{ID: "S1"}, ByCashier: []CashierTotal{{Name: "Meera", Count: 1, Amount: Rupees(2998),
		ByTender: map[TenderKind]Paise{TenderUPI: Rupees(1000), TenderNote: Rupees(1499), TenderCash: Rupees(499)}}}}
	var b bytes.Buffer
	require.NoError(t, rep.WriteText(&b))
	assert.Contains(t, b.String(), "Meera: 1 sale(s), ₹2,998.00 (cash ₹499.00, note ₹1,499.00, upi ₹1,000.00)")
}

// TestShiftReportSignsOnlyWhatLeftTheDrawer: refunds, paid out and drops are
// shown taken from the drawer, and nothing taken is shown as ₹0.00, not
// -₹0.00.
func TestShiftReportSignsOnlyWhatLeftTheDrawer(t *testing.T) {
	rep := &ShiftReport{Shift: &Shift{ID: "S1"}, CashRefunds: Rupees(250)}
	var b bytes.Buffer
	require.NoError(t, rep.WriteText(&b))
	out := b.String()
	assert.Regexp(t, `Cash refunds +-₹250\.00`, out)
	assert.Regexp(t, `Paid out +₹0\.00`, out)
	assert.Regexp(t, `Drops +₹0\.00`, out)
	assert.NotContains(t, out, "-₹0.00")
}
