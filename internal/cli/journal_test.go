package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/internal/config"
	"galla/pos"
	"galla/pos/journal"
)

// TestMissingJournalStopsTheTerminal removes the journal of a used data directory:
// every command refuses with exit 5 and one sentence naming the commands that
// bring it back, and no new journal (numbering receipts from 1 again) is made.
func TestMissingJournalStopsTheTerminal(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	path := filepath.Join(dir, journalFile)

	for _, damage := range []struct {
		name string
		do   func()
	}{
		{"missing", func() { require.NoError(t, os.Remove(path)) }},
		{"empty", func() { require.NoError(t, os.WriteFile(path, nil, 0o600)) }},
		{"cut short", func() { require.NoError(t, os.WriteFile(path, make([]byte, 100), 0o600)) }},
	} {
		t.Run(damage.name, func(t *testing.T) {
			damage.do()
			before, _ := os.ReadFile(path)
			for _, args := range [][]string{{"checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash"}, {"report"}, {"reconcile"}, {"receipt", "X"}} {
				code, out, errOut := tillRun(t, dir, "", nil, args...)
				assert.Equal(t, exitCannotWork, code, "%v: %s", args, errOut)
				assert.Empty(t, out, args)
				assert.Equal(t, 1, strings.Count(strings.TrimSpace(errOut), "\n")+1, "one sentence: %q", errOut)
				assert.Contains(t, errOut, "\"galla journal ", args) // restore or salvage
				assert.NotContains(t, errOut, "goroutine", "no stack trace")
			}
			after, _ := os.ReadFile(path)
			assert.Equal(t, before, after, "no new journal is made in its place")
		})
	}
}

// TestJournalCommands verifies a journal, restores a backup after the journal is
// lost, and finds that the receipt numbers handed out after the backup are never
// handed out again; the restored journal closes its day (the derived records
// match the events).
func TestJournalCommands(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, uint64(1), decodeCheckout(t, out).ReceiptNo)

	code, out, errOut = tillRun(t, dir, "", nil, "journal", "verify")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "verified")

	backup := filepath.Join(t.TempDir(), "journal-backup.db")
	j, err := journal.Open(filepath.Join(dir, journalFile), keyed(t, dir, journal.Options{}))
	require.NoError(t, err)
	require.NoError(t, j.Archive.BackupTo(backup))
	require.NoError(t, j.Close())

	// A sale after the backup (receipt 2), then the journal is lost.
	code, out, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, uint64(2), decodeCheckout(t, out).ReceiptNo)
	require.NoError(t, os.Remove(filepath.Join(dir, journalFile)))

	code, _, errOut = tillRun(t, dir, "", nil, "journal", "restore", backup)
	assert.Equal(t, exitBadInput, code, "a restore needs a manager's PIN: %s", errOut)
	code, _, errOut = tillRun(t, dir, "", map[string]string{"GALLA_PIN": "999999"}, "journal", "restore", backup)
	assert.Equal(t, exitBadInput, code, "not a manager's PIN: %s", errOut)
	_, err = os.Stat(filepath.Join(dir, journalFile))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing put in place")
	code, _, errOut = tillRun(t, dir, "", pin, "journal", "restore", backup)
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", nil, "journal", "verify")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, uint64(3), decodeCheckout(t, out).ReceiptNo, "receipt 2 was handed out before the restore: never again")
	code, _, errOut = tillRun(t, dir, "", pin, "close-day")
	require.Equal(t, exitOK, code, errOut)

	code, _, errOut = tillRun(t, dir, "", pin, "journal", "salvage", filepath.Join(dir, "nope.db"), "--out", filepath.Join(dir, "new.db"))
	assert.NotEqual(t, exitOK, code)
	assert.NotContains(t, errOut, "goroutine")
	code, _, errOut = tillRun(t, dir, "", nil, "journal", "frobnicate")
	assert.Equal(t, exitBadInput, code, errOut)
}

// TestZReportCarriesTheJournalSeal closes a day: the Z report prints the
// journal's seal of it, and the report read back later prints the same seal.
func TestZReportCarriesTheJournalSeal(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := tillRun(t, dir, "", pin, "close-day")
	require.Equal(t, exitOK, code, errOut)
	seal := regexp.MustCompile(`Journal seal ([0-9a-f]{64})`).FindStringSubmatch(out)
	require.NotNil(t, seal, "the Z report prints its seal: %s", out)
	code, again, errOut := tillRun(t, dir, "", nil, "report")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, again, "Journal seal "+seal[1])
}

// keyed is o with the chain key of the terminal of dataDir (the tests keep their
// secrets in the data directory's file): the journal opens as the terminal opens it.
func keyed(t testing.TB, dataDir string, o journal.Options) journal.Options {
	t.Helper()
	key, err := config.OpenSecrets(dataDir, nil).Key(config.SecretJournalKey, 32)
	require.NoError(t, err)
	o.ChainKey = key
	return o
}

// closedCounter is a data directory whose manager Meera (PIN 432100) added the
// cashier Ravi (PIN 2468) and the shop's details, sold a cable and closed the
// day: those records are written before the last Z report, which the start-up
// check does not replay. It returns the directory and the day's backup.
func closedCounter(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "2468\n432100\n", nil, "staff", "add", "Ravi", "--role", "cashier")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", pin, "shop", "set", "--name", "Galla Mobiles", "--address", "1 MG Road, Pune", "--state", "27")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", pin, "close-day")
	require.Equal(t, exitOK, code, errOut)
	backup, err := journal.LatestBackup(filepath.Join(dir, "backups"))
	require.NoError(t, err)
	require.NotEmpty(t, backup)
	return dir, backup
}

// editJournal rewrites, with bbolt, the bytes of the first record of bucket that
// holds old: old becomes new. It returns the record's key.
func editJournal(t *testing.T, dir, bucket, old, new string) string {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, journalFile), 0o600, &bolt.Options{Timeout: time.Second})
	require.NoError(t, err)
	defer db.Close()
	var key string
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucket))
		require.NotNil(t, b, bucket)
		return b.ForEach(func(k, v []byte) error {
			if key == "" && bytes.Contains(v, []byte(old)) {
				key = string(k)
				return b.Put(bytes.Clone(k), bytes.Replace(v, []byte(old), []byte(new), 1))
			}
			return nil
		})
	}))
	require.NotEmpty(t, key, "a record of %s holds %s", bucket, old)
	return key
}

// TestEditedRecordsStopTheCommands edits records of the journal written before
// the last Z report, byte for byte: the cashier Ravi made manager (his PIN
// would then add a manager), the shop's name (it would print on the next
// invoice). Every command that would use them exits 5 with a sentence naming
// the record and the last backup, and the journal file is left as it was.
func TestEditedRecordsStopTheCommands(t *testing.T) {
	tests := []struct {
		name, bucket, old, new string
		stdin                  string
		env                    map[string]string
		args                   []string
	}{
		{"a cashier made manager", "staff", `"role":"cashier"`, `"role":"manager"`,
			"5555\n2468\n", nil, []string{"staff", "add", "Eve", "--role", "manager"}},
		{"a cashier made manager, at the counter", "staff", `"role":"cashier"`, `"role":"manager"`,
			"", map[string]string{"GALLA_PIN": "2468"}, []string{"checkout", "--staff", "Ravi", "--items", "ACC-CBL-CC1M", "--pay", "cash"}},
		{"the shop's name", "settings", `"name":"Galla Mobiles"`, `"name":"Fake Mobiles!"`,
			"", map[string]string{"GALLA_PIN": "432100"}, []string{"checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, backup := closedCounter(t)
			key := editJournal(t, dir, tt.bucket, tt.old, tt.new)
			before, err := os.ReadFile(filepath.Join(dir, journalFile))
			require.NoError(t, err)

			code, out, errOut := tillRun(t, dir, tt.stdin, tt.env, tt.args...)
			assert.Equal(t, exitCannotWork, code, "%s\n%s", out, errOut)
			assert.Contains(t, errOut, "changed outside Galla")
			assert.Contains(t, errOut, "the record "+key+" in "+tt.bucket)
			assert.Contains(t, errOut, backup, "the last backup")
			assert.NotContains(t, errOut, "goroutine")

			code, _, errOut = tillRun(t, dir, "", nil, "journal", "verify")
			assert.Equal(t, exitCannotWork, code, errOut)
			after, err := os.ReadFile(filepath.Join(dir, journalFile))
			require.NoError(t, err)
			assert.Equal(t, before, after, "nothing written")
		})
	}
}

// TestMissingHeadRecordStopsTheCommands deletes the head record beside the
// journal: every command exits 5 with a sentence, and it is not written anew.
func TestMissingHeadRecordStopsTheCommands(t *testing.T) {
	dir, _ := closedCounter(t)
	head := journal.HeadPath(filepath.Join(dir, journalFile))
	require.NoError(t, os.Remove(head))
	code, _, errOut := tillRun(t, dir, "", nil, "report")
	assert.Equal(t, exitCannotWork, code, errOut)
	assert.Contains(t, errOut, "head record")
	_, err := os.Stat(head)
	assert.ErrorIs(t, err, os.ErrNotExist, "not written anew")
}

// TestSalvagedJournalSellsAgain: the journal is cut back to an early copy (its
// head record names a later event): every command refuses it. Salvaged and put
// in place by a manager as the commands say, it is accepted, the recovery is
// journaled with the manager, and the next sale takes the receipt number after
// the highest ever handed out.
func TestSalvagedJournalSellsAgain(t *testing.T) {
	dir, _ := closedCounter(t)
	pin := map[string]string{"GALLA_PIN": "432100"}
	path := filepath.Join(dir, journalFile)
	early, err := os.ReadFile(path)
	require.NoError(t, err)
	var last uint64
	for range 2 {
		code, out, errOut := tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
		require.Equal(t, exitOK, code, errOut)
		last = decodeCheckout(t, out).ReceiptNo
	}
	require.NoError(t, os.WriteFile(path, early, 0o600)) // cut back
	code, _, errOut := tillRun(t, dir, "", nil, "report")
	require.Equal(t, exitCannotWork, code, errOut)
	assert.Contains(t, errOut, "galla journal salvage")

	out := filepath.Join(t.TempDir(), "salvaged.db")
	code, _, errOut = tillRun(t, dir, "", nil, "journal", "salvage", path, "--out", out)
	assert.Equal(t, exitBadInput, code, "a salvage needs a manager's PIN: %s", errOut)
	code, _, errOut = tillRun(t, dir, "", pin, "journal", "salvage", path, "--out", out)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "galla journal restore "+out)
	code, _, errOut = tillRun(t, dir, "", pin, "journal", "restore", out)
	require.Equal(t, exitOK, code, errOut)

	code, stdout, errOut := tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, last+1, decodeCheckout(t, stdout).ReceiptNo, "past the highest number ever handed out")
	code, _, errOut = tillRun(t, dir, "", nil, "journal", "verify")
	require.Equal(t, exitOK, code, errOut)

	j, err := journal.Open(path, keyed(t, dir, journal.Options{ReadOnly: true, Create: journal.CreateNever}))
	require.NoError(t, err)
	defer j.Close()
	var by []string
	require.NoError(t, j.Log.EventsFrom(t.Context(), 1, func(ev pos.Event) error {
		if ev.Kind == journal.EvRecovered {
			by = append(by, ev.Staff)
		}
		return nil
	}))
	require.Len(t, by, 2, "the salvage and the restore")
	for _, b := range by {
		assert.Contains(t, b, "Meera")
	}
}

// TestEditedOrderStopsTheCommands edits a sold order's record in place (its
// price doubled): its receipt, a refund of it and the X report exit 5 with the
// sentence naming the record, and nothing is written.
func TestEditedOrderStopsTheCommands(t *testing.T) {
	dir, backup := closedCounter(t)
	id := editJournal(t, dir, "orders", `"unit_price":49900`, `"unit_price":99900`)
	before, err := os.ReadFile(filepath.Join(dir, journalFile))
	require.NoError(t, err)
	pin := map[string]string{"GALLA_PIN": "432100"}
	for _, args := range [][]string{
		{"receipt", id},
		{"refund", id, "--reason", "customer changed mind"},
		{"report"},
	} {
		code, out, errOut := tillRun(t, dir, "", pin, args...)
		assert.Equal(t, exitCannotWork, code, "%v: %s\n%s", args, out, errOut)
		assert.Contains(t, errOut, "changed outside Galla", args)
		assert.Contains(t, errOut, backup, "the last backup")
	}
	after, err := os.ReadFile(filepath.Join(dir, journalFile))
	require.NoError(t, err)
	assert.Equal(t, before, after, "nothing written")
}

// TestJournalSealBackups: a backup the journal holds marked as made before
// the customers' details were sealed is named in clear; galla journal
// seal-backups refuses without a manager's PIN and changes nothing, and with
// it rewrites the backup sealed, names it, and journals the act naming the
// manager; a second run finds nothing to seal.
func TestJournalSealBackups(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "1111\n432100\n", nil, "staff", "add", "Ravi", "--role", "cashier")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)

	j, err := journal.Open(filepath.Join(dir, journalFile), keyed(t, dir, journal.Options{}))
	require.NoError(t, err)
	backup := filepath.Join(filepath.Dir(j.Path()), "backups", "journal-2026-03-31.db")
	require.NoError(t, j.Archive.BackupTo(backup))
	require.NoError(t, j.Close())
	// As a build before the sealing left it.
	db, err := bolt.Open(backup, 0o600, &bolt.Options{Timeout: time.Second})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("meta")).Delete([]byte("personal_sealed")) }))
	require.NoError(t, db.Close())
	clearBytes, err := os.ReadFile(backup)
	require.NoError(t, err)

	for _, env := range []map[string]string{nil, {"GALLA_PIN": "1111"}, {"GALLA_PIN": "999999"}} {
		code, _, errOut = tillRun(t, dir, "", env, "journal", "seal-backups")
		assert.Equal(t, exitBadInput, code, "a manager's act: %s", errOut)
		after, err := os.ReadFile(backup)
		require.NoError(t, err)
		assert.Equal(t, clearBytes, after, "nothing rewritten")
	}

	code, out, errOut := tillRun(t, dir, "", pin, "journal", "seal-backups")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "sealed\tjournal-2026-03-31.db\n", out)
	assert.Contains(t, errOut, "1 backup rewritten with the customers' details sealed, by Meera, journaled")
	evs := dirEvents(t, dir)
	last := evs[len(evs)-1]
	assert.Equal(t, journal.EvBackupsSealed, last.Kind)
	assert.Contains(t, string(last.Data), "journal-2026-03-31.db")
	code, out, errOut = tillRun(t, dir, "", nil, "journal", "verify")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "verified")

	code, out, errOut = tillRun(t, dir, "", pin, "journal", "seal-backups")
	require.Equal(t, exitOK, code, errOut)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "no backup holds the customers' details in clear")
}
