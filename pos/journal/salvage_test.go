package journal

import (
	"context"
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

// dayAfterBackup makes a used data directory whose journal has sales after its
// backup of 2026-11-21, and returns the journal's path, the backup's and the
// counters before the damage.
func dayAfterBackup(t *testing.T) (string, string, Numbers) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data", "journal.db")
	j, err := Open(path, Options{Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	var s script
	appendAll(t, j, s.representative(t))
	backup, err := j.Archive.BackupDay("2026-11-21")
	require.NoError(t, err)
	appendAll(t, j, s.cashSale("G-after-1", "2026-11-22", 5000))
	appendAll(t, j, s.cardSale("G-after-2", "2026-11-22", 7000))
	appendAll(t, j, s.unknownSale("G-after-3", "2026-11-22", 9000))
	n, err := j.Numbers()
	require.NoError(t, err)
	require.NoError(t, j.Close())
	return path, backup, n
}

func TestHighWaterFile(t *testing.T) {
	path, backup, n := dayAfterBackup(t)
	hw, ok, err := ReadNumbers(path)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, n, hw, "the high-water file follows every number handed out")

	// The backup put back by hand is behind it: refused, naming both numbers.
	require.NoError(t, os.Rename(path, path+".moved"))
	require.NoError(t, copyFile(backup, path))
	_, err = Open(path, Options{})
	require.ErrorIs(t, err, ErrBehind)
	var be *BehindError
	require.ErrorAs(t, err, &be)
	assert.Less(t, be.Journal.Receipt, be.HighWater.Receipt)
	s := pos.Sentence(err)
	assert.Contains(t, s, "galla journal salvage")
	assert.Contains(t, s, "galla journal restore")
	assert.Contains(t, s, "receipt numbers up to 7")
}

func TestRestoreContinuesTheNumbers(t *testing.T) {
	path, backup, n := dayAfterBackup(t)
	require.NoError(t, Restore(t.Context(), backup, path))

	aside, err := filepath.Glob(path + damagedInfix + "*")
	require.NoError(t, err)
	require.Len(t, aside, 1, "the file replaced is kept aside")

	j, err := Open(path, Options{})
	require.NoError(t, err)
	defer j.Close()
	got, err := j.Numbers()
	require.NoError(t, err)
	assert.Equal(t, n, got, "lifted to the numbers handed out after the backup")
	// The next sale takes the next number, not one reissued.
	var s script
	s.receipt = n.Receipt
	stored := appendAll(t, j, s.cashSale("G-next", "2026-11-22", 100))
	assert.Equal(t, n.Receipt+1, stored[1].ReceiptNo)
	_, err = j.Orders.Order(t.Context(), "G-after-1")
	assert.ErrorIs(t, err, pos.ErrOrderNotFound, "a restore loses what came after the backup")
	_, err = VerifyFile(t.Context(), backup)
	assert.NoError(t, err, "the backup is left as it was")
}

func TestSalvage(t *testing.T) {
	tests := []struct {
		name     string
		damage   func(t *testing.T, path string)
		backup   bool
		wantSale bool // the sale after the backup is recovered
	}{
		{"an event's bytes flipped", func(t *testing.T, p string) {
			rawUpdate(t, p, func(tx *bolt.Tx) error {
				ev := tx.Bucket(bucketEvents)
				return ev.Put(u64(5), flipKind(t, ev.Get(u64(5))))
			})
		}, true, true},
		{"the file cut short", func(t *testing.T, p string) {
			info, err := os.Stat(p)
			require.NoError(t, err)
			require.NoError(t, os.Truncate(p, info.Size()-4096))
		}, true, true},
		{"the file cut short, no backup", func(t *testing.T, p string) {
			info, err := os.Stat(p)
			require.NoError(t, err)
			require.NoError(t, os.Truncate(p, info.Size()/2))
		}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, backup, n := dayAfterBackup(t)
			total := countEvents(t, path)
			tt.damage(t, path)
			if !tt.backup {
				backup = ""
			}
			out := filepath.Join(t.TempDir(), "new.db")
			rep, err := Salvage(t.Context(), path, backup, out)
			require.NoError(t, err)
			assert.LessOrEqual(t, rep.Recovered, total)
			if rep.Recovered < total {
				assert.NotEmpty(t, rep.Lost, "a loss is never silent: recovered %d of %d", rep.Recovered, total)
			}
			assert.False(t, rep.Numbers.behind(n), "numbers %+v continue past %+v", rep.Numbers, n)
			assert.NotZero(t, rep.Recovered)

			_, err = VerifyFile(t.Context(), out)
			require.NoError(t, err, "the salvaged journal verifies")
			j, err := Open(out, Options{})
			require.NoError(t, err)
			defer j.Close()
			_, err = j.Orders.Order(t.Context(), "G-after-1")
			if tt.wantSale {
				assert.NoError(t, err, "the sale after the backup is kept")
				assert.Contains(t, rep.Unresolved, "G-after-3", "an open order stays for reconcile")
			}
			got, err := j.Numbers()
			require.NoError(t, err)
			assert.Equal(t, rep.Numbers, got)
		})
	}
}

func TestCheckDayFindsAnEditedOrder(t *testing.T) {
	tests := []struct {
		name      string
		edit      func(t *testing.T, tx *bolt.Tx) error
		want      string // in the error
		atStartUp bool   // Open finds it (a record written after the last checkpoint)
	}{
		{"an order's amount edited", func(t *testing.T, tx *bolt.Tx) error {
			orders := tx.Bucket(bucketOrders)
			var o map[string]any
			require.NoError(t, json.Unmarshal(orders.Get([]byte("G-0005")), &o))
			o["captured"] = 1
			data, err := json.Marshal(o)
			require.NoError(t, err)
			return orders.Put([]byte("G-0005"), data)
		}, `"G-0005"`, true},
		{"an order taken off the day", func(_ *testing.T, tx *bolt.Tx) error {
			days := tx.Bucket(bucketDays)
			c := days.Cursor()
			k, _ := c.Seek(dayPrefix("2026-11-22"))
			return days.Delete(k)
		}, "not listed under it", false},
		{"the receipt counter lowered", func(_ *testing.T, tx *bolt.Tx) error {
			// Open refuses this against the high-water file (TestHighWaterFile);
			// here the counter sits at the newest number of the day before.
			return putU64(tx.Bucket(bucketMeta), metaReceipt, 4)
		}, "receipt_no", true},
		{"an open order dropped from unresolved", func(_ *testing.T, tx *bolt.Tx) error {
			u := tx.Bucket(bucketUnresolved)
			k, _ := u.Cursor().Last()
			return u.Delete(k)
		}, "unresolved", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := openTest(t)
			var s script
			appendAll(t, j, s.representative(t))
			appendAll(t, j, s.unknownSale("G-open", "2026-11-22", 100))
			require.NoError(t, j.Days.CheckDay(t.Context(), "2026-11-22"), "an untouched day checks out")
			require.NoError(t, j.Days.CheckDay(t.Context(), "2026-11-21"))
			path := j.Path()
			require.NoError(t, j.Close())

			rawUpdate(t, path, func(tx *bolt.Tx) error { return tt.edit(t, tx) })
			require.NoError(t, os.Remove(NumbersPath(path)), "as if edited to match")

			backups := t.TempDir()
			d, err := Open(path, Options{BackupDir: backups})
			if tt.atStartUp {
				require.ErrorIs(t, err, ErrDerivedMismatch, "start-up replays the events after the last checkpoint")
				assert.Contains(t, err.Error(), tt.want)
			} else {
				require.NoError(t, err, "start-up does not check the days bucket")
				require.NoError(t, d.Close())
			}
			d, err = Open(path, Options{BackupDir: backups, DeferVerify: true})
			require.NoError(t, err, "the chain is whole: only a derived record changed")
			err = d.Days.CheckDay(t.Context(), "2026-11-22")
			require.ErrorIs(t, err, ErrDerivedMismatch)
			require.ErrorIs(t, err, ErrDamaged)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotEqual(t, pos.GenericSentence, pos.Sentence(err))
			require.NoError(t, d.Close())

			_, err = VerifyFile(context.Background(), path)
			assert.ErrorIs(t, err, ErrDerivedMismatch, "the whole check finds it too")
		})
	}
}

// countEvents is the number of events in the journal at path.
func countEvents(t *testing.T, path string) int {
	t.Helper()
	j, err := Open(path, Options{ReadOnly: true})
	require.NoError(t, err)
	defer j.Close()
	n, err := j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	return int(n)
}
