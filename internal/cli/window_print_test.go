package cli

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/ui"
)

// TestWindowTillRefundAndReportPrints checks the real engine behind the journal
// screen's refund receipt and report slips: drawn as PNGs, printed as ESC/POS, and
// the refund receipt's copies journaled apart from the sale's.
func TestWindowTillRefundAndReportPrints(t *testing.T) {
	ctx := t.Context()
	till := newWindowTill(t)
	require.NoError(t, till.Crew.AddStaff(ctx, "Asha", ui.RoleManager, "432100"))
	found := till.Shelf.Search("samsung", 1)
	require.NotEmpty(t, found)
	p := found[0]
	require.True(t, p.Serialised, "a phone: it is sold with its IMEI")
	sale, err := till.Checkout.Pay(ctx, ui.PayRequest{Lines: []ui.Line{{Product: p, Qty: 1}}, IMEIs: []ui.IMEI{{ProductCode: p.ProductCode, IMEI: "490154203237518"}},
		Tender: pos.TenderCash, Tendered: p.Price, Cashier: "Asha"}, nil)
	require.NoError(t, err)
	require.Equal(t, pos.StatePaid, sale.State)

	_, err = till.Documents.RefundReceipt(ctx, sale.OrderID)
	require.Error(t, err, "no refund yet")
	assert.Contains(t, pos.Sentence(err), "no done refund")

	out, err := till.Returns.Refund(ctx, sale.OrderID, pos.Rupees(100), "432100")
	require.NoError(t, err)
	require.True(t, out.Verified)

	img, err := till.Documents.RefundReceipt(ctx, sale.OrderID)
	require.NoError(t, err)
	_, err = png.Decode(bytes.NewReader(img))
	require.NoError(t, err, "the refund receipt preview is a PNG")
	err = till.Documents.PrintRefund(ctx, sale.OrderID)
	require.Error(t, err, "no printer is set up")
	assert.Contains(t, pos.Sentence(err), "Settings")

	img, err = till.Documents.ReportReceipt(ctx, till.eng.Now())
	require.NoError(t, err)
	_, err = png.Decode(bytes.NewReader(img))
	require.NoError(t, err, "the report slip is a PNG")

	printer := filepath.Join(t.TempDir(), "printer.bin")
	require.NoError(t, till.Setup.SaveSettings(ctx, manager(t, till), ui.Settings{ShopName: "Sharma Mobiles", PrinterProfile: "80mm", PrinterAddr: printer}, ""))

	require.NoError(t, till.Documents.PrintRefund(ctx, sale.OrderID))
	job, err := os.ReadFile(printer)
	require.NoError(t, err)
	assert.Contains(t, string(job), "CREDIT NOTE", "a refund prints its credit note")
	assert.Contains(t, string(job), "Rs.100.00")
	assert.Contains(t, string(job), "Cashier Asha", "the manager's name, not their id")
	assert.NotContains(t, string(job), "DUPLICATE")
	require.NoError(t, os.Remove(printer))
	require.NoError(t, till.Documents.PrintRefund(ctx, sale.OrderID))
	job, err = os.ReadFile(printer)
	require.NoError(t, err)
	assert.Contains(t, string(job), "DUPLICATE - reprint 1", "the second copy is a reprint")

	o, err := till.eng.Order(ctx, sale.OrderID)
	require.NoError(t, err)
	require.Len(t, o.Refunds, 1)
	assert.True(t, o.Refunds[0].Printed)
	assert.Equal(t, 1, o.Refunds[0].Reprints)
	assert.False(t, o.Printed, "the sale's own receipt was never printed")

	require.NoError(t, os.Remove(printer))
	require.NoError(t, till.Documents.PrintReport(ctx, till.eng.Now()))
	job, err = os.ReadFile(printer)
	require.NoError(t, err)
	assert.Contains(t, string(job), "X REPORT")

	require.NoError(t, os.Remove(printer))
	res, err := till.Books.CloseDay(ctx, pos.CloseDayRequest{PIN: "432100", Print: true})
	require.NoError(t, err)
	z := till.Books.ZText(ctx, res)
	job, err = os.ReadFile(printer)
	require.NoError(t, err, "closing the day prints the Z report at once")
	assert.Contains(t, string(job), "Z REPORT No. 1")
	assert.Contains(t, z, "Z report no. 1 printed")
	require.NoError(t, os.Remove(printer))
	require.NoError(t, till.Documents.PrintReport(ctx, till.eng.Now()))
	job, err = os.ReadFile(printer)
	require.NoError(t, err)
	assert.Contains(t, string(job), "Z REPORT No. 1", "a closed day prints its sealed Z report")
}
