package config

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/zalando/go-keyring"
)

// The names of the secrets a terminal keeps.
const (
	SecretMerchant   = "merchant-secret" // the payment service's secret key
	SecretAccessCode = "access-code"     // the payment service's access code
	SecretPINPepper  = "pin-pepper"      // mixed into every staff PIN hash (hex, 32 bytes)
	SecretJournalKey = "journal-key"     // keys the journal's hash chain (hex, 32 bytes)
	// SecretStoreKey is the terminal's Ed25519 private key at the store server
	// (its seed, hex, 32 bytes; galla enrol): the store holds only the public
	// half. Read and kept with StoreKey and SetStoreKey.
	SecretStoreKey = "store-key"
	// SecretStoreCredential is the credential of a terminal enrolled before
	// terminals had keys: kept until the link has moved the terminal to its
	// key, then emptied.
	SecretStoreCredential = "store-credential"
	// SecretStorePINPepper is the store's pepper of the store's staff PINs
	// (hex, 32 bytes), handed over by the store server (ADR 0007).
	SecretStorePINPepper = "store-pin-pepper"
	// SecretQRKey signs the documents' QR codes (hex, 32 bytes): read with
	// QRKey, which moves a key kept in ReceiptKeyFile by an older build here.
	SecretQRKey = "receipt-qr-key"
)

// SecretsFile is the fallback store of secrets in the data directory (mode 0600),
// used only where no keyring answers (headless Linux, CI).
const SecretsFile = "secrets.json"

// Keyring is what Secrets needs of the operating system's keyring (Windows
// Credential Manager, macOS Keychain, Secret Service on Linux): go-keyring's calls.
type Keyring interface {
	Set(service, user, password string) error
	Get(service, user string) (string, error)
}

// SystemKeyring is the operating system's keyring through go-keyring.
type SystemKeyring struct{}

// Set stores password under service and user.
func (SystemKeyring) Set(service, user, password string) error {
	return keyring.Set(service, user, password)
}

// Get returns what Set stored, or keyring.ErrNotFound.
func (SystemKeyring) Get(service, user string) (string, error) { return keyring.Get(service, user) }

// Secrets keeps the terminal's secrets (DESIGN.md section 5) in the keyring, under
// a service name that names the data directory; where the keyring does not answer,
// in SecretsFile with mode 0600, and Where says so. A secret never goes to
// config.json. Its methods are safe for concurrent use.
type Secrets struct {
	dir     string
	service string
	kr      Keyring

	mu       sync.Mutex
	fallback bool // decided at the first use: the keyring did not answer
	decided  bool
}

// OpenSecrets returns the secrets of dataDir in kr (nil: no keyring at all).
func OpenSecrets(dataDir string, kr Keyring) *Secrets {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		abs = dataDir
	}
	return &Secrets{dir: dataDir, service: "Galla " + abs, kr: kr}
}

// useFile reports whether the fallback file is the store, trying the keyring once.
// Where the keyring answers and the fallback file is there (a keyring added to
// a counter that ran without one), the file's secrets move into the keyring
// and the file is removed; if one cannot be moved, the file stays the store.
func (s *Secrets) useFile() bool {
	if !s.decided {
		s.decided = true
		if s.kr == nil {
			s.fallback = true
		} else if _, err := s.kr.Get(s.service, "probe"); err != nil && !errors.Is(err, keyring.ErrNotFound) {
			s.fallback = true
		} else if s.moveFileToKeyring() != nil {
			s.fallback = true
		}
	}
	return s.fallback
}

// moveFileToKeyring moves every secret of the fallback file into the keyring
// (a secret the keyring holds already is kept as the keyring has it only when
// it is the same) and removes the file once the keyring gives each back.
func (s *Secrets) moveFileToKeyring() error {
	path := filepath.Join(s.dir, SecretsFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	m, err := s.readFile()
	if err != nil {
		return err
	}
	for name, v := range m {
		have, err := s.kr.Get(s.service, name)
		switch {
		case err == nil && have != v:
			return fmt.Errorf("config: secret %s differs in the keyring and in %s", name, path)
		case errors.Is(err, keyring.ErrNotFound):
			if err := s.kr.Set(s.service, name, v); err != nil {
				return err
			}
			if have, err = s.kr.Get(s.service, name); err != nil || have != v {
				return fmt.Errorf("config: secret %s not kept by the keyring", name)
			}
		case err != nil:
			return err
		}
	}
	return os.Remove(path)
}

// Where says where the secrets are kept, for Settings: where no keyring
// answers, NoKeyring's line.
func (s *Secrets) Where() string {
	if line := s.NoKeyring(); line != "" {
		return line
	}
	return "the system keyring"
}

// Place names where the secrets are kept, for a sentence that says so ("kept
// in …"): the system keyring, or the file where no keyring answers (whose
// warning, NoKeyring, every start shows).
func (s *Secrets) Place() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.useFile() {
		return "the system keyring"
	}
	return "the file " + filepath.Join(s.dir, SecretsFile) + ", readable by this user only"
}

// NoKeyring is the one line every start (the command line's standard error,
// the window's status bar) and Settings show where no system keyring answers:
// the secrets, the journal key that seals the customers' details among them,
// are then in SecretsFile, and the details are only as safe as that file. It
// is "" where a keyring answers.
func (s *Secrets) NoKeyring() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.useFile() {
		return ""
	}
	return "No system keyring answers: the secrets, and with them the key that seals the customers' details in the journal, are in the file " +
		filepath.Join(s.dir, SecretsFile) + " (readable by this user only), so they are only as safe as that file; docs/security.md says how to add a keyring."
}

// Get returns the secret name, "" when it was never set.
func (s *Secrets) Get(name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.useFile() {
		v, err := s.kr.Get(s.service, name)
		if errors.Is(err, keyring.ErrNotFound) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("config: secret %s: %w", name, err)
		}
		return v, nil
	}
	m, err := s.readFile()
	return m[name], err
}

// Set stores the secret name.
func (s *Secrets) Set(name, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.useFile() {
		if err := s.kr.Set(s.service, name, value); err != nil {
			return fmt.Errorf("config: keep secret %s in the keyring: %w", name, err)
		}
		return nil
	}
	m, err := s.readFile()
	if err != nil {
		return err
	}
	m[name] = value
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(s.dir, SecretsFile, b)
}

// Key returns the random key name (hex in the store), making n random bytes on
// first use: a key of this terminal kept outside the journal.
func (s *Secrets) Key(name string, n int) ([]byte, error) {
	v, err := s.Get(name)
	if err != nil {
		return nil, err
	}
	if b, err := hex.DecodeString(v); err == nil && len(b) >= n {
		return b, nil
	}
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	if err := s.Set(name, hex.EncodeToString(b)); err != nil {
		return nil, err
	}
	return b, nil
}

// ReceiptKeyFile is where builds before the keyring kept the key that signs
// the documents' QR codes (32 random bytes, mode 0600); QRKey moves it into
// the secrets and removes the file.
const ReceiptKeyFile = "receipt-qr.key"

// QRKey returns the terminal's key that signs the documents' QR codes,
// SecretQRKey: the key an older build kept in ReceiptKeyFile moved here (the
// file removed once the secrets give it back), or a new one made on first use.
func (s *Secrets) QRKey() ([]byte, error) {
	path := filepath.Join(s.dir, ReceiptKeyFile)
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s.Key(SecretQRKey, 32)
	case err != nil:
		return nil, fmt.Errorf("config: the QR key file %s: %w", path, err)
	}
	if v, err := s.Get(SecretQRKey); err != nil {
		return nil, err
	} else if v == "" && len(old) >= 32 {
		// The printed QR codes were signed with the file's key: it is kept.
		if err := s.Set(SecretQRKey, hex.EncodeToString(old)); err != nil {
			return nil, err
		}
	}
	key, err := s.Key(SecretQRKey, 32)
	if err != nil {
		return nil, err
	}
	if len(old) < 32 || bytes.Equal(key, old) {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("config: remove the QR key file %s once moved: %w", path, err)
		}
	}
	return key, nil
}

// StoreKey returns the terminal's private key at the store server, nil when
// none is kept.
func (s *Secrets) StoreKey() (ed25519.PrivateKey, error) {
	v, err := s.Get(SecretStoreKey)
	if err != nil || v == "" {
		return nil, err
	}
	seed, err := hex.DecodeString(v)
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("config: secret %s is not a key of %d bytes in hex: enrol the terminal again", SecretStoreKey, ed25519.SeedSize)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// SetStoreKey keeps key as the terminal's private key at the store server.
func (s *Secrets) SetStoreKey(key ed25519.PrivateKey) error {
	if len(key) != ed25519.PrivateKeySize {
		return fmt.Errorf("config: secret %s: not an Ed25519 private key", SecretStoreKey)
	}
	return s.Set(SecretStoreKey, hex.EncodeToString(key.Seed()))
}

// readFile reads the fallback file; absent is empty.
func (s *Secrets) readFile() (map[string]string, error) {
	m := map[string]string{}
	path := filepath.Join(s.dir, SecretsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the secrets file %s cannot be read (%v); check its permissions", path, err)
	}
	if err := checkPrivate(path); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("the secrets file %s is damaged (%v); set the payment service's credentials again in Settings", path, err)
	}
	return m, nil
}
