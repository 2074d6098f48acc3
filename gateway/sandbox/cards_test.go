package sandbox

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
)

// withLuhn completes digits with their Luhn check digit.
func withLuhn(digits string) string { return digits + luhnDigit(digits) }

func TestOnlyTestCardsAreTaken(t *testing.T) {
	// Luhn-valid numbers that are not test cards, one with an EMI issuer's prefix.
	unknown := []string{"4242424242424242", "5105105105105100", withLuhn("438628000000001"), withLuhn("37828224631001")}
	for _, n := range unknown {
		require.True(t, luhnValid(n), n)
	}
	for _, n := range unknown {
		t.Run(n[:6], func(t *testing.T) {
			f := setup(t)
			tok, id := f.create(5000000, product{"GENERIC-TV", 5000000})

			w := f.payRaw(tok, card(n))
			assert.Equal(t, 400, w.Code)
			assert.Equal(t, map[string]any{"response_code": float64(14845), "response_message": "Request Data is not valid"}, decode(t, w.Body.Bytes()))

			_, r, _ := f.calc(5000000, product{"GENERIC-TV", 5000000})
			body, err := json.Marshal(map[string]any{
				"merchant_data": map[string]any{"merchant_id": 770001}, "card_data": card(n),
				"customer_data": map[string]any{"country_code": "91", "mobile_number": "9876543210", "email_id": "a@b.in"},
				"emi_data":      tenureOf(t, r, "HDFC", 6), "acquirer_data": map[string]any{"acquirerId": 8004}})
			require.NoError(t, err)
			w = f.do("POST", "/api/v1/emi/process/payment?token="+tok, body, map[string]string{"checkoutmode": "SEAMLESS"})
			assert.Equal(t, 400, w.Code)
			assert.Equal(t, float64(14845), decode(t, w.Body.Bytes())["response_code"])

			raw, err := url.QueryUnescape(tok)
			require.NoError(t, err)
			body, err = json.Marshal(map[string]any{"orderToken": raw, "mode": "CREDIT_DEBIT", "card": card(n)})
			require.NoError(t, err)
			w = f.do("POST", "/checkout/v1/api/pay", body, nil)
			assert.Equal(t, 400, w.Code)
			assert.Equal(t, float64(14845), decode(t, w.Body.Bytes())["response_code"])

			assert.Empty(t, f.ledger(id).Payments, "no payment was recorded")
		})
	}
	t.Run("every test card is taken", func(t *testing.T) {
		f := setup(t)
		for _, c := range TestData().Cards {
			tok, _ := f.create(1000)
			f.pay(tok, c.Number)
		}
	})
}

// recoverCards is the attack of issue 12.2 on the state files in dir: it looks for
// the digits of a card, and for any hash of a card number in the test card space
// (with or without the published default secret, raw or decoded, plain SHA-256
// or HMAC, hex or base64). It returns what it recovered.
func recoverCards(t *testing.T, dir string) []string {
	t.Helper()
	var all strings.Builder
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		all.Write(b)
	}
	state := strings.ToLower(all.String())
	key, err := gateway.DecodeSecret(DefaultSecret)
	require.NoError(t, err)
	var found []string
	for _, c := range TestData().Cards {
		n := c.Number
		if strings.Contains(state, n) || strings.Contains(state, n[:len(n)-4]) {
			found = append(found, n+" (digits)")
		}
		var sums [][]byte
		for _, salt := range [][]byte{nil, []byte(DefaultSecret), []byte(strings.ToLower(DefaultSecret)), key} {
			h := sha256.New()
			h.Write(salt)
			h.Write([]byte(n))
			sums = append(sums, h.Sum(nil))
			m := hmac.New(sha256.New, salt)
			m.Write([]byte(n))
			sums = append(sums, m.Sum(nil))
		}
		for _, s := range sums {
			if strings.Contains(state, hex.EncodeToString(s)) || strings.Contains(all.String(), base64.StdEncoding.EncodeToString(s)) {
				found = append(found, n+" (hash)")
			}
		}
	}
	// Any other long hex or base64 value could be a hash keyed some other way.
	for _, m := range regexp.MustCompile(`[0-9a-f]{32,}|[A-Za-z0-9+/]{40,}={0,2}`).FindAllString(all.String(), -1) {
		found = append(found, "a hash-like value "+m)
	}
	return found
}

func TestStateFileYieldsNoCardNumber(t *testing.T) {
	// The attack works on a state file written before issue 12.2: the test can fail.
	old := t.TempDir()
	b, err := os.ReadFile(filepath.Join("testdata", "sandbox-v1.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(old, "sandbox.json"), b, 0o600))
	assert.Contains(t, recoverCards(t, old), "4111111111111111 (hash)", "the attack on the old format")

	dir := t.TempDir()
	f := setup(t, WithStateFile(filepath.Join(dir, "sandbox.json")))
	closeSandbox(t, f.sb)
	for _, c := range TestData().Cards {
		tok, id := f.create(1000)
		pid := f.pay(tok, c.Number)
		f.acs(pid, map[string][]string{"otp": {TestOTP}})
		assert.Equal(t, "NA", f.inquire(id, "").PaymentInfoData.SaltedCardHash, "no card-derived value is answered either")
	}
	require.Len(t, f.sb.Controls.Ledger(), len(TestData().Cards))
	assert.Empty(t, recoverCards(t, dir), "recovered from the state file")

	// Also after a migration and a compaction.
	require.NoError(t, f.sb.Close())
	g, err := New(WithStateFile(filepath.Join(old, "sandbox.json")))
	require.NoError(t, err)
	require.NoError(t, g.Close())
	assert.Empty(t, recoverCards(t, old), "recovered from the migrated state file")
}
