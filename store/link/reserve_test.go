package link_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store/link"
)

func TestStoreDecisionsThroughTheLink(t *testing.T) {
	s := newStoreServer(t)
	l1, err := link.New(s.enrol(t, "T1", t.TempDir()), openJournal(t, t.TempDir()).Log)
	require.NoError(t, err)
	l2, err := link.New(s.enrol(t, "T2", t.TempDir()), openJournal(t, t.TempDir()).Log)
	require.NoError(t, err)
	ctx := t.Context()

	var d1, d2 pos.StoreDecisions = l1, l2
	require.NoError(t, d1.ReserveIMEIs(ctx, "T1-1", []string{"356938035643809"}))
	err = d2.ReserveIMEIs(ctx, "T2-1", []string{"356938035643809"})
	var refusal *pos.StoreRefusal
	require.ErrorAs(t, err, &refusal)
	assert.Equal(t, "taken", refusal.Code)
	// Sentence hides every run of digits that could be a card number, IMEIs too.
	assert.Equal(t, "The store refused: IMEI 356938035643809 is sold already at counter T1 (order T1-1): check the unit; a manager may look it up on the store's pages. Nothing was charged.", pos.Sentence(err))
	assert.False(t, pos.MayOverrideIMEI(err), "a unit the store knows sold is never overridden")

	// T1's own note, before its event reached the store: T1's claim, which T1
	// spends and T2 cannot.
	const note = "T1/C2627/00001"
	require.NoError(t, l1.IssueCreditNote(ctx, note, pos.Rupees(500)))
	left, err := d1.RedeemCreditNote(ctx, note, "T1-2", pos.Rupees(200))
	require.NoError(t, err)
	assert.Equal(t, pos.Rupees(300), left)
	_, err = d2.RedeemCreditNote(ctx, note, "T2-2", pos.Rupees(100))
	require.ErrorAs(t, err, &refusal)
	assert.Equal(t, "not_found", refusal.Code)
	_, err = d1.RedeemCreditNote(ctx, note, "T1-3", pos.Rupees(301))
	require.ErrorAs(t, err, &refusal)
	assert.Equal(t, "exceeded", refusal.Code)
	require.NoError(t, d1.Release(ctx, "T1-2", ""))
	left, err = d1.RedeemCreditNote(ctx, note, "T1-3", pos.Rupees(500))
	require.NoError(t, err)
	assert.Equal(t, pos.Paise(0), left)
	// Another counter's number is refused.
	err = l2.IssueCreditNote(ctx, "T1/C2627/00002", pos.Rupees(1))
	require.ErrorAs(t, err, &refusal)
	assert.Equal(t, "foreign", refusal.Code)

	// With the server gone: offline, and an IMEI may be overridden.
	s.kill()
	err = d2.ReserveIMEIs(ctx, "T2-3", []string{"490154203237518"})
	require.True(t, errors.Is(err, pos.ErrStoreOffline), "%v", err)
	assert.True(t, pos.MayOverrideIMEI(err))
	assert.Contains(t, pos.Sentence(err), "A manager may approve an IMEI by PIN")
	_, err = d2.RedeemCreditNote(ctx, note, "T2-4", 1)
	require.ErrorIs(t, err, pos.ErrStoreOffline)
}
