package pos

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// elsewhereStore is a store server that cannot be reached, whose last word
// kept on the counter is said, or not known (unknown).
type elsewhereStore struct {
	offlineStore
	said    map[string]ElsewhereReturn
	unknown error
}

func (s *elsewhereStore) ReturnedElsewhere(orderID string) (ElsewhereReturn, bool, error) {
	if s.unknown != nil {
		return ElsewhereReturn{}, false, s.unknown
	}
	r, ok := s.said[orderID]
	return r, ok, nil
}

// TestAnOfflineReturnAsksTheStoresLastWord: every StoreDecisions answers
// ReturnedElsewhere, and with the store away a refund of an own invoice is
// decided by it: refused when the store last said another counter returned
// some of it, or when that word is not known; decided by the journal when the
// store never said so. (The rig's terminal is G.)
func TestAnOfflineReturnAsksTheStoresLastWord(t *testing.T) {
	for _, tc := range []struct {
		name    string
		store   func(orderID string) *elsewhereStore
		refused string // the sentence; "" when the refund is made
	}{
		{"returned at T2", func(id string) *elsewhereStore {
			return &elsewhereStore{said: map[string]ElsewhereReturn{id: {Number: "T1/2627/000001", Amount: 49900, Counters: "T2"}}}
		}, "Invoice T1/2627/000001 was returned at counter T2 (₹499.00), and the store cannot be reached to say what is left of it: this return needs the store. Nothing was refunded; connect to the store and try again."},
		{"not known", func(string) *elsewhereStore {
			return &elsewhereStore{unknown: errors.New("store-sync.json is missing")}
		}, "The store cannot be reached, and this counter cannot tell whether other counters returned any of invoice G/2627/000001: store-sync.json is missing. This return needs the store. Nothing was refunded; connect to the store and try again."},
		{"never said", func(string) *elsewhereStore { return &elsewhereStore{said: map[string]ElsewhereReturn{}} }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, tl := newReturnTill(t)
			ctx := t.Context()
			sold, err := sellCash(ctx, r.e, r.sale(t, "ACC-CASE"), Rupees(2000))
			require.NoError(t, err)
			r.e.StoreDesk.SetDecisions(tc.store(sold.Order.ID))
			_, err = tl.Returns.RefundOrder(ctx, RefundRequest{OrderID: sold.Order.ID, Amount: Rupees(100), To: RefundToCash, PIN: managerPIN})
			o, oerr := r.e.Order(ctx, sold.Order.ID)
			require.NoError(t, oerr)
			if tc.refused == "" {
				require.NoError(t, err)
				assert.Len(t, o.Refunds, 1)
				return
			}
			require.ErrorIs(t, err, ErrNotRefundable)
			assert.Equal(t, tc.refused, Sentence(err))
			assert.Empty(t, o.Refunds, "nothing journaled")
		})
	}
}
