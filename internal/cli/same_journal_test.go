package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/pos/journal"
	"galla/ui"
)

// normalEvents reads the journal j and returns each event as JSON with
// what differs between two runs of the same sale taken out: sequence numbers, the
// hash chain, times and days, order, payment and refund ids, and who was signed in.
func normalEvents(t *testing.T, j *journal.Journal) []string {
	t.Helper()
	last, err := j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	var out []string
	for seq := uint64(1); seq <= last; seq++ {
		ev, err := j.Log.Event(t.Context(), seq)
		require.NoError(t, err)
		if ev.Kind == pos.EvStaffAdded || ev.Kind == pos.EvStaffChanged || ev.Kind == pos.EvStaffSignIn {
			continue // the window's first manager and sign-ins; the command line has none
		}
		raw, err := json.Marshal(ev)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(raw, &m))
		scrub(m)
		b, err := json.Marshal(m)
		require.NoError(t, err)
		out = append(out, string(b))
	}
	return out
}

// scrub blanks, at any depth, the fields whose values are ids (ours or the
// service's: auth code, RRN; a tender's sale and the tenders that covered a
// sale), times or people.
func scrub(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			switch k {
			case "seq", "hash", "prev_hash", "time", "day", "order_id", "merchant_order_id", "service_order_id",
				"payment_id", "token", "staff", "unique_txn_id", "refund_id", "at", "expires_at", "txn_date_time",
				"order_date_time", "updated_at", "created_at", "completed_at", "auth_code", "rrn", "covered":
				v[k] = "·"
			case "sale":
				if _, id := x.(string); id {
					v[k] = "·"
				} else {
					scrub(x)
				}
			default:
				scrub(x)
			}
		}
	case []any:
		for _, x := range v {
			scrub(x)
		}
	}
}

// TestSameSaleSameJournal sells the same cash sale and the same card sale once
// through the command line (galla checkout) and once through the window's path
// (the keys on the real window over the same pos.Till), and finds the same journal
// events with the same payloads, ids, times and the signed-in person aside.
func TestSameSaleSameJournal(t *testing.T) {
	cli := t.TempDir()
	code, out, errOut := tillRun(t, cli, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, "PAID", decodeCheckout(t, out).Status)
	code, out, errOut = tillRun(t, cli, visaJSON, nil, "checkout", "--items", "ACC-CASE-S24", "--pay", "card", "--otp", "123456")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, "PAID", decodeCheckout(t, out).Status)

	till := newWindowTill(t)
	require.NoError(t, till.Crew.AddStaff(t.Context(), "Asha", ui.RoleManager, "432100"))
	k := newCounter(t, till)
	k.signIn("Asha", "432100")
	k.enter("ACC-CBL-CC1M")
	k.waitText("1 item")
	k.press(fyne.KeyF7) // cash
	k.waitText("Change due")
	k.enter("499")                                                        // the exact amount, as galla checkout takes by default
	k.waitText("Receipt T1/" + pos.FinancialYear(time.Now()) + "/000001") // cash is paid at once: its invoice
	k.press(fyne.KeyEscape)                                               // next customer
	k.waitText("Cart is empty")
	k.enter("ACC-CASE-S24")
	k.waitText("1 item")
	k.press(fyne.KeyF5) // card
	k.waitText("Card payment")
	k.enter("4111111111111111")
	k.enter("12/30")
	k.enter("123")
	k.enter("A Customer")
	k.otp()
	k.waitFor("the result", func() bool { return k.result() != "" })
	require.Equal(t, "PAID", k.result(), k.screenText())
	k.settle()

	j, err := journal.Open(filepath.Join(cli, journalFile), keyed(t, cli, journal.Options{}))
	require.NoError(t, err)
	defer j.Close()
	want := normalEvents(t, j)
	got := normalEvents(t, till.j)
	require.NotEmpty(t, want)
	assert.Equal(t, want, got)
}
