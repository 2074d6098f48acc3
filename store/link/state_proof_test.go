package link_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store/link"
)

// The counter's list of its invoices returned at other counters, kept in
// store-sync.json, carries a keyed proof (docs/security.md "Offline
// returns"): a file edited at the byte level, written without the key, or
// missing is not believed. The counter then does not know what the store
// said, and an offline return of its own invoice waits for the store.

// cutEntry removes the entry of order id from the "elsewhere" object of the
// state file's bytes b (as the link writes it, indented): the edit that makes
// the counter forget a return made at another counter.
func cutEntry(t *testing.T, b []byte, id string) []byte {
	t.Helper()
	re := regexp.MustCompile(`(?s),?\s*"` + regexp.QuoteMeta(id) + `": \{[^}]*\}`)
	out := re.ReplaceAll(b, nil)
	require.NotEqual(t, b, out, "the entry of %s is in the file", id)
	require.True(t, json.Valid(out), "still JSON: %s", out)
	return out
}

// TestAnEditedReturnedElsewhereListIsNotBelieved: T1 sells two invoices,
// T2 returns the first, and T1 learns it at its sync. With the store down,
// store-sync.json is edited in place in the ways an employee with the data
// directory would, and T1 started again over it: no edit is believed. The
// return of the invoice returned at T2, and of the one no counter returned,
// are refused with a sentence naming why, and nothing is journaled. Once the
// store answers again the counter knows, and the file is proven again.
func TestAnEditedReturnedElsewhereListIsNotBelieved(t *testing.T) {
	s := newStoreServer(t)
	chainKey := bytes.Repeat([]byte{7}, 32)
	t1, t2 := newTillKeyed(t, s, "T1", chainKey), newTill(t, s, "T2")
	ctx := t.Context()
	sold := t1.sellCash(t, 99800, cable(2))
	other := t1.sellCash(t, 149900, phoneCase())
	t1.sync(t)
	back, err := t2.Returns.Return(ctx, pos.ReturnRequest{Document: sold.ReceiptNo, Items: []pos.ReturnQty{{SKU: "ACC-CBL", Qty: 2}}, To: pos.RefundToCash, PIN: managerPIN})
	require.NoError(t, err)
	require.Equal(t, pos.RefundDone, back.Status)
	t2.sync(t)
	t1.sync(t)
	good, err := os.ReadFile(t1.cfg.StatePath)
	require.NoError(t, err)
	require.Contains(t, string(good), sold.SaleID())
	s.kill()

	// proofWith puts into b the proof of its state made as the link makes
	// it, with key: what someone without the counter's keyring can do.
	proofRe := regexp.MustCompile(`"proof": "[0-9a-f]*"`)
	proofWith := func(b, key []byte) []byte {
		p, err := link.StateProof(b, key)
		require.NoError(t, err)
		return proofRe.ReplaceAll(b, []byte(`"proof": "`+p+`"`))
	}
	// Made with the counter's own key, the same proof the file holds: the
	// forgeries below differ from the link's proof in their key only.
	require.Equal(t, good, proofWith(bytes.Clone(good), t1.cfg.ProofKey))
	changed := "store-sync.json was changed outside Galla (its proof does not match), so what it says is not believed"
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte // nil: the file deleted
		why  string
	}{
		{"the return at T2 cut out", func(b []byte) []byte { return cutEntry(t, b, sold.SaleID()) }, changed},
		{"the amount returned made smaller", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"Amount": 99800`), []byte(`"Amount": 100`), 1)
		}, changed},
		{"the entry moved to another order", func(b []byte) []byte {
			return bytes.Replace(b, []byte(sold.SaleID()), []byte(other.SaleID()), 1)
		}, changed},
		{"the entry cut and the proof made anew without the key", func(b []byte) []byte {
			return proofWith(cutEntry(t, b, sold.SaleID()), nil)
		}, changed},
		{"the entry cut and the proof made with another counter's key", func(b []byte) []byte {
			return proofWith(cutEntry(t, b, sold.SaleID()), bytes.Repeat([]byte{8}, 32))
		}, changed},
		{"made a file of the earlier version, without a proof", func(b []byte) []byte {
			b = cutEntry(t, b, sold.SaleID())
			b = regexp.MustCompile(`,?\s*"proof": "[0-9a-f]*"`).ReplaceAll(b, nil)
			return bytes.Replace(b, []byte(`"v": 2`), []byte(`"v": 1`), 1)
		}, "store-sync.json was written by an earlier version, without a proof"},
		{"the file deleted", nil, "it has no record of the store's answer since it was enrolled (store-sync.json is missing)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.edit == nil {
				require.NoError(t, os.Remove(t1.cfg.StatePath))
			} else {
				edited := tc.edit(bytes.Clone(good))
				require.NotEqual(t, good, edited)
				require.NoError(t, os.WriteFile(t1.cfg.StatePath, edited, 0o600))
			}
			// The counter started again over the file.
			l, err := link.New(t1.cfg, t1.j.Log)
			require.NoError(t, err)
			t1.e.StoreDesk.SetDecisions(l)
			_, ok, err := l.ReturnedElsewhere(sold.SaleID())
			assert.False(t, ok)
			var unknown *link.UnknownError
			require.ErrorAs(t, err, &unknown)
			assert.Equal(t, tc.why, unknown.Why)

			for _, o := range []pos.PayOutcome{sold, other} {
				want := "The store cannot be reached, and this counter cannot tell whether other counters returned any of invoice " + o.ReceiptNo + ": " + tc.why + ". This return needs the store. Nothing was refunded; connect to the store and try again."
				_, err = t1.Returns.RefundOrder(ctx, pos.RefundRequest{OrderID: o.SaleID(), Amount: 10000, PIN: managerPIN})
				require.ErrorIs(t, err, pos.ErrNotRefundable)
				assert.Equal(t, want, pos.Sentence(err))
				got, err := t1.e.Order(ctx, o.SaleID())
				require.NoError(t, err)
				assert.Empty(t, got.Refunds, "nothing journaled")
			}
			_, err = t1.Returns.Return(ctx, pos.ReturnRequest{Document: sold.ReceiptNo, Items: []pos.ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: pos.RefundToCash, PIN: managerPIN})
			require.ErrorIs(t, err, pos.ErrNotRefundable)
		})
	}

	// The store back: the counter asks again at its sync, knows, and proves
	// its file; a start over that file knows too.
	require.NoError(t, s.start(s.hostport()))
	l, err := link.New(t1.cfg, t1.j.Log)
	require.NoError(t, err)
	t1.l = l
	t1.e.StoreDesk.SetDecisions(l)
	t1.sync(t)
	s.kill()
	again, err := link.New(t1.cfg, t1.j.Log)
	require.NoError(t, err)
	t1.e.StoreDesk.SetDecisions(again)
	r, ok, err := again.ReturnedElsewhere(sold.SaleID())
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, pos.ElsewhereReturn{Number: sold.ReceiptNo, Amount: 99800, Counters: "T2"}, r)
	_, err = t1.Returns.RefundOrder(ctx, pos.RefundRequest{OrderID: sold.SaleID(), Amount: 10000, PIN: managerPIN})
	require.ErrorIs(t, err, pos.ErrNotRefundable)
	assert.Contains(t, pos.Sentence(err), "was returned at counter T2 (₹998.00)")
	ret, err := t1.Returns.Return(ctx, pos.ReturnRequest{Document: other.ReceiptNo, Items: []pos.ReturnQty{{SKU: "ACC-CASE", Qty: 1}}, To: pos.RefundToCash, PIN: managerPIN})
	require.NoError(t, err, "no counter returned it: the journal decides offline")
	assert.Equal(t, pos.RefundDone, ret.Status)
}

// TestAnOlderStateFilePutBackIsNotBelieved: a genuine store-sync.json, proof
// and all, copied aside before the store said T1's invoice was returned at
// T2, and put back after: the keyed journal records the store's last answer,
// so the older file is not believed and the return of that invoice, with the
// store down, waits for the store. The newest file is believed as before, and
// a counter on a fresh data directory records its first answer and believes
// its own file.
func TestAnOlderStateFilePutBackIsNotBelieved(t *testing.T) {
	s := newStoreServer(t)
	t1, t2 := newTillKeyed(t, s, "T1", bytes.Repeat([]byte{7}, 32)), newTill(t, s, "T2")
	ctx := t.Context()
	sold := t1.sellCash(t, 99800, cable(2))
	other := t1.sellCash(t, 149900, phoneCase())
	t1.sync(t)
	rec, err := link.ReadAnswer(ctx, t1.j.Shop)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), rec.N, "the first answer is journaled")
	older, err := os.ReadFile(t1.cfg.StatePath)
	require.NoError(t, err)
	require.NotContains(t, string(older), sold.SaleID())

	back, err := t2.Returns.Return(ctx, pos.ReturnRequest{Document: sold.ReceiptNo, Items: []pos.ReturnQty{{SKU: "ACC-CBL", Qty: 2}}, To: pos.RefundToCash, PIN: managerPIN})
	require.NoError(t, err)
	require.Equal(t, pos.RefundDone, back.Status)
	t2.sync(t)
	t1.sync(t)
	rec, err = link.ReadAnswer(ctx, t1.j.Shop)
	require.NoError(t, err)
	assert.Equal(t, uint64(2), rec.N, "the answer naming the return at T2 is journaled")
	assert.Zero(t, t1.l.Status().Waiting, "the answer's event went with the sync")
	newest, err := os.ReadFile(t1.cfg.StatePath)
	require.NoError(t, err)
	require.Contains(t, string(newest), sold.SaleID())
	s.kill()

	// start is the counter started again over the file b.
	start := func(t *testing.T, b []byte) *link.Link {
		t.Helper()
		require.NoError(t, os.WriteFile(t1.cfg.StatePath, b, 0o600))
		l, err := link.New(t1.cfg, t1.j.Log)
		require.NoError(t, err)
		t1.e.StoreDesk.SetDecisions(l)
		return l
	}
	refunds := func(t *testing.T, o pos.PayOutcome) int {
		t.Helper()
		got, err := t1.e.Order(ctx, o.SaleID())
		require.NoError(t, err)
		return len(got.Refunds)
	}
	// The file of an earlier build names no answer; made with the counter's
	// own key, as that build made it.
	unnumbered := regexp.MustCompile(`,?\s*"answer": [0-9]+`).ReplaceAll(bytes.Clone(older), nil)
	p, err := link.StateProof(unnumbered, t1.cfg.ProofKey)
	require.NoError(t, err)
	unnumbered = regexp.MustCompile(`"proof": "[0-9a-f]*"`).ReplaceAll(unnumbered, []byte(`"proof": "`+p+`"`))
	for _, tc := range []struct {
		name  string
		file  []byte
		holds int
	}{
		{"the copy taken before the store's answer", older, 1},
		{"that copy as a build before numbered answers wrote it", unnumbered, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := start(t, tc.file)
			why := fmt.Sprintf("store-sync.json is older than the store's last answer this counter's journal records (answer 2; the file holds answer %d): a copy put back is not believed", tc.holds)
			_, ok, err := l.ReturnedElsewhere(sold.SaleID())
			assert.False(t, ok)
			var unknown *link.UnknownError
			require.ErrorAs(t, err, &unknown)
			assert.Equal(t, why, unknown.Why)
			for _, o := range []pos.PayOutcome{sold, other} {
				_, err = t1.Returns.RefundOrder(ctx, pos.RefundRequest{OrderID: o.SaleID(), Amount: 10000, PIN: managerPIN})
				require.ErrorIs(t, err, pos.ErrNotRefundable)
				assert.Equal(t, "The store cannot be reached, and this counter cannot tell whether other counters returned any of invoice "+o.ReceiptNo+": "+why+". This return needs the store. Nothing was refunded; connect to the store and try again.", pos.Sentence(err))
			}
			_, err = t1.Returns.Return(ctx, pos.ReturnRequest{Document: sold.ReceiptNo, Items: []pos.ReturnQty{{SKU: "ACC-CBL", Qty: 2}}, To: pos.RefundToCash, PIN: managerPIN})
			require.ErrorIs(t, err, pos.ErrNotRefundable)
			assert.Zero(t, refunds(t, sold), "nothing journaled")
			assert.Zero(t, refunds(t, other), "nothing journaled")
		})
	}

	// The newest file put back is believed: the invoice returned at T2 waits
	// for the store, the other comes back from T1's journal.
	l := start(t, newest)
	r, ok, err := l.ReturnedElsewhere(sold.SaleID())
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, pos.ElsewhereReturn{Number: sold.ReceiptNo, Amount: 99800, Counters: "T2"}, r)
	_, err = t1.Returns.RefundOrder(ctx, pos.RefundRequest{OrderID: sold.SaleID(), Amount: 10000, PIN: managerPIN})
	require.ErrorIs(t, err, pos.ErrNotRefundable)
	assert.Contains(t, pos.Sentence(err), "was returned at counter T2 (₹998.00)")
	ret, err := t1.Returns.Return(ctx, pos.ReturnRequest{Document: other.ReceiptNo, Items: []pos.ReturnQty{{SKU: "ACC-CASE", Qty: 1}}, To: pos.RefundToCash, PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, pos.RefundDone, ret.Status)

	// The older copy put back while the store is up: the next sync asks the
	// store again, journals its answer anew, and the file is believed.
	require.NoError(t, s.start(s.hostport()))
	t1.l = start(t, older)
	t1.sync(t)
	rec, err = link.ReadAnswer(ctx, t1.j.Shop)
	require.NoError(t, err)
	assert.Equal(t, uint64(3), rec.N)
	l = start(t, mustRead(t, t1.cfg.StatePath))
	_, ok, err = l.ReturnedElsewhere(sold.SaleID())
	require.NoError(t, err)
	assert.True(t, ok)

	// A counter on a fresh data directory: its first sync journals the first
	// answer, and a start over its own file believes it.
	t3 := newTill(t, s, "T3")
	sale := t3.sellCash(t, 49900, cable(1))
	t3.sync(t)
	rec, err = link.ReadAnswer(ctx, t3.j.Shop)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), rec.N)
	s.kill()
	l3, err := link.New(t3.cfg, t3.j.Log)
	require.NoError(t, err)
	t3.e.StoreDesk.SetDecisions(l3)
	_, ok, err = l3.ReturnedElsewhere(sale.SaleID())
	require.NoError(t, err)
	assert.False(t, ok)
	ret, err = t3.Returns.Return(ctx, pos.ReturnRequest{Document: sale.ReceiptNo, Items: []pos.ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: pos.RefundToCash, PIN: managerPIN})
	require.NoError(t, err, "no counter returned it: the journal decides offline")
	assert.Equal(t, pos.RefundDone, ret.Status)
}

// mustRead reads the file at path.
func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// TestAStateFileOfAnEarlierBuildIsNumberedAtTheNextSync: a counter whose
// state file was written by a build that did not journal the store's
// answers (no answer named, none journaled) believes it, and its next sync
// journals the store's answer although the list did not change: a copy of
// that earlier file put back is then older than the journal's record.
func TestAStateFileOfAnEarlierBuildIsNumberedAtTheNextSync(t *testing.T) {
	s := newStoreServer(t)
	t1 := newTill(t, s, "T1")
	sold := t1.sellCash(t, 49900, cable(1))
	earlier := t1.cfg
	earlier.Journal = nil // as the earlier build kept it
	l, err := link.New(earlier, t1.j.Log)
	require.NoError(t, err)
	_, err = l.Sync(t.Context())
	require.NoError(t, err)
	old := mustRead(t, t1.cfg.StatePath)
	require.NotContains(t, string(old), `"answer"`)
	rec, err := link.ReadAnswer(t.Context(), t1.j.Shop)
	require.NoError(t, err)
	require.Zero(t, rec.N, "nothing journaled")

	l, err = link.New(t1.cfg, t1.j.Log)
	require.NoError(t, err)
	_, ok, err := l.ReturnedElsewhere(sold.SaleID())
	require.NoError(t, err, "believed: the journal records no answer")
	assert.False(t, ok)
	_, err = l.Sync(t.Context())
	require.NoError(t, err)
	rec, err = link.ReadAnswer(t.Context(), t1.j.Shop)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), rec.N)

	require.NoError(t, os.WriteFile(t1.cfg.StatePath, old, 0o600))
	l, err = link.New(t1.cfg, t1.j.Log)
	require.NoError(t, err)
	_, _, err = l.ReturnedElsewhere(sold.SaleID())
	var unknown *link.UnknownError
	require.ErrorAs(t, err, &unknown)
	assert.Equal(t, "store-sync.json is older than the store's last answer this counter's journal records (answer 1; the file holds answer 0): a copy put back is not believed", unknown.Why)
}
