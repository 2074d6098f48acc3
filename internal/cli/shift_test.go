package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestShiftCommands(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)

	code, _, errOut = tillRun(t, dir, "", pin, "shift", "close", "--counted", "0")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "No shift is open")

	code, out, errOut := tillRun(t, dir, "", pin, "shift", "open", "--float", "200000")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "float ₹2,000.00")
	code, _, errOut = tillRun(t, dir, "", pin, "shift", "open", "--float", "100")
	assert.Equal(t, exitBadInput, code, "one open shift per terminal")
	assert.Contains(t, errOut, "is open since")

	// A cash sale of two cables (₹499 each) with ₹1,000 tendered: ₹998 in the drawer.
	code, out, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M:2", "--pay", "cash", "--cash", "100000")
	require.Equal(t, exitOK, code, errOut)
	sale := decodeCheckout(t, out)

	code, _, errOut = tillRun(t, dir, "", pin, "shift", "cash-out", "15000")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "--reason")
	code, _, errOut = tillRun(t, dir, "", pin, "shift", "cash-out", "15000", "--reason", "courier")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", pin, "shift", "cash-in", "50000", "--reason", "change from the bank")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", pin, "shift", "drop", "100000", "--reason", "safe")
	require.Equal(t, exitOK, code, errOut)

	// 2,000 + 998 − 150 + 500 − 1,000 = 2,348.
	code, out, errOut = tillRun(t, dir, "", nil, "report", "--shift", "current")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `Expected in drawer\s+₹2,348.00`, out)
	assert.Contains(t, out, "courier")

	code, _, errOut = tillRun(t, dir, "", pin, "shift", "close", "--counted", "234500", "--notes", "500x4,200x1,100x1,20x2")
	assert.Equal(t, exitBadInput, code, "the notes and --counted disagree")
	assert.Contains(t, errOut, "add up to ₹2,340.00 but --counted says ₹2,345.00")
	code, out, errOut = tillRun(t, dir, "", pin, "shift", "close", "--notes", "500x4,200x1,100x1,20x2")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `Counted\s+₹2,340.00`, out)
	assert.Regexp(t, `Variance\s+-₹8.00`, out)

	code, out, errOut = tillRun(t, dir, "", nil, "shift", "list")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "closed\tcounted ₹2,340.00\tvariance -₹8.00")

	// With shifts kept, cash needs an open shift.
	code, _, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "Cash needs an open shift")
	code, _, errOut = tillRun(t, dir, "", pin, "refund", sale.MerchantOrderID, "--amount", "10000")
	assert.Equal(t, exitBadInput, code, "cash paid back needs an open shift too")
	assert.Contains(t, errOut, "Cash needs an open shift")

	// The Z report lists the business day's shifts.
	code, out, errOut = tillRun(t, dir, "", pin, "close-day")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Shifts of business day")
	assert.Contains(t, out, "counted ₹2,340.00, variance -₹8.00")
}

func TestCloseDayStartsTheNextBusinessDay(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", pin, "close-day")
	require.Equal(t, exitOK, code, errOut)
	// Selling goes on at once, on the next business day, which closes in turn.
	code, _, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, "selling is not blocked after the Z: %s", errOut)
	code, out, errOut := tillRun(t, dir, "", pin, "close-day", "--format", "json")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, `"z_no": 2`)
}

func TestJournalFindIMEI(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	const imei = "490154203237518"
	code, _, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "PH-SAM-A55-128", "--pay", "cash")
	assert.Equal(t, exitBadInput, code, "a phone needs its IMEI")
	assert.Contains(t, errOut, "IMEI")
	code, out, errOut := tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "PH-SAM-A55-128", "--pay", "cash", "--imei", imei)
	require.Equal(t, exitOK, code, errOut)
	co := decodeCheckout(t, out)
	code, _, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "PH-SAM-A55-128", "--pay", "cash", "--imei", imei)
	assert.Equal(t, exitBadInput, code, "the same IMEI twice")
	assert.Contains(t, errOut, "already sold")

	code, out, errOut = tillRun(t, dir, "", nil, "journal", "find", imei)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, co.MerchantOrderID)
	assert.Contains(t, out, "PAID")
	code, _, _ = tillRun(t, dir, "", nil, "journal", "find", "356938035643809")
	assert.Equal(t, exitFailed, code)
	code, _, errOut = tillRun(t, dir, "", nil, "journal", "find", "12345")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "15 digits")
}

func TestStaffLimitsCommand(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "2468\n", pin, "staff", "add", "Ravi", "--role", "cashier")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", pin, "staff", "limits", "Ravi", "--discount", "30000")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "--refund")
	code, _, errOut = tillRun(t, dir, "", pin, "staff", "limits", "Ravi", "--discount", "30000", "--refund", "100000")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := tillRun(t, dir, "", nil, "staff", "list")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Ravi\tcashier\tactive\tdiscount ₹300.00, refund ₹1,000.00")
	code, _, errOut = tillRun(t, dir, "", pin, "staff", "limits", "Ravi", "--shop")
	require.Equal(t, exitOK, code, errOut)
	code, out, _ = tillRun(t, dir, "", nil, "staff", "list")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "Ravi\tcashier\tactive\n")
}
