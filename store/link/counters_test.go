package link_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/internal/testclock"
	"galla/pos"
	"galla/pos/gstr"
	"galla/pos/journal"
	"galla/receipts"
	"galla/store/link"
)

// Two counters of one store, each a till over its own journal, enrolled and
// linked to one store server: what only one counter may do is decided there.

const managerPIN = "432100"

// till is one counter: its till, engine, journal, journal's link and name.
type till struct {
	*pos.Till
	e    *pos.Engine
	j    *journal.Journal
	l    *link.Link
	cfg  link.Config
	name string
}

// newTill builds counter name, enrolled in s, with a manager (managerPIN), on
// a clock standing at 22 Nov 2026 (FY 2026-27).
func newTill(t *testing.T, s *storeServer, name string) *till {
	t.Helper()
	return newTillKeyed(t, s, name, nil)
}

// newTillKeyed is newTill over a journal keyed with chainKey (nil: unkeyed).
func newTillKeyed(t *testing.T, s *storeServer, name string, chainKey []byte) *till {
	t.Helper()
	dir := t.TempDir()
	j, err := journal.Open(filepath.Join(dir, "journal.db"), journal.Options{ChainKey: chainKey})
	require.NoError(t, err)
	t.Cleanup(func() { _ = j.Close() })
	clock := testclock.New(time.Date(2026, 11, 22, 10, 0, 0, 0, pos.IST))
	e, err := pos.New(pos.Config{Journal: j.Port(), Clock: clock, Terminal: name})
	require.NoError(t, err)
	_, err = e.Roster().WithIterations(pos.MinPINIterations).AddStaff(t.Context(), "Meera", pos.RoleManager, managerPIN)
	require.NoError(t, err)
	tl, err := pos.NewTill(t.Context(), pos.TillConfig{Engine: e, Terminal: name})
	require.NoError(t, err)
	cfg := s.enrol(t, name, dir)
	cfg.ProofKey = j.FileProofKey(link.StateFile)
	cfg.Journal = link.Journaled(j.Shop, j.Log)
	l, err := link.New(cfg, j.Log)
	require.NoError(t, err)
	e.StoreDesk.SetDecisions(l)
	return &till{Till: tl, e: e, j: j, l: l, cfg: cfg, name: name}
}

// sync sends the counter's journal to the store.
func (c *till) sync(t *testing.T) {
	t.Helper()
	_, err := c.l.Sync(t.Context())
	require.NoError(t, err)
}

// cable is one cable at ₹499, case one phone case at ₹1,499, both at 18%.
func cable(qty int) pos.Line {
	return pos.Line{SKU: "ACC-CBL", Name: "Cable", HSN: "8544", Qty: qty, UnitPrice: 49900, GSTRate: pos.Percent(18)}
}

func phoneCase() pos.Line {
	return pos.Line{SKU: "ACC-CASE", Name: "Phone case", HSN: "3926", Qty: 1, UnitPrice: 149900, GSTRate: pos.Percent(18)}
}

// sellCash sells lines at c for cash on the sale path, tendered: its outcome,
// paid.
func (c *till) sellCash(t *testing.T, tendered pos.Paise, lines ...pos.Line) pos.PayOutcome {
	t.Helper()
	cart := make([]pos.CartLine, len(lines))
	for i, l := range lines {
		cart[i] = pos.CartLine{Product: pos.Product{SKU: l.SKU, Name: l.Name, HSN: l.HSN, Price: l.UnitPrice, GSTRate: l.GSTRate}, Qty: l.Qty, Discount: l.Discount}
	}
	out, err := c.Checkout.Pay(t.Context(), pos.PayRequest{Lines: cart, Tender: pos.TenderCash, Tendered: tendered}, nil)
	require.NoError(t, err)
	require.Equal(t, pos.StatePaid, out.State, out.Reason)
	return out
}

// noteOf sells a phone case for cash at c and takes it back onto a credit note
// to spend, worth ₹1,499: its number.
func noteOf(t *testing.T, c *till) string {
	t.Helper()
	ctx := t.Context()
	sold := c.sellCash(t, 149900, phoneCase())
	ret, err := c.Returns.Return(ctx, pos.ReturnRequest{Document: sold.ReceiptNo, Items: []pos.ReturnQty{{SKU: "ACC-CASE", Qty: 1}},
		To: pos.RefundToNote, PIN: managerPIN})
	require.NoError(t, err)
	require.Equal(t, pos.RefundDone, ret.Status)
	return ret.CreditNote
}

func refusal(t *testing.T, err error) *pos.StoreRefusal {
	t.Helper()
	var r *pos.StoreRefusal
	require.ErrorAs(t, err, &r)
	return r
}

// TestNoteSpentAtAnotherCounter issues a ₹1,499 note at T1 and spends it at T2,
// in a sale paid wholly by it and in a split sale's note tender given back by
// a void, then at T1: each rupee of it is spent once, whichever counter asks.
func TestNoteSpentAtAnotherCounter(t *testing.T) {
	s := newStoreServer(t)
	t1, t2 := newTill(t, s, "T1"), newTill(t, s, "T2")
	ctx := t.Context()
	note := noteOf(t, t1)
	require.Equal(t, "T1/C2627/00001", note)

	// Before T1 has synced, the store does not know the note.
	_, _, err := t2.Checkout.PayByNote(ctx, pos.Sale{Lines: []pos.Line{cable(1)}}, note)
	assert.Equal(t, "not_found", refusal(t, err).Code)
	assert.Contains(t, pos.Sentence(err), "wait until the counter that issued it has synced")
	t1.sync(t)

	// T2 spends ₹499 of it: ₹1,000 left.
	o, left, err := t2.Checkout.PayByNote(ctx, pos.Sale{Lines: []pos.Line{cable(1)}}, note)
	require.NoError(t, err)
	assert.Equal(t, pos.StatePaid, o.State)
	assert.Equal(t, "T2/2627/000001", o.Number("T2"))
	assert.Equal(t, pos.Paise(100000), left)

	// A split sale at T2 of two cables (₹998) takes ₹499 of the note, then is
	// voided: the ₹499 goes back onto the note at the store.
	sale, err := t2.Engine().Sales.OpenSale(ctx, pos.Sale{Lines: []pos.Line{cable(2)}})
	require.NoError(t, err)
	_, st, err := t2.Engine().Sales.SaleNote(ctx, sale.ID, note, 49900, "")
	require.NoError(t, err)
	assert.Equal(t, pos.Paise(49900), st.Paid)
	assert.Equal(t, pos.Paise(49900), st.Due)
	// Meanwhile T1 cannot take ₹1,000 of it: ₹501 is left.
	_, _, err = t1.Checkout.PayByNote(ctx, pos.Sale{Lines: []pos.Line{cable(2)}}, note)
	r := refusal(t, err)
	assert.Equal(t, "exceeded", r.Code)
	assert.Contains(t, r.Msg, "has ₹501.00 left of ₹1,499.00")
	_, err = t2.Checkout.VoidSale(ctx, sale.ID, managerPIN, "customer left")
	require.NoError(t, err)

	// T1's own journal still thinks ₹1,499 is left; the store knows ₹1,000 is,
	// and refuses the whole case. Nothing is spent on T1's ledger.
	o, _, err = t1.Checkout.PayByNote(ctx, pos.Sale{Lines: []pos.Line{phoneCase()}}, note)
	r = refusal(t, err)
	assert.Equal(t, "exceeded", r.Code)
	assert.Contains(t, r.Msg, "has ₹1,000.00 left")
	require.NotNil(t, o)
	assert.Equal(t, pos.StateAbandoned, o.State, "the sale took nothing")
	local, err := t1.Returns.NoteBalance(ctx, note)
	require.NoError(t, err)
	assert.Equal(t, pos.Paise(149900), local)

	// T1 spends the rest of what T2 left, ₹998, in a split sale: ₹2 left; T2's
	// next cable is refused.
	sale, err = t1.Engine().Sales.OpenSale(ctx, pos.Sale{Lines: []pos.Line{cable(2)}})
	require.NoError(t, err)
	_, st, err = t1.Engine().Sales.SaleNote(ctx, sale.ID, note, 0, "")
	require.NoError(t, err)
	assert.True(t, st.Complete())
	local, err = t1.Returns.NoteBalance(ctx, note)
	require.NoError(t, err)
	assert.Equal(t, pos.Paise(149900-99800), local, "T1's ledger has its own spending only")
	_, _, err = t2.Checkout.PayByNote(ctx, pos.Sale{Lines: []pos.Line{cable(1)}}, note)
	r = refusal(t, err)
	assert.Contains(t, r.Msg, "has ₹2.00 left")

	// The store's balance: ₹1,499 − ₹499 (T2) − ₹998 (T1).
	var value, redeemed int64
	require.NoError(t, s.db.Pool().QueryRow(ctx, "SELECT value, redeemed FROM credit_note_balances WHERE number = $1", note).Scan(&value, &redeemed))
	assert.Equal(t, int64(149900), value)
	assert.Equal(t, int64(49900+99800), redeemed)

	// With the store gone, a note is refused at either counter: no override.
	s.kill()
	o, _, err = t2.Checkout.PayByNote(ctx, pos.Sale{Lines: []pos.Line{{SKU: "X", Name: "Sticker", Qty: 1, UnitPrice: 100, GSTRate: pos.Percent(18)}}}, note)
	require.ErrorIs(t, err, pos.ErrStoreOffline)
	assert.Equal(t, pos.StateAbandoned, o.State)
	sale, err = t1.Engine().Sales.OpenSale(ctx, pos.Sale{Lines: []pos.Line{{SKU: "X", Name: "Sticker", Qty: 1, UnitPrice: 100, GSTRate: pos.Percent(18)}}})
	require.NoError(t, err)
	_, _, err = t1.Engine().Sales.SaleNote(ctx, sale.ID, note, 0, "")
	require.ErrorIs(t, err, pos.ErrStoreOffline)
	local, err = t1.Returns.NoteBalance(ctx, note)
	require.NoError(t, err)
	assert.Equal(t, pos.Paise(50100), local, "nothing spent while the store was away")
}

// TestNoteSpentAtOnceAtTwoCounters spends one ₹1,499 note on a ₹1,499 sale at
// both counters at the same moment, many times over: exactly one gets it.
func TestNoteSpentAtOnceAtTwoCounters(t *testing.T) {
	s := newStoreServer(t)
	t1, t2 := newTill(t, s, "T1"), newTill(t, s, "T2")
	ctx := t.Context()
	for round := range 5 {
		note := noteOf(t, t1)
		t1.sync(t)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, c := range []*till{t1, t2} {
			wg.Go(func() {
				_, _, errs[i] = c.Checkout.PayByNote(ctx, pos.Sale{Lines: []pos.Line{phoneCase()}}, note)
			})
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			if err == nil {
				won++
				continue
			}
			assert.Equal(t, "exceeded", refusal(t, err).Code, "round %d", round)
		}
		assert.Equal(t, 1, won, "round %d: %v", round, errs)
		var redeemed int64
		require.NoError(t, s.db.Pool().QueryRow(ctx, "SELECT redeemed FROM credit_note_balances WHERE number = $1", note).Scan(&redeemed))
		assert.Equal(t, int64(149900), redeemed)
		local, err := t1.Returns.NoteBalance(ctx, note)
		require.NoError(t, err)
		if errs[0] == nil {
			assert.Equal(t, pos.Paise(0), local, "T1 won: spent on its ledger")
		} else {
			assert.Equal(t, pos.Paise(149900), local, "T2 won: T1's ledger untouched")
		}
	}
}

// TestReturnOfAnotherCountersInvoice takes goods of T1's cash sale back at T2:
// the credit note is T2's, cites T1's invoice and reverses its GST, and what is
// returned at every counter never exceeds what was paid.
func TestReturnOfAnotherCountersInvoice(t *testing.T) {
	s := newStoreServer(t)
	t1, t2 := newTill(t, s, "T1"), newTill(t, s, "T2")
	ctx := t.Context()
	// A regular GST registrant's counters: their documents state the tax.
	for _, c := range []*till{t1, t2} {
		_, _, err := c.Setup.SetShop(ctx, pos.ShopDetails{Name: "Galla Mobiles", Address: "1 MG Road, Pune", State: "27", GSTIN: "27AAPFU0939F1ZV"}, managerPIN)
		require.NoError(t, err)
	}
	// Three cables at ₹499 with ₹1 off the line (₹1,496.00) and a case at ₹1,499:
	// ₹2,995.00.
	lines := []pos.Line{
		{SKU: "ACC-CBL", Name: "Cable", HSN: "8544", Qty: 3, UnitPrice: 49900, Discount: 100, GSTRate: pos.Percent(18)},
		phoneCase(),
	}
	inv := t1.sellCash(t, 299500, lines...).ReceiptNo
	require.Equal(t, "T1/2627/000001", inv)

	// Not synced yet: the store does not know it.
	_, err := t2.Returns.Return(ctx, pos.ReturnRequest{Document: inv, Items: []pos.ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: pos.RefundToCash, PIN: managerPIN})
	assert.Equal(t, "not_found", refusal(t, err).Code)
	t1.sync(t)

	// Its card cannot be refunded here; a wrong PIN returns nothing.
	_, err = t2.Returns.Return(ctx, pos.ReturnRequest{Document: inv, Items: []pos.ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: pos.RefundToCard, PIN: managerPIN})
	require.ErrorIs(t, err, pos.ErrNotRefundable)
	assert.Equal(t, "Invoice T1/2627/000001 was paid in cash at counter T1: refund it to cash or a credit note here.", pos.Sentence(err))
	_, err = t2.Returns.Return(ctx, pos.ReturnRequest{Document: inv, Items: []pos.ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: pos.RefundToCash, PIN: "999999"})
	require.ErrorIs(t, err, pos.ErrWrongPIN)

	// The Returns screen shows T1's sale from the store.
	v, err := t2.Returns.ReturnView(ctx, inv)
	require.NoError(t, err)
	assert.Equal(t, inv, v.Number)
	assert.Equal(t, pos.Paise(299500), v.Refundable)
	assert.Equal(t, []pos.RefundTo{pos.RefundToCash, pos.RefundToNote}, v.To)

	// One cable of three, to cash: ⌊149600×1/3⌋ = 49866; taxable at 18%
	// ⌊(4986600+59)/118⌋ = 42259, tax 7607, CGST 3803. The window names the
	// sale by the order id its screen showed.
	one, err := t2.Returns.Return(ctx, pos.ReturnRequest{Document: v.OrderID, Items: []pos.ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: pos.RefundToCash, Reason: "faulty", PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, pos.RefundDone, one.Status)
	assert.Equal(t, "T2/C2627/00001", one.CreditNote, "numbered in T2's own C series")
	assert.Equal(t, inv, one.Order.InvoiceNumber("T2"))
	assert.Equal(t, []pos.ReturnItem{{Line: 0, SKU: "ACC-CBL", Qty: 1, Amount: 49866, Taxable: 42259, Tax: 7607, CGST: 3803, Rate: pos.Percent(18)}}, one.Refund.Items)
	d, err := t2.Returns.CreditNoteDocument(ctx, one.CreditNote)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, receipts.Text(&b, d.Receipt, 48))
	for _, want := range []string{"CREDIT NOTE", "T2/C2627/00001", "Against invoice", inv, "22 Nov 2026", "Returned 1 NOS x 499.00", "498.66",
		"Taxable 422.59", "CGST @9%", "38.03", "Refunded to cash", "Reason: faulty"} {
		assert.Contains(t, b.String(), want)
	}

	// T2's day: ₹498.66 refunded in cash, no sale of its own.
	rep, err := t2.e.Ledger.Report(ctx, "2026-11-22")
	require.NoError(t, err)
	assert.Equal(t, pos.Paise(0), rep.GrossSales)
	assert.Equal(t, pos.Paise(49866), rep.Refunded)
	assert.Equal(t, pos.Paise(-49866), rep.CashExpected)

	// The rest, ₹2,995.00 − ₹498.66 = ₹2,496.34: a paisa more is refused, by
	// the store even before T2 has synced its first return.
	_, err = t2.Returns.Return(ctx, pos.ReturnRequest{Document: inv, Amount: 249635, To: pos.RefundToNote, PIN: managerPIN})
	require.ErrorIs(t, err, pos.ErrNotRefundable)
	assert.Equal(t, "At most ₹2,496.34 of invoice T1/2627/000001 is left to return, here or at another counter (not ₹2,496.35).", pos.Sentence(err))
	rest, err := t2.Returns.Return(ctx, pos.ReturnRequest{Document: inv, Amount: 249634, To: pos.RefundToNote, PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, "T2/C2627/00002", rest.CreditNote)
	assert.Equal(t, pos.Paise(249634), rest.Refund.Amount)
	t2.sync(t)

	// T2's GSTR-1 documents: its two credit notes, citing T1's invoice of 22
	// Nov; T1's invoice is T1's to report. The first reverses ₹422.59 of taxable
	// value with CGST = SGST = round(42259 × 18 / 200) = 3803 paise each (the
	// portal's arithmetic; the paisa left is round-off).
	day := time.Date(2026, 11, 22, 0, 0, 0, 0, pos.IST)
	docs, err := t2.Documents.ExportDocuments(ctx, day, day)
	require.NoError(t, err)
	require.Len(t, docs, 2)
	for i, want := range []string{"T2/C2627/00001", "T2/C2627/00002"} {
		assert.Equal(t, gstr.CreditNote, docs[i].Kind)
		assert.Equal(t, want, docs[i].Number)
		assert.Equal(t, inv, docs[i].OriginalNumber)
		assert.Equal(t, "2026-11-22", docs[i].OriginalDate.Format(time.DateOnly))
	}
	require.Len(t, docs[0].Lines, 1)
	assert.Equal(t, []gstr.Paise{42259, 3803, 3803}, []gstr.Paise{docs[0].Lines[0].Taxable, docs[0].Lines[0].CGST, docs[0].Lines[0].SGST})

	// Nothing more, at T2 or by the store.
	_, err = t2.Returns.Return(ctx, pos.ReturnRequest{Document: inv, Items: []pos.ReturnQty{{SKU: "ACC-CASE", Qty: 1}}, To: pos.RefundToCash, PIN: managerPIN})
	require.ErrorIs(t, err, pos.ErrNotRefundable)
	assert.Contains(t, pos.Sentence(err), "refunded in full already")
	_, err = t2.l.ReserveReturnItems(ctx, inv, "R-more", 1, []pos.ReturnItem{{Line: 0, SKU: "ACC-CBL", Amount: 1}})
	assert.Equal(t, "exceeded", refusal(t, err).Code)
	// A counter that names no lines is not heard on another counter's invoice.
	_, err = t2.l.ReserveReturn(ctx, inv, "R-more", 1)
	assert.Equal(t, "lines_needed", refusal(t, err).Code)
	// Nor at T1, whose own journal still shows the sale unrefunded.
	_, err = t1.Returns.Return(ctx, pos.ReturnRequest{Document: inv, Items: []pos.ReturnQty{{SKU: "ACC-CASE", Qty: 1}}, To: pos.RefundToCash, PIN: managerPIN})
	require.ErrorIs(t, err, pos.ErrNotRefundable)
	assert.Equal(t, "The store refused: invoice T1/2627/000001 was paid ₹2,995.00, of which ₹2,995.00 is refunded or being refunded: at most ₹0.00 can be returned, not ₹1,499.00. Nothing was refunded.", pos.Sentence(err))
	o, err := t1.Returns.FindSale(ctx, inv)
	require.NoError(t, err)
	assert.Empty(t, o.Refunds, "nothing journaled at T1")

	// The store holds T2's credit notes citing T1's invoice.
	var number, to string
	var value, taxable, tax int64
	require.NoError(t, s.db.Pool().QueryRow(ctx, `SELECT number, refund_to, value, taxable, tax FROM credit_notes WHERE terminal_id = 'T2' AND doc_no = 1`).
		Scan(&number, &to, &value, &taxable, &tax))
	assert.Equal(t, "T2/C2627/00001", number)
	assert.Equal(t, "cash", to)
	assert.Equal(t, []int64{49866, 42259, 7607}, []int64{value, taxable, tax})
	var state string
	require.NoError(t, s.db.Pool().QueryRow(ctx, `SELECT state FROM orders WHERE terminal_id = 'T2' AND order_id = $1`, one.Order.ID).Scan(&state))
	assert.Equal(t, "RETURN", state, "no sale of T2's")
	storeDay, err := s.db.Reports.DayReport(ctx, one.Order.Day)
	require.NoError(t, err)
	for _, c := range storeDay.Counters {
		assert.Zero(t, c.Unknown.Count, "%s: a return order is no unknown payment", c.Terminal)
	}
	assert.Zero(t, storeDay.Store.Unknown.Count)

	// With the store gone, another counter's invoice waits for it.
	s.kill()
	_, err = t2.Returns.Return(ctx, pos.ReturnRequest{Document: "T1/2627/000002", Amount: 100, To: pos.RefundToCash, PIN: managerPIN})
	require.True(t, errors.Is(err, pos.ErrStoreOffline), "%v", err)
	assert.Contains(t, pos.Sentence(err), "other counters' invoices wait until the store is back")
}

// TestNoteSpentWhereIssuedBeforeSync is an exchange: a note issued at T1 is
// spent at T1 at once, before T1 has synced. The store records the note on
// T1's word (what its journal says is left) as a claim bound to T1: T2 cannot
// spend it until T1's event of the note has reached the store, after which T2
// spends the rest and T1 cannot.
func TestNoteSpentWhereIssuedBeforeSync(t *testing.T) {
	s := newStoreServer(t)
	t1, t2 := newTill(t, s, "T1"), newTill(t, s, "T2")
	ctx := t.Context()
	note := noteOf(t, t1)
	_, left, err := t1.Checkout.PayByNote(ctx, pos.Sale{Lines: []pos.Line{cable(1)}}, note)
	require.NoError(t, err)
	assert.Equal(t, pos.Paise(100000), left, "₹1,499 − ₹499")

	// T2, T1 still unsynced: the store holds T1's claim only.
	_, _, err = t2.Checkout.PayByNote(ctx, pos.Sale{Lines: []pos.Line{phoneCase()}}, note)
	assert.Contains(t, refusal(t, err).Msg, "is not verified at the store yet: counter T1 has not sent the event that issued it")

	// T1 syncs: ₹1,000 is left at the store, and T2 spends it.
	t1.sync(t)
	_, _, err = t2.Checkout.PayByNote(ctx, pos.Sale{Lines: []pos.Line{phoneCase()}}, note)
	assert.Contains(t, refusal(t, err).Msg, "has ₹1,000.00 left")
	sale, err := t2.Engine().Sales.OpenSale(ctx, pos.Sale{Lines: []pos.Line{cable(2)}})
	require.NoError(t, err)
	_, st, err := t2.Engine().Sales.SaleNote(ctx, sale.ID, note, 0, "")
	require.NoError(t, err)
	assert.True(t, st.Complete())

	// T1's journal says ₹1,000 is left, the store ₹2.
	_, _, err = t1.Checkout.PayByNote(ctx, pos.Sale{Lines: []pos.Line{cable(1)}}, note)
	assert.Contains(t, refusal(t, err).Msg, "has ₹2.00 left")
	local, err := t1.Returns.NoteBalance(ctx, note)
	require.NoError(t, err)
	assert.Equal(t, pos.Paise(100000), local)
}

// TestReturnOfAnotherCountersSaleOfOneTender: a sale written as a sale and its
// one cash tender at T1 (its money on the tender's order) is returned at T2 up
// to what it was paid, and the store's day report counts it once.
func TestReturnOfAnotherCountersSaleOfOneTender(t *testing.T) {
	s := newStoreServer(t)
	t1, t2 := newTill(t, s, "T1"), newTill(t, s, "T2")
	ctx := t.Context()
	sale, err := t1.Engine().Sales.OpenSale(ctx, pos.Sale{Lines: []pos.Line{cable(1), phoneCase()}})
	require.NoError(t, err)
	out, err := t1.Checkout.Pay(ctx, pos.PayRequest{Sale: sale.ID, Tender: pos.TenderCash, Amount: 199800}, nil)
	require.NoError(t, err)
	require.Equal(t, pos.StatePaid, out.State)
	require.NotNil(t, out.Sale)
	require.True(t, out.Sale.Complete())
	inv := out.Sale.Sale.Number("T1")
	require.Equal(t, "T1/2627/000001", inv)
	t1.sync(t)

	v, err := t2.Returns.ReturnView(ctx, inv)
	require.NoError(t, err)
	assert.Equal(t, pos.Paise(199800), v.Refundable, "paid as its tender says")
	one, err := t2.Returns.Return(ctx, pos.ReturnRequest{Document: inv, Items: []pos.ReturnQty{{SKU: "ACC-CASE", Qty: 1}}, To: pos.RefundToCash, PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, pos.RefundDone, one.Status)
	assert.Equal(t, pos.Paise(149900), one.Refund.Amount)
	_, err = t2.Returns.Return(ctx, pos.ReturnRequest{Document: inv, Amount: 49901, To: pos.RefundToNote, PIN: managerPIN})
	require.ErrorIs(t, err, pos.ErrNotRefundable)
	assert.Equal(t, "At most ₹499.00 of invoice T1/2627/000001 is left to return, here or at another counter (not ₹499.01).", pos.Sentence(err))
	t2.sync(t)

	// The store's day: the sale once in T1's gross sales and in cash, the
	// refund in T2's.
	storeDay, err := s.db.Reports.DayReport(ctx, one.Order.Day)
	require.NoError(t, err)
	require.Len(t, storeDay.Counters, 2)
	assert.Equal(t, pos.Paise(199800), storeDay.Counters[0].GrossSales)
	assert.Equal(t, pos.Paise(199800), storeDay.Counters[0].CashExpected)
	assert.Equal(t, pos.Paise(149900), storeDay.Counters[1].Refunded)
	assert.Equal(t, pos.Paise(199800), storeDay.Store.GrossSales)
	assert.Equal(t, pos.Paise(199800-149900), storeDay.Store.CashExpected)
}
