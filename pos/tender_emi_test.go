package pos

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// splitBrandEMI opens a split sale of one Samsung S24 (₹74,999) whose phone
// carries imei, takes ₹500 of it in cash and returns the sale's id and ICICI's
// Samsung brand offer (IMEIs mandatory) for the rest.
func splitBrandEMI(t *testing.T, r *rig, tl *Till, cashier, imei string) (string, EMIPlan) {
	t.Helper()
	ctx := t.Context()
	phone, ok := tl.Shelf.Lookup("PH-SAM-S24")
	require.True(t, ok)
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: []CartLine{{Product: phone, Qty: 1}}, IMEIs: []UnitIMEI{{ProductCode: phone.ProductCode, IMEI: imei}}, Cashier: cashier})
	require.NoError(t, err)
	require.Equal(t, Paise(7499900), st.Sale.Amount)
	out, err := tl.Checkout.Pay(ctx, PayRequest{Sale: st.Sale.ID, Tender: TenderCash, Amount: 50000, Cashier: cashier}, nil)
	require.NoError(t, err)
	require.Equal(t, Paise(7449900), out.Sale.Due)
	offers, err := tl.Checkout.SaleEMIOffers(ctx, st.Sale.ID, 0)
	require.NoError(t, err)
	for _, o := range offers {
		if o.IMEIRequired && o.Issuer == "ICICI" && strings.EqualFold(o.Brand, "SAMSUNG") {
			return st.Sale.ID, o
		}
	}
	t.Fatal("ICICI gives no Samsung brand offer for the rest")
	return "", EMIPlan{}
}

// otherIMEI is another phone of the same brand as imei: the same type
// allocation code (first 8 digits), another serial, its own check digit.
func otherIMEI(t *testing.T, imei string) string {
	t.Helper()
	body := imei[:8] + "765432"
	d, ok := LuhnCheckDigit(body)
	require.True(t, ok)
	out := body + string(d)
	require.NotEqual(t, imei, out)
	require.NoError(t, CheckIMEI(out))
	return out
}

// TestSplitBrandEMIWrongBrandBeforeCard: a split sale's brand-EMI tender has
// its IMEI validated with the service before any card is given: a phone of
// another brand is refused at once, its tender's order closed, and the sale
// stays open with the cash taken and the rest still due. The sale of the right
// phone is then journaled as every tender (tender.added on the sale, then its
// order's intent), its IMEI validated before the card, and paid on that same
// order, once.
func TestSplitBrandEMIWrongBrandBeforeCard(t *testing.T) {
	r, tl, _, _, ravi := auditRig(t)
	ctx := t.Context()
	var apple string
	for _, b := range r.td.Brands {
		if b.Brand == "APPLE" {
			apple = b.TestIMEI
		}
	}
	require.NotEmpty(t, apple)
	id, plan := splitBrandEMI(t, r, tl, ravi.ID, apple)

	_, err := tl.Checkout.CheckEMIOrder(ctx, PayRequest{Sale: id, Tender: TenderEMI, Offer: &plan, Cashier: ravi.ID})
	var ie *IMEIError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Problems, 1)
	assert.Equal(t, apple, ie.Problems[0].IMEI)
	assert.Contains(t, Sentence(err), "not a phone of this brand")
	assert.Zero(t, r.captures(), "no payment")
	for _, lo := range r.sb.Controls.Ledger() {
		assert.Empty(t, lo.Payments, "no card was sent for order %s", lo.MerchantOrderID)
	}
	st, err := tl.Checkout.SaleStatus(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, StateOpen, st.Sale.State)
	assert.Equal(t, Paise(50000), st.Paid, "the cash stays")
	assert.Zero(t, st.Pending, "the refused tender is closed, not left pending")
	assert.Equal(t, Paise(7449900), st.Due)
	require.Len(t, st.Tenders, 2)
	assert.Equal(t, TenderEMI, st.Tenders[1].Kind)
	assert.Equal(t, StateAbandoned, st.Tenders[1].State)

	// The right phone.
	samsung := r.samsungIMEI(t)
	id, plan = splitBrandEMI(t, r, tl, ravi.ID, samsung)
	req := PayRequest{Sale: id, Tender: TenderEMI, Offer: &plan, Cashier: ravi.ID}
	from := len(r.j.allEvents())
	tid, err := tl.Checkout.CheckEMIOrder(ctx, req)
	require.NoError(t, err)
	evs := r.j.allEvents()[from:]
	require.GreaterOrEqual(t, len(evs), 2)
	assert.Equal(t, EvTenderAdded, evs[0].Kind)
	assert.Equal(t, id, evs[0].OrderID)
	assert.Equal(t, tid, evs[0].Sale.Tender.OrderID)
	assert.Equal(t, Paise(7449900), evs[0].Sale.Tender.Amount)
	assert.Equal(t, EvOrderIntent, evs[1].Kind)
	assert.Equal(t, tid, evs[1].OrderID)
	o, err := r.e.Order(ctx, tid)
	require.NoError(t, err)
	assert.Equal(t, StateCreated, o.State)
	assert.True(t, o.IMEIsValidated, "validated before any card")
	assert.Equal(t, []string{samsung}, o.IMEIs)
	assert.Equal(t, id, o.Sale)
	assert.Zero(t, r.captures())

	req.OrderID = tid
	req.Card = card("5522600000000005") // ICICI
	req.OTP = r.td.OTP
	out, err := tl.Checkout.Pay(ctx, req, nil)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, out.State)
	assert.Equal(t, tid, out.OrderID, "the card paid the order whose IMEI was validated")
	assert.Equal(t, Paise(7449900), out.Amount)
	require.NotNil(t, out.Sale)
	assert.True(t, out.Sale.Complete())
	assert.Equal(t, 1, r.captures(), "charged once")
	assert.ErrorIs(t, tl.Checkout.CancelEMIOrder(ctx, tid), ErrNotCancellable, "a paid tender is never cancelled")
}

// TestSplitBrandEMIBackCancelsTender: going back from the card closes the
// brand-EMI tender's order opened before it; the sale stays open with its cash
// and the rest due again.
func TestSplitBrandEMIBackCancelsTender(t *testing.T) {
	r, tl, _, _, ravi := auditRig(t)
	ctx := t.Context()
	id, plan := splitBrandEMI(t, r, tl, ravi.ID, otherIMEI(t, r.samsungIMEI(t)))
	tid, err := tl.Checkout.CheckEMIOrder(ctx, PayRequest{Sale: id, Tender: TenderEMI, Offer: &plan, Cashier: ravi.ID})
	require.NoError(t, err)
	st, err := tl.Checkout.SaleStatus(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, Paise(7449900), st.Pending, "the tender waits for its card")
	assert.Zero(t, st.Due)

	require.NoError(t, tl.Checkout.CancelEMIOrder(ctx, tid))
	o, err := r.e.Order(ctx, tid)
	require.NoError(t, err)
	assert.Equal(t, StateAbandoned, o.State)
	st, err = tl.Checkout.SaleStatus(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, StateOpen, st.Sale.State)
	assert.Equal(t, Paise(50000), st.Paid, "the cash stays")
	assert.Zero(t, st.Pending)
	assert.Equal(t, Paise(7449900), st.Due)
	assert.Zero(t, r.captures())
}
