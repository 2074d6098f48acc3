package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// luhnIMEI is the n-th IMEI of a made-up range, with its check digit.
func luhnIMEI(n int) string {
	body := fmt.Sprintf("35693803%06d", n)
	for d := '0'; d <= '9'; d++ {
		if s := body + string(d); pos.Luhn(s) {
			return s
		}
	}
	panic("no check digit")
}

// stockJSON is galla stock list --format json.
type stockJSON struct {
	Enforced bool           `json:"enforced"`
	Since    string         `json:"since"`
	Items    []pos.StockRow `json:"items"`
}

// TestStockCommands: a counter sells phones with any IMEI until goods are
// received; bad deliveries are refused with a sentence and record nothing;
// then a phone sells only from stock, a manager allows one that is not, a
// return puts its unit back or aside as damaged, and the list says so in
// text, CSV and JSON.
func TestStockCommands(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	run := func(env map[string]string, args ...string) (int, string, string) {
		t.Helper()
		return tillRun(t, dir, "", env, args...)
	}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	sell := func(imei string) (int, string, string) {
		t.Helper()
		return run(pin, "checkout", "--staff", "Meera", "--items", "PH-SAM-A55-128,ACC-CBL-CC1M", "--pay", "cash", "--imei", imei)
	}
	list := func() stockJSON {
		t.Helper()
		code, out, errOut := run(nil, "stock", "list", "--format", "json")
		require.Equal(t, exitOK, code, errOut)
		var s stockJSON
		require.NoError(t, json.Unmarshal([]byte(out), &s), out)
		return s
	}
	item := func(s stockJSON, sku string) pos.StockRow {
		for _, r := range s.Items {
			if r.SKU == sku {
				return r
			}
		}
		return pos.StockRow{}
	}

	code, _, errOut = run(nil, "stock", "list")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "Stock is not kept")
	code, _, errOut = sell(luhnIMEI(90))
	require.Equal(t, exitOK, code, "no stock yet: any valid IMEI sells: %s", errOut)

	receive := func(env map[string]string, invoice, items, imeis string) (int, string) {
		t.Helper()
		args := []string{"stock", "receive", "--supplier", "Sai Distributors", "--invoice", invoice, "--date", "2026-01-05", "--items", items}
		if imeis != "" {
			args = append(args, "--imei", imeis)
		}
		code, _, errOut := run(env, args...)
		return code, errOut
	}
	code, errOut = receive(nil, "SD/1", "PH-SAM-A55-128:1", luhnIMEI(1))
	assert.Equal(t, exitBadInput, code, "a manager's PIN is needed")
	assert.Contains(t, errOut, "PIN")
	bad := luhnIMEI(3)
	bad = bad[:14] + string('0'+(bad[14]-'0'+1)%10)
	for _, tt := range []struct{ items, imeis, want string }{
		{"PH-SAM-A55-128:2@2100000,ACC-CBL-CC1M:5@9000", luhnIMEI(1) + "," + luhnIMEI(1), "is in box 1 and in box 2"},
		{"PH-SAM-A55-128:2", luhnIMEI(1) + "," + bad, "of box 2 (PH-SAM-A55-128) is wrong"},
		{"PH-SAM-A55-128:2,NOPE:1", luhnIMEI(1) + "," + luhnIMEI(2), "NOPE is not in the catalog"},
		{"PH-SAM-A55-128:2,ACC-CBL-CC1M", luhnIMEI(1) + "," + luhnIMEI(2), "needs a quantity"},
		{"PH-SAM-A55-128:2", luhnIMEI(1), "2 units need 2 IMEIs, 1 were given"},
		{"PH-SAM-A55-128:1", luhnIMEI(1) + "," + luhnIMEI(2), "1 more IMEIs were given"},
	} {
		code, errOut = receive(pin, "SD/1", tt.items, tt.imeis)
		assert.Equal(t, exitBadInput, code, tt.items)
		assert.Contains(t, errOut, tt.want, tt.items)
		assert.Contains(t, errOut, "nothing was recorded", tt.items)
	}
	assert.False(t, list().Enforced, "nothing was half-recorded")

	code, errOut = receive(pin, "SD/1", "PH-SAM-A55-128:3@2100000,ACC-CBL-CC1M:1@9000", luhnIMEI(1)+"/"+luhnIMEI(2)+","+luhnIMEI(3)+","+luhnIMEI(4))
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "received 4 units on 2 lines")
	code, errOut = receive(pin, "SD/1", "ACC-CBL-CC1M:1", "")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "was received already")
	code, errOut = receive(pin, "SD/2", "PH-SAM-A55-128:1", luhnIMEI(2))
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "is already in stock")

	s := list()
	assert.True(t, s.Enforced)
	phone := item(s, "PH-SAM-A55-128")
	assert.Equal(t, int64(3), phone.OnHand)
	assert.Equal(t, []string{luhnIMEI(1), luhnIMEI(3), luhnIMEI(4)}, phone.IMEIs)
	assert.Equal(t, pos.Paise(3*2100000), phone.Cost)

	code, _, errOut = sell(luhnIMEI(91))
	assert.Equal(t, exitBadInput, code, "not in stock")
	assert.Contains(t, errOut, "was never received into stock")
	code, _, errOut = run(map[string]string{"GALLA_PIN": "000000"}, "stock", "allow", luhnIMEI(91))
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "PIN", "a wrong manager PIN allows nothing")
	code, _, errOut = run(pin, "stock", "allow", luhnIMEI(91))
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = sell(luhnIMEI(91))
	require.Equal(t, exitOK, code, "allowed by a manager: %s", errOut)

	code, out, errOut := sell(luhnIMEI(2))
	require.Equal(t, exitOK, code, "a unit's second IMEI sells it: %s", errOut)
	co := decodeCheckout(t, out)
	s = list()
	phone = item(s, "PH-SAM-A55-128")
	assert.Equal(t, int64(2), phone.OnHand)
	assert.Equal(t, []string{luhnIMEI(3), luhnIMEI(4)}, phone.IMEIs)
	assert.Equal(t, int64(-1), item(s, "ACC-CBL-CC1M").OnHand, "one received, two sold since")
	code, out, _ = run(nil, "stock", "list")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "ACC-CBL-CC1M\t")
	assert.Contains(t, out, "BELOW ZERO")

	code, _, errOut = run(pin, "return", co.DocumentNo, "--items", "PH-SAM-A55-128", "--imei", luhnIMEI(2), "--to", "cash", "--reason", "screen", "--damaged")
	require.Equal(t, exitOK, code, errOut)
	s = list()
	phone = item(s, "PH-SAM-A55-128")
	assert.Equal(t, int64(2), phone.OnHand, "back, but set aside")
	assert.Equal(t, 1, phone.Damaged)

	code, out, errOut = run(nil, "stock", "list", "--sku", "ph-sam-a55-128", "--format", "csv")
	require.Equal(t, exitOK, code, errOut)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Equal(t, []string{"PH-SAM-A55-128", "2", "1", luhnIMEI(3) + " " + luhnIMEI(4)}, []string{rows[1][0], rows[1][4], rows[1][5], rows[1][8]})
	code, _, errOut = run(nil, "stock", "list", "--format", "xml")
	assert.Equal(t, exitBadInput, code, errOut)
}

// TestStockCountCommand: a count with a variance is said (exit 1) and
// changes nothing until a manager applies it with a reason.
func TestStockCountCommand(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", pin, "stock", "receive", "--supplier", "Sai", "--invoice", "1", "--date", "2026-01-05",
		"--items", "PH-SAM-A55-128:2,ACC-CBL-CC1M:4", "--imei", luhnIMEI(1)+","+luhnIMEI(2))
	require.Equal(t, exitOK, code, errOut)

	code, out, errOut := tillRun(t, dir, "", nil, "stock", "count", "--sku", "PH-SAM-A55-128", "--imei", luhnIMEI(2)+","+luhnIMEI(5))
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, errOut, "counted 2, the book has 2: 1 missing, 1 found")
	var v pos.Variance
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	assert.Equal(t, []string{luhnIMEI(1)}, v.Missing)
	assert.Equal(t, []string{luhnIMEI(5)}, v.Found)

	code, _, errOut = tillRun(t, dir, "", pin, "stock", "count", "--sku", "PH-SAM-A55-128", "--imei", luhnIMEI(2)+","+luhnIMEI(5), "--apply")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "Say why")
	code, _, errOut = tillRun(t, dir, "", pin, "stock", "count", "--sku", "PH-SAM-A55-128", "--imei", luhnIMEI(2)+","+luhnIMEI(5), "--apply", "--reason", "month end")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", nil, "stock", "count", "--sku", "PH-SAM-A55-128", "--imei", luhnIMEI(5)+","+luhnIMEI(2))
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "agrees with the book (2)")
	code, _, errOut = tillRun(t, dir, "", pin, "stock", "count", "--sku", "ACC-CBL-CC1M", "--counted", "3", "--apply", "--reason", "one lost")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut = tillRun(t, dir, "", nil, "stock", "list", "--sku", "ACC-CBL-CC1M")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "ACC-CBL-CC1M\t")
	assert.Contains(t, out, "\t3\n")
}

// TestStockTransferCommands: a phone sent from one counter's data directory
// and received at another's, once; its history at each end; the ageing.
func TestStockTransferCommands(t *testing.T) {
	pin := map[string]string{"GALLA_PIN": "432100"}
	one, two := t.TempDir(), t.TempDir()
	for _, dir := range []string{one, two} {
		code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
		require.Equal(t, exitOK, code, errOut)
	}
	code, _, errOut := tillRun(t, one, "", pin, "stock", "receive", "--supplier", "Sai", "--invoice", "7", "--date", "2026-01-05",
		"--items", "PH-SAM-A55-128:2@2100000", "--imei", luhnIMEI(1)+","+luhnIMEI(2))
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := tillRun(t, one, "", pin, "stock", "send", "--to", "Store 2", "--items", "PH-SAM-A55-128:1", "--imei", luhnIMEI(2))
	require.Equal(t, exitOK, code, errOut)
	id := strings.TrimSpace(out)
	assert.Equal(t, "T1/TR/1", id)
	code, _, errOut = tillRun(t, one, "", pin, "stock", "send", "--to", "Store 2", "--items", "PH-SAM-A55-128:1", "--imei", luhnIMEI(2))
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "was sent to another counter")

	code, _, errOut = tillRun(t, two, "", pin, "stock", "arrive", "--from", "T1", "--transfer", id, "--items", "PH-SAM-A55-128:1", "--imei", luhnIMEI(2))
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, two, "", pin, "stock", "arrive", "--from", "T1", "--transfer", id, "--items", "PH-SAM-A55-128:1", "--imei", luhnIMEI(2))
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "was received already")

	code, out, errOut = tillRun(t, one, "", nil, "stock", "history", luhnIMEI(2))
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "in_transit")
	assert.Contains(t, out, "received from Sai on invoice 7 of 2026-01-05")
	assert.Contains(t, out, "sent to Store 2 on transfer T1/TR/1")
	code, out, errOut = tillRun(t, two, "", nil, "stock", "history", luhnIMEI(2))
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "received from T1 on transfer T1/TR/1")

	code, out, errOut = tillRun(t, one, "", nil, "stock", "ageing", "--format", "json")
	require.Equal(t, exitOK, code, errOut)
	var rows []pos.AgeingRow
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	require.Len(t, rows, 1)
	assert.Equal(t, 1, rows[0].Units)
	assert.Equal(t, luhnIMEI(1), rows[0].OldestI)
}
