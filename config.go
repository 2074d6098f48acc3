package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"galla/gateway"
	"galla/gateway/sandbox"
)

// configFile is the terminal's configuration in the data directory. It holds the live
// service's credentials, so it is written with mode 0600 and refused when others can
// read it (DESIGN.md section 5).
const configFile = "config.json"

// journalFile is the journal's file name in the data directory.
const journalFile = "journal.db"

// sandboxFile is the embedded sandbox's state in the data directory: its orders, so
// that a later run can inquire and refund them (no card data).
const sandboxFile = "sandbox.json"

// embeddedBaseURL is the address the client uses for the embedded sandbox. The
// requests never leave the process: the sandbox's Transport serves them.
const embeddedBaseURL = "http://sandbox.galla.local"

// config is what config.json holds.
type config struct {
	Terminal  string          `json:"terminal,omitempty"` // the terminal's name on receipts
	Gateway   gatewayConfig   `json:"gateway"`
	PhonePage phonePageConfig `json:"phone_page,omitzero"` // the page for pay on the customer's phone
}

// gatewayConfig selects and authenticates the payment service. An empty BaseURL means
// the embedded sandbox.
type gatewayConfig struct {
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
func (g gatewayConfig) String() string {
	if g.BaseURL == "" {
		return "embedded sandbox"
	}
	return fmt.Sprintf("live service at %s, merchant %s", g.BaseURL, g.MerchantID)
}

// loadConfig reads config.json from the data directory (absent is fine: the
// defaults), then applies the environment (GALLA_MERCHANT_ID, GALLA_ACCESS_CODE,
// GALLA_SECRET_KEY) and the --gateway flag.
func (c *cli) loadConfig() (config, error) {
	var cfg config
	path := filepath.Join(c.dataDir, configFile)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return cfg, fmt.Errorf("the configuration %s cannot be read (%v); check its permissions", path, err)
	default:
		if st, err := os.Stat(path); err == nil && runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
			return cfg, fmt.Errorf("the configuration %s can be read by other users of this computer; run \"chmod 600 %s\" and start again", path, path)
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			return cfg, fmt.Errorf("the configuration %s is not valid JSON (%v); correct it or remove it to use the embedded sandbox", path, err)
		}
	}
	if v := c.getenv("GALLA_MERCHANT_ID"); v != "" {
		cfg.Gateway.MerchantID = v
	}
	if v := c.getenv("GALLA_ACCESS_CODE"); v != "" {
		cfg.Gateway.AccessCode = v
	}
	if v := c.getenv("GALLA_SECRET_KEY"); v != "" {
		cfg.Gateway.Secret = v
	}
	if c.gatewayURL != "" {
		cfg.Gateway.BaseURL = c.gatewayURL
	}
	if cfg.Terminal == "" {
		cfg.Terminal = "T1"
	}
	return cfg, nil
}

// saveConfig writes config.json atomically with mode 0600.
func (c *cli) saveConfig(cfg config) error {
	if err := os.MkdirAll(c.dataDir, 0o700); err != nil {
		return fmt.Errorf("the data directory %s cannot be created: %w", c.dataDir, err)
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(c.dataDir, configFile)
	tmp, err := os.CreateTemp(c.dataDir, ".config-*.json")
	if err != nil {
		return fmt.Errorf("the configuration cannot be written to %s: %w", c.dataDir, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("the configuration cannot be written (is the disk full?): %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// paymentService is the gateway the terminal talks to, and the embedded sandbox when
// that is what it is.
type paymentService struct {
	client  *gateway.Client
	sandbox *sandbox.Sandbox // nil for the live service
}

// live reports whether the terminal talks to the live service.
func (p paymentService) live() bool { return p.sandbox == nil }

// openPaymentService builds the client: the embedded sandbox, keeping its state in
// dataDir, unless a base URL is configured, in which case the live credentials must
// all be present.
func openPaymentService(g gatewayConfig, dataDir string, opts ...sandbox.Option) (paymentService, error) {
	if g.BaseURL == "" {
		opts = append([]sandbox.Option{sandbox.WithStateFile(filepath.Join(dataDir, sandboxFile))}, opts...)
		sb, err := sandbox.New(opts...)
		if err != nil {
			return paymentService{}, fmt.Errorf("the embedded sandbox cannot start: %w", err)
		}
		cl, err := gateway.New(gateway.Config{
			BaseURL:    embeddedBaseURL,
			MerchantID: sandbox.DefaultMerchantID,
			AccessCode: sandbox.DefaultAccessCode,
			Secret:     sandbox.DefaultSecret,
			ReturnURL:  embeddedBaseURL + "/return",
			HTTPClient: &http.Client{Transport: sb.Transport()},
		})
		if err != nil {
			return paymentService{}, err
		}
		return paymentService{client: cl, sandbox: sb}, nil
	}
	var missing []string
	if g.MerchantID == "" {
		missing = append(missing, "merchant id (GALLA_MERCHANT_ID)")
	}
	if g.AccessCode == "" {
		missing = append(missing, "access code (GALLA_ACCESS_CODE)")
	}
	if g.Secret == "" {
		missing = append(missing, "secret key (GALLA_SECRET_KEY)")
	}
	if len(missing) > 0 {
		return paymentService{}, fmt.Errorf("the live service at %s needs the %s; set them in %s or the environment", g.BaseURL, strings.Join(missing, ", "), configFile)
	}
	cl, err := gateway.New(gateway.Config{
		BaseURL:    g.BaseURL,
		MerchantID: g.MerchantID,
		AccessCode: g.AccessCode,
		Secret:     g.Secret,
		ReturnURL:  strings.TrimRight(g.BaseURL, "/") + "/return",
	})
	if err != nil {
		if errors.Is(err, gateway.ErrSecret) {
			return paymentService{}, fmt.Errorf("the configured secret key is not valid: it must be hexadecimal text of at least 32 digits")
		}
		return paymentService{}, err
	}
	return paymentService{client: cl}, nil
}
