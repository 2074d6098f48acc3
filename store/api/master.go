package api

import "encoding/json"

// PathMaster is where a terminal fetches the master data (catalog, shop
// details) published at the store since the version it applied: POST
// MasterRequest → MasterUpdate, signed.
const PathMaster = "/api/v1/master"

// MasterRequest asks for what changed after version Since (0: everything).
type MasterRequest struct {
	Since uint64 `json:"since"`
}

// MasterItem is the newest published body of one kind: "catalog" (a JSON
// array of products, as pos.ImportJSON reads) or "shop" (the shop's details).
type MasterItem struct {
	Version     uint64          `json:"version"`
	Kind        string          `json:"kind"`
	Body        json.RawMessage `json:"body"`
	PublishedBy string          `json:"published_by"`
}

// MasterUpdate is the newest item of each kind changed after Since, in
// version order, and the store's newest version: the terminal applies the
// items, journals them, and asks next time from Version.
type MasterUpdate struct {
	Version uint64       `json:"version"`
	Items   []MasterItem `json:"items"`
}

// PathStaffPepper is where a terminal asks for the store's staff pepper: POST
// (empty body) → StaffPepper, signed. The pepper also comes with the answer to
// the enrolment; it is kept in the terminal's keyring, never in its journal.
const PathStaffPepper = "/api/v1/staff-pepper"

// StaffPepper is the store's staff pepper in hex (32 bytes): with it a terminal
// checks the PINs of the store's staff (ADR 0007).
type StaffPepper struct {
	Pepper string `json:"pepper"`
}
