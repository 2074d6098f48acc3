package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestStaffCommands runs a member of staff through the manager's commands: a
// cashier locked out by wrong PINs is listed so and unlocked; a disabled one cannot
// sign in until enabled; a reset PIN replaces the old one; the last manager cannot
// be disabled; every change needs a manager's PIN.
func TestStaffCommands(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	run := func(stdin string, env map[string]string, args ...string) (int, string, string) {
		t.Helper()
		return tillRun(t, dir, stdin, env, append([]string{"staff"}, args...)...)
	}
	code, _, errOut := run("432100\n", nil, "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = run("1111\n432100\n", nil, "add", "Ravi", "--role", "cashier")
	require.Equal(t, exitOK, code, errOut)

	signIn := func(name, p string) error {
		t.Helper()
		c := &cli{dataDir: dir, stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }}
		tl, err := openTerminal(c, false)
		require.NoError(t, err)
		defer tl.close()
		_, err = tl.SignIn(t.Context(), name, p)
		return err
	}
	for range pos.MaxPINAttempts {
		require.Error(t, signIn("Ravi", "0000"))
	}
	assert.ErrorIs(t, signIn("Ravi", "1111"), pos.ErrLocked)
	_, out, _ := run("", nil, "list")
	assert.Contains(t, out, "Ravi\tcashier\tlocked until")

	code, _, _ = run("", map[string]string{"GALLA_PIN": "9999"}, "unlock", "Ravi")
	assert.Equal(t, exitBadInput, code, "a wrong manager PIN unlocks nothing")
	code, _, errOut = run("", pin, "unlock", "Ravi")
	require.Equal(t, exitOK, code, errOut)
	assert.NoError(t, signIn("Ravi", "1111"))

	code, _, errOut = run("", pin, "disable", "ravi")
	require.Equal(t, exitOK, code, errOut)
	assert.ErrorIs(t, signIn("Ravi", "1111"), pos.ErrStaffDisabled)
	_, out, _ = run("", nil, "list")
	assert.Contains(t, out, "Ravi\tcashier\tdisabled")
	code, _, errOut = run("", pin, "disable", "Meera")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "last manager")

	code, _, errOut = run("2222\n", pin, "reset-pin", "Ravi")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = run("", pin, "enable", "Ravi")
	require.Equal(t, exitOK, code, errOut)
	assert.Error(t, signIn("Ravi", "1111"), "the old PIN is gone")
	assert.NoError(t, signIn("Ravi", "2222"))

	code, _, errOut = run("", pin, "unlock", "Nobody")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "galla staff list")
}
