package pos

import (
	"bytes"
	"regexp"
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
			one, err := tl.Checkout.Pay(ctx, req, nil)
			require.NoError(t, err)
			require.Equal(t, StatePaid, one.State, one.Reason)
			o, err := r.e.Order(ctx, one.OrderID)
			require.NoError(t, err)
			require.Equal(t, c.req.Tender, o.Tender, "an order of one tender")

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

			assert.Equal(t, receiptFor(t, tl, one.OrderID), receiptFor(t, tl, st.Sale.ID))
		})
	}
}

// TestReportOfOneTenderSale: the X report counts a sale paid by one tender as
// it counts an order of one tender: once, in its tender, with its GST and
// document number, and no row of its own beside its tender's.
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
				if split {
					st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: req.Lines, Cashier: "001"})
					require.NoError(t, err)
					req.Sale, req.Lines = st.Sale.ID, nil
				}
				out, err := tl.Checkout.Pay(ctx, req, nil)
				require.NoError(t, err)
				require.Equal(t, StatePaid, out.State, out.Reason)
				rep, err := tl.Books.Report(ctx, ToDay(r.clock.Now()))
				require.NoError(t, err)
				rep.Orders = nil // one row per order: a sale of one tender has its sale's and its tender's
				reports[split] = rep
			}
			assert.Equal(t, reports[false], reports[true])
		})
	}
}
