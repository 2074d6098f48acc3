//go:build unix

package crashtest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
	"galla/pos"
	"galla/pos/journal"
)

// The split-tender flows (docs/adr/0005-split-tender.md).
const (
	// flowSplit is a ₹1,998.00 sale paid ₹500.00 in cash, ₹300.00 by UPI and the
	// rest by card: it commits the sale's intent (1); tender.added with the
	// tender's intent (2), cash.received (3); tender.added with the intent (4),
	// upi.confirmed (5); tender.added with the intent (6), created (7),
	// accepted (8), and the card's outcome with sale.completed (9).
	flowSplit = "split"
	// flowVoid voids a sale left part paid (₹500.00 cash, ₹1,000.00 card): the
	// cash refund's intent and done (1-2), the card refund's intent and done
	// (3-4), sale.voided (5).
	flowVoid = "void"
)

const (
	splitTotal = pos.Paise(199800)
	splitCash  = pos.Paise(50000)
	splitUPI   = pos.Paise(30000)
	voidCard   = pos.Paise(100000)
)

// splitSale runs flowSplit in the helper.
func splitSale(ctx context.Context, e *pos.Engine, gw *gateway.Client, number string) (string, error) {
	sale, err := newSale(flowCard)
	if err != nil {
		return "", err
	}
	s, err := e.Sales.OpenSale(ctx, sale)
	if err != nil {
		return "", err
	}
	if _, _, err := e.Sales.SaleCash(ctx, s.ID, splitCash, 0, "001"); err != nil {
		return "", err
	}
	if _, _, err := e.Sales.SaleUPI(ctx, s.ID, splitUPI, "001"); err != nil {
		return "", err
	}
	o, err := e.Sales.OpenSaleTender(ctx, s.ID, pos.TenderCard, 0, nil, "001", payOptions(gw))
	if err != nil {
		return "", err
	}
	if _, err := e.Payments.PayCard(ctx, o.ID, newCard(number), payOptions(gw)); err != nil {
		return "", err
	}
	st, err := e.Sales.SettleSale(ctx, s.ID)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("sale %s %s", s.ID, st.Sale.State), nil
}

// voidSale runs flowVoid in the helper.
func voidSale(ctx context.Context, e *pos.Engine, saleID string) (string, error) {
	st, err := e.Sales.VoidSale(ctx, saleID, managerPIN, "customer left")
	if err != nil {
		return "", err
	}
	return string(st.Sale.State), nil
}

// splitCase is one kill point of a split-tender flow.
type splitCase struct {
	flow string
	at   string
}

func splitCases() []splitCase {
	var out []splitCase
	for n := 1; n <= 9; n++ {
		out = append(out, splitCase{flowSplit, fmt.Sprintf("before:%d", n)}, splitCase{flowSplit, fmt.Sprintf("after:%d", n)})
	}
	for n := 1; n <= 5; n++ {
		out = append(out, splitCase{flowVoid, fmt.Sprintf("before:%d", n)}, splitCase{flowVoid, fmt.Sprintf("after:%d", n)})
	}
	return out
}

// TestCrashSplitTender kills the terminal at each commit of a split-tender sale
// and of the void of a part-paid one. The restarted terminal reconciles, and the
// counter finishes what was left (pays the rest by card, or voids again): the
// sale is then paid exactly once in full with one document number, or voided
// with every tender refunded once; nothing is charged twice.
func TestCrashSplitTender(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, sc := range splitCases() {
		t.Run(sc.flow+"/"+sc.at, func(t *testing.T) {
			t.Parallel()
			runSplitCase(t, exe, sc)
		})
	}
}

func runSplitCase(t *testing.T, exe string, sc splitCase) {
	ctx := t.Context()
	w := newWorld(t)
	saleID := ""
	if sc.flow == flowVoid {
		j, e := w.open(t)
		_, err := e.Roster().WithIterations(pos.MinPINIterations).AddStaff(ctx, "Meera", pos.RoleManager, managerPIN)
		require.NoError(t, err)
		sale, err := newSale(flowCard)
		require.NoError(t, err)
		s, err := e.Sales.OpenSale(ctx, sale)
		require.NoError(t, err)
		saleID = s.ID
		_, _, err = e.Sales.SaleCash(ctx, s.ID, splitCash, 0, "001")
		require.NoError(t, err)
		o, err := e.Sales.OpenSaleTender(ctx, s.ID, pos.TenderCard, voidCard, nil, "001", payOptions(w.client))
		require.NoError(t, err)
		res, err := e.Payments.PayCard(ctx, o.ID, newCard(cardOTP), payOptions(w.client))
		require.NoError(t, err)
		require.Equal(t, pos.ResultPaid, res.Status, res.Reason)
		require.NoError(t, j.Close())
	}
	out := runHelperProcess(t, exe, w, sc.flow, cardOTP, sc.at, saleID)

	j, e := w.open(t)
	defer func() { require.NoError(t, j.Close()) }()
	_, err := e.Payments.Reconcile(ctx)
	require.NoError(t, err)
	checkLedger(t, j, w.sb)

	sales := splitSales(t, j)
	if sc.flow == flowSplit && sc.at == "before:1" {
		assert.Empty(t, sales, "nothing was journaled")
		assert.Empty(t, w.sb.Controls.Ledger(), "nothing reached the service")
		return
	}
	require.Len(t, sales, 1, "the sale is in the journal, once")
	id := sales[0].ID

	if sc.flow == flowSplit {
		finishSplit(t, e, w, id)
	} else {
		finishVoid(t, e, w, id)
	}

	unresolved, err := j.Orders.Unresolved(ctx)
	require.NoError(t, err)
	assert.Empty(t, ids(unresolved), "every order is resolved in the end")
	checkLedger(t, j, w.sb)
	assert.Empty(t, cardLeaks(out, cardOTP), "card data in the helper's output")
}

// finishSplit pays what is left as the counter would after the restart: a card
// payment still in flight is never sent again (it is inquired until final), and
// the rest is paid by a new card tender. The sale ends paid in full, once.
func finishSplit(t *testing.T, e *pos.Engine, w *world, id string) {
	t.Helper()
	ctx := t.Context()
	st, err := e.Sales.SaleStatus(ctx, id)
	require.NoError(t, err)
	for _, tv := range st.Tenders {
		if tv.Pending() && tv.Order.CanPay() == nil {
			// Created at the service, no payment sent: the card is taken on it.
			res, err := e.Payments.PayCard(ctx, tv.Order.ID, newCard(cardOTP), payOptions(w.client))
			require.NoError(t, err)
			require.Equal(t, pos.ResultPaid, res.Status, res.Reason)
			continue
		}
		if tv.Pending() {
			_, err := e.Payments.PayCard(ctx, tv.Order.ID, newCard(cardOTP), payOptions(w.client))
			require.Error(t, err, "a card tender in flight is not charged again")
			// The customer never finished the authentication: the token expires
			// and the reconciler finds the payment failed.
			w.offset.Add(int64(expireToken))
			_, err = e.Payments.Reconcile(ctx)
			require.NoError(t, err)
		}
	}
	st, err = e.Sales.SaleStatus(ctx, id)
	require.NoError(t, err)
	require.Zero(t, st.Pending, "nothing left in flight")
	if !st.Complete() && st.Due == 0 {
		st, err = e.Sales.SettleSale(ctx, id)
		require.NoError(t, err)
	}
	if !st.Complete() {
		require.Positive(t, st.Due)
		o, err := e.Sales.OpenSaleTender(ctx, id, pos.TenderCard, 0, nil, "001", payOptions(w.client))
		require.NoError(t, err)
		res, err := e.Payments.PayCard(ctx, o.ID, newCard(cardOTP), payOptions(w.client))
		require.NoError(t, err)
		require.Equal(t, pos.ResultPaid, res.Status, res.Reason)
		st, err = e.Sales.SettleSale(ctx, id)
		require.NoError(t, err)
	}
	require.True(t, st.Complete(), "the sale is paid")
	assert.Equal(t, uint64(1), st.Sale.DocNo, "one document number, the first")
	var paid, card pos.Paise
	for _, tv := range st.Tenders {
		if tv.Paid() {
			paid += tv.Amount
			if tv.Kind == pos.TenderCard {
				card += tv.Amount
			}
		}
	}
	assert.Equal(t, splitTotal, paid, "the tenders paid add up to the sale, not more")
	var captured int64
	for _, lo := range w.sb.Controls.Ledger() {
		captured += lo.CapturedAmount
	}
	assert.Equal(t, int64(card), captured, "the service captured exactly the card tenders")
}

// finishVoid voids the sale again when the helper died before it was voided:
// each tender is refunded once.
func finishVoid(t *testing.T, e *pos.Engine, w *world, id string) {
	t.Helper()
	ctx := t.Context()
	st, err := e.Sales.SaleStatus(ctx, id)
	require.NoError(t, err)
	if st.Sale.State == pos.StateOpen {
		st, err = e.Sales.VoidSale(ctx, id, managerPIN, "customer left")
		require.NoError(t, err)
	}
	assert.Equal(t, pos.StateVoided, st.Sale.State)
	assert.Zero(t, st.Sale.DocNo, "a voided sale has no invoice")
	var docs []uint64
	for _, tv := range st.Tenders {
		require.NotNil(t, tv.Order)
		assert.Equal(t, pos.StateRefunded, tv.State, "%s tender refunded", tv.Kind)
		assert.Equal(t, tv.Amount, tv.Order.Refunded, "%s refunded once, in full", tv.Kind)
		for _, rf := range tv.Order.Refunds {
			assert.Equal(t, pos.RefundDone, rf.Status)
			docs = append(docs, rf.DocNo)
		}
		if tv.Kind == pos.TenderCard {
			assert.Equal(t, int64(voidCard), ledgerOf(t, w.sb, tv.Order.ID).RefundedAmount, "the card refunded once at the service")
		}
	}
	assert.ElementsMatch(t, []uint64{1, 2}, docs, "each refund has its own document")
}

// splitSales lists the split-tender sales in the journal.
func splitSales(t *testing.T, j *journal.Journal) []*pos.Order {
	t.Helper()
	var out []*pos.Order
	for _, o := range allOrders(t, j) {
		if o.Tender == pos.TenderSplit {
			out = append(out, o)
		}
	}
	return out
}
