package journal

import (
	"bytes"
	"context"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// provedJournal writes, keyed with testKey, a cashier (Ravi, 002) and the
// shop's details, then the representative script (its Z report seals them
// before the last checkpoint) and a sale after it, and takes the day's backup.
// It returns the journal's path and the backup's.
func provedJournal(t *testing.T) (path, backup string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "data", "journal.db")
	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	var s script
	ravi, err := json.Marshal(pos.Staff{ID: "002", Name: "Ravi", Role: pos.RoleCashier, PINHash: bytes.Repeat([]byte{7}, 32), Salt: []byte("salt-salt-salt-s"), Algo: pos.AlgoArgon2id, Iterations: 2, Memory: 19 * 1024})
	require.NoError(t, err)
	appendAll(t, j, []pos.Event{
		{Kind: pos.EvStaffAdded, Time: s.next(), Data: ravi},
		{Kind: pos.EvSettingsChanged, Time: s.next(), Staff: "001", Setting: &pos.Setting{Key: "shop", Value: json.RawMessage(`{"name":"Galla Mobiles","upi":"galla@okaxis"}`)}},
	})
	appendAll(t, j, s.representative(t))
	appendAll(t, j, s.cardSale("G-after", "2026-11-22", 5000))
	backup, err = j.Archive.BackupDay("2026-11-22")
	require.NoError(t, err)
	require.NoError(t, j.Close())
	return path, backup
}

// editBytes rewrites, with bbolt, the stored value of key in bucket: old
// becomes new, byte for byte, the rest of the file left as it is.
func editBytes(t *testing.T, path string, bucket []byte, key []byte, old, new string) {
	t.Helper()
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		v := b.Get(key)
		require.True(t, bytes.Contains(v, []byte(old)), "%s %q holds %s", bucket, key, old)
		return b.Put(key, bytes.Replace(v, []byte(old), []byte(new), 1))
	})
}

// TestEditedRecordsAreRefused edits, byte for byte, records written before the
// last Z report, which the start-up check does not replay: a cashier made
// manager, a manager's PIN replaced by an old unpeppered PBKDF2 hash, the
// shop's name and UPI address, an order's amount, the catalog's price, a Z
// report's total. Open refuses an edited staff record or setting (every
// command reads them first); each read that would use any record refuses it
// with a *MismatchError naming it and the last backup, the verification result
// then says so (the window takes no payment), and nothing is written.
func TestEditedRecordsAreRefused(t *testing.T) {
	pbkdf2Hash := `"pin_hash":"` + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" + `","salt":"c2FsdA==","iterations":100000`
	tests := []struct {
		name     string
		bucket   []byte
		key      string
		old, new string
		read     func(ctx context.Context, j *Journal) error
	}{
		{"a cashier made manager", bucketStaff, "002", `"role":"cashier"`, `"role":"manager"`,
			func(ctx context.Context, j *Journal) error { _, err := j.Staff.Get(ctx, "002"); return err }},
		{"the staff list", bucketStaff, "002", `"role":"cashier"`, `"role":"manager"`,
			func(ctx context.Context, j *Journal) error { _, err := j.Staff.List(ctx); return err }},
		{"a manager's PIN made PBKDF2 without pepper", bucketStaff, "001",
			`"pin_hash":"MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=","salt":"c2FsdC1zYWx0LXNhbHQtcw==","iterations":100000`, pbkdf2Hash,
			func(ctx context.Context, j *Journal) error { _, err := j.Staff.Get(ctx, "001"); return err }},
		{"the shop's name", bucketSettings, "shop", `"name":"Galla Mobiles"`, `"name":"Fake Mobiles!"`,
			func(ctx context.Context, j *Journal) error { _, err := j.Shop.Setting(ctx, "shop"); return err }},
		{"the shop's UPI address", bucketSettings, "shop", `"upi":"galla@okaxis"`, `"upi":"thief@okaxis"`,
			func(ctx context.Context, j *Journal) error { _, err := j.Shop.Setting(ctx, "shop"); return err }},
		{"an order's amount", bucketOrders, "G-0002", `"captured":49900`, `"captured":99900`,
			func(ctx context.Context, j *Journal) error { _, err := j.Orders.Order(ctx, "G-0002"); return err }},
		{"a day's orders", bucketOrders, "G-0002", `"captured":49900`, `"captured":99900`,
			func(ctx context.Context, j *Journal) error {
				_, err := j.Orders.OrdersByDay(ctx, "2026-11-21")
				return err
			}},
		{"the catalog's price", bucketCatalog, "products", `"price":"39999.00"`, `"price":"00009.00"`,
			func(ctx context.Context, j *Journal) error { _, err := j.Shop.Catalog(ctx); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, backup := provedJournal(t)
			editBytes(t, path, tt.bucket, []byte(tt.key), tt.old, tt.new)
			before := fileSum(t, path)

			// Staff and settings, read by every command first, are proved at
			// Open; the rest when read.
			j, err := Open(path, Options{ChainKey: testKey})
			if bytes.Equal(tt.bucket, bucketStaff) || bytes.Equal(tt.bucket, bucketSettings) {
				require.ErrorIs(t, err, ErrDerivedMismatch, "refused at Open")
				j, err = Open(path, Options{ChainKey: testKey, ReadOnly: true})
				require.NoError(t, err, "read-only, the reports stay readable")
			}
			require.NoError(t, err)
			err = tt.read(t.Context(), j)
			require.ErrorIs(t, err, ErrDerivedMismatch)
			var me *MismatchError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, string(tt.bucket), me.Bucket)
			assert.Equal(t, tt.key, me.Key)
			assert.Equal(t, backup, me.Backup)
			s := pos.Sentence(err)
			assert.Contains(t, s, tt.key)
			assert.Contains(t, s, backup)
			done, verr := j.Log.Verified()
			assert.True(t, done)
			assert.ErrorIs(t, verr, ErrDerivedMismatch, "the window's payments wait on this")
			require.NoError(t, j.Close())
			assert.Equal(t, before, fileSum(t, path), "nothing written")

			_, err = VerifyFileWith(t.Context(), path, Options{ChainKey: testKey})
			assert.ErrorIs(t, err, ErrDerivedMismatch, "galla journal verify")
		})
	}
}

// TestEditedZReportIsRefused: a Z report's total raised in the file.
func TestEditedZReportIsRefused(t *testing.T) {
	path, _ := provedJournal(t)
	editBytes(t, path, bucketZ, u64(1), `"total":4429700`, `"total":9429700`)
	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	defer j.Close()
	_, err = j.Days.DayClose(t.Context(), "2026-11-21")
	var me *MismatchError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "z_reports", me.Bucket)
}

// TestEditedRecordIsNotLaundered: an edited record is not given a proof by the
// next event built on it: a wrong PIN counted on a cashier made manager, the
// next step of an order whose amount was raised. Both are refused, nothing is
// appended.
func TestEditedRecordIsNotLaundered(t *testing.T) {
	path, _ := provedJournal(t)
	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	defer j.Close()
	// Edited in the open file (Open would refuse the staff record already),
	// as another writer could.
	require.NoError(t, j.core.db.Update(func(tx *bolt.Tx) error {
		for _, e := range []struct{ bucket, key, old, new string }{
			{"staff", "002", `"role":"cashier"`, `"role":"manager"`},
			{"orders", "G-0003", `"amount":129900`, `"amount":1299`},
		} {
			b := tx.Bucket([]byte(e.bucket))
			v := b.Get([]byte(e.key))
			require.True(t, bytes.Contains(v, []byte(e.old)))
			require.NoError(t, b.Put([]byte(e.key), bytes.Replace(v, []byte(e.old), []byte(e.new), 1)))
		}
		return nil
	}))
	last, err := j.Log.LastSeq(t.Context())
	require.NoError(t, err)

	err = j.Staff.RecordAttempt(t.Context(), "002", 1, t0)
	require.ErrorIs(t, err, ErrDerivedMismatch, "a wrong PIN of the edited member")
	var s script
	s.at = t0.Add(24 * time.Hour)
	_, err = j.Log.Append(t.Context(), pos.Event{Kind: pos.EvOrderAbandoned, OrderID: "G-0003", Day: "2026-11-22", Time: s.next(), Reason: "test"})
	require.ErrorIs(t, err, ErrDerivedMismatch, "the next event of the edited order")
	var me *MismatchError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "G-0003", me.Key)

	now, err := j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	assert.Equal(t, last, now, "nothing appended")
}

// TestDeletedProofsAreNoCover: the proofs bucket deleted beside an edited
// record looks like a journal written before proofs; Open compares every
// record with the events before it gives proofs, and refuses the edit.
func TestDeletedProofsAreNoCover(t *testing.T) {
	path, _ := provedJournal(t)
	editBytes(t, path, bucketStaff, []byte("002"), `"role":"cashier"`, `"role":"manager"`)
	rawUpdate(t, path, func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketProofs) })
	before := fileSum(t, path)
	_, err := Open(path, Options{ChainKey: testKey})
	var me *MismatchError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "staff", me.Bucket)
	assert.Equal(t, "002", me.Key)
	assert.Equal(t, before, fileSum(t, path), "nothing written")
}

// TestUpgradeProvesTheRecords opens the journal of schema 3 (keyed, records
// without proofs) as the terminal does: every record is compared with the
// events, given its proof, and the proof journaled (journal.records_proved)
// once; the records read as before. An edit made before the upgrade is
// refused at it, naming the record, and nothing is migrated... nor proved.
func TestUpgradeProvesTheRecords(t *testing.T) {
	path := copyFixture(t, fixtureSchema3)
	j, err := Open(path, Options{ChainKey: testKey, AppVersion: "0.1.0"})
	require.NoError(t, err, "the journal of schema 3 opens")
	var found bool
	require.NoError(t, j.Log.EventsFrom(t.Context(), 1, func(ev pos.Event) error {
		if ev.Kind == EvRecordsProved {
			found = true
			var d recordsProved
			require.NoError(t, json.Unmarshal(ev.Data, &d))
			assert.Equal(t, uint64(3), d.From)
			assert.Positive(t, d.Proofs)
		}
		return nil
	}))
	assert.True(t, found, "journal.records_proved")
	st, err := j.Staff.Get(t.Context(), "001")
	require.NoError(t, err)
	assert.Equal(t, pos.RoleManager, st.Role)
	o, err := j.Orders.Order(t.Context(), "G-0002")
	require.NoError(t, err)
	assert.Equal(t, pos.Paise(49900), o.Amount)
	last, err := j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	require.NoError(t, j.Close())

	j, err = Open(path, Options{ChainKey: testKey, AppVersion: "0.1.0"})
	require.NoError(t, err)
	again, err := j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	assert.Equal(t, last, again, "proved once")
	require.NoError(t, j.Close())
	rep, err := VerifyFileWith(t.Context(), path, Options{ChainKey: testKey})
	require.NoError(t, err)
	assert.True(t, rep.Verified)

	// Edited before the upgrade: refused by it.
	path = copyFixture(t, fixtureSchema3)
	editBytes(t, path, bucketStaff, []byte("001"), `"name":"Asha"`, `"name":"Eve"`)
	_, err = Open(path, Options{ChainKey: testKey, AppVersion: "0.1.0"})
	var me *MismatchError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "staff", me.Bucket)
	assert.Equal(t, "001", me.Key)
}

// TestKeyedChainDowngradeIsRefused re-chains a keyed journal with plain
// SHA-256 from its first event, deletes the check of the key from meta and
// the head record beside the file: Open with the terminal's key refuses it
// with a sentence, deferred or not, and changes nothing; the key is not
// adopted. With the proofs bucket deleted too, the missing head record
// refuses it.
func TestKeyedChainDowngradeIsRefused(t *testing.T) {
	for _, dropProofs := range []bool{false, true} {
		path, _ := keyedJournal(t)
		keyed := sealer{key: testKey}
		rawUpdate(t, path, func(tx *bolt.Tx) error {
			events, meta := tx.Bucket(bucketEvents), tx.Bucket(bucketMeta)
			var h [32]byte
			last, _, _ := headIn(events)
			for n := uint64(1); n <= last; n++ {
				r, err := keyed.decode(events.Get(u64(n)))
				require.NoError(t, err)
				ev, err := r.event()
				require.NoError(t, err)
				ev.PrevHash = hex.EncodeToString(h[:])
				data, sum, err := sealEvent(&ev)
				require.NoError(t, err)
				require.NoError(t, events.Put(u64(n), data))
				h = sum
			}
			require.NoError(t, tx.DeleteBucket(bucketCheckpoints)) // rebuilt unkeyed from the events
			if dropProofs {
				require.NoError(t, tx.DeleteBucket(bucketProofs))
			}
			require.NoError(t, meta.Delete(metaKey))
			return events.SetSequence(headMark(last, h))
		})
		require.NoError(t, os.Remove(HeadPath(path)))
		before := fileSum(t, path)
		for _, deferred := range []bool{false, true} {
			_, err := Open(path, Options{ChainKey: testKey, DeferVerify: deferred})
			require.ErrorIs(t, err, ErrDamaged, "proofs dropped %v, deferred %v", dropProofs, deferred)
			assert.Contains(t, pos.Sentence(err), "Galla will not take payments from it")
		}
		assert.Equal(t, before, fileSum(t, path), "the key is not adopted: nothing written")
		_, err := os.Stat(HeadPath(path))
		assert.ErrorIs(t, err, os.ErrNotExist, "no head record written anew")
	}
}

// TestMissingHeadRecordIsRefused: the head record beside a keyed journal
// deleted: Open refuses with a sentence instead of writing it anew. With the
// proofs deleted too (which Open would give anew), the refusal comes before
// anything is written.
func TestMissingHeadRecordIsRefused(t *testing.T) {
	for _, dropProofs := range []bool{false, true} {
		path, _ := keyedJournal(t)
		require.NoError(t, os.Remove(HeadPath(path)))
		if dropProofs {
			rawUpdate(t, path, func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketProofs) })
		}
		before := fileSum(t, path)
		_, err := Open(path, Options{ChainKey: testKey})
		require.ErrorIs(t, err, ErrCorrupt)
		assert.Contains(t, pos.Sentence(err), "head record")
		assert.Contains(t, pos.Sentence(err), "galla journal restore")
		_, err = os.Stat(HeadPath(path))
		assert.ErrorIs(t, err, os.ErrNotExist)
		assert.Equal(t, before, fileSum(t, path), "nothing written (proofs dropped %v)", dropProofs)
	}
}

// TestSalvagePutInPlace cuts a keyed journal after its first events (its
// head record still names the last), salvages it as the README says and puts
// the salvaged journal in place: by hand it is refused by the head record
// with a sentence naming the way; through Restore, named by a manager, it is
// accepted, the recovery journaled with the manager, the new head recorded,
// and the next sale takes the number after the highest ever handed out.
func TestSalvagePutInPlace(t *testing.T) {
	path, stored := keyedJournal(t)
	hw, _, err := ReadNumbers(path)
	require.NoError(t, err)
	// Cut: only the first ten events are left, the mark of the head moved back.
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		events := tx.Bucket(bucketEvents)
		for _, ev := range stored[10:] {
			require.NoError(t, events.Delete(u64(ev.Seq)))
		}
		h, err := hex.DecodeString(stored[9].Hash)
		require.NoError(t, err)
		return events.SetSequence(headMark(10, [32]byte(h)))
	})
	// The bytes of the events cut are gone too (a compact copy holds the
	// live pages only), as from a file cut short.
	cut := filepath.Join(t.TempDir(), "cut.db")
	compactTo(t, path, cut)
	require.NoError(t, os.Rename(cut, path))
	out := filepath.Join(t.TempDir(), "salvaged.db")
	rep, err := SalvageWith(t.Context(), path, "", out, Options{ChainKey: testKey, RecoveredBy: "001 Asha"})
	require.NoError(t, err)
	assert.Equal(t, 10, rep.Recovered, "only the first ten events are left")
	assert.False(t, rep.Numbers.behind(hw), "salvage continues past the high-water numbers")

	// By hand: refused, with the way.
	aside := filepath.Join(t.TempDir(), "damaged.db")
	require.NoError(t, os.Rename(path, aside))
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	_, err = Open(path, Options{ChainKey: testKey})
	require.ErrorIs(t, err, ErrDamaged)
	assert.Contains(t, pos.Sentence(err), "galla journal restore")

	// By a manager: accepted.
	require.NoError(t, RestoreWith(t.Context(), out, path, Options{ChainKey: testKey, RecoveredBy: "001 Asha"}))
	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err, "the salvaged journal put in place opens")
	var how []string
	require.NoError(t, j.Log.EventsFrom(t.Context(), 1, func(ev pos.Event) error {
		if ev.Kind == EvRecovered {
			var d recovered
			require.NoError(t, json.Unmarshal(ev.Data, &d))
			assert.Equal(t, "001 Asha", d.By)
			assert.Equal(t, "001 Asha", ev.Staff)
			how = append(how, d.How)
		}
		return nil
	}))
	assert.Equal(t, []string{"salvage", "restore"}, how, "both journaled")
	n, err := j.Numbers()
	require.NoError(t, err)
	var s script
	s.receipt = n.Receipt
	s.at = t0.Add(48 * time.Hour)
	sale := appendAll(t, j, s.cashSale("G-again", "2026-11-23", 100))
	assert.Equal(t, hw.Receipt+1, sale[len(sale)-1].ReceiptNo, "the next number after the highest ever handed out")
	last, err := j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	require.NoError(t, j.Close())

	head, err := os.ReadFile(HeadPath(path))
	require.NoError(t, err)
	require.Len(t, head, headRecordSize)
	assert.Equal(t, u64(last), head[:8], "the new head is the one recorded beside it")
	j, err = Open(path, Options{ChainKey: testKey})
	require.NoError(t, err, "and it opens again")
	require.NoError(t, j.Close())
}

// TestOldPINRecordedByTheLogIsUpgraded: a manager's PIN recorded by the keyed
// log as an earlier version hashed it (PBKDF2, no pepper) signs in, and is
// rehashed with argon2id and the pepper in a keyed event; the journal verifies.
func TestOldPINRecordedByTheLogIsUpgraded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "journal.db")
	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	old := pos.Staff{ID: "001", Name: "Asha", Role: pos.RoleManager, Iterations: pos.MinPINIterations, Salt: []byte("sixteen byte slt")}
	old.PINHash, err = pbkdf2.Key(sha256.New, "135790", old.Salt, old.Iterations, 32)
	require.NoError(t, err)
	data, err := json.Marshal(old)
	require.NoError(t, err)
	var s script
	appendAll(t, j, []pos.Event{{Kind: pos.EvStaffAdded, Time: s.next(), Data: data}})
	require.NoError(t, j.Close())

	j, err = Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	defer j.Close()
	pepper := []byte("a pepper kept in the keyring, 32b")
	r := pos.NewRoster(j.Staff).WithPepper(pepper)
	_, err = r.SignIn(t.Context(), "001", "135790", t0.Add(time.Hour))
	require.NoError(t, err, "the log recorded it")
	up, err := j.Staff.Get(t.Context(), "001")
	require.NoError(t, err)
	assert.Equal(t, pos.AlgoArgon2id, up.Algo, "rehashed at once")
	assert.True(t, up.PINMatches("135790", pepper))
	require.NoError(t, j.Log.VerifyAll(t.Context()))
}
