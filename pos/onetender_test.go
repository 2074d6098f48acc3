package pos

import (
	"bytes"
	"errors"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
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
// change), whichever path wrote it.
func TestReceiptOfOneTenderSale(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	_, _, err := tl.Setup.SetShop(ctx, ShopDetails{Name: "Galla Mobiles", Address: "1 MG Road, Pune", State: "27", GSTIN: "27AAPFU0939F1ZV"}, managerPIN)
	require.NoError(t, err)
	tv := []CartLine{r.cartLine(t, "TV-LG-OLED55C4", 1)}
	offers, err := tl.Checkout.EMIOffers(ctx, tv)
	require.NoError(t, err)
	var plan *EMIPlan
	for _, o := range offers {
		if o.Issuer == "ICICI" && o.TenureMonths == 18 && o.Program == ProgramBank {
			p := o
			plan = &p
		}
	}
	require.NotNil(t, plan)
	for _, c := range []struct {
		name, card string // the card's number, "" for cash
		req        PayRequest
	}{
		{"card", "4111111111111111", PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CASE", 1)}, Tender: TenderCard}},
		{"cash", "", PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CASE", 1), r.cartLine(t, "ACC-CBL", 2)}, Tender: TenderCash, Tendered: Rupees(3000)}},
		{"emi", "5522600000000005", PayRequest{Lines: tv, Tender: TenderEMI, Offer: plan, Buyer: &Buyer{Name: "Asha Rao", Address: "12 MG Road, Pune", State: "27"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := c.req
			req.OTP, req.Unattended, req.Cashier = r.td.OTP, true, "001"
			if c.card != "" {
				req.Card = card(c.card)
			}
			one := oneTenderOrder(t, r, req)
			require.Equal(t, c.req.Tender, one.Tender, "an order of one tender")

			st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: req.Lines, Cashier: "001", Buyer: req.Buyer})
			require.NoError(t, err)
			req.Sale, req.Lines = st.Sale.ID, nil
			if c.card != "" {
				req.Card = card(c.card)
			}
			paid, err := tl.Checkout.Pay(ctx, req, nil)
			require.NoError(t, err)
			require.Equal(t, StatePaid, paid.State, paid.Reason)
			require.NotNil(t, paid.Sale)
			require.True(t, paid.Sale.Complete())
			require.Len(t, paid.Sale.Tenders, 1, "a sale of one tender")

			assert.Equal(t, receiptFor(t, tl, one.ID), receiptFor(t, tl, st.Sale.ID))
		})
	}
}

// TestReceiptQROfOneTenderSale: the QR printed on the receipt of a sale paid
// by one card carries what an order of one card's carries: the payment
// service's order and payment ids (its tender's) and the amount paid; the
// merchant order id is the sale's, which galla receipt and refund take.
func TestReceiptQROfOneTenderSale(t *testing.T) {
	r := newRig(t)
	key := []byte("a key that signs the receipts' QR codes")
	tl, err := NewTill(t.Context(), TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t), QRKey: key})
	require.NoError(t, err)
	ctx := t.Context()
	qr := func(id string) receipts.QRPayload {
		t.Helper()
		d, err := tl.Documents.ReceiptDocument(ctx, id, -1)
		require.NoError(t, err)
		require.NotEmpty(t, d.Receipt.QR)
		p, err := receipts.ParseQR(key, d.Receipt.QR)
		require.NoError(t, err)
		return p
	}
	req := PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CASE", 1)}, Tender: TenderCard, Card: card("4111111111111111"),
		OTP: r.td.OTP, Unattended: true, Cashier: "001"}
	one := oneTenderOrder(t, r, req)
	old := qr(one.ID)
	assert.Equal(t, receipts.QRPayload{MerchantOrderID: one.ID, ServiceOrderID: one.ServiceOrderID, PaymentID: one.PaymentID, Amount: int64(one.Captured)}, old)

	req.Card = card("4111111111111111")
	out, err := tl.Checkout.Pay(ctx, req, nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, out.State, out.Reason)
	tender := out.Order
	got := qr(out.SaleID())
	assert.Equal(t, receipts.QRPayload{MerchantOrderID: out.SaleID(), ServiceOrderID: tender.ServiceOrderID, PaymentID: tender.PaymentID, Amount: int64(tender.Captured)}, got)
	assert.NotEmpty(t, got.ServiceOrderID)
	assert.NotEmpty(t, got.PaymentID)
	assert.Equal(t, old.Amount, got.Amount)
}

// oneTenderOrder writes req (card, bank EMI or cash, with the sandbox's OTP) as
// an order of one tender, the shape every journal written before the sale path
// holds (the engine's entry points of one tender), for a sale the sale path
// wrote to be compared with.
func oneTenderOrder(t *testing.T, r *rig, req PayRequest) *Order {
	t.Helper()
	ctx := t.Context()
	sale := Sale{Lines: SaleLines(req.Lines, req.IMEIs), Staff: req.Cashier}
	if req.Buyer != nil {
		b := req.Buyer.Normal()
		sale.Buyer = &b
	}
	gc, _ := req.Card.(*gateway.Card)
	var (
		res *Result
		err error
	)
	switch req.Tender {
	case TenderCash:
		res, err = r.e.Payments.PayCash(ctx, sale, req.Tendered)
	case TenderCard:
		res, err = r.e.Payments.CheckoutCard(ctx, sale, gc, r.otp())
	case TenderEMI:
		res, err = r.e.Payments.CheckoutEMI(ctx, sale, *req.Offer, gc, r.otp())
	default:
		t.Fatalf("oneTenderOrder: tender %s", req.Tender)
	}
	require.NoError(t, err)
	require.Equal(t, ResultPaid, res.Status, res.Reason)
	return res.Order
}

// TestReportOfOneTenderSale: the X report counts a sale paid by one tender as
// it counts an order of one tender: once, in its tender, with its GST and
// document number, and one row (the sale's, paid as its tender says), not a
// row of its own beside its tender's.
func TestReportOfOneTenderSale(t *testing.T) {
	for _, c := range []struct {
		name string
		req  PayRequest
	}{
		{"card", PayRequest{Tender: TenderCard}},
		{"cash", PayRequest{Tender: TenderCash, Tendered: Rupees(2000)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			reports := map[bool]*Report{}
			for _, split := range []bool{false, true} {
				r, tl := newReturnTill(t)
				ctx := t.Context()
				req := c.req
				req.Lines, req.OTP, req.Unattended, req.Cashier = []CartLine{r.cartLine(t, "ACC-CASE", 1)}, r.td.OTP, true, "001"
				if req.Tender == TenderCard {
					req.Card = card("4111111111111111")
				}
				saleID := ""
				if split {
					out, err := tl.Checkout.Pay(ctx, req, nil)
					require.NoError(t, err)
					require.Equal(t, StatePaid, out.State, out.Reason)
					require.NotNil(t, out.Sale, "a new sale is written on the sale path")
					require.Len(t, out.Sale.Tenders, 1, "a sale of one tender")
					saleID = out.SaleID()
					assert.NotEqual(t, out.OrderID, saleID, "the tender is an order of its own")
				} else {
					saleID = oneTenderOrder(t, r, req).ID
				}
				rep, err := tl.Books.Report(ctx, ToDay(r.clock.Now()))
				require.NoError(t, err)
				require.Len(t, rep.Orders, 1, "one row for the sale and its one tender")
				row := &rep.Orders[0]
				assert.Equal(t, saleID, row.OrderID, "an order of one tender is its row; a sale's row is the sale's")
				row.OrderID = "" // the ids of two sales differ
				reports[split] = rep
			}
			assert.Equal(t, reports[false], reports[true])
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
