package link

import (
	"context"
	"encoding/hex"
	"errors"
	"net/http"

	"galla/store/api"
)

// StaffPepper asks the store for its staff pepper (ADR 0007), over the pinned
// link with a signed request: a terminal enrolled before the store had staff
// of its own gets it so. The caller keeps it in the keyring, never in the
// journal.
func (l *Link) StaffPepper(ctx context.Context) ([]byte, error) {
	var out api.StaffPepper
	if err := l.request(ctx, http.MethodPost, api.PathStaffPepper, []byte("{}"), &out); err != nil {
		return nil, err
	}
	pep, err := hex.DecodeString(out.Pepper)
	if err != nil || len(pep) < 32 {
		return nil, errors.New("the store server's answer holds no staff pepper")
	}
	return pep, nil
}
