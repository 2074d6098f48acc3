package pos

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"galla/gateway/sandbox"
	"galla/internal/testclock"
)

// writeOldJournal writes testdata/oldjournal with the sale path of one tender:
// a cash sale, a card sale, a bank-EMI sale, a sale paid by the credit note of a
// return, and a card order the issuer declined, each an order of its own tender
// (Engine.Payments.PayCash, CheckoutCard, CheckoutEMI; the note sale as
// Checkout.PayByNote wrote it before it became a sale, writeNoteSale). It runs
// with -write-oldjournal only; when that path goes, this file goes with it and
// the journal it wrote stays.
func writeOldJournal(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	dir := t.TempDir()
	state := filepath.Join(dir, "sandbox.state")
	clock := testclock.New(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	j := newMemJournal()
	r, tl := oldJournalTill(t, j, state, clock, sandbox.Sequential(), &countingReader{n: 100})
	_, err := r.e.Roster().WithIterations(MinPINIterations).AddStaff(ctx, "Meera", RoleManager, managerPIN)
	require.NoError(t, err)
	_, _, err = tl.Setup.SetShop(ctx, ShopDetails{Name: "Galla Mobiles", Address: "1 MG Road, Pune", State: "27", GSTIN: "27AAPFU0939F1ZV"}, managerPIN)
	require.NoError(t, err)

	var f oldJournalFixture
	cash, err := r.e.Payments.PayCash(ctx, r.sale(t, "ACC-CBL", "ACC-CASE"), Rupees(2000))
	require.NoError(t, err)
	f.Cash = cash.Order.ID
	clock.Advance(time.Minute)
	paid, err := r.e.Payments.CheckoutCard(ctx, r.sale(t, "ACC-CASE"), card("4111111111111111"), r.otp())
	require.NoError(t, err)
	require.Equal(t, ResultPaid, paid.Status, paid.Reason)
	f.Card = paid.Order.ID
	clock.Advance(time.Minute)
	tv := r.sale(t, "TV-LG-OLED55C4")
	offers, err := r.e.Payments.EMIOffers(ctx, tv.Lines)
	require.NoError(t, err)
	plan, ok := offers.Find("ICICI", 18, ProgramBank)
	require.True(t, ok, "ICICI offers bank EMI over 18 months")
	emi, err := r.e.Payments.CheckoutEMI(ctx, tv, plan, card("5522600000000005"), r.otp())
	require.NoError(t, err)
	require.Equal(t, ResultPaid, emi.Status, emi.Reason)
	f.EMI = emi.Order.ID
	clock.Advance(time.Minute)
	ret, err := tl.Returns.Return(ctx, ReturnRequest{Document: f.Cash, Items: []ReturnQty{{SKU: "ACC-CASE", Qty: 1}}, To: RefundToNote, PIN: managerPIN})
	require.NoError(t, err)
	require.NotEmpty(t, ret.CreditNote)
	clock.Advance(time.Minute)
	note := writeNoteSale(t, r.e, tl, r.sale(t, "ACC-CBL"), ret.CreditNote)
	require.Equal(t, StatePaid, note.State)
	f.Note = note.ID
	clock.Advance(time.Minute)
	declined, err := r.e.Payments.CheckoutCard(ctx, r.sale(t, "ACC-CBL"), card("4000000000000002"), r.otp())
	require.NoError(t, err)
	require.Equal(t, ResultFailed, declined.Status)
	f.Declined = declined.Order.ID
	require.NoError(t, r.sb.Close())

	require.NoError(t, os.MkdirAll(oldJournalDir, 0o755))
	var lines []byte
	for _, ev := range j.allEvents() {
		b, err := json.Marshal(ev)
		require.NoError(t, err)
		lines = append(append(lines, b...), '\n')
	}
	require.NoError(t, os.WriteFile(filepath.Join(oldJournalDir, "events.jsonl"), lines, 0o644))
	staff, err := j.List(ctx)
	require.NoError(t, err)
	writeJSON(t, filepath.Join(oldJournalDir, "staff.json"), staff)
	writeJSON(t, filepath.Join(oldJournalDir, "orders.json"), f)
	raw, err := os.ReadFile(state)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(oldJournalDir, "sandbox.state"), raw, 0o644))
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append(b, '\n'), 0o644))
}

// writeNoteSale journals a sale paid wholly by credit note number as the
// one-tender path wrote it: an order of tender note naming the note in its
// intent, the note redeemed on the order that issued it, then note.tendered.
func writeNoteSale(t *testing.T, e *Engine, tl *Till, sale Sale, number string) *Order {
	t.Helper()
	ctx := t.Context()
	id, lines, totals, err := e.Sales.startSale(ctx, sale, "open")
	require.NoError(t, err)
	o := &Order{}
	in := &Intent{Tender: TenderNote, Lines: lines, Totals: totals, Amount: totals.Total, IMEIs: allIMEIs(lines), Customer: sale.Customer, Note: number}
	_, err = e.Sales.commit(ctx, o, Event{Kind: EvOrderIntent, OrderID: id, Staff: sale.Staff, Intent: in})
	require.NoError(t, err)
	issue, ref, err := tl.Returns.findNote(ctx, number)
	require.NoError(t, err)
	n := NoteEvent{Number: number, IssueID: issue.ID, Refund: ref.UniqueTxnID, Amount: o.Amount, SaleID: o.ID}
	require.NoError(t, e.Sales.redeemNote(ctx, issue.ID, n))
	_, err = e.Sales.commit(ctx, o, Event{Kind: EvNoteTendered, Staff: o.Staff, Note: &n})
	require.NoError(t, err)
	return o
}
