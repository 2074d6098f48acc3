package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestACashierCannotLockOutAManagerFromTheCommandLine is the review's attack:
// ten wrong PINs with --staff MANAGER. They no longer lock the manager: the
// tries past pos.FreeManagerPINs wait, and once the wait is over the
// manager's right PIN sells, and she is told of the wrong PINs before.
func TestACashierCannotLockOutAManagerFromTheCommandLine(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)

	sale := func(pin string) (int, string) {
		code, _, errOut := tillRun(t, dir, "", map[string]string{"GALLA_PIN": pin}, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
		return code, errOut
	}
	var waitStarted time.Time
	wrong, slowed := 0, 0
	for i := range pos.MaxPINAttempts {
		code, errOut := sale("999999")
		if i == pos.FreeManagerPINs {
			waitStarted = time.Now() // the wrong PIN past the free ones has started the wait
		}
		assert.Equal(t, exitBadInput, code)
		assert.NotContains(t, errOut, "locked", "a manager is never locked")
		switch {
		case strings.Contains(errOut, "wrong PINs in a row for this manager: the next PIN is taken after"):
			slowed++
		case strings.Contains(errOut, "Wrong PIN"):
			wrong++
		default:
			t.Errorf("unexpected answer: %s", errOut)
		}
	}
	assert.Equal(t, pos.FreeManagerPINs, wrong, "the free tries")
	assert.Equal(t, pos.MaxPINAttempts-wrong, slowed, "the next one starts the wait; the tries during it are refused unchecked")
	// The tries refused during the wait are not counted and do not lengthen it.
	time.Sleep(time.Until(waitStarted.Add(pos.ManagerPINWait)))
	code, errOut = sale("432100")
	require.Equal(t, exitOK, code, "the manager's right PIN sells: %s", errOut)
	assert.Contains(t, errOut, "wrong PINs were typed against your name at this counter")
}
