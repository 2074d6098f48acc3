package pos

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/receipts"
)

func TestUPILink(t *testing.T) {
	got, err := UPILink("galla.shop@okhdfc", "Galla Mobiles & Co", 123450, "G1-2", "Sale G1")
	require.NoError(t, err)
	assert.Equal(t, "upi://pay?pa=galla.shop@okhdfc&pn=Galla%20Mobiles%20%26%20Co&am=1234.50&tr=G1-2&tn=Sale%20G1&cu=INR", got)

	got, err = UPILink("shop@ybl", "", 5, "R", "")
	require.NoError(t, err)
	assert.Equal(t, "upi://pay?pa=shop@ybl&am=0.05&tr=R&cu=INR", got)

	_, err = UPILink("", "Shop", 100, "R", "")
	assert.ErrorIs(t, err, ErrNoVPA)
}

func TestCheckVPA(t *testing.T) {
	for _, tt := range []struct {
		vpa string
		ok  bool
	}{
		{"", true}, {"shop@okhdfcbank", true}, {"galla.mobiles-1@ybl", true},
		{"shop", false}, {"@ybl", false}, {"shop@", false}, {"sh op@ybl", false}, {"shop@ybl@x", false},
	} {
		err := CheckVPA(tt.vpa)
		assert.Equal(t, tt.ok, err == nil, "CheckVPA(%q) = %v", tt.vpa, err)
		if err != nil {
			assert.Contains(t, Sentence(err), "shopname@okhdfcbank")
		}
	}
}

// jobPrinter records the jobs sent to the receipt printer.
type jobPrinter struct {
	mu   sync.Mutex
	jobs [][]byte
}

func (p *jobPrinter) Print(_ context.Context, job []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.jobs = append(p.jobs, append([]byte(nil), job...))
	return nil
}

func TestTillSplitTenderCashThenCard(t *testing.T) {
	r, tl, _, meera, ravi := auditRig(t)
	ctx := t.Context()
	prn := &jobPrinter{}
	tl.c.prn = func(receipts.Profile) (receipts.Printer, error) { return prn, nil }
	raw, _ := json.Marshal(receipts.Profile{Transport: receipts.TransportTCP, Address: "10.0.0.9:9100", Width: 80})
	_, err := r.j.Append(ctx, Event{Kind: EvSettingsChanged, Day: r.e.Today(), Setting: &Setting{Key: SettingPrinter, Value: raw}})
	require.NoError(t, err)

	lines, _, err := tl.Shelf.ParseItems(ctx, "ACC-CASE,ACC-CBL", nil)
	require.NoError(t, err)
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: lines, Cashier: ravi.ID})
	require.NoError(t, err)
	id := st.Sale.ID

	out, err := tl.Checkout.Pay(ctx, PayRequest{Sale: id, Tender: TenderCash, Amount: 70000, Tendered: 100000, Cashier: ravi.ID}, nil)
	require.NoError(t, err)
	assert.Equal(t, Paise(30000), out.Change)
	assert.Empty(t, out.Drawer)
	require.Len(t, prn.jobs, 1, "the drawer opens on the cash tender")
	assert.Equal(t, []byte{0x1B, 0x70, 0x00, 0x19, 0xFA}, prn.jobs[0])
	assert.Equal(t, Paise(129800), out.Sale.Due)
	assert.Empty(t, out.ReceiptNo)

	_, err = tl.Checkout.UPIRequest(ctx, id, 0)
	assert.ErrorIs(t, err, ErrNoVPA)
	assert.ErrorIs(t, tl.Setup.SaveVPA(ctx, ravi, "shop@ybl"), ErrNotManager)
	require.NoError(t, tl.Setup.SaveVPA(ctx, meera, " galla@okicici "))
	vpa, err := tl.Setup.VPA(ctx)
	require.NoError(t, err)
	assert.Equal(t, "galla@okicici", vpa)
	up, err := tl.Checkout.UPIRequest(ctx, id, 29800)
	require.NoError(t, err)
	assert.Equal(t, id+"-2", up.Ref)
	assert.Contains(t, up.Link, "am=298.00&tr="+id+"-2")
	out, err = tl.Checkout.Pay(ctx, PayRequest{Sale: id, Tender: TenderUPI, Amount: 29800, Cashier: ravi.ID}, nil)
	require.NoError(t, err)
	assert.Equal(t, Paise(100000), out.Sale.Due)

	out, err = tl.Checkout.Pay(ctx, PayRequest{Sale: id, Tender: TenderCard, Card: tl.Checkout.NewCard("4111111111111111", "12", "2030", "123", "A B"),
		OTP: r.td.OTP, Cashier: ravi.ID}, nil)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, out.State)
	require.NotNil(t, out.Sale)
	assert.True(t, out.Sale.Complete())
	assert.Equal(t, "T1/2627/000001", out.ReceiptNo, "the sale's document number, issued when covered")
	assert.Equal(t, Paise(100000), out.Amount, "the card paid the rest")

	open, err := tl.Checkout.OpenSales(ctx)
	require.NoError(t, err)
	assert.Empty(t, open)

	// The sale's receipt lists each tender that paid it.
	doc, err := tl.Documents.ReceiptDocument(ctx, id, -1)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, receipts.Text(&b, doc.Receipt, 48))
	txt := b.String()
	assert.Contains(t, txt, "Paid by cash")
	assert.Contains(t, txt, "700.00")
	assert.Contains(t, txt, "Change")
	assert.Contains(t, txt, "Paid by UPI")
	assert.Contains(t, txt, "298.00")
	assert.Contains(t, txt, "confirmed by the cashier")
	assert.Contains(t, txt, "1,000.00")
	assert.Contains(t, txt, "VISA")
	assert.Contains(t, txt, "1,998.00", "the sale's total")
}

func TestTillSplitTenderStaysOpen(t *testing.T) {
	r, tl, _, meera, ravi := auditRig(t)
	ctx := t.Context()
	_ = meera
	lines, _, err := tl.Shelf.ParseItems(ctx, "ACC-CASE", nil)
	require.NoError(t, err)
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: lines, Cashier: ravi.ID})
	require.NoError(t, err)
	_, err = tl.Checkout.Pay(ctx, PayRequest{Sale: st.Sale.ID, Tender: TenderCash, Amount: 10000, Cashier: ravi.ID}, nil)
	require.NoError(t, err)
	_, err = tl.Checkout.Pay(ctx, PayRequest{Sale: st.Sale.ID, Tender: TenderNote, NoteNo: "CN-1", Cashier: ravi.ID}, nil)
	assert.Equal(t, "\"CN-1\" is not a credit note number; it reads like T1/C2627/00012.", Sentence(err))

	// Another till on the same journal (a restart) shows the sale part paid.
	tl2, err := NewTill(ctx, TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	open, err := tl2.Checkout.OpenSales(ctx)
	require.NoError(t, err)
	require.Len(t, open, 1)
	assert.Equal(t, Paise(10000), open[0].Paid)
	assert.Equal(t, Paise(139900), open[0].Due)

	st2, err := tl2.Checkout.VoidSale(ctx, st.Sale.ID, managerPIN, "customer changed their mind")
	require.NoError(t, err)
	assert.Equal(t, StateVoided, st2.Sale.State)
	require.Len(t, st2.Tenders, 1, "the refused credit note added no tender")
	assert.Equal(t, StateRefunded, st2.Tenders[0].State, "the cash given back")
	assert.Equal(t, uint64(1), st2.Tenders[0].Order.Refunds[0].DocNo, "the cash refund's document")
}

func TestTillSplitTenderDeclinedThenSameOrder(t *testing.T) {
	r, tl, _, _, ravi := auditRig(t)
	ctx := t.Context()
	lines, _, err := tl.Shelf.ParseItems(ctx, "ACC-CASE", nil)
	require.NoError(t, err)
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: lines, Cashier: ravi.ID})
	require.NoError(t, err)
	id := st.Sale.ID
	_, err = tl.Checkout.Pay(ctx, PayRequest{Sale: id, Tender: TenderCash, Amount: 49900, Cashier: ravi.ID}, nil)
	require.NoError(t, err)

	out, err := tl.Checkout.Pay(ctx, PayRequest{Sale: id, Tender: TenderCard, Card: tl.Checkout.NewCard("4000000000000002", "12", "2030", "123", "A B"),
		OTP: r.td.OTP, Cashier: ravi.ID}, nil)
	require.NoError(t, err)
	require.Equal(t, StateFailed, out.State)
	assert.True(t, out.CanRetry)
	assert.Equal(t, Paise(100000), out.Sale.Due, "a declined tender counts for nothing")
	assert.Empty(t, out.ReceiptNo)

	again, err := tl.Checkout.Pay(ctx, PayRequest{Sale: id, OrderID: out.OrderID, Tender: TenderCard,
		Card: tl.Checkout.NewCard("4111111111111111", "12", "2030", "123", "A B"), OTP: r.td.OTP, Cashier: ravi.ID}, nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, again.State)
	assert.Equal(t, out.OrderID, again.OrderID, "paid again on the same order")
	assert.True(t, again.Sale.Complete())
	assert.Equal(t, "T1/2627/000001", again.ReceiptNo)
	lo := r.ledger(t, out.OrderID)
	assert.Len(t, lo.Payments, 2)
	assert.Equal(t, 1, lo.CapturedPayments)
	assert.Len(t, r.sb.Controls.Ledger(), 1, "no second order at the service")
}
