package cli

import (
	"bytes"
	"encoding/binary"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
	"galla/ui"
)

// tamperEvent flips the case of the first letter of the kind of event seq in the
// journal file of dataDir: the event still decodes, but no longer matches its hash.
func tamperEvent(t *testing.T, dataDir string, seq uint64) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dataDir, journalFile), 0o600, &bolt.Options{Timeout: time.Second})
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		events := tx.Bucket([]byte("events"))
		require.NotNil(t, events, "the journal has an events bucket")
		key := binary.BigEndian.AppendUint64(nil, seq)
		v := bytes.Clone(events.Get(key))
		i := bytes.Index(v, []byte(`"kind":"`))
		require.GreaterOrEqual(t, i, 0, "event %d has a kind", seq)
		v[i+len(`"kind":"`)] ^= 0x20
		return events.Put(key, v)
	}))
}

// awaitCheck waits for the journal's startup check openWindowTill started.
func awaitCheck(t *testing.T, till *terminal) {
	t.Helper()
	select {
	case <-till.checked:
	case <-time.After(20 * time.Second):
		t.Fatal("the journal's startup check did not finish")
	}
}

func TestWindowTillOnADamagedJournal(t *testing.T) {
	ctx := t.Context()
	c := &cli{dataDir: t.TempDir(), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}

	// A whole journal: the check passes and a cash sale goes through.
	till, closeAll, err := openWindowTill(c)
	require.NoError(t, err)
	awaitCheck(t, till)
	st := till.Status(ctx)
	assert.False(t, st.Checking)
	assert.Empty(t, st.Damaged)
	require.NoError(t, till.Crew.AddStaff(ctx, "Asha", ui.RoleManager, "432100"))
	p := till.Shelf.Search("charger", 1)
	require.NotEmpty(t, p)
	lines := []ui.Line{{Product: p[0], Qty: 1}}
	sold, err := till.Checkout.Pay(ctx, ui.PayRequest{Lines: lines, Tender: pos.TenderCash, Tendered: pos.Rupees(5000), Cashier: "Asha"}, nil)
	require.NoError(t, err)
	closeAll()

	tamperEvent(t, c.dataDir, 2)

	// The command line still checks inside Open and refuses the file.
	_, err = openTill(c)
	require.Error(t, err)
	assert.Contains(t, pos.Sentence(err), "damaged at event 2")

	// The window opens, says the damage and takes no payment.
	till, closeAll, err = openWindowTill(c)
	require.NoError(t, err, "the window opens on a damaged journal")
	t.Cleanup(closeAll)
	awaitCheck(t, till)
	st = till.Status(ctx)
	assert.False(t, st.Checking)
	assert.Contains(t, st.Damaged, "damaged at event 2")
	assert.Contains(t, st.Damaged, "will not take payments")

	card := till.Checkout.NewCard("5555555555554444", "12", "2031", "123", "A Customer")
	for _, req := range []ui.PayRequest{
		{Lines: lines, Tender: pos.TenderCash, Tendered: pos.Rupees(5000), Cashier: "Asha"},
		{Lines: lines, Tender: pos.TenderCard, Card: card, Cashier: "Asha"},
		{Lines: lines, Tender: pos.TenderPhone, Cashier: "Asha"},
	} {
		_, err := till.Checkout.Pay(ctx, req, nil)
		require.Error(t, err, "%s is refused", req.Tender)
		assert.Equal(t, st.Damaged, pos.Sentence(err), "%s is refused with the damage's sentence", req.Tender)
	}
	_, err = till.Returns.Refund(ctx, sold.OrderID, 0, "432100")
	require.Error(t, err)
	assert.Equal(t, st.Damaged, pos.Sentence(err))

	// Reads go on: the journal screen lists the sale.
	orders, err := till.Books.Orders(ctx, till.eng.Now())
	require.NoError(t, err)
	require.Len(t, orders, 1)

	// The startup reconciliation does not run on it, and says why.
	var msg bytes.Buffer
	select {
	case <-reconcileAfterCheck(ctx, till, &msg):
	case <-time.After(20 * time.Second):
		t.Fatal("reconcileAfterCheck did not return")
	}
	assert.Contains(t, msg.String(), "damaged at event 2")
}
