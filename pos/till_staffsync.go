package pos

import (
	"context"
	"encoding/json"
)

// MasterStaff is the master kind of one member of the store's staff
// (store.MasterStaff): the body is the member's record (Staff) with the PIN's
// hash made with the store's pepper, never the PIN.
const MasterStaff = "staff"

// applyStaff journals the store's record of one member (Roster.PutStoreMember):
// a member added at the store can sign in at this counter, one disabled there
// no longer can. The counter's own wrong PINs and lock of the member stay.
func (t *Till) applyStaff(ctx context.Context, body []byte) error {
	var s Staff
	if err := json.Unmarshal(body, &s); err != nil {
		return sentenceErr("A member of staff the store sent cannot be read; the counter keeps the staff it has. Change the member at the store again.")
	}
	_, err := t.eng.Roster().PutStoreMember(ctx, s)
	return err
}

// SetStorePepper gives the till the store's PIN pepper (kept in the keyring,
// never in the journal) once the store has handed it over, so that the store's
// members sign in from now on.
func (t *Till) SetStorePepper(pepper []byte) {
	t.eng.Roster().WithStorePepper(pepper)
}
