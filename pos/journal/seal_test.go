package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// The buyer the tests below sell to and remember.
var sealBuyer = pos.Buyer{Name: "Asha Rao", Phone: "9845012345", Address: "12 MG Road, Bengaluru", GSTIN: "29AAPFU0939F1ZR", State: "29"}

// buyerLeaks lists which of sealBuyer's details are in data.
func buyerLeaks(data []byte) []string {
	var found []string
	for _, s := range []string{sealBuyer.Name, sealBuyer.Phone, "12 MG Road", sealBuyer.GSTIN} {
		if bytes.Contains(data, []byte(s)) {
			found = append(found, s)
		}
	}
	return found
}

// buyerEvents are a cash sale to sealBuyer and the remembering of the buyer.
func buyerEvents(t *testing.T, s *script) []pos.Event {
	t.Helper()
	evs := s.cashSale("G-BUYER", "2026-11-22", 7799000)
	b := sealBuyer
	evs[0].Intent.Buyer = &b
	value, err := json.Marshal(sealBuyer)
	require.NoError(t, err)
	return append(evs, pos.Event{Kind: pos.EvSettingsChanged, Time: s.next(), Staff: "001",
		Setting: &pos.Setting{Key: buyerKeyPrefix + sealBuyer.Phone, Value: value}})
}

// readBuyer reads the order and the remembered customer back.
func readBuyer(t *testing.T, j *Journal) (*pos.Order, json.RawMessage) {
	t.Helper()
	o, err := j.Orders.Order(t.Context(), "G-BUYER")
	require.NoError(t, err)
	v, err := j.Shop.Setting(t.Context(), buyerKeyPrefix+sealBuyer.Phone)
	require.NoError(t, err)
	return o, v
}

// TestPersonalDataIsSealed writes a sale to a named buyer and remembers the
// buyer through a keyed journal: the file and its backup hold none of the
// buyer's details, while every read, the verification and the replay give
// them back; the same script in an unkeyed journal shows them (the scan sees
// what is there). An edit of a sealed body is refused as damage.
func TestPersonalDataIsSealed(t *testing.T) {
	t.Run("the scan finds them in clear", func(t *testing.T) {
		j := openTest(t)
		var s script
		appendAll(t, j, buyerEvents(t, &s))
		require.NoError(t, j.Close())
		raw, err := os.ReadFile(j.Path())
		require.NoError(t, err)
		assert.NotEmpty(t, buyerLeaks(readable(t, raw)))
	})

	path := filepath.Join(t.TempDir(), "data", "journal.db")
	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	var s script
	appendAll(t, j, s.representative(t))
	appendAll(t, j, buyerEvents(t, &s))
	o, v := readBuyer(t, j)
	require.NotNil(t, o.Buyer)
	assert.Equal(t, sealBuyer, *o.Buyer)
	assert.JSONEq(t, string(must(json.Marshal(sealBuyer))), string(v))
	var backup bytes.Buffer
	require.NoError(t, j.Archive.Backup(&backup))
	require.NoError(t, j.Close())

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Empty(t, buyerLeaks(raw), "the buyer's details in journal.db")
	assert.Empty(t, buyerLeaks(backup.Bytes()), "the buyer's details in its backup")
	assert.Empty(t, cardLeaks(raw), "card data in journal.db")

	rep, err := VerifyFileWith(t.Context(), path, Options{ChainKey: testKey})
	require.NoError(t, err)
	assert.True(t, rep.Verified, "the chain, the proofs and the replay check out")

	j, err = Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	o2, v2 := readBuyer(t, j)
	assert.Equal(t, o, o2)
	assert.Equal(t, v, v2)
	require.NoError(t, j.Log.Rebuild(t.Context()))
	o3, v3 := readBuyer(t, j)
	assert.Equal(t, o, o3, "the replay gives the same")
	assert.Equal(t, v, v3)
	require.NoError(t, j.Close())

	// Without the key, and with another one, it is refused, untouched.
	raw, err = os.ReadFile(path)
	require.NoError(t, err)
	for _, key := range [][]byte{nil, otherKey} {
		_, err = Open(path, Options{ChainKey: key})
		assert.ErrorIs(t, err, ErrKey)
		assert.Contains(t, pos.Sentence(err), "customers' details")
		after, rerr := os.ReadFile(path)
		require.NoError(t, rerr)
		assert.True(t, bytes.Equal(raw, after), "refused without a change")
	}

	// A byte of a sealed body changed is damage, never a different buyer.
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketEvents).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if v[3]&flagSealed != 0 {
				e := bytes.Clone(v)
				e[len(e)-20] ^= 0x01
				return tx.Bucket(bucketEvents).Put(k, e)
			}
		}
		return errors.New("no sealed event")
	})
	_, err = Open(path, Options{ChainKey: testKey})
	assert.ErrorIs(t, err, ErrDamaged)
}

// TestOldJournalIsSealed opens, with this build, a keyed journal of schema 4
// that holds a buyer's details in clear: they are sealed once at Open, the file
// is copied without its free pages, and then neither journal.db holds them nor
// has anything read, verified or numbered changed.
func TestOldJournalIsSealed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "journal.db")
	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	// The build before sealing: the same journal, nothing sealed.
	j.core.rec.v, j.core.proofs.v = nil, nil
	var s script
	appendAll(t, j, s.representative(t))
	appendAll(t, j, buyerEvents(t, &s))
	appendAll(t, j, s.cashSale("G-AFTER", "2026-11-22", 5000))
	o, v := readBuyer(t, j)
	require.NoError(t, j.Close())
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		require.NoError(t, meta.Delete(metaSealed))
		return asSchema(tx, 4)
	})
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NotEmpty(t, buyerLeaks(raw), "the old journal holds them in clear")
	head, err := os.ReadFile(HeadPath(path))
	require.NoError(t, err)

	j, err = Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	o2, v2 := readBuyer(t, j)
	assert.Equal(t, o, o2)
	assert.Equal(t, v, v2)
	require.NoError(t, j.Close())

	raw, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Empty(t, buyerLeaks(raw), "the buyer's details in journal.db once sealed")
	after, err := os.ReadFile(HeadPath(path))
	require.NoError(t, err)
	assert.Equal(t, head, after, "the chain's end is the same")
	rep, err := VerifyFileWith(t.Context(), path, Options{ChainKey: testKey})
	require.NoError(t, err)
	assert.True(t, rep.Verified)

	// Opened again, nothing more is done.
	j, err = Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	require.NoError(t, j.Close())
	again, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Empty(t, buyerLeaks(again))
}

// must returns b, failing on err (for values that cannot fail to encode).
func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestSealedJournalSalvagedAndRestored: the day's backup of a journal with a
// buyer's sale holds the buyer sealed; salvaged from its own bytes (and from
// the backup) and restored by a manager, the journal reads the buyer as
// written, and the salvaged and restored files hold none of the details in
// clear.
func TestSealedJournalSalvagedAndRestored(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "journal.db")
	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	var s script
	appendAll(t, j, buyerEvents(t, &s))
	o, v := readBuyer(t, j)
	backup := filepath.Join(t.TempDir(), "journal-backup.db")
	require.NoError(t, j.Archive.BackupTo(backup))
	require.NoError(t, j.Close())
	raw, err := os.ReadFile(backup)
	require.NoError(t, err)
	assert.Empty(t, buyerLeaks(raw), "the backup")

	out := filepath.Join(t.TempDir(), "salvaged.db")
	rep, err := SalvageWith(t.Context(), path, backup, out, Options{ChainKey: testKey, RecoveredBy: "001 Asha"})
	require.NoError(t, err)
	assert.Empty(t, rep.Lost, "every event recovered")
	raw, err = os.ReadFile(out)
	require.NoError(t, err)
	assert.Empty(t, buyerLeaks(raw), "the salvaged journal")

	require.NoError(t, RestoreWith(t.Context(), out, path, Options{ChainKey: testKey, RecoveredBy: "001 Asha"}))
	j, err = Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	o2, v2 := readBuyer(t, j)
	assert.Equal(t, o.Buyer, o2.Buyer)
	assert.Equal(t, o.Amount, o2.Amount)
	assert.Equal(t, v, v2)
	require.NoError(t, j.Close())
	raw, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Empty(t, buyerLeaks(raw), "the restored journal")
}
