//go:build unix

package crashtest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// flowStock is a distributor's delivery received into stock: one journal
// commit for the whole delivery.
const flowStock = "stock"

// The delivery the helper receives: two phones (one with two IMEIs) and five
// cables.
var (
	stockIMEIs = []string{"356938035643809/356938035643817", "490154203237518"}
	stockItems = "PH-SAM-S24:2@6500000,ACC-CBL:5@12000"
)

// The other stock flows, each one journal commit: a transfer sent (the
// delivery received first), a transfer arriving from another counter, and a
// count of the phones applied (the delivery received first).
const (
	flowStockSend   = "stock.send"
	flowStockArrive = "stock.arrive"
	flowStockCount  = "stock.count"
)

// What the helper sends, receives from T2, and counts.
const (
	sentIMEI    = "490154203237518"
	sentItems   = "PH-SAM-S24:1,ACC-CBL:2"
	arriveID    = "T2/TR/7"
	arriveIMEI  = "356938035643825"
	arriveItems = "PH-SAM-S24:1,ACC-CBL:3"
	countedIMEI = "356938035643809"
)

// stockHelper runs the stock flow, to be killed at its commit.
func stockHelper(ctx context.Context, e *pos.Engine, flow string) (string, error) {
	t, err := newTill(ctx, e)
	if err != nil {
		return "", err
	}
	switch flow {
	case flowStockSend:
		tr, err := t.Stock.Send(ctx, "T2", sentItems, []string{sentIMEI}, managerPIN)
		if err != nil {
			return "", err
		}
		return "sent " + tr.ID, nil
	case flowStockArrive:
		d, err := t.Stock.Arrive(ctx, "T2", arriveID, arriveItems, []string{arriveIMEI}, managerPIN)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("received %d units", d.Units()), nil
	case flowStockCount:
		v, err := t.Stock.ApplyCount(ctx, pos.StockCount{SKU: "PH-SAM-S24", IMEIs: []string{countedIMEI}}, "shelf count", managerPIN)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d missing", len(v.Missing)), nil
	}
	d, err := t.Stock.ReceiveItems(ctx, "Sai Distributors", "SD/114", "2026-01-05", stockItems, stockIMEIs, managerPIN)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("received %d units", d.Units()), nil
}

// TestCrashAtStockReceive kills the terminal before and after the commit of
// a delivery. The restarted terminal has the whole delivery in stock or none
// of it: receiving it again is refused as received already, or takes it
// whole; never half of its units.
func TestCrashAtStockReceive(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, tc := range []struct {
		at       string
		received bool
	}{{"before:1", false}, {"after:1", true}} {
		t.Run(tc.at, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			w := newWorld(t)
			j, e := w.open(t)
			_, err := e.Roster().WithIterations(pos.MinPINIterations).AddStaff(ctx, "Meera", pos.RoleManager, managerPIN)
			require.NoError(t, err)
			require.NoError(t, j.Close())

			runHelperProcess(t, exe, w, flowStock, "", tc.at, "")

			j, e = w.open(t)
			t.Cleanup(func() { _ = j.Close() })
			till, err := newTill(ctx, e)
			require.NoError(t, err)
			st, err := till.Stock.Enforced(ctx)
			require.NoError(t, err)
			assert.Equal(t, tc.received, st.Kept, "stock starts with the delivery, or not at all")
			_, err = till.Stock.ReceiveItems(ctx, "Sai Distributors", "SD/114", "2026-01-05", stockItems, stockIMEIs, managerPIN)
			if tc.received {
				require.ErrorIs(t, err, pos.ErrInvoiceReceived, "the committed delivery is not received twice")
			} else {
				require.NoError(t, err, "nothing of the delivery was recorded: it is received now")
			}
			rows, err := till.Stock.List(ctx, "", 0, true)
			require.NoError(t, err)
			require.Len(t, rows, 2)
			assert.Equal(t, "ACC-CBL", rows[0].SKU)
			assert.Equal(t, int64(5), rows[0].OnHand)
			assert.Equal(t, "PH-SAM-S24", rows[1].SKU)
			assert.Equal(t, []string{"356938035643809", "490154203237518"}, rows[1].IMEIs)
		})
	}
}
