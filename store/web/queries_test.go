package web

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestThePagesTakeTheirStatesFromPos(t *testing.T) {
	assert.Equal(t, []string{"DRAFT", "INTENT", "CREATED", "PAYING", "AUTHENTICATING", "UNKNOWN"}, statesWhere(pending))
	assert.Equal(t, []string{"PAID", "PARTLY_REFUNDED"}, statesWhere(holdsGoods))

	db := storeWithSales(t)
	ctx := t.Context()
	unknown, err := unknownPayments(ctx, db)
	require.NoError(t, err)
	var ids []string
	for _, o := range unknown {
		ids = append(ids, o.OrderID)
	}
	assert.Equal(t, []string{"T1-C"}, ids, "the card payment whose answer was lost")

	// T2's watch sale given T1's phone's IMEI: sold twice while T2-A keeps its
	// goods, not once it was all refunded.
	_, err = db.Pool().Exec(ctx, "INSERT INTO imei_units (imei, terminal_id, order_id) VALUES ('356938035643809', 'T2', 'T2-A')")
	require.NoError(t, err)
	for state, want := range map[string]int{"PAID": 1, "PARTLY_REFUNDED": 1, "REFUNDED": 0, "UNKNOWN": 0} {
		_, err = db.Pool().Exec(ctx, "UPDATE orders SET state = $1 WHERE terminal_id = 'T2' AND order_id = 'T2-A'", state)
		require.NoError(t, err)
		_, doubles, err := overrides(ctx, db, time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC))
		require.NoError(t, err)
		if assert.Len(t, doubles, want, state) && want == 1 {
			assert.Equal(t, DoubleSale{IMEI: "356938035643809", Orders: "T1 T1-B, T2 T2-A"}, doubles[0])
		}
	}
}
