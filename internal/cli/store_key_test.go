package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheStoreKeyIsKeptOutsideTheDatabase: galla store init keeps the store
// key in the data directory's StoreKeyFile (mode 0600, no keyring here) and
// says so in one line, with the backup to take; a store command run where the
// key is not refuses, with the sentence naming the key and where it is
// expected, and makes no key.
func TestTheStoreKeyIsKeptOutsideTheDatabase(t *testing.T) {
	db := pg.Get(t).Database(t)
	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "", nil, "store", "init", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	path := filepath.Join(dir, StoreKeyFile)
	assert.Contains(t, errOut, "galla: the store key, which seals the buyers' details in the database and holds the staff's PIN peppers, is kept in the file "+
		path+": back it up with the database's backups")
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	elsewhere := t.TempDir()
	for _, args := range [][]string{{"store", "enrol-code", "T1", "--db", db}, {"store", "init", "--db", db}, {"store", "staff", "list", "--db", db}} {
		code, out, errOut := tillRun(t, elsewhere, "", nil, args...)
		assert.Equal(t, exitCannotWork, code, "%v: %s", args, errOut)
		assert.Empty(t, out)
		assert.Equal(t, "galla: the store key of this database is missing: the buyers' details and the staff's PIN pepper of this database are sealed with the store key, expected in the file "+
			filepath.Join(elsewhere, StoreKeyFile)+", which is not there; restore it there from the backup kept with the database's (a new key is never made for a database that has one).\n",
			errOut, strings.Join(args, " "))
		assert.NoFileExists(t, filepath.Join(elsewhere, StoreKeyFile))
	}
	code, _, errOut = tillRun(t, dir, "", nil, "store", "enrol-code", "T1", "--db", db)
	require.Equal(t, exitOK, code, errOut)
}
