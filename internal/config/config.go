// Package config reads and writes the terminal's configuration file (config.json
// in the data directory) and applies the environment over it (DESIGN.md section 6:
// GALLA_MERCHANT_ID, GALLA_ACCESS_CODE, GALLA_SECRET_KEY).
//
// It implements pos.ServiceConfig and so imports pos; never ui or pos/journal.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"galla/pos"
)

// File is the terminal's configuration in the data directory. It holds the live
// service's credentials, so it is written with mode 0600 and refused when others can
// read it (DESIGN.md section 5).
const File = "config.json"

// JournalFile is the journal's file name in the data directory.
const JournalFile = "journal.db"

// SandboxFile is the embedded sandbox's state in the data directory: its orders, so
// that a later run can inquire and refund them (no card data).
const SandboxFile = "sandbox.json"

// IRPSandboxFile is the embedded IRP sandbox's state in the data directory: the
// documents it registered, so that a later run finds, refuses as duplicates and
// cancels them.
const IRPSandboxFile = "irp-sandbox.json"

// EmbeddedBaseURL is the address the client uses for the embedded sandbox. The
// requests never leave the process: the sandbox's Transport serves them.
const EmbeddedBaseURL = "http://sandbox.galla.local"

// Config is what config.json holds.
type Config struct {
	Terminal  string    `json:"terminal,omitempty"` // the terminal's name on receipts
	Gateway   Gateway   `json:"gateway"`
	PhonePage PhonePage `json:"phone_page,omitzero"` // the page for pay on the customer's phone

	// Store is the store server this terminal is enrolled at (galla enrol).
	Store StoreServer `json:"store,omitzero"`
}

// StoreServer is config.json's "store", written by galla enrol: the store
// server's address, the fingerprint of its certificate pinned at enrolment, and
// this terminal's id there. Its credential is the secret SecretStoreCredential.
type StoreServer struct {
	URL         string `json:"url,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	TerminalID  string `json:"terminal_id,omitempty"`
}

// Gateway selects and authenticates the payment service. An empty BaseURL means
// the embedded sandbox.
type Gateway struct {
	BaseURL    string `json:"base_url,omitempty"`
	MerchantID string `json:"merchant_id,omitempty"`
	AccessCode string `json:"access_code,omitempty"`
	Secret     string `json:"secret,omitempty"`
	// CheckoutScriptURL is the live service's browser checkout script
	// ({checkout_script_url} of the interface), which the page for the customer's
	// phone loads. The embedded sandbox serves its own.
	CheckoutScriptURL string `json:"checkout_script_url,omitempty"`
}

// String never shows the access code or the secret.
func (g Gateway) String() string {
	if g.BaseURL == "" {
		return "embedded sandbox"
	}
	return fmt.Sprintf("live service at %s, merchant %s", g.BaseURL, g.MerchantID)
}

// Load reads config.json from the data directory (absent is fine: the defaults)
// and the secrets from sec (nil: none are read), then applies the environment
// (GALLA_MERCHANT_ID, GALLA_ACCESS_CODE, GALLA_SECRET_KEY) and the --gateway
// flag. A secret found in an older config.json moves into sec, and the file is
// rewritten without it. What the environment gives is never written anywhere.
func Load(dataDir string, getenv func(string) string, gatewayURL string, sec *Secrets) (Config, error) {
	var cfg Config
	path := filepath.Join(dataDir, File)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return cfg, fmt.Errorf("the configuration %s cannot be read (%v); check its permissions", path, err)
	default:
		if err := checkPrivate(path); err != nil {
			return cfg, err
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			return cfg, fmt.Errorf("the configuration %s is not valid JSON (%v); correct it or remove it to use the embedded sandbox", path, err)
		}
	}
	if sec != nil {
		if err := moveSecrets(dataDir, &cfg, sec); err != nil {
			return cfg, err
		}
	}
	if v := getenv("GALLA_MERCHANT_ID"); v != "" {
		cfg.Gateway.MerchantID = v
	}
	if v := getenv("GALLA_ACCESS_CODE"); v != "" {
		cfg.Gateway.AccessCode = v
	}
	if v := getenv("GALLA_SECRET_KEY"); v != "" {
		cfg.Gateway.Secret = v
	}
	if gatewayURL != "" {
		cfg.Gateway.BaseURL = gatewayURL
	}
	if err := CheckBaseURL(cfg.Gateway.BaseURL); err != nil {
		return cfg, err
	}
	if cfg.Terminal == "" {
		cfg.Terminal = "T1"
	}
	return cfg, nil
}

// moveSecrets takes the secrets of cfg from sec; secrets that an older config.json
// held in plain text move into sec and out of the file.
func moveSecrets(dataDir string, cfg *Config, sec *Secrets) error {
	g := &cfg.Gateway
	if g.Secret != "" || g.AccessCode != "" {
		for name, v := range map[string]string{SecretMerchant: g.Secret, SecretAccessCode: g.AccessCode} {
			if v != "" {
				if err := sec.Set(name, v); err != nil {
					return err
				}
			}
		}
		if err := Save(dataDir, *cfg); err != nil { // Save writes no secret
			return err
		}
	}
	var err error
	if g.Secret, err = sec.Get(SecretMerchant); err != nil {
		return err
	}
	g.AccessCode, err = sec.Get(SecretAccessCode)
	return err
}

// Save writes config.json into dataDir atomically with mode 0600. It never writes
// a secret: those live in Secrets.
func Save(dataDir string, cfg Config) error {
	cfg.Gateway.Secret, cfg.Gateway.AccessCode = "", ""
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(dataDir, File, b)
}

// writeFile writes name in dir atomically (a synced temporary file renamed) with
// mode 0600.
func writeFile(dir, name string, b []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("the data directory %s cannot be created: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+name+"-*")
	if err != nil {
		return fmt.Errorf("%s cannot be written to %s: %w", name, dir, err)
	}
	defer os.Remove(tmp.Name())
	if err := makePrivate(tmp.Name()); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("%s cannot be written (is the disk full?): %w", name, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}

// PhonePage is config.json's "phone_page": where the page for the customer's
// phone listens.
type PhonePage struct {
	// Listen is host:port: 127.0.0.1:0 (the default) keeps the page on this
	// computer; 0.0.0.0:7071, or one of the computer's addresses, puts it on the
	// shop's network so that a phone on the shop's Wi-Fi can open it.
	Listen string `json:"listen,omitempty"`
}

// CheckBaseURL checks the live service's base URL: https:// with a host, or
// http:// to a loopback address (a service on this computer, for tests). Card data
// goes nowhere else (DESIGN.md section 5). "" (the embedded sandbox) passes.
func CheckBaseURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err == nil && u.Host != "" && u.User == nil {
		switch u.Scheme {
		case "https":
			return nil
		case "http":
			host := u.Hostname()
			if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || strings.EqualFold(host, "localhost") {
				return nil
			}
		}
	}
	return pos.Errorf("The payment service's address %q is refused: Galla sends card data only to an https:// address (http:// only to this computer, for tests). Correct it in Settings or config.json.", raw)
}

// Store is the configuration of one data directory as the running terminal holds
// it: it implements pos.ServiceConfig, writing config.json on each save. Its
// methods are safe for concurrent use.
type Store struct {
	dir string
	sec *Secrets

	mu  sync.Mutex
	cfg Config
}

// NewStore holds cfg, read from dataDir, with its secrets in sec.
func NewStore(dataDir string, cfg Config, sec *Secrets) *Store {
	return &Store{dir: dataDir, cfg: cfg, sec: sec}
}

// masked shows a secret as dots and its last two characters: the screen shows it
// so, and a value sent back unchanged keeps the secret (replace-only).
func masked(v string) string {
	if v == "" {
		return ""
	}
	if len(v) <= 4 {
		return "••••"
	}
	return "••••" + v[len(v)-2:]
}

// Config returns the configuration as it stands.
func (s *Store) Config() Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

// ServiceSettings returns the service settings for the settings screen, with
// where the secrets are kept; the secret itself is never returned, and the
// access code only masked.
func (s *Store) ServiceSettings() pos.ServiceSettings {
	where := s.SecretsWhere()
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.cfg.Gateway
	return pos.ServiceSettings{BaseURL: g.BaseURL, MerchantID: g.MerchantID, AccessCode: masked(g.AccessCode),
		SecretSet: g.Secret != "", PhoneListen: s.cfg.PhonePage.Listen, SecretsWhere: where}
}

// Check refuses service settings that SaveServiceSettings would refuse: a base
// URL that is not https:// (loopback aside). It stores nothing.
func (s *Store) Check(v pos.ServiceSettings) error { return CheckBaseURL(v.BaseURL) }

// SaveServiceSettings writes the service settings: the address, the merchant and
// the phone page into config.json, the access code and the secret into the
// secrets (an empty secret, or the access code sent back as shown, keeps the
// stored one; a value that came from the environment is never written). The
// gateway change takes effect at the next start.
func (s *Store) SaveServiceSettings(v pos.ServiceSettings) error {
	if err := s.Check(v); err != nil {
		return err
	}
	s.mu.Lock()
	cfg := s.cfg
	s.mu.Unlock()
	cfg.Gateway.BaseURL, cfg.Gateway.MerchantID = v.BaseURL, v.MerchantID
	cfg.PhonePage.Listen = v.PhoneListen
	if v.AccessCode != masked(cfg.Gateway.AccessCode) {
		cfg.Gateway.AccessCode = v.AccessCode
		if err := s.keep(SecretAccessCode, v.AccessCode); err != nil {
			return err
		}
	}
	if v.Secret != "" {
		cfg.Gateway.Secret = v.Secret
		if err := s.keep(SecretMerchant, v.Secret); err != nil {
			return err
		}
	}
	if err := Save(s.dir, cfg); err != nil {
		return err
	}
	s.mu.Lock()
	s.cfg = cfg
	s.mu.Unlock()
	return nil
}

// keep stores a secret the manager typed.
func (s *Store) keep(name, v string) error {
	if s.sec == nil {
		return fmt.Errorf("config: no place to keep the %s", name)
	}
	return s.sec.Set(name, v)
}

// SecretsWhere says where the secrets are kept, for Settings.
func (s *Store) SecretsWhere() string {
	if s.sec == nil {
		return "nowhere: only the environment gives them"
	}
	return s.sec.Where()
}
