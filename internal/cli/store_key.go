package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/zalando/go-keyring"

	"galla/internal/config"
	"galla/store"
)

// StoreKeyFile is the file of the store key in the data directory (mode 0600)
// where no system keyring answers.
const StoreKeyFile = "store.key"

// storeKeyEntry is the store key's entry in the system keyring.
const storeKeyEntry = "store-key"

// storeKeeper keeps the store key (store/key.go: the data key that seals the
// buyers' details in the store's database, and the staff's and managers' PIN
// peppers) outside the database, for the store commands run with the data
// directory dir: in the system keyring where one answers, under a service
// that names dir (as the counter's secrets, config.Secrets); else in
// StoreKeyFile in dir, readable by this user only. A key kept in the file
// stays there when a keyring appears later.
type storeKeeper struct {
	kr      config.Keyring
	service string
	file    store.Keeper
	path    string
}

// newStoreKeeper returns the keeper of the store key of data directory dir in
// kr (nil: no keyring, the file).
func newStoreKeeper(dir string, kr config.Keyring) *storeKeeper {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	path := filepath.Join(dir, StoreKeyFile)
	return &storeKeeper{kr: kr, service: "Galla store " + abs, file: store.KeyFile(path), path: path}
}

// keyring reports whether the system keyring answers.
func (k *storeKeeper) keyring() bool {
	if k.kr == nil {
		return false
	}
	_, err := k.kr.Get(k.service, "probe")
	return err == nil || errors.Is(err, keyring.ErrNotFound)
}

// inFile reports whether the key is kept in the file.
func (k *storeKeeper) inFile() bool {
	_, err := os.Stat(k.path)
	return err == nil
}

func (k *storeKeeper) Load() ([]byte, error) {
	if k.inFile() || !k.keyring() {
		return k.file.Load()
	}
	v, err := k.kr.Get(k.service, storeKeyEntry)
	if errors.Is(err, keyring.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return []byte(v), nil
}

func (k *storeKeeper) Save(key []byte) error {
	if k.inFile() || !k.keyring() {
		return k.file.Save(key)
	}
	if err := k.kr.Set(k.service, storeKeyEntry, string(key)); err != nil {
		return err
	}
	if v, err := k.kr.Get(k.service, storeKeyEntry); err != nil || v != string(key) {
		return fmt.Errorf("the system keyring did not keep the store key (%v)", err)
	}
	return nil
}

func (k *storeKeeper) Where() string {
	if k.inFile() || !k.keyring() {
		return k.file.Where()
	}
	return fmt.Sprintf("the system keyring (service %q, entry %q)", k.service, storeKeyEntry)
}

// storeKeyLine is the line the store's commands that open its database say
// at start: where its key is, and that it is backed up with the database.
func storeKeyLine(d *store.DB) string {
	return "galla: the store key, which seals the buyers' details in the database and holds the staff's PIN peppers, is kept in " +
		d.KeyWhere() + ": back it up with the database's backups (a copy of the database is unreadable without it) and give every copy of the server the same key."
}
