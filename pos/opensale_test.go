package pos

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// downPayment opens a split sale of one Samsung S24 (₹74,999) with a Samsung
// phone's IMEI, takes ₹10,000 of it in cash and returns the sale's id and
// ICICI's Samsung brand offer (IMEIs mandatory) for the rest.
func downPayment(t *testing.T, r *rig, tl *Till, cashier string) (string, EMIPlan) {
	t.Helper()
	ctx := t.Context()
	phone, ok := tl.Shelf.Lookup("PH-SAM-S24")
	require.True(t, ok)
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: []CartLine{{Product: phone, Qty: 1}}, IMEIs: []UnitIMEI{{ProductCode: phone.ProductCode, IMEI: r.samsungIMEI(t)}}, Cashier: cashier})
	require.NoError(t, err)
	out, err := tl.Checkout.Pay(ctx, PayRequest{Sale: st.Sale.ID, Tender: TenderCash, Amount: 1000000, Cashier: cashier}, nil)
	require.NoError(t, err)
	require.Equal(t, Paise(6499900), out.Sale.Due)
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

// restart is a terminal started again on the same journal: a new engine and
// till, nothing in memory from before.
func restart(t *testing.T, r *rig) *Till {
	t.Helper()
	e2, err := New(Config{Journal: r.j, Gateway: r.gw, Clock: r.clock, Customer: Customer{Mobile: "9000000001", Email: "counter@example.com"}})
	require.NoError(t, err)
	tl2, err := NewTill(t.Context(), TillConfig{Engine: e2, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	return tl2
}

// refusedEMI is a split sale with ₹10,000 paid in cash whose brand-EMI tender,
// its IMEI validated, was refused: the card's issuer (HDFC) does not give
// ICICI's offer. It returns the sale's id, the offer and the tender's order.
func refusedEMI(t *testing.T, r *rig, tl *Till, cashier string) (string, EMIPlan, string) {
	t.Helper()
	ctx := t.Context()
	id, plan := downPayment(t, r, tl, cashier)
	tid, err := tl.Checkout.CheckEMIOrder(ctx, PayRequest{Sale: id, Tender: TenderEMI, Offer: &plan, Cashier: cashier})
	require.NoError(t, err)
	out, err := tl.Checkout.Pay(ctx, PayRequest{Sale: id, OrderID: tid, Tender: TenderEMI, Offer: &plan,
		Card: card("4386280000000004"), OTP: r.td.OTP, Cashier: cashier}, nil) // HDFC
	require.NoError(t, err, "a refusal is an outcome, not an error")
	require.Equal(t, StateFailed, out.State)
	assert.True(t, out.CanRetry)
	assert.Contains(t, out.Reason, "not available on this card")
	require.NotNil(t, out.Sale)
	assert.Equal(t, Paise(6499900), out.Sale.Due, "the refused tender reserves nothing")
	assert.Zero(t, out.Sale.Pending)
	assert.Zero(t, r.captures())
	return id, plan, tid
}

// TestSplitRefusedEMITenderIsFailedAtOnce: a split sale's EMI tender refused
// because the offer is not given on the card is FAILED at once, journaled, so
// a restarted terminal shows it failed (not being checked) and the sale open
// with its cash down payment and the rest due; nothing is unknown.
func TestSplitRefusedEMITenderIsFailedAtOnce(t *testing.T) {
	r, tl, _, _, ravi := auditRig(t)
	ctx := t.Context()
	id, _, tid := refusedEMI(t, r, tl, ravi.ID)

	o, err := r.e.Order(ctx, tid)
	require.NoError(t, err)
	assert.Equal(t, StateFailed, o.State, "journaled FAILED")
	un, err := r.j.Unresolved(ctx)
	require.NoError(t, err)
	assert.Empty(t, un, "nothing is being checked")

	tl2 := restart(t, r)
	open, err := tl2.Checkout.OpenSales(ctx)
	require.NoError(t, err)
	require.Len(t, open, 1)
	st := open[0]
	assert.Equal(t, id, st.Sale.ID)
	assert.Equal(t, StateOpen, st.Sale.State)
	assert.Equal(t, Paise(1000000), st.Paid)
	assert.Zero(t, st.Pending)
	assert.Equal(t, Paise(6499900), st.Due)
	require.Len(t, st.Tenders, 2)
	assert.True(t, st.Tenders[1].Failed())
	assert.Equal(t, StateFailed, st.Tenders[1].State)
}

// TestSplitRefusedEMITenderPaidAgainAfterRestart: the failed tender is paid
// again on its own order, after a restart, with a card that takes the offer;
// the sale completes with its document number.
func TestSplitRefusedEMITenderPaidAgainAfterRestart(t *testing.T) {
	r, tl, _, _, ravi := auditRig(t)
	ctx := t.Context()
	id, plan, tid := refusedEMI(t, r, tl, ravi.ID)

	tl2 := restart(t, r)
	out, err := tl2.Checkout.Pay(ctx, PayRequest{Sale: id, OrderID: tid, Tender: TenderEMI, Offer: &plan,
		Card: card("5522600000000005"), OTP: r.td.OTP, Cashier: ravi.ID}, nil) // ICICI
	require.NoError(t, err)
	require.Equal(t, StatePaid, out.State)
	assert.Equal(t, tid, out.OrderID, "paid again on the same order")
	require.NotNil(t, out.Sale)
	assert.True(t, out.Sale.Complete())
	assert.NotEmpty(t, out.ReceiptNo)
	assert.Equal(t, 1, r.captures())
	open, err := tl2.Checkout.OpenSales(ctx)
	require.NoError(t, err)
	assert.Empty(t, open)
}

// TestSplitRefusedEMITenderReplacedByCash: the failed tender is left and the
// rest taken in cash; the sale completes, and the failed tender is in no
// total and on no receipt.
func TestSplitRefusedEMITenderReplacedByCash(t *testing.T) {
	r, tl, _, _, ravi := auditRig(t)
	ctx := t.Context()
	id, _, _ := refusedEMI(t, r, tl, ravi.ID)
	out, err := tl.Checkout.Pay(ctx, PayRequest{Sale: id, Tender: TenderCash, Cashier: ravi.ID}, nil)
	require.NoError(t, err)
	require.NotNil(t, out.Sale)
	assert.True(t, out.Sale.Complete())
	st, err := tl.Checkout.SaleStatus(ctx, id)
	require.NoError(t, err)
	assert.Len(t, st.paidTenders(), 2, "the two cash tenders")
	assert.Zero(t, r.captures())
}

// TestSplitVoidAfterRefusedEMITender: the sale whose EMI tender was refused is
// voided, on the same terminal and after a restart: the cash down payment is
// given back from the drawer with its document, and the sale is VOIDED.
func TestSplitVoidAfterRefusedEMITender(t *testing.T) {
	for _, restarted := range []bool{false, true} {
		t.Run(map[bool]string{false: "same terminal", true: "after restart"}[restarted], func(t *testing.T) {
			r, tl, _, _, ravi := auditRig(t)
			ctx := t.Context()
			id, _, _ := refusedEMI(t, r, tl, ravi.ID)
			if restarted {
				tl = restart(t, r)
			}
			st, err := tl.Checkout.VoidSale(ctx, id, managerPIN, "customer left")
			require.NoError(t, err)
			assert.Equal(t, StateVoided, st.Sale.State)
			require.Len(t, st.Tenders, 2)
			assert.Equal(t, StateRefunded, st.Tenders[0].State, "the cash given back")
			assert.NotZero(t, st.Tenders[0].Order.Refunds[0].DocNo)
			assert.Equal(t, StateFailed, st.Tenders[1].State)
			open, err := tl.Checkout.OpenSales(ctx)
			require.NoError(t, err)
			assert.Empty(t, open)
		})
	}
}

// TestSplitVoidClosesATenderNeverPaid: a brand-EMI tender opened and its IMEI
// validated, then left without a card (the customer walked away, the terminal
// restarted), does not trap the sale: the void finds no payment on it at the
// service, closes it, and gives the cash down payment back.
func TestSplitVoidClosesATenderNeverPaid(t *testing.T) {
	r, tl, _, _, ravi := auditRig(t)
	ctx := t.Context()
	id, plan := downPayment(t, r, tl, ravi.ID)
	tid, err := tl.Checkout.CheckEMIOrder(ctx, PayRequest{Sale: id, Tender: TenderEMI, Offer: &plan, Cashier: ravi.ID})
	require.NoError(t, err)

	tl = restart(t, r)
	st, err := tl.Checkout.VoidSale(ctx, id, managerPIN, "customer left")
	require.NoError(t, err)
	assert.Equal(t, StateVoided, st.Sale.State)
	o, err := r.e.Order(ctx, tid)
	require.NoError(t, err)
	assert.Equal(t, StateAbandoned, o.State, "closed: no payment was sent on it")
	assert.Equal(t, StateRefunded, st.Tenders[0].State, "the cash given back")
	assert.Zero(t, r.captures())
}

// TestSplitVoidRefusedWhileATenderIsInFlight: a void waits for a tender that is
// being paid now, or whose payment the service has not decided (the customer
// has not authenticated): nothing is refunded and the sale stays open. Once
// the tender fails, the void goes through.
func TestSplitVoidRefusedWhileATenderIsInFlight(t *testing.T) {
	r, tl, _, _, ravi := auditRig(t)
	ctx := t.Context()
	lines, _, err := tl.Shelf.ParseItems(ctx, "ACC-CASE", nil)
	require.NoError(t, err)
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: lines, Cashier: ravi.ID})
	require.NoError(t, err)
	id := st.Sale.ID
	_, err = tl.Checkout.Pay(ctx, PayRequest{Sale: id, Tender: TenderCash, Amount: 49900, Cashier: ravi.ID}, nil)
	require.NoError(t, err)

	// Being paid now: its order is locked by the payment.
	o, err := r.e.Sales.OpenSaleTender(ctx, id, TenderCard, 0, nil, ravi.ID, PayOptions{})
	require.NoError(t, err)
	unlock, err := r.e.core.lock(o.ID)
	require.NoError(t, err)
	_, err = tl.Checkout.VoidSale(ctx, id, managerPIN, "customer left")
	assert.Contains(t, Sentence(err), "still being checked")
	unlock()

	// Sent, and not decided at the service: UNKNOWN, inquired, never voided.
	var ch Challenge
	opt := PayOptions{Wait: time.Minute, Progress: func(p Progress) {
		if p.Challenge != nil {
			ch = *p.Challenge
		}
	}}
	res, err := r.e.Payments.PayCard(ctx, o.ID, card("4111111111111111"), opt)
	require.NoError(t, err)
	require.Equal(t, ResultUnknown, res.Status)
	_, err = tl.Checkout.VoidSale(ctx, id, managerPIN, "customer left")
	assert.Contains(t, Sentence(err), "still being checked")
	st, err = tl.Checkout.SaleStatus(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, StateOpen, st.Sale.State)
	assert.Equal(t, StatePaid, st.Tenders[0].State, "the cash is not given back yet")

	// The customer's authentication fails: the tender is FAILED and the void
	// goes through.
	require.NoError(t, r.gw.SubmitAuthentication(ctx, ch.Content, url.Values{"otp": {"000000"}}))
	st, err = tl.Checkout.VoidSale(ctx, id, managerPIN, "customer left")
	require.NoError(t, err)
	assert.Equal(t, StateVoided, st.Sale.State)
	assert.Equal(t, StateFailed, st.Tenders[1].State)
	assert.Zero(t, r.captures())
}

// TestFailedTenderOfACoveredSaleIsNotPaidAgain: once the rest of the sale was
// paid another way, its failed EMI tender cannot be charged again, by the
// sale's screen or by paying its order as an order (galla pay ORDER_ID).
func TestFailedTenderOfACoveredSaleIsNotPaidAgain(t *testing.T) {
	r, tl, _, _, ravi := auditRig(t)
	ctx := t.Context()
	id, plan, tid := refusedEMI(t, r, tl, ravi.ID)
	out, err := tl.Checkout.Pay(ctx, PayRequest{Sale: id, Tender: TenderCash, Cashier: ravi.ID}, nil)
	require.NoError(t, err)
	require.True(t, out.Sale.Complete())

	_, err = tl.Checkout.Pay(ctx, PayRequest{Sale: id, OrderID: tid, Tender: TenderEMI, Offer: &plan,
		Card: card("5522600000000005"), OTP: r.td.OTP, Cashier: ravi.ID}, nil)
	assert.Error(t, err)
	_, err = tl.Checkout.Pay(ctx, PayRequest{OrderID: tid, Tender: TenderEMI,
		Card: card("5522600000000005"), OTP: r.td.OTP, Cashier: ravi.ID}, nil)
	assert.ErrorIs(t, err, ErrSaleClosed)
	assert.Contains(t, Sentence(err), "no longer open")
	_, err = r.e.Payments.PayEMI(ctx, tid, card("5522600000000005"), r.otp())
	assert.ErrorIs(t, err, ErrSaleClosed)
	assert.Zero(t, r.captures(), "nothing charged twice")
	o, err := r.e.Order(ctx, tid)
	require.NoError(t, err)
	assert.Equal(t, StateFailed, o.State)
}

// TestReportCountsASplitSaleOnceComplete: the X report counts a split sale in
// gross sales once it is complete (its invoice issued), on the day it is; the
// tenders paid on a sale still open are listed apart ("Paid on open sales"),
// their cash in the drawer's expected cash. A sale opened one day and finished
// the next counts whole on the second day, its GST with it.
func TestReportCountsASplitSaleOnceComplete(t *testing.T) {
	r, tl, _, _, ravi := auditRig(t)
	ctx := t.Context()
	registerShop(t, tl) // a regular registrant: the report states the sale's GST
	lines, _, err := tl.Shelf.ParseItems(ctx, "ACC-CASE", nil)
	require.NoError(t, err)
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: lines, Cashier: ravi.ID})
	require.NoError(t, err)
	id := st.Sale.ID
	_, err = tl.Checkout.Pay(ctx, PayRequest{Sale: id, Tender: TenderCash, Amount: 49900, Cashier: ravi.ID}, nil)
	require.NoError(t, err)
	day1 := r.e.Today()

	rep, err := tl.Books.Report(ctx, day1)
	require.NoError(t, err)
	assert.Zero(t, rep.GrossSales, "no invoice yet")
	assert.Zero(t, rep.NetSales)
	for _, s := range rep.Sales {
		assert.Zero(t, s.Amount, "no sale by tender: %s", s.Tender)
	}
	assert.Empty(t, rep.GST)
	assert.Equal(t, Paise(49900), rep.CashExpected, "the cash is in the drawer")
	require.Len(t, rep.OpenSales, 1)
	assert.Equal(t, id, rep.OpenSales[0].Sale)
	assert.Equal(t, Paise(149900), rep.OpenSales[0].Amount)
	assert.Equal(t, Paise(49900), rep.OpenSales[0].Paid)
	assert.Equal(t, []TenderTotal{{Tender: TenderCash, Count: 1, Amount: 49900}}, rep.OpenSales[0].Tenders)
	assert.Equal(t, Paise(49900), rep.OpenPaid)
	txt, err := tl.Books.XReport(ctx, r.clock.Now())
	require.NoError(t, err)
	assert.Contains(t, txt, "Paid on open sales")
	assert.Contains(t, txt, id)
	raw, err := json.Marshal(rep)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"open_sales":[{"sale":"`+id)

	// The next day the rest is paid by card: the whole sale counts then.
	r.clock.Advance(24 * time.Hour)
	tl = restart(t, r)
	out, err := tl.Checkout.Pay(ctx, PayRequest{Sale: id, Tender: TenderCard, Card: card("4111111111111111"), OTP: r.td.OTP, Cashier: ravi.ID}, nil)
	require.NoError(t, err)
	require.True(t, out.Sale.Complete())
	day2 := r.e.Today()
	require.NotEqual(t, day1, day2)

	rep, err = tl.Books.Report(ctx, day2)
	require.NoError(t, err)
	assert.Equal(t, Paise(149900), rep.GrossSales, "the whole sale, once")
	assert.Empty(t, rep.OpenSales)
	var gst Paise
	for _, g := range rep.GST {
		gst += g.Amount
	}
	assert.Equal(t, rep.GrossSales, gst, "gross sales and the GST base agree")
	byTender := map[TenderKind]Paise{}
	for _, s := range rep.Sales {
		byTender[s.Tender] += s.Amount
	}
	assert.Equal(t, Paise(49900), byTender[TenderCash])
	assert.Equal(t, Paise(100000), byTender[TenderCard])
	assert.Zero(t, rep.CashExpected, "the cash went into the drawer the day before")

	rep, err = tl.Books.Report(ctx, day1)
	require.NoError(t, err)
	assert.Zero(t, rep.GrossSales, "not counted twice")
	assert.Equal(t, Paise(49900), rep.CashExpected)
}

// TestReportVoidedOpenSaleNetsNothing: a sale left open one day and voided
// the next: the first day lists its cash apart, the second counts it sold and
// given back, so no day's net sales go below what was sold.
func TestReportVoidedOpenSaleNetsNothing(t *testing.T) {
	r, tl, _, _, ravi := auditRig(t)
	ctx := t.Context()
	lines, _, err := tl.Shelf.ParseItems(ctx, "ACC-CASE", nil)
	require.NoError(t, err)
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: lines, Cashier: ravi.ID})
	require.NoError(t, err)
	_, err = tl.Checkout.Pay(ctx, PayRequest{Sale: st.Sale.ID, Tender: TenderCash, Amount: 49900, Cashier: ravi.ID}, nil)
	require.NoError(t, err)
	day1 := r.e.Today()
	r.clock.Advance(24 * time.Hour)
	tl = restart(t, r)
	_, err = tl.Checkout.VoidSale(ctx, st.Sale.ID, managerPIN, "customer left")
	require.NoError(t, err)
	rep, err := tl.Books.Report(ctx, r.e.Today())
	require.NoError(t, err)
	assert.Equal(t, Paise(49900), rep.Refunded)
	assert.Zero(t, rep.NetSales)
	assert.Equal(t, Paise(-49900), rep.CashExpected, "the cash left the drawer today")
	assert.Empty(t, rep.OpenSales)
	rep, err = tl.Books.Report(ctx, day1)
	require.NoError(t, err)
	assert.Zero(t, rep.GrossSales)
	assert.Empty(t, rep.OpenSales, "voided since")
	assert.Equal(t, Paise(49900), rep.CashExpected)
}

// TestCloseDayNamesOpenSales: close-day names a sale left open by its id and
// what was paid on it, not as an unknown payment: refused while its tender is
// being checked (naming the sale), then, the tender failed, the day closes
// and says which sales are still open.
func TestCloseDayNamesOpenSales(t *testing.T) {
	r, tl, _, _, ravi := auditRig(t)
	ctx := t.Context()
	id, _, tid := refusedEMI(t, r, tl, ravi.ID)

	res, err := tl.Books.CloseDay(ctx, CloseDayRequest{PIN: managerPIN})
	require.NoError(t, err, "a failed tender is not unknown")
	assert.Contains(t, res.Note, "open")
	assert.Contains(t, res.Note, id)
	assert.Contains(t, res.Note, "₹10,000.00 paid")
	require.Len(t, res.OpenSales, 1)
	assert.Equal(t, id, res.OpenSales[0].Sale.ID)
	require.Len(t, res.Report.OpenSales, 1)
	assert.Equal(t, id, res.Report.OpenSales[0].Sale)
	_ = tid
}

// TestCloseDayNamesTheOpenSaleOfAnUnknownTender: a tender being checked stops
// the close as an unknown payment does, and the sentence says which open sale
// it belongs to and what that sale has paid.
func TestCloseDayNamesTheOpenSaleOfAnUnknownTender(t *testing.T) {
	r, tl, _, _, ravi := auditRig(t)
	ctx := t.Context()
	lines, _, err := tl.Shelf.ParseItems(ctx, "ACC-CASE", nil)
	require.NoError(t, err)
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: lines, Cashier: ravi.ID})
	require.NoError(t, err)
	id := st.Sale.ID
	_, err = tl.Checkout.Pay(ctx, PayRequest{Sale: id, Tender: TenderCash, Amount: 49900, Cashier: ravi.ID}, nil)
	require.NoError(t, err)
	o, err := r.e.Sales.OpenSaleTender(ctx, id, TenderCard, 0, nil, ravi.ID, PayOptions{})
	require.NoError(t, err)
	res, err := r.e.Payments.PayCard(ctx, o.ID, card("4111111111111111"), PayOptions{Wait: time.Minute})
	require.NoError(t, err)
	require.Equal(t, ResultUnknown, res.Status)

	_, err = tl.Books.CloseDay(ctx, CloseDayRequest{PIN: managerPIN})
	require.ErrorIs(t, err, ErrUnknownAtClose)
	s := Sentence(err)
	assert.Contains(t, s, "open sale "+id)
	assert.Contains(t, s, "₹499.00 paid")
}

// TestOpenSalesAfterManyDays: a sale left open is listed however long ago it
// was opened: each Z report carries the sales open at its close, so a
// restarted terminal months later still lists it, and it can be voided then.
func TestOpenSalesAfterManyDays(t *testing.T) {
	r, tl, _, _, ravi := auditRig(t)
	ctx := t.Context()
	id, _, _ := refusedEMI(t, r, tl, ravi.ID)
	_, err := tl.Books.CloseDay(ctx, CloseDayRequest{PIN: managerPIN})
	require.NoError(t, err)
	rep, err := tl.Books.Report(ctx, ToDay(r.clock.Now()))
	require.NoError(t, err)
	assert.Equal(t, []string{id}, rep.OpenAtClose, "the Z carries the sales open at its close")

	r.clock.Advance(100 * 24 * time.Hour)
	tl = restart(t, r)
	open, err := tl.Checkout.OpenSales(ctx)
	require.NoError(t, err)
	require.Len(t, open, 1)
	assert.Equal(t, id, open[0].Sale.ID)
	assert.Equal(t, Paise(1000000), open[0].Paid)

	st, err := tl.Checkout.VoidSale(ctx, id, managerPIN, "customer never came back")
	require.NoError(t, err)
	assert.Equal(t, StateVoided, st.Sale.State)
	open, err = tl.Checkout.OpenSales(ctx)
	require.NoError(t, err)
	assert.Empty(t, open)
}
