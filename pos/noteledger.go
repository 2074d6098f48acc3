package pos

import "context"

// noteLedger is the counter's credit-note ledger as the engine's split sales
// use it (NoteRedeemer, the engine's port): a note tendered is redeemed on the
// note's issuing order (and at the store when enrolled), keyed by the
// tender's order id, and given back when the tender is undone. It is the
// Returns' (which owns the credit notes); NewTill gives it to the engine
// (Engine.useNotes), and the engine knows it only as its port.
type noteLedger struct{ rt *Returns }

// Redeem redeems amount of credit note noteNo for the tender ref and returns
// what is left on the note.
func (n noteLedger) Redeem(ctx context.Context, noteNo string, amount Paise, ref string) (Paise, error) {
	return n.rt.redeemTender(ctx, noteNo, amount, ref)
}

// Restore gives back what the tender ref redeemed of credit note noteNo.
func (n noteLedger) Restore(ctx context.Context, noteNo string, amount Paise, ref string) error {
	return n.rt.restoreTender(ctx, noteNo, amount, ref)
}
