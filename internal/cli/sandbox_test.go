package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/sandbox"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut,
		getenv: func(string) string { return "" }, dataDir: t.TempDir()}
	code := c.main(args)
	return code, out.String(), errOut.String()
}

func TestSandboxTestData(t *testing.T) {
	code, out, errOut := runCLI(t, "sandbox", "--test-data", "--listen", "127.0.0.1:7171")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "\n  \"merchant\": {", "indented JSON")
	var td sandbox.TestDataSet
	require.NoError(t, json.Unmarshal([]byte(out), &td))
	assert.Equal(t, sandbox.DefaultMerchantID, td.Merchant.ID)
	assert.Equal(t, sandbox.DefaultAccessCode, td.Merchant.AccessCode)
	assert.Equal(t, sandbox.DefaultSecret, td.Merchant.Secret)
	assert.Equal(t, "http://127.0.0.1:7171", td.BaseURL)
	assert.Equal(t, "123456", td.OTP)
	assert.Len(t, td.Cards, 10)
	assert.NotEmpty(t, td.ProductOffers)
	assert.Equal(t, sandbox.TestData().Brands, td.Brands)
}

func TestSandboxBadFlags(t *testing.T) {
	tests := [][]string{
		{"sandbox", "--bogus"},
		{"sandbox", "--listen"},
		{"sandbox", "--admin=maybe"},
		{"sandbox", "extra"},
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, args...)
			assert.Equal(t, exitBadInput, code)
			assert.Empty(t, out)
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			assert.Len(t, lines, 1, errOut)
			assert.True(t, strings.HasPrefix(lines[0], "galla: "), errOut)
			assert.Contains(t, lines[0], "usage: galla sandbox")
		})
	}
}
