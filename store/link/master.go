package link

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"galla/store/api"
)

// PullMaster fetches the master data published at the store after version
// since and hands each item to apply, in version order. apply journals it on
// the terminal (a catalog: pos.Shelf.ImportCatalog of its JSON, which journals
// catalog.imported). It returns the version the terminal has applied up to:
// ask from it next time. An item apply refuses stops the pull there, so it is
// fetched again.
func (l *Link) PullMaster(ctx context.Context, since uint64, apply func(api.MasterItem) error) (uint64, error) {
	body, err := json.Marshal(api.MasterRequest{Since: since})
	if err != nil {
		return since, err
	}
	var up api.MasterUpdate
	if err := l.request(ctx, http.MethodPost, api.PathMaster, body, &up); err != nil {
		return since, err
	}
	for _, it := range up.Items {
		if err := apply(it); err != nil {
			return since, err
		}
		since = it.Version
	}
	return max(since, up.Version), nil
}

// MasterTill is the till as the store's master data reaches it (pos.Shelf, the
// till's catalog and master data): the version it applied up to, and each item
// applied and journaled.
type MasterTill interface {
	MasterVersion(ctx context.Context) (uint64, error)
	ApplyMaster(ctx context.Context, kind string, body []byte, version uint64) error
}

// ErrTillVersion is a till whose applied master-data version cannot be read
// (its journal); nothing was asked of the store.
var ErrTillVersion = errors.New("link: the till's master-data version cannot be read")

// SyncMaster brings t up to the store's master data: it asks for what was
// published after the version t applied and applies it in order, as galla sync
// and the window's background sync both do. It returns the version applied up
// to and the kind of each item applied.
func (l *Link) SyncMaster(ctx context.Context, t MasterTill) (uint64, []string, error) {
	since, err := t.MasterVersion(ctx)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %w", ErrTillVersion, err)
	}
	var kinds []string
	v, err := l.PullMaster(ctx, since, func(it api.MasterItem) error {
		if err := t.ApplyMaster(ctx, it.Kind, it.Body, it.Version); err != nil {
			return err
		}
		kinds = append(kinds, it.Kind)
		return nil
	})
	return v, kinds, err
}
