package link_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store"
	"galla/store/link"
)

// Offline never means twice (issue 22, docs/security.md "Offline returns"):
// two counters, each a till over its own journal, linked to one store server
// over its real database, which is killed and started again.

// overRefundAlarms returns the details of the store's over-refund alarms.
func overRefundAlarms(t *testing.T, s *storeServer) []string {
	t.Helper()
	alarms, err := s.db.Access.Alarms(t.Context(), true)
	require.NoError(t, err)
	var out []string
	for _, a := range alarms {
		if a.Kind == store.AlarmOverRefund {
			out = append(out, a.Terminal+": "+a.Detail)
		}
	}
	return out
}

// TestAnOfflineCounterDoesNotRefundAReturnTwice is the reproduction:
// T1 sells ₹998 in cash, T2 returns it in full to cash (the store up), and
// T1 syncs. With the store down, T1 is asked to return it again from its own
// journal, as goods and as a refund by amount: both are refused with a
// sentence that moves no money, and nothing is journaled. An invoice no other
// counter returned is still returned offline from T1's journal.
func TestAnOfflineCounterDoesNotRefundAReturnTwice(t *testing.T) {
	s := newStoreServer(t)
	t1, t2 := newTill(t, s, "T1"), newTill(t, s, "T2")
	ctx := t.Context()
	sold := t1.sellCash(t, 99800, cable(2))
	inv := sold.ReceiptNo
	other := t1.sellCash(t, 149900, phoneCase())
	t1.sync(t)

	back, err := t2.Returns.Return(ctx, pos.ReturnRequest{Document: inv, Items: []pos.ReturnQty{{SKU: "ACC-CBL", Qty: 2}}, To: pos.RefundToCash, PIN: managerPIN})
	require.NoError(t, err)
	require.Equal(t, pos.RefundDone, back.Status)
	t2.sync(t)
	t1.sync(t) // the store's answer names the invoice returned at T2
	r, ok, err := t1.l.ReturnedElsewhere(sold.SaleID())
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, pos.ElsewhereReturn{Number: inv, Amount: 99800, Counters: "T2"}, r)

	s.kill()
	want := "Invoice T1/2627/000001 was returned at counter T2 (₹998.00), and the store cannot be reached to say what is left of it: this return needs the store. Nothing was refunded; connect to the store and try again."
	_, err = t1.Returns.Return(ctx, pos.ReturnRequest{Document: inv, Items: []pos.ReturnQty{{SKU: "ACC-CBL", Qty: 2}}, To: pos.RefundToCash, PIN: managerPIN})
	require.ErrorIs(t, err, pos.ErrNotRefundable)
	assert.Equal(t, want, pos.Sentence(err))
	_, err = t1.Returns.RefundOrder(ctx, pos.RefundRequest{OrderID: sold.SaleID(), Amount: 49900, PIN: managerPIN})
	require.ErrorIs(t, err, pos.ErrNotRefundable)
	assert.Equal(t, want, pos.Sentence(err))
	o, err := t1.e.Order(ctx, sold.SaleID())
	require.NoError(t, err)
	assert.Empty(t, o.Refunds, "nothing journaled")

	// A state file read again (the counter restarted) still knows it.
	again, err := link.New(t1.cfg, openJournal(t, t.TempDir()).Log)
	require.NoError(t, err)
	_, ok, err = again.ReturnedElsewhere(sold.SaleID())
	require.NoError(t, err)
	assert.True(t, ok)

	// The case no other counter returned comes back from T1's own journal.
	ret, err := t1.Returns.Return(ctx, pos.ReturnRequest{Document: other.ReceiptNo, Items: []pos.ReturnQty{{SKU: "ACC-CASE", Qty: 1}}, To: pos.RefundToCash, PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, pos.RefundDone, ret.Status)

	require.NoError(t, s.start(s.hostport()))
	t1.sync(t)
	assert.Empty(t, overRefundAlarms(t, s), "nothing was paid twice")
}

// TestAUnitReturnedAtTwoCountersIsAnAlarmAtTheNextSync: T1 sells a cable and
// syncs; T2 returns it (the store up) and loses the store before it syncs;
// T1, which has not heard of T2's return, returns the same cable from its own
// journal while the store is down. Both refunds are facts. At the next sync
// of both, the store raises an alarm naming both counters, the invoice and
// the ₹499 at stake, and its day report lists it.
func TestAUnitReturnedAtTwoCountersIsAnAlarmAtTheNextSync(t *testing.T) {
	s := newStoreServer(t)
	t1, t2 := newTill(t, s, "T1"), newTill(t, s, "T2")
	ctx := t.Context()
	sold := t1.sellCash(t, 49900, cable(1))
	inv := sold.ReceiptNo
	t1.sync(t)

	back, err := t2.Returns.Return(ctx, pos.ReturnRequest{Document: inv, Items: []pos.ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: pos.RefundToCash, PIN: managerPIN})
	require.NoError(t, err)
	require.Equal(t, pos.RefundDone, back.Status)

	s.kill()
	_, err = t2.l.Sync(ctx)
	require.Error(t, err, "the store is down")
	again, err := t1.Returns.Return(ctx, pos.ReturnRequest{Document: inv, Items: []pos.ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: pos.RefundToCash, PIN: managerPIN})
	require.NoError(t, err, "T1 never heard of T2's return: its journal decides")
	require.Equal(t, pos.RefundDone, again.Status)

	require.NoError(t, s.start(s.hostport()))
	t1.sync(t)
	t2.sync(t)
	assert.Equal(t, []string{"T2: invoice T1/2627/000001 was refunded at counter T1 and again at counter T2 (refund " + back.Refund.UniqueTxnID +
		", cash): ₹499.00 beyond what was left of it, 1 unit(s) beyond those sold; the money was paid out twice: recover it or write it off"},
		overRefundAlarms(t, s))
	day, err := s.db.Reports.DayReport(ctx, sold.Order.Day)
	require.NoError(t, err)
	assert.Equal(t, pos.Paise(49900), day.OverRefunded)
	require.Len(t, day.OverRefunds, 1)
	assert.Equal(t, store.OverRefund{Terminal: "T2", RefundID: back.Refund.UniqueTxnID, Number: inv, Others: "T1", Amount: 49900, Units: 1}, day.OverRefunds[0])
}
