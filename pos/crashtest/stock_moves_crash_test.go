//go:build unix

package crashtest

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// stockWorld is a terminal with a manager and, when received, the delivery
// in stock, closed for the helper to open.
func stockWorld(t *testing.T, received bool) *world {
	t.Helper()
	ctx := t.Context()
	w := newWorld(t)
	j, e := w.open(t)
	_, err := e.Roster().WithIterations(pos.MinPINIterations).AddStaff(ctx, "Meera", pos.RoleManager, managerPIN)
	require.NoError(t, err)
	if received {
		till, err := newTill(ctx, e)
		require.NoError(t, err)
		_, err = till.Stock.ReceiveItems(ctx, "Sai Distributors", "SD/114", "2026-01-05", stockItems, stockIMEIs, managerPIN)
		require.NoError(t, err)
	}
	require.NoError(t, j.Close())
	return w
}

// restarted opens the terminal of w again, as after the crash: its till.
func restarted(t *testing.T, w *world) *pos.Till {
	t.Helper()
	j, e := w.open(t)
	t.Cleanup(func() { _ = j.Close() })
	till, err := newTill(t.Context(), e)
	require.NoError(t, err)
	return till
}

// onHandOf is the quantity on hand of sku and its units' IMEIs.
func onHandOf(t *testing.T, till *pos.Till, sku string) (int64, []string) {
	t.Helper()
	rows, err := till.Stock.List(t.Context(), "", 0, true)
	require.NoError(t, err)
	for _, r := range rows {
		if r.SKU == sku {
			return r.OnHand, r.IMEIs
		}
	}
	return 0, nil
}

// unitState is the state of the unit imei on the restarted terminal's book,
// "" when it has none.
func unitState(t *testing.T, till *pos.Till, imei string) pos.UnitState {
	t.Helper()
	u, ok, err := till.Stock.Unit(t.Context(), imei)
	require.NoError(t, err)
	if !ok {
		return ""
	}
	return u.State
}

// TestCrashAtStockTransferSent kills the terminal before and after the commit
// of a transfer sent. The restarted terminal has sent all of it or none of
// it: its phone in transit and its cables gone, or both still on hand; a
// transfer not recorded is sent again, a recorded one cannot be (its unit is
// no longer on the shelf).
func TestCrashAtStockTransferSent(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, tc := range []struct {
		at   string
		sent bool
	}{{"before:1", false}, {"after:1", true}} {
		t.Run(tc.at, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			w := stockWorld(t, true)
			runHelperProcess(t, exe, w, flowStockSend, "", tc.at, "")
			till := restarted(t, w)

			cables, _ := onHandOf(t, till, "ACC-CBL")
			_, phones := onHandOf(t, till, "PH-SAM-S24")
			if tc.sent {
				assert.Equal(t, pos.UnitInTransit, unitState(t, till, sentIMEI))
				assert.Equal(t, int64(3), cables)
				assert.Equal(t, []string{"356938035643809"}, phones)
				_, err := till.Stock.Send(ctx, "T2", sentItems, []string{sentIMEI}, managerPIN)
				require.ErrorIs(t, err, pos.ErrNotInStock, "the committed transfer is not sent twice")
				return
			}
			assert.Equal(t, pos.UnitInStock, unitState(t, till, sentIMEI))
			assert.Equal(t, int64(5), cables)
			assert.Equal(t, []string{"356938035643809", sentIMEI}, phones)
			tr, err := till.Stock.Send(ctx, "T2", sentItems, []string{sentIMEI}, managerPIN)
			require.NoError(t, err, "nothing of the transfer was recorded: it is sent now")
			assert.Contains(t, tr.ID, "/TR/1", "numbered as the first transfer")
			assert.Equal(t, pos.UnitInTransit, unitState(t, till, sentIMEI))
		})
	}
}

// TestCrashAtStockTransferArrived kills the terminal before and after the
// commit of a transfer's arrival from another counter. The restarted
// terminal has received all of it or none of it; receiving it again is
// refused as received already, or takes it whole.
func TestCrashAtStockTransferArrived(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, tc := range []struct {
		at       string
		received bool
	}{{"before:1", false}, {"after:1", true}} {
		t.Run(tc.at, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			w := stockWorld(t, false)
			runHelperProcess(t, exe, w, flowStockArrive, "", tc.at, "")
			till := restarted(t, w)

			st, err := till.Stock.Enforced(ctx)
			require.NoError(t, err)
			assert.Equal(t, tc.received, st.Kept, "stock starts with the transfer, or not at all")
			_, err = till.Stock.Arrive(ctx, "T2", arriveID, arriveItems, []string{arriveIMEI}, managerPIN)
			if tc.received {
				require.ErrorIs(t, err, pos.ErrInvoiceReceived, "the committed transfer is not received twice")
			} else {
				require.NoError(t, err, "nothing of the transfer was recorded: it is received now")
			}
			cables, _ := onHandOf(t, till, "ACC-CBL")
			_, phones := onHandOf(t, till, "PH-SAM-S24")
			assert.Equal(t, int64(3), cables)
			assert.Equal(t, []string{arriveIMEI}, phones)
		})
	}
}

// TestCrashAtStockCount kills the terminal before and after the commit of a
// count of the phones that found one of the two on the book. The restarted
// terminal has applied the count whole or not at all: the unit not found is
// missing and the count agrees with the book, or both units are on the
// shelf and the count shows the same variance to apply again.
func TestCrashAtStockCount(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	const notFound = "490154203237518" // the delivery's other phone, not scanned
	for _, tc := range []struct {
		at      string
		applied bool
	}{{"before:1", false}, {"after:1", true}} {
		t.Run(tc.at, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			w := stockWorld(t, true)
			runHelperProcess(t, exe, w, flowStockCount, "", tc.at, "")
			till := restarted(t, w)

			count := pos.StockCount{SKU: "PH-SAM-S24", IMEIs: []string{countedIMEI}}
			v, err := till.Stock.Count(ctx, count)
			require.NoError(t, err)
			_, phones := onHandOf(t, till, "PH-SAM-S24")
			if tc.applied {
				assert.True(t, v.None(), "the count agrees with the book: %+v", v)
				assert.Equal(t, pos.UnitMissing, unitState(t, till, notFound))
				assert.Equal(t, []string{countedIMEI}, phones)
				return
			}
			assert.Equal(t, []string{notFound}, v.Missing, "the same variance, to apply again")
			assert.Equal(t, []string{countedIMEI, notFound}, phones)
			_, err = till.Stock.ApplyCount(ctx, count, "shelf count", managerPIN)
			require.NoError(t, err)
			assert.Equal(t, pos.UnitMissing, unitState(t, till, notFound))
		})
	}
}
