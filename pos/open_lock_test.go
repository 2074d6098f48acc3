package pos

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
)

// holdCreate is a gateway whose create order waits until released, telling when
// it has started: the moment a checkout's order is journaled INTENT and its create
// order is on the wire.
type holdCreate struct {
	Gateway
	started chan struct{}
	release chan struct{}
}

func (h *holdCreate) CreateOrder(ctx context.Context, o *gateway.Order) (*gateway.CreateOrderResponse, error) {
	close(h.started)
	<-h.release
	return h.Gateway.CreateOrder(ctx, o)
}

// TestReconcileLeavesAnOrderBeingCreated runs a reconciliation while a checkout's
// create order is on the wire: the INTENT is busy, not taken for a lost answer
// and abandoned, and the checkout goes on to PAID.
func TestReconcileLeavesAnOrderBeingCreated(t *testing.T) {
	r := newRig(t)
	h := &holdCreate{Gateway: r.gw, started: make(chan struct{}), release: make(chan struct{})}
	e, err := New(Config{Journal: r.j, Gateway: h, Clock: r.clock, Customer: Customer{Mobile: "9000000001", Email: "counter@example.com"}})
	require.NoError(t, err)
	_, err = e.Payments.Reconcile(t.Context()) // the start's, before any sale
	require.NoError(t, err)

	done := make(chan *Result, 1)
	go func() {
		res, err := sellCard(context.Background(), e, r.sale(t, "ACC-CASE"), card("4111111111111111"), PayOptions{Auth: SandboxOTP(r.gw, "123456")})
		assert.NoError(t, err)
		done <- res
	}()
	<-h.started
	rep, err := e.Payments.Reconcile(t.Context())
	require.NoError(t, err)
	assert.Len(t, rep.Busy, 1, "the order being created is busy")
	for _, o := range rep.Resolved {
		assert.NotEqual(t, StateAbandoned, o.State, "nothing is abandoned")
	}
	close(h.release)
	res := <-done
	require.NotNil(t, res)
	assert.Equal(t, ResultPaid, res.Status)
}
