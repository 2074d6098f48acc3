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

// flowShift is the end of a shift: a drop to the safe, then the close with the
// cash counted (two journal commits).
const flowShift = "shift"

// The shift the parent opens before the helper: float ₹2,000, a cable sold for
// cash (₹499), ₹120 paid out. The helper drops ₹1,000 and counts ₹1,379.
const (
	shiftFloat = pos.Paise(2000_00)
	shiftDrop  = pos.Paise(1000_00)
	shiftCount = pos.Paise(1379_00)
)

// LastSeq and Event pass the journal's reading by sequence through, so that the
// till derives its shifts from the real journal.
func (k *killJournal) LastSeq(ctx context.Context) (uint64, error) {
	return k.Journal.(pos.EventLog).LastSeq(ctx)
}

func (k *killJournal) Event(ctx context.Context, seq uint64) (pos.Event, error) {
	return k.Journal.(pos.EventLog).Event(ctx, seq)
}

func newTill(ctx context.Context, e *pos.Engine) (*pos.Till, error) {
	return pos.NewTill(ctx, pos.TillConfig{Engine: e, SampleCatalog: []byte(catalogJSON)})
}

// shiftHelper drops cash and closes the shift, to be killed at a commit.
func shiftHelper(ctx context.Context, e *pos.Engine) (string, error) {
	t, err := newTill(ctx, e)
	if err != nil {
		return "", err
	}
	if _, err := t.Drawer.MoveCash(ctx, "001", pos.CashDrop, shiftDrop, "safe drop"); err != nil {
		return "", err
	}
	rep, err := t.Drawer.CloseShift(ctx, "001", pos.CashCount{Pieces: map[int]int{500: 2, 200: 1, 100: 1, 50: 1, 20: 1, 5: 1, 2: 2}})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("closed, variance %s", rep.Shift.Variance), nil
}

// TestCrashAtShiftClose kills the terminal before and after each commit of the end
// of a shift. The restarted terminal finds the float, the sale, the paid-out and
// every committed step; it finishes the close and the drawer balances.
func TestCrashAtShiftClose(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	cases := []struct {
		at      string
		dropped bool // the drop is journaled
		closed  bool // the close is journaled
	}{
		{"before:1", false, false},
		{"after:1", true, false},
		{"before:2", true, false},
		{"after:2", true, true},
	}
	for _, tc := range cases {
		t.Run(tc.at, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			w := newWorld(t)
			j, e := w.open(t)
			till, err := newTill(ctx, e)
			require.NoError(t, err)
			_, err = till.Drawer.OpenShift(ctx, "001", shiftFloat)
			require.NoError(t, err)
			cat, err := till.Shelf.Catalog(ctx)
			require.NoError(t, err)
			cable, ok := cat.Lookup("ACC-CBL")
			require.True(t, ok)
			paid, err := till.Checkout.Pay(ctx, pos.PayRequest{Lines: []pos.CartLine{{Product: cable, Qty: 1}}, Tender: pos.TenderCash, Cashier: "001"}, nil)
			require.NoError(t, err)
			require.Equal(t, pos.StatePaid, paid.State)
			_, err = till.Drawer.MoveCash(ctx, "001", pos.CashOut, pos.Paise(120_00), "courier")
			require.NoError(t, err)
			require.NoError(t, j.Close())

			runHelperProcess(t, exe, w, flowShift, "", tc.at, "")

			j, e = w.open(t)
			t.Cleanup(func() { _ = j.Close() })
			till, err = newTill(ctx, e)
			require.NoError(t, err)
			shifts, err := till.Drawer.Shifts(ctx, "")
			require.NoError(t, err)
			require.Len(t, shifts, 1, "the shift is still there")
			s := shifts[0]
			assert.Equal(t, shiftFloat, s.Float)
			moves := 1
			if tc.dropped {
				moves = 2
			}
			require.Len(t, s.Moves, moves, "the paid-out (and the drop once committed)")
			assert.Equal(t, "courier", s.Moves[0].Reason)
			rep, err := till.Drawer.ShiftReport(ctx, s.ID)
			require.NoError(t, err)
			assert.Equal(t, pos.Paise(499_00), rep.CashSales, "the cash sale counts in the drawer")
			if tc.closed {
				assert.False(t, s.Open())
				assert.Equal(t, shiftCount, s.Counted)
				assert.Equal(t, pos.Paise(0), s.Variance, "2,000 + 499 − 120 − 1,000 = 1,379 counted")
				return
			}
			// The restarted terminal finishes what the kill cut short.
			require.True(t, s.Open(), "an uncommitted close leaves the shift open")
			if !tc.dropped {
				assert.Equal(t, pos.Paise(2379_00), rep.Expected)
				_, err = till.Drawer.MoveCash(ctx, "001", pos.CashDrop, shiftDrop, "safe drop")
				require.NoError(t, err)
			}
			closed, err := till.Drawer.CloseShift(ctx, "001", pos.CashCount{Paise: shiftCount})
			require.NoError(t, err)
			assert.Equal(t, pos.Paise(1379_00), closed.Expected)
			assert.Equal(t, pos.Paise(0), closed.Shift.Variance)
		})
	}
}
