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
	"galla/gateway/sandbox"
	"galla/pos"
)

// flowSalePath is a new ₹1,998.00 card sale as the counter takes it
// (Checkout.Pay naming no sale): it commits the sale's intent, its
// tender.added and the tender's intent together (1), created (2), accepted
// (3), and the tender's outcome with sale.completed and its document number
// (4): DESIGN.md section 7's four commits of a card checkout.
const flowSalePath = "salepath"

// salePathCommits are the commits of flowSalePath.
const salePathCommits = 4

// salePath runs flowSalePath in the helper.
func salePath(ctx context.Context, e *pos.Engine, number string) (string, error) {
	tl, err := pos.NewTill(ctx, pos.TillConfig{Engine: e})
	if err != nil {
		return "", err
	}
	cat, err := pos.LoadCatalogJSON([]byte(catalogJSON))
	if err != nil {
		return "", err
	}
	var lines []pos.CartLine
	for _, sku := range []string{"ACC-CASE", "ACC-CBL"} {
		p, ok := cat.Lookup(sku)
		if !ok {
			return "", fmt.Errorf("no %s in the catalog", sku)
		}
		lines = append(lines, pos.CartLine{Product: p, Qty: 1})
	}
	out, err := tl.Checkout.Pay(ctx, pos.PayRequest{Lines: lines, Tender: pos.TenderCard, Cashier: "001",
		Card: gateway.NewCard(number, "12", "2030", cardCVV, "Test Holder"), OTP: sandbox.TestOTP, Unattended: true}, nil)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("sale %s %s", out.SaleID(), out.State), nil
}

// TestCrashSalePath kills the terminal before and after each commit of a card
// sale on the sale path. The restarted terminal reconciles and the counter
// finishes the sale (finishSplit): it is then paid exactly once in full with
// one document number; a kill before the first commit leaves nothing in the
// journal and nothing at the service.
func TestCrashSalePath(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for n := 1; n <= salePathCommits; n++ {
		for _, at := range []string{fmt.Sprintf("before:%d", n), fmt.Sprintf("after:%d", n)} {
			t.Run(at, func(t *testing.T) {
				t.Parallel()
				runSalePathCase(t, exe, at)
			})
		}
	}
}

func runSalePathCase(t *testing.T, exe, at string) {
	ctx := t.Context()
	w := newWorld(t)
	out := runHelperProcess(t, exe, w, flowSalePath, cardOTP, at, "")

	j, e := w.open(t)
	defer func() { require.NoError(t, j.Close()) }()
	_, err := e.Payments.Reconcile(ctx)
	require.NoError(t, err)
	checkLedger(t, j, w.sb)

	sales := splitSales(t, j)
	if at == "before:1" {
		assert.Empty(t, sales, "nothing was journaled")
		assert.Zero(t, countOrderEvents(t, j), "no tender either")
		assert.Empty(t, w.sb.Controls.Ledger(), "nothing reached the service")
		return
	}
	require.Len(t, sales, 1, "the sale is in the journal, once")
	st, err := e.Sales.SaleStatus(ctx, sales[0].ID)
	require.NoError(t, err)
	require.Len(t, st.Tenders, 1, "the sale is journaled with its tender")
	require.NotNil(t, st.Tenders[0].Order, "and the tender's intent, in the same commit")
	if at == "after:4" {
		assert.True(t, st.Complete(), "the tender's outcome completed the sale in the same commit")
	}
	finishSplit(t, e, w, sales[0].ID)

	unresolved, err := j.Orders.Unresolved(ctx)
	require.NoError(t, err)
	assert.Empty(t, ids(unresolved), "every order is resolved in the end")
	checkLedger(t, j, w.sb)
	assert.Equal(t, 1, captures(w.sb), "the sale is charged once")
	assert.Empty(t, cardLeaks(out, cardOTP), "card data in the helper's output")
}
