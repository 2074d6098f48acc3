package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPayWritesASale: a new sale paid by one tender (Checkout.Pay naming no
// sale) is written on the sale path: the sale holding the cart and its
// document, and its one tender, an order of its own that the payment service
// knows. A tender refused before any money moved leaves no sale open (refused
// before the sale's commit, nothing of it is journaled); a card the issuer
// declined leaves the sale open with its tender FAILED, and the tender is paid
// again on its own order.
func TestPayWritesASale(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	caseLine := []CartLine{r.cartLine(t, "ACC-CASE", 1)}
	pay := func(req PayRequest) (PayOutcome, error) {
		req.OTP, req.Unattended, req.Cashier = r.td.OTP, true, "001"
		return tl.Checkout.Pay(ctx, req, nil)
	}

	t.Run("paid", func(t *testing.T) {
		out, err := pay(PayRequest{Lines: caseLine, Tender: TenderCard, Card: card("4111111111111111")})
		require.NoError(t, err)
		require.Equal(t, StatePaid, out.State, out.Reason)
		require.NotNil(t, out.Sale)
		require.True(t, out.Sale.Complete())
		require.Len(t, out.Sale.Tenders, 1, "a sale of one tender")
		assert.Equal(t, TenderSplit, out.Sale.Sale.Tender, "the sale's own order holds the cart")
		assert.Equal(t, out.OrderID, out.Sale.Tenders[0].Order.ID, "the outcome's order is the tender's")
		assert.NotEqual(t, out.OrderID, out.SaleID())
		assert.Equal(t, out.SaleID(), out.Order.Sale, "the tender names its sale")
		assert.Equal(t, out.Sale.Sale.Number(tl.Terminal()), out.ReceiptNo, "the document is the sale's")
		assert.NotEmpty(t, out.ReceiptNo)
		sale := out.SaleOutcome()
		assert.Equal(t, out.SaleID(), sale.OrderID)
		assert.Equal(t, out.Sale.Sale, sale.Order)
	})

	t.Run("refused before money moved", func(t *testing.T) {
		tv := []CartLine{r.cartLine(t, "TV-LG-OLED55C4", 1)}
		plan, err := tl.Checkout.FindOffer(ctx, tv, "ICICI", 18)
		require.NoError(t, err)
		before := len(r.j.allEvents())
		_, err = pay(PayRequest{Lines: tv, Tender: TenderEMI, Offer: &plan, Card: card("4386280000000004"),
			Buyer: &Buyer{Name: "Asha Rao", Address: "12 MG Road, Pune", State: "27"}})
		require.ErrorIs(t, err, ErrOfferNotForCard)
		open, err := tl.Checkout.OpenSales(ctx)
		require.NoError(t, err)
		assert.Empty(t, open, "no sale is left open for the refused tender")
		// The sale is journaled with its tender's intent, in one commit: a
		// tender refused before it leaves nothing to drop.
		assert.Len(t, r.j.allEvents(), before, "nothing of the refused sale is journaled")
	})

	t.Run("declined", func(t *testing.T) {
		out, err := pay(PayRequest{Lines: caseLine, Tender: TenderCard, Card: card("4000000000000002")})
		require.NoError(t, err)
		require.Equal(t, StateFailed, out.State)
		assert.True(t, out.CanRetry)
		require.NotNil(t, out.Sale)
		assert.Equal(t, StateOpen, out.Sale.Sale.State, "the sale stays open with its failed tender")
		assert.True(t, out.Sale.HoldsNoMoney())
		open, err := tl.Checkout.OpenSales(ctx)
		require.NoError(t, err)
		require.Len(t, open, 1)
		assert.Equal(t, out.SaleID(), open[0].Sale.ID)

		again, err := tl.Checkout.PayAgainOrder(ctx, out.SaleID())
		require.NoError(t, err, "the sale's id names the tender to pay again")
		assert.Equal(t, out.OrderID, again.ID)
		paid, err := pay(PayRequest{OrderID: again.ID, Tender: TenderCard, Card: card("4111111111111111")})
		require.NoError(t, err)
		require.Equal(t, StatePaid, paid.State, paid.Reason)
		assert.Equal(t, out.OrderID, paid.OrderID, "paid again on the same order")
		require.NotNil(t, paid.Sale)
		assert.True(t, paid.Sale.Complete())
		assert.Equal(t, paid.Sale.Sale.Number(tl.Terminal()), paid.ReceiptNo)
	})
}

// TestCheckEMIOrderOpensASale: a brand-EMI sale whose IMEIs are validated
// before the card (CheckEMIOrder naming no sale) opens the sale and its EMI
// tender. Going back before the card (CancelEMIOrder) drops the sale with its
// tender, its phone free again at the counter; the card pays the tender, and
// the document is the sale's.
func TestCheckEMIOrderOpensASale(t *testing.T) {
	start := func(t *testing.T) (*rig, *Till, PayRequest, string) {
		r := newRig(t)
		tl := r.till(t)
		ctx := t.Context()
		phone, ok := tl.Shelf.Lookup("PH-SAM-S24")
		require.True(t, ok)
		lines := []CartLine{{Product: phone, Qty: 1}}
		offers, err := tl.Checkout.EMIOffers(ctx, lines)
		require.NoError(t, err)
		var plan *EMIPlan
		for i := range offers {
			if offers[i].IMEIRequired && offers[i].Issuer == "HDFC" && offers[i].TenureMonths == 6 {
				plan = &offers[i]
			}
		}
		require.NotNil(t, plan, "HDFC gives Samsung's brand offer")
		req := PayRequest{Lines: lines, IMEIs: []UnitIMEI{{ProductCode: phone.ProductCode, IMEI: r.samsungIMEI(t)}}, Tender: TenderEMI, Offer: plan, Cashier: "001"}
		id, err := tl.Checkout.CheckEMIOrder(ctx, req)
		require.NoError(t, err)
		o, err := r.e.Order(ctx, id)
		require.NoError(t, err)
		assert.True(t, o.IMEIsValidated, "the IMEI is validated before the card is asked for")
		require.NotEmpty(t, o.Sale, "the EMI order is the tender of a sale")
		open, err := tl.Checkout.OpenSales(ctx)
		require.NoError(t, err)
		require.Len(t, open, 1)
		assert.Equal(t, o.Sale, open[0].Sale.ID)
		return r, tl, req, id
	}

	t.Run("back before the card", func(t *testing.T) {
		_, tl, req, id := start(t)
		ctx := t.Context()
		require.NoError(t, tl.Checkout.CancelEMIOrder(ctx, id))
		open, err := tl.Checkout.OpenSales(ctx)
		require.NoError(t, err)
		assert.Empty(t, open, "the sale opened for the tender is dropped with it")
		assert.NoError(t, tl.IMEIs.CheckIMEIFree(ctx, req.IMEIs[0].IMEI), "its phone is free again")
	})

	t.Run("paid", func(t *testing.T) {
		r, tl, req, id := start(t)
		ctx := t.Context()
		req.OrderID, req.Card, req.OTP, req.Unattended = id, card("4386280000000004"), r.td.OTP, true
		out, err := tl.Checkout.Pay(ctx, req, nil)
		require.NoError(t, err)
		require.Equal(t, StatePaid, out.State, out.Reason)
		assert.Equal(t, id, out.OrderID)
		require.NotNil(t, out.Sale)
		assert.True(t, out.Sale.Complete())
		assert.Equal(t, out.Sale.Sale.Number(tl.Terminal()), out.ReceiptNo, "the document is the sale's")
		assert.ErrorIs(t, tl.IMEIs.CheckIMEIFree(ctx, req.IMEIs[0].IMEI), ErrIMEISold)
	})
}

// TestSalePathCommits: a new sale on the sale path takes the commits DESIGN.md
// section 7 allows. The sale's intent, its tender and the tender's intent are
// one commit, and the tender's outcome, the sale's completion and its document
// number another: a card or bank-EMI sale takes 4 (with create order's and the
// payment's answers), a cash sale 2. Each kind and its order in the journal is
// as it was.
func TestSalePathCommits(t *testing.T) {
	tests := []struct {
		name    string
		tender  TenderKind
		sku     string
		card    string
		issuer  string
		commits int
		kinds   []EventKind
	}{
		{"card", TenderCard, "ACC-CASE", "4111111111111111", "", 4,
			[]EventKind{EvOrderIntent, EvTenderAdded, EvOrderIntent, EvOrderCreated, EvPaymentAccepted, EvPaymentOutcome, EvSaleCompleted}},
		{"bank EMI", TenderEMI, "TV-LG-OLED55C4", "4386280000000004", "HDFC", 4,
			[]EventKind{EvOrderIntent, EvTenderAdded, EvOrderIntent, EvOrderCreated, EvPaymentAccepted, EvPaymentOutcome, EvSaleCompleted}},
		{"cash", TenderCash, "ACC-CASE", "", "", 2,
			[]EventKind{EvOrderIntent, EvTenderAdded, EvOrderIntent, EvCashReceived, EvSaleCompleted}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, tl := newReturnTill(t)
			ctx := t.Context()
			lines := []CartLine{r.cartLine(t, tt.sku, 1)}
			req := PayRequest{Lines: lines, Tender: tt.tender, Cashier: "001", OTP: r.td.OTP, Unattended: true,
				Buyer: &Buyer{Name: "Asha Rao", Address: "12 MG Road, Pune", State: "27"}}
			if tt.card != "" {
				req.Card = card(tt.card)
			}
			if tt.issuer != "" {
				offers, err := tl.Checkout.EMIOffers(ctx, lines)
				require.NoError(t, err)
				for i := range offers {
					if offers[i].Issuer == tt.issuer && !offers[i].IMEIRequired && req.Offer == nil {
						req.Offer = &offers[i]
					}
				}
				require.NotNil(t, req.Offer, "a bank offer of %s", tt.issuer)
			}
			before, seq := r.j.commitCount(), len(r.j.allEvents())
			out, err := tl.Checkout.Pay(ctx, req, nil)
			require.NoError(t, err)
			require.Equal(t, StatePaid, out.State, out.Reason)
			require.NotNil(t, out.Sale)
			require.True(t, out.Sale.Complete())
			assert.Equal(t, tt.commits, r.j.commitCount()-before, "fsync'd commits of a %s sale", tt.name)
			var kinds []EventKind
			for _, ev := range r.j.allEvents()[seq:] {
				kinds = append(kinds, ev.Kind)
			}
			assert.Equal(t, tt.kinds, kinds, "the events of the sale, in the order they were always journaled")
		})
	}
}
