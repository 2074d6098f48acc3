package link

import (
	"context"
	"encoding/json"
	"net/http"

	"galla/store/api"
)

// PullMaster fetches the master data published at the store after version
// since and hands each item to apply, in version order. apply journals it on
// the terminal (a catalog: pos.Till.ImportCatalog of its JSON, which journals
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
