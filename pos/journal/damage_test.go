package journal

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// usedDir makes a data directory with a journal that holds sales, staff and a
// closed day, and its backup, and returns the journal's path.
func usedDir(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data", "journal.db")
	j, err := Open(path, Options{Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	var s script
	appendAll(t, j, s.representative(t))
	_, err = j.Archive.BackupDay("2026-11-21")
	require.NoError(t, err)
	require.NoError(t, j.Close())
	return path
}

func TestMissingJournalIsNotReplaced(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string) // what happened to the journal of a used directory
		create  CreateMode
		empty   bool
	}{
		{"deleted, zero options", func(t *testing.T, p string) { require.NoError(t, os.Remove(p)) }, CreateUnlessJournaled, false},
		{"deleted, the terminal's options", func(t *testing.T, p string) { require.NoError(t, os.Remove(p)) }, CreateIfUnused, false},
		{"deleted, a read command", func(t *testing.T, p string) { require.NoError(t, os.Remove(p)) }, CreateNever, false},
		{"emptied", func(t *testing.T, p string) { require.NoError(t, os.Truncate(p, 0)) }, CreateUnlessJournaled, true},
		{"emptied, the terminal's options", func(t *testing.T, p string) { require.NoError(t, os.Truncate(p, 0)) }, CreateIfUnused, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := usedDir(t)
			tt.prepare(t, path)
			j, err := Open(path, Options{Create: tt.create})
			if j != nil {
				_ = j.Close()
			}
			require.ErrorIs(t, err, ErrMissing)
			var me *MissingError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, tt.empty, me.Empty)
			backup := filepath.Join(filepath.Dir(path), "backups", "journal-2026-11-21.db")
			assert.Equal(t, []string{backup}, me.Backups)
			got := pos.Sentence(fmt.Errorf("main: %w", err))
			assert.Contains(t, got, "galla journal restore "+backup)
			assert.Contains(t, got, "galla journal salvage DAMAGED --backup "+backup+" --out NEW")
			assert.Contains(t, got, "will not start a new journal")
			if !tt.empty {
				_, err := os.Stat(path)
				assert.ErrorIs(t, err, os.ErrNotExist, "no new file was made")
			}
		})
	}
}

func TestDirUsed(t *testing.T) {
	tests := []struct {
		name  string
		files []string // made in the directory; a trailing / makes a directory
		used  bool
	}{
		{"empty", nil, false},
		{"config", []string{"config.json"}, true},
		{"receipt key", []string{"receipt-qr.key"}, true},
		{"sandbox state", []string{"sandbox.json"}, true},
		{"sandbox temporary state", []string{"sandbox.json.tmp"}, true},
		{"backups", []string{"backups/"}, true},
		{"high-water file", []string{"journal.db.numbers"}, true},
		{"a journal set aside", []string{"journal.db.damaged-20261121T100000"}, true},
		{"an unrelated file", []string{"notes.txt"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				if f[len(f)-1] == '/' {
					require.NoError(t, os.Mkdir(filepath.Join(dir, f), 0o700))
				} else {
					require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o600))
				}
			}
			used, signs := DirUsed(dir)
			assert.Equal(t, tt.used, used, "DirUsed(%v)", tt.files)
			if tt.used {
				assert.Len(t, signs, 1)
			}
			j, err := Open(filepath.Join(dir, "journal.db"), Options{Create: CreateIfUnused})
			if tt.used {
				require.ErrorIs(t, err, ErrMissing)
				return
			}
			require.NoError(t, err, "a never-used directory gets a new journal")
			require.NoError(t, j.Close())
		})
	}
}

func TestCreateAnywayContinuesTheNumbers(t *testing.T) {
	path := usedDir(t)
	j, err := Open(path, Options{})
	require.NoError(t, err)
	before, err := j.Numbers()
	require.NoError(t, err)
	require.NoError(t, j.Close())
	require.NotZero(t, before.Receipt)
	require.NoError(t, os.Remove(path))

	j, err = Open(path, Options{Create: CreateAnyway})
	require.NoError(t, err)
	defer j.Close()
	n, err := j.Numbers()
	require.NoError(t, err)
	assert.Equal(t, before, n, "continued from the high-water file")
	staff, err := j.Staff.List(t.Context())
	require.NoError(t, err)
	assert.Empty(t, staff, "a new journal")
}

func TestEmptyFileInNewDirectoryIsMadeAnew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	j, err := Open(path, Options{Create: CreateIfUnused})
	require.NoError(t, err, "a file bbolt never finished, in a directory never used")
	require.NoError(t, j.Close())
}

// damage is one way of damaging a journal file.
type damage struct {
	name  string
	apply func(data []byte) []byte
}

// damages are the journal cut at every page boundary and at a few odd offsets,
// and bits flipped at sampled offsets.
func damages(t testing.TB, size, pageSize int) []damage {
	t.Helper()
	var out []damage
	for off := 0; off < size; off += pageSize {
		out = append(out, damage{fmt.Sprintf("cut at %d", off), func(d []byte) []byte { return d[:off] }})
	}
	for _, off := range []int{1, 100, pageSize - 1, pageSize + 17, 2*pageSize + 1, size - 1} {
		if off < size {
			out = append(out, damage{fmt.Sprintf("cut at %d", off), func(d []byte) []byte { return d[:off] }})
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	offsets := []int{0, 16, 20, 24, 40, 48, 56, pageSize + 16, pageSize + 40}
	for range 150 {
		offsets = append(offsets, rng.IntN(size))
	}
	for _, off := range offsets {
		bit := byte(1) << (off % 8)
		out = append(out, damage{fmt.Sprintf("bit %d flipped at %d", off%8, off), func(d []byte) []byte {
			d[off] ^= bit
			return d
		}})
	}
	return out
}

// TestDamagedFilesAreSentences opens journals cut short and bit-flipped in this
// process: each Open (and Verify) either fails with ErrDamaged and a sentence, or
// succeeds with the journal's data intact (the flip hit unused space). A panic
// fails the test; a fault that kills the process is caught by
// TestDamagedFilesDoNotCrash.
func TestDamagedFilesAreSentences(t *testing.T) {
	path := usedDir(t)
	j, err := Open(path, Options{})
	require.NoError(t, err)
	want := snapshot(t, j)
	ps := j.core.db.Info().PageSize
	require.NoError(t, j.Close())
	orig, err := os.ReadFile(path)
	require.NoError(t, err)
	numbers, err := os.ReadFile(NumbersPath(path))
	require.NoError(t, err)

	// A meta page that does not check out makes bbolt use the other one, the
	// commit before (as after a torn write at a power cut): the last event's
	// commit is then not in the file, which is bbolt's design.
	var s script
	evs := s.representative(t)
	pj := openTest(t)
	appendAll(t, pj, evs[:len(evs)-1])
	prev := snapshot(t, pj)

	opened, refused := 0, 0
	for _, d := range damages(t, len(orig), ps) {
		t.Run(d.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "journal.db")
			require.NoError(t, os.WriteFile(p, d.apply(append([]byte(nil), orig...)), 0o600))
			require.NoError(t, os.WriteFile(NumbersPath(p), numbers, 0o600))
			checkDamaged(t, p, &opened, &refused)
			rep, err := VerifyFile(t.Context(), p)
			if err != nil {
				assertRefused(t, err)
				return
			}
			assert.True(t, rep.Verified)
			r, err := Open(p, Options{ReadOnly: true, DeferVerify: true})
			require.NoError(t, err, "VerifyFile passed")
			got := snapshot(t, r)
			require.NoError(t, r.Close())
			if !assert.ObjectsAreEqual(want, got) {
				assert.Equal(t, prev, got, "VerifyFile passed, so the data is intact, or the commit before")
			}
		})
	}
	t.Logf("%d opens of damaged files succeeded, %d were refused", opened, refused)
	assert.NotZero(t, refused)
}

// assertRefused checks that err is one of the errors that say the journal cannot
// be used, with a sentence of its own.
func assertRefused(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrDamaged) && !errors.Is(err, ErrMissing) && !errors.Is(err, ErrBehind) {
		t.Fatalf("error %v; want one matching ErrDamaged, ErrMissing or ErrBehind", err)
	}
	require.NotEqual(t, pos.GenericSentence, pos.Sentence(err))
}

// checkDamaged opens the damaged file at p in every way the terminal does: each
// is refused with a sentence, or opens and then Verify passes or fails with
// ErrDamaged. Nothing panics.
func checkDamaged(t *testing.T, p string, opened, refused *int) {
	t.Helper()
	for _, opts := range []Options{{}, {DeferVerify: true}, {ReadOnly: true}, {Create: CreateIfUnused, DeferVerify: true}} {
		j, err := Open(p, opts)
		if err != nil {
			*refused++
			assertRefused(t, err)
			continue
		}
		*opened++
		if verr := j.Log.Verify(t.Context()); verr != nil {
			require.ErrorIs(t, verr, ErrDamaged)
		}
		_, _ = j.Orders.OrdersByDay(t.Context(), "2026-11-21")
		_, _ = j.Orders.Unresolved(t.Context())
		require.NoError(t, j.Close())
	}
}

// TestDamagedFilesDoNotCrash runs TestDamagedFilesAreSentences in a child
// process, so that a fault the runtime cannot turn into a panic (SIGBUS on a page
// of a mapped file that is not there) fails this test instead of ending the run.
func TestDamagedFilesDoNotCrash(t *testing.T) {
	if os.Getenv("GALLA_JOURNAL_CHILD") != "" {
		t.Skip("in the child")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.CommandContext(t.Context(), exe, "-test.run=^TestDamagedFilesAreSentences$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GALLA_JOURNAL_CHILD=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the child ended with %v:\n%s", err, tail(out))
	assert.Contains(t, string(out), "PASS")
}

// tail is the end of a child's output.
func tail(b []byte) string {
	if len(b) > 4000 {
		return "..." + string(b[len(b)-4000:])
	}
	return string(b)
}
