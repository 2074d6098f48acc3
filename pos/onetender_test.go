package pos

import (
	"bytes"
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/receipts"
)

// idLine matches the values a receipt prints that differ between two sales of
// the same cart: numbers, ids, the payment service's codes.
var idLine = regexp.MustCompile(`(?m)^(Invoice No\.|Order|  Auth code|  RRN|  Service order|  Payment id)( +)\S+$`)

// receiptFor prints the receipt of sale id as text, with its numbers and ids
// masked.
func receiptFor(t *testing.T, tl *Till, id string) string {
	t.Helper()
	d, err := tl.Documents.ReceiptDocument(t.Context(), id, -1)
	require.NoError(t, err)
	var w bytes.Buffer
	require.NoError(t, receipts.Text(&w, d.Receipt, 48))
	return idLine.ReplaceAllString(w.String(), "$1$2#")
}

// TestReceiptOfOneTenderSale: a sale paid by one tender prints as an order of
// one tender does: the same header, lines, GST and payment block (card brand and
// last four, EMI plan and instalments, the service's ids, cash tendered and
// change), whichever path wrote it. Each order of one tender is one the old
// journal (testdata/oldjournal) holds; the sale is the same cart sold on the
// sale path in that journal as it stood just before the order, at its time.
func TestReceiptOfOneTenderSale(t *testing.T) {
	for _, c := range []struct {
		name, card string // the card's number, "" for cash
		order      func(oldJournalFixture) string
		req        PayRequest // the tender (not EMI: see below)
	}{
		{"card", "4111111111111111", func(f oldJournalFixture) string { return f.Card }, PayRequest{Tender: TenderCard}},
		{"cash", "", func(f oldJournalFixture) string { return f.Cash }, PayRequest{Tender: TenderCash, Tendered: Rupees(2000)}},
		{"emi", "5522600000000005", func(f oldJournalFixture) string { return f.EMI }, PayRequest{Tender: TenderEMI}},
	} {
		t.Run(c.name, func(t *testing.T) {
			old, oldTill, r, tl := oldOneTenderOrder(t, c.order, nil)
			require.Equal(t, c.req.Tender, old.Tender, "an order of one tender")
			ctx := t.Context()
			var saleID string
			if old.EMI != nil {
				// The old order names no buyer: the engine's entry point did
				// not ask for one, where the till's pre-check asks for one on
				// a taxable value of ₹50,000 or more. The same sale is written
				// by the engine's sale path, as that entry point wrote it.
				offers, err := r.e.Payments.EMIOffers(ctx, old.Lines)
				require.NoError(t, err)
				plan, ok := offers.Find(old.EMI.Issuer, old.EMI.TenureMonths, old.EMI.Program)
				require.True(t, ok, "the old order's plan is offered")
				res, err := sellEMI(ctx, r.e, Sale{Lines: old.Lines, Staff: "001"}, plan, card(c.card), r.otp())
				require.NoError(t, err)
				require.Equal(t, ResultPaid, res.Status, res.Reason)
				saleID = res.Order.ID
			} else {
				s, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: cartOf(t, r, old), Cashier: "001"})
				require.NoError(t, err)
				req := c.req
				req.Sale, req.OTP, req.Unattended, req.Cashier = s.Sale.ID, r.td.OTP, true, "001"
				if c.card != "" {
					req.Card = card(c.card)
				}
				paid, err := tl.Checkout.Pay(ctx, req, nil)
				require.NoError(t, err)
				require.Equal(t, StatePaid, paid.State, paid.Reason)
				saleID = s.Sale.ID
			}
			st, err := r.e.Sales.SaleStatus(ctx, saleID)
			require.NoError(t, err)
			require.True(t, st.Complete())
			require.Len(t, st.Tenders, 1, "a sale of one tender")
			assert.Equal(t, old.DocNo, st.Sale.DocNo, "the number the old order took")

			assert.Equal(t, receiptFor(t, oldTill, old.ID), receiptFor(t, tl, saleID))
		})
	}
}

// TestReceiptQROfOneTenderSale: the QR printed on the receipt of a sale paid
// by one card carries what an order of one card's (the old journal's) carries:
// the payment service's order and payment ids (its tender's) and the amount
// paid; the merchant order id is the sale's, which galla receipt and refund
// take.
func TestReceiptQROfOneTenderSale(t *testing.T) {
	key := []byte("a key that signs the receipts' QR codes")
	one, oldTill, r, tl := oldOneTenderOrder(t, func(f oldJournalFixture) string { return f.Card }, key)
	ctx := t.Context()
	qr := func(tl *Till, id string) receipts.QRPayload {
		t.Helper()
		d, err := tl.Documents.ReceiptDocument(ctx, id, -1)
		require.NoError(t, err)
		require.NotEmpty(t, d.Receipt.QR)
		p, err := receipts.ParseQR(key, d.Receipt.QR)
		require.NoError(t, err)
		return p
	}
	require.Equal(t, TenderCard, one.Tender)
	old := qr(oldTill, one.ID)
	assert.Equal(t, receipts.QRPayload{MerchantOrderID: one.ID, ServiceOrderID: one.ServiceOrderID, PaymentID: one.PaymentID, Amount: int64(one.Captured)}, old)

	out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: cartOf(t, r, one), Tender: TenderCard, Card: card("4111111111111111"),
		OTP: r.td.OTP, Unattended: true, Cashier: "001"}, nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, out.State, out.Reason)
	tender := out.Order
	got := qr(tl, out.SaleID())
	assert.Equal(t, receipts.QRPayload{MerchantOrderID: out.SaleID(), ServiceOrderID: tender.ServiceOrderID, PaymentID: tender.PaymentID, Amount: int64(tender.Captured)}, got)
	assert.NotEmpty(t, got.ServiceOrderID)
	assert.NotEmpty(t, got.PaymentID)
	assert.Equal(t, old.Amount, got.Amount)
}

// oldOneTenderOrder opens the old journal (testdata/oldjournal) twice around
// its order of one tender that order names: with the journal up to that
// order's outcome (old, read by oldTill), and up to just before that order
// (r, tl), each on a clock at the moment the order was made, for a sale the
// sale path writes on tl to be compared with it: numbered and timed as it was.
// qrKey, when set, signs the receipts' QR codes.
func oldOneTenderOrder(t *testing.T, order func(oldJournalFixture) string, qrKey []byte) (old *Order, oldTill *Till, r *rig, tl *Till) {
	t.Helper()
	var f oldJournalFixture
	readJSON(t, filepath.Join(oldJournalDir, "orders.json"), &f)
	id := order(f)
	events := oldJournalEvents(t)
	first := slices.IndexFunc(events, func(e Event) bool { return e.OrderID == id })
	require.GreaterOrEqual(t, first, 0, "order %s is in the old journal", id)
	last := first
	for last+1 < len(events) && events[last+1].OrderID == id {
		last++
	}
	at := events[first].Time
	oldRig, oldTill, _ := openOldJournal(t, func(e Event) bool { return e.Seq <= events[last].Seq }, at, qrKey)
	old, err := oldRig.e.Order(t.Context(), id)
	require.NoError(t, err)
	require.True(t, old.State.Paid(), "the old order is paid")
	require.Empty(t, old.Sale, "an order of one tender")
	r, tl, _ = openOldJournal(t, func(e Event) bool { return e.Seq < events[first].Seq }, at, qrKey)
	_, err = r.e.Order(t.Context(), id)
	require.ErrorIs(t, err, ErrOrderNotFound, "the journal before the order")
	return old, oldTill, r, tl
}

// cartOf is the cart that sold o, as the counter rings it up again.
func cartOf(t *testing.T, r *rig, o *Order) []CartLine {
	t.Helper()
	var out []CartLine
	for _, l := range o.Lines {
		out = append(out, r.cartLine(t, l.SKU, l.Qty))
	}
	return out
}

// TestReportOfOneTenderSale: the X report counts a sale paid by one tender as
// it counts an order of one tender (the old journal's): once, in its tender,
// with its GST and document number, and one row (the sale's, paid as its
// tender says), not a row of its own beside its tender's.
func TestReportOfOneTenderSale(t *testing.T) {
	for _, c := range []struct {
		name  string
		order func(oldJournalFixture) string
		req   PayRequest
	}{
		{"card", func(f oldJournalFixture) string { return f.Card }, PayRequest{Tender: TenderCard, Card: card("4111111111111111")}},
		{"cash", func(f oldJournalFixture) string { return f.Cash }, PayRequest{Tender: TenderCash, Tendered: Rupees(2000)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			old, oldTill, r, tl := oldOneTenderOrder(t, c.order, nil)
			ctx := t.Context()
			report := func(tl *Till, id string) *Report {
				t.Helper()
				rep, err := tl.Books.Report(ctx, ToDay(r.clock.Now()))
				require.NoError(t, err)
				i := slices.IndexFunc(rep.Orders, func(o ReportRow) bool { return o.OrderID == id })
				require.GreaterOrEqual(t, i, 0, "%s has its row", id)
				rep.Orders[i].OrderID = "" // the ids of two sales differ
				return rep
			}
			want := report(oldTill, old.ID)

			before, err := tl.Books.Report(ctx, ToDay(r.clock.Now()))
			require.NoError(t, err)
			req := c.req
			req.Lines, req.OTP, req.Unattended, req.Cashier = cartOf(t, r, old), r.td.OTP, true, "001"
			out, err := tl.Checkout.Pay(ctx, req, nil)
			require.NoError(t, err)
			require.Equal(t, StatePaid, out.State, out.Reason)
			require.NotNil(t, out.Sale, "a new sale is written on the sale path")
			require.Len(t, out.Sale.Tenders, 1, "a sale of one tender")
			assert.NotEqual(t, out.OrderID, out.SaleID(), "the tender is an order of its own")
			got := report(tl, out.SaleID())
			assert.Len(t, got.Orders, len(before.Orders)+1, "one row for the sale and its one tender")
			assert.Equal(t, want, got)
		})
	}
}

// TestOneTenderSaleInTheJournal: the journal screen lists a sale paid by one
// tender in one row, as an order of one tender: the sale's id and document,
// paid as its tender says; a phone sold in it is held by the sale, which the
// IMEI search finds and the refusal names by its receipt.
func TestOneTenderSaleInTheJournal(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	const imei = "490154203237518"
	lines := []CartLine{r.cartLine(t, "PH-SAM-S24", 1)}
	units := []UnitIMEI{{ProductCode: "SAMSUNG-S24", IMEI: imei}}
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: lines, IMEIs: units, Cashier: "001"})
	require.NoError(t, err)
	out, err := tl.Checkout.Pay(ctx, PayRequest{Sale: st.Sale.ID, Tender: TenderCard, Card: card("4111111111111111"), OTP: r.td.OTP, Unattended: true, Cashier: "001"}, nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, out.State, out.Reason)
	require.True(t, out.Sale.Complete())

	rows, err := tl.Books.Orders(ctx, r.clock.Now())
	require.NoError(t, err)
	require.Len(t, rows, 1)
	assert.Equal(t, st.Sale.ID, rows[0].OrderID)
	assert.Equal(t, TenderCard, rows[0].Tender)
	assert.Equal(t, StatePaid, rows[0].State)
	assert.Contains(t, rows[0].Detail, "1111")
	assert.Equal(t, out.ReceiptNo, rows[0].ReceiptNo)

	err = tl.IMEIs.CheckIMEIFree(ctx, imei)
	sold, ok := errors.AsType[*IMEISoldError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, st.Sale.ID, sold.OrderID, "the sale holds the phone, not its tender")
	assert.NotEmpty(t, sold.ReceiptNo)
	assert.Contains(t, Sentence(err), "(receipt "+sold.ReceiptNo+")")
	found, err := tl.IMEIs.FindIMEI(ctx, imei)
	require.NoError(t, err)
	require.Len(t, found, 1)
	assert.Equal(t, st.Sale.ID, found[0].OrderID)
}

// TestPayAgainASale: an open sale whose card tender verifiably failed is paid
// again, on that tender's own order, by the sale's id; a sale paid is not.
func TestPayAgainASale(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CASE", 1)}, Cashier: "001"})
	require.NoError(t, err)
	declined, err := tl.Checkout.Pay(ctx, PayRequest{Sale: st.Sale.ID, Tender: TenderCard, Card: card("4000000000000002"), OTP: r.td.OTP, Unattended: true, Cashier: "001"}, nil)
	require.NoError(t, err)
	require.Equal(t, StateFailed, declined.State)

	o, err := tl.Checkout.PayAgainOrder(ctx, st.Sale.ID)
	require.NoError(t, err)
	assert.Equal(t, declined.OrderID, o.ID, "the failed tender's own order")
	assert.Equal(t, st.Sale.ID, o.Sale)
	paid, err := tl.Checkout.Pay(ctx, PayRequest{OrderID: o.ID, Tender: o.Tender, Card: card("4111111111111111"), OTP: r.td.OTP, Unattended: true, Cashier: "001"}, nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, paid.State, paid.Reason)
	require.NotNil(t, paid.Sale)
	assert.True(t, paid.Sale.Complete(), "the sale is complete once its tender is paid")

	_, err = tl.Checkout.PayAgainOrder(ctx, st.Sale.ID)
	require.ErrorIs(t, err, ErrNotPayableAgain)
	assert.Contains(t, Sentence(err), "already paid")

	cash, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CASE", 1)}, Cashier: "001"})
	require.NoError(t, err)
	_, err = tl.Checkout.Pay(ctx, PayRequest{Sale: cash.Sale.ID, Tender: TenderCash, Cashier: "001"}, nil)
	require.NoError(t, err)
	_, err = tl.Checkout.PayAgainOrder(ctx, cash.Sale.ID)
	require.ErrorIs(t, err, ErrNotPayableAgain)
	assert.Contains(t, Sentence(err), "paid in cash")
}

// TestForeignReturnOfASalePaidAtTheCounter: another counter may give back in
// cash the money of a sale whose tenders were all taken at the counter (as it
// may an order paid in cash), never that of a sale a card paid part of.
func TestForeignReturnOfASalePaidAtTheCounter(t *testing.T) {
	sale := func(kinds ...TenderKind) *Order {
		o := &Order{ID: "S", Tender: TenderSplit, State: StatePaid}
		for i, k := range kinds {
			id := string(rune('a' + i))
			o.Tenders = append(o.Tenders, SaleTender{OrderID: id, Kind: k, Amount: 100})
			o.Covered = append(o.Covered, id)
		}
		return o
	}
	assert.Contains(t, foreignDestinations(sale(TenderCash)), RefundToCash)
	assert.Contains(t, foreignDestinations(sale(TenderCash, TenderUPI)), RefundToCash)
	assert.NotContains(t, foreignDestinations(sale(TenderCash, TenderCard)), RefundToCash)
	assert.NotContains(t, foreignDestinations(&Order{ID: "S", Tender: TenderSplit, State: StatePaid}), RefundToCash, "a sale whose tenders are not named")
	failedCard := sale(TenderCard, TenderCash)
	failedCard.Covered = failedCard.Covered[1:] // the card failed; cash paid it
	assert.Contains(t, foreignDestinations(failedCard), RefundToCash)
}
