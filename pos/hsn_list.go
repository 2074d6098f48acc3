package pos

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"galla/pos/hsn"
)

// The HSN list a shop loads (galla hsn import): the GST portal's HSN
// directory saved as CSV, kept as a file of the data directory in the format
// hsn.Read reads, its SHA-256 and number of codes journaled as settings.changed
// (SettingHSN) naming the manager. It is read the first time a catalog import
// or a GSTR-1 needs it, and believed only while its SHA-256 is the one
// journaled: a file edited outside Galla is refused with a sentence, never
// used.

// SettingHSN is the settings.changed key of the HSN list the shop loaded.
const SettingHSN = "hsn.list"

// HSNList is the HSN list the shop loaded, as journaled.
type HSNList struct {
	SHA256 string `json:"sha256"` // of the file as written, hex
	Codes  int    `json:"codes"`
}

// HSNFiles keeps the HSN list a shop loaded as one file; internal/cli keeps
// it in the data directory.
type HSNFiles interface {
	// ReadHSN reads the file; an error matching fs.ErrNotExist when there is
	// none.
	ReadHSN() ([]byte, error)
	// WriteHSN replaces the file whole or not at all.
	WriteHSN(b []byte) error
	// HSNPath names the file in sentences.
	HSNPath() string
}

// ErrBadHSNList refuses a file that is not an HSN list as the GST portal
// publishes it (hsn.ReadPortalCSV); the list loaded before stays.
var ErrBadHSNList = errors.New("pos: not an HSN list")

// ErrHSNListChanged refuses the HSN list of the data directory when it is not
// the one journaled: changed, replaced or removed outside Galla.
var ErrHSNListChanged = errors.New("pos: the HSN list is not the one loaded")

// ImportHSN loads the HSN list of r (the GST portal's HSN directory saved as
// CSV) on a manager's authority once staff exist (managerPIN), as a catalog
// import: the file is written whole, then journaled with its SHA-256 and
// number of codes naming the manager. A file that is not such a list is
// refused with ErrBadHSNList, and the list loaded before stays.
func (su *Setup) ImportHSN(ctx context.Context, r io.Reader, managerPIN string) (HSNList, error) {
	if su.cfg.HSN == nil {
		return HSNList{}, errors.New("pos: import hsn: no place to keep the HSN list")
	}
	staff, err := su.crew.managerOnceStaffExist(ctx, managerPIN)
	if err != nil {
		return HSNList{}, err
	}
	m, err := hsn.ReadPortalCSV(r)
	if err != nil {
		return HSNList{}, wrapf(ErrBadHSNList, "The file is not the GST portal's HSN list saved as CSV (code, description): %s. The HSN list loaded before stays.",
			strings.TrimPrefix(err.Error(), "hsn: "))
	}
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		return HSNList{}, err
	}
	sum := sha256.Sum256(b.Bytes())
	list := HSNList{SHA256: hex.EncodeToString(sum[:]), Codes: m.Len()}
	old, oldErr := su.cfg.HSN.ReadHSN()
	if err := su.cfg.HSN.WriteHSN(b.Bytes()); err != nil {
		return HSNList{}, fmt.Errorf("pos: import hsn: %w", err)
	}
	if err := su.saveSetting(ctx, staff, SettingHSN, list); err != nil {
		if oldErr == nil {
			_ = su.cfg.HSN.WriteHSN(old) // the list journaled before, as it was
		}
		return HSNList{}, err
	}
	su.mu.Lock()
	su.hsnList, su.hsnSum = m, list.SHA256
	su.mu.Unlock()
	return list, nil
}

// LoadedHSN is the HSN list the shop loaded as journaled; ok is false when
// none was.
func LoadedHSN(ctx context.Context, j Journal) (list HSNList, ok bool, err error) {
	raw, err := j.Setting(ctx, SettingHSN)
	if err != nil || raw == nil {
		return list, false, err
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return list, false, fmt.Errorf("pos: setting %q: %w", SettingHSN, err)
	}
	return list, true, nil
}

// HSNMaster is the HSN list the shop loaded, read from its file on first use;
// nil when none was loaded. A file whose SHA-256 is not the journaled one
// (edited, replaced or removed outside Galla) is refused with
// ErrHSNListChanged, naming the file and the command that loads the list
// again.
func (su *Setup) HSNMaster(ctx context.Context) (*hsn.Master, error) { return su.hsnMaster(ctx) }

func (c *core) hsnMaster(ctx context.Context) (*hsn.Master, error) {
	list, ok, err := LoadedHSN(ctx, c.j)
	if err != nil || !ok || c.cfg.HSN == nil {
		return nil, err
	}
	c.mu.Lock()
	m, sum := c.hsnList, c.hsnSum
	c.mu.Unlock()
	if m != nil && sum == list.SHA256 {
		return m, nil
	}
	path := c.cfg.HSN.HSNPath()
	b, err := c.cfg.HSN.ReadHSN()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, wrapf(ErrHSNListChanged, "The HSN list the shop loaded, %s, is missing; load the GST portal's HSN list again with galla hsn import FILE.", path)
	}
	if err != nil {
		return nil, fmt.Errorf("pos: read the hsn list %s: %w", path, err)
	}
	got := sha256.Sum256(b)
	if hex.EncodeToString(got[:]) != list.SHA256 {
		return nil, wrapf(ErrHSNListChanged, "The HSN list %s was changed outside Galla (it is not the file loaded), so it is not believed; load the GST portal's HSN list again with galla hsn import FILE.", path)
	}
	if m, err = hsn.Read(string(b)); err != nil {
		return nil, wrapf(ErrHSNListChanged, "The HSN list %s cannot be read (%v); load the GST portal's HSN list again with galla hsn import FILE.", path, err)
	}
	c.mu.Lock()
	c.hsnList, c.hsnSum = m, list.SHA256
	c.mu.Unlock()
	return m, nil
}
