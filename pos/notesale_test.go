package pos

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoteSaleIsASale pays a cable wholly by a credit note (Checkout.PayByNote):
// it is a sale whose one tender is a note tender, written on the sale path as
// any other sale is, and the note pays the tender, not the sale.
func TestNoteSaleIsASale(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	sold, err := sellCash(ctx, r.e, r.sale(t, "ACC-CASE"), 149900)
	require.NoError(t, err)
	ret, err := tl.Returns.Return(ctx, ReturnRequest{Document: sold.Order.Number("T1"), Items: []ReturnQty{{SKU: "ACC-CASE", Qty: 1}},
		To: RefundToNote, Reason: "exchange", PIN: managerPIN})
	require.NoError(t, err)
	issueID := ret.Order.ID
	before := len(r.j.allEvents())

	o, left, err := tl.Checkout.PayByNote(ctx, r.sale(t, "ACC-CBL"), ret.CreditNote)
	require.NoError(t, err)
	assert.Equal(t, Paise(149900-49900), left)

	// The sale: split, complete, numbered; its one tender a note tender that
	// covers it, paid from the ledger.
	assert.Equal(t, TenderSplit, o.Tender)
	assert.Equal(t, StatePaid, o.State)
	assert.Equal(t, "T1/2627/000002", o.Number("T1"))
	st, err := tl.Checkout.SaleStatus(ctx, o.ID)
	require.NoError(t, err)
	assert.True(t, st.Complete())
	require.Len(t, st.Tenders, 1)
	tv := st.Tenders[0]
	assert.Equal(t, TenderNote, tv.Kind)
	assert.Equal(t, ret.CreditNote, tv.NoteNo)
	assert.Equal(t, Paise(49900), tv.Amount)
	require.NotNil(t, tv.Order)
	assert.Equal(t, o.ID, tv.Order.Sale)
	assert.Equal(t, StatePaid, tv.State)
	assert.True(t, tv.Verified)
	assert.Equal(t, ret.CreditNote, tv.Order.NoteNo)
	assert.Equal(t, []string{tv.Order.ID}, o.Covered, "the sale records the tender that paid it")

	// The journal: the sale's intent, its tender, the tender's intent, the
	// note redeemed on the order that issued it (for the tender), the tender
	// paid, the sale completed; no note.tendered, the old one-tender event.
	type step struct {
		kind  EventKind
		order string
	}
	var got []step
	for _, ev := range r.j.allEvents()[before:] {
		got = append(got, step{ev.Kind, ev.OrderID})
		if ev.Kind == EvNoteRedeemed {
			require.NotNil(t, ev.Note)
			assert.Equal(t, tv.Order.ID, ev.Note.SaleID, "the note is redeemed for the tender")
			assert.Equal(t, Paise(49900), ev.Note.Amount)
		}
	}
	assert.Equal(t, []step{
		{EvOrderIntent, o.ID},
		{EvTenderAdded, o.ID},
		{EvOrderIntent, tv.Order.ID},
		{EvNoteRedeemed, issueID},
		{EvTenderNoteRedeemed, tv.Order.ID},
		{EvSaleCompleted, o.ID},
	}, got)
}

// TestNoteSaleRefusedLeavesNoSale spends a note on more than is left on it
// after the check (another sale took it meanwhile, as a second counter would):
// the redemption refuses it, the tender is closed unpaid and the sale dropped,
// and the note keeps what it had.
func TestNoteSaleRefusedLeavesNoSale(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	sold, err := sellCash(ctx, r.e, r.sale(t, "ACC-CASE"), 149900)
	require.NoError(t, err)
	ret, err := tl.Returns.Return(ctx, ReturnRequest{Document: sold.Order.Number("T1"), Items: []ReturnQty{{SKU: "ACC-CASE", Qty: 1}},
		To: RefundToNote, Reason: "exchange", PIN: managerPIN})
	require.NoError(t, err)

	// The note is spent between PayByNote's check and its redemption.
	r.e.Sales.cfg.Notes = spentFirst{NoteRedeemer: r.e.Sales.cfg.Notes, rt: tl.Returns}
	o, _, err := tl.Checkout.PayByNote(ctx, r.sale(t, "ACC-CBL"), ret.CreditNote)
	require.ErrorIs(t, err, ErrNoteSpent)
	require.NotNil(t, o, "the tender was journaled")
	assert.Equal(t, TenderNote, o.Tender)
	assert.Equal(t, StateAbandoned, o.State)
	st, err := tl.Checkout.SaleStatus(ctx, o.Sale)
	require.NoError(t, err)
	assert.Equal(t, StateVoided, st.Sale.State, "the sale took nothing and was dropped")
	left, err := tl.Returns.NoteBalance(ctx, ret.CreditNote)
	require.NoError(t, err)
	assert.Equal(t, Paise(0), left, "only the other sale's redemption")
}

// spentFirst is the counter's credit-note ledger with the whole of a note
// spent by another sale just before it is redeemed.
type spentFirst struct {
	NoteRedeemer
	rt *Returns
}

func (s spentFirst) Redeem(ctx context.Context, noteNo string, amount Paise, ref string) (Paise, error) {
	left, err := s.rt.NoteBalance(ctx, noteNo)
	if err != nil {
		return 0, err
	}
	if err := s.rt.RedeemNote(ctx, noteNo, left, "G-elsewhere"); err != nil {
		return 0, err
	}
	return s.NoteRedeemer.Redeem(ctx, noteNo, amount, ref)
}

// TestOldNoteSaleFinishedByReconciling: an older journal's sale paid wholly by
// a credit note (an order of tender note, its note named in its intent) that
// the terminal stopped in before the note was redeemed is finished by the
// reconciler as before: the note redeemed once, the sale paid by note.tendered.
func TestOldNoteSaleFinishedByReconciling(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	sold, err := sellCash(ctx, r.e, r.sale(t, "ACC-CASE"), 149900)
	require.NoError(t, err)
	ret, err := tl.Returns.Return(ctx, ReturnRequest{Document: sold.Order.ID, Items: []ReturnQty{{SKU: "ACC-CASE", Qty: 1}}, To: RefundToNote, PIN: managerPIN})
	require.NoError(t, err)

	sale := r.sale(t, "ACC-CBL")
	id, lines, totals, err := r.e.Sales.startSale(ctx, sale, "open")
	require.NoError(t, err)
	o := &Order{}
	in := &Intent{Tender: TenderNote, Lines: lines, Totals: totals, Amount: totals.Total, Note: ret.CreditNote}
	_, err = r.e.Sales.commit(ctx, o, Event{Kind: EvOrderIntent, OrderID: id, Intent: in})
	require.NoError(t, err)

	for range 2 { // a second reconciliation finds nothing to do
		_, err = r.e.Payments.Reconcile(ctx)
		require.NoError(t, err)
	}
	o, err = r.e.Order(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, o.State)
	assert.Equal(t, TenderNote, o.Tender)
	require.NotNil(t, o.Note)
	assert.Equal(t, ret.CreditNote, o.Note.Number)
	assert.NotZero(t, o.DocNo, "numbered when paid")
	left, err := tl.Returns.NoteBalance(ctx, ret.CreditNote)
	require.NoError(t, err)
	assert.Equal(t, Paise(149900-49900), left, "redeemed once")
}
