package irp_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/irp"
	"galla/gateway/irp/sandbox"
)

// clock is a time tests move.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// setup is a client of a fresh sandbox served in process, both on one clock.
func setup(t *testing.T) (*irp.Client, *sandbox.Sandbox, *clock) {
	t.Helper()
	clk := &clock{t: saleDay}
	sb := sandbox.New(clk.Now)
	c, err := irp.New("https://irp.sandbox.invalid", sandbox.Credentials(sellerGSTIN),
		irp.WithHTTPClient(&http.Client{Transport: sb.Transport()}), irp.WithPublicKey(sb.PublicKey()), irp.WithEncryptionKey(sb.EncryptionKey()), irp.WithClock(clk.Now))
	require.NoError(t, err)
	return c, sb, clk
}

func TestGenerateRegistersAndSignsTheQR(t *testing.T) {
	c, sb, _ := setup(t)
	inv := mustBuild(t, invoiceDoc())
	reg, err := c.Generate(t.Context(), inv)
	require.NoError(t, err)
	assert.Equal(t, irp.IRN(sellerGSTIN, "2026-27", "INV", "T1/2627/000123"), reg.Irn)
	assert.Equal(t, "ACT", reg.Status)
	assert.NotEmpty(t, reg.AckNo)
	ack, err := reg.AckTime()
	require.NoError(t, err)
	assert.True(t, ack.Equal(saleDay), "AckTime() = %v; want %v", ack, saleDay)

	q, err := irp.VerifyQR(reg.SignedQRCode, sb.PublicKey())
	require.NoError(t, err)
	assert.Equal(t, irp.QRData{SellerGstin: sellerGSTIN, BuyerGstin: localBuyer, DocNo: "T1/2627/000123", DocTyp: "INV",
		DocDt: "26/11/2026", TotInvVal: 24123_00, ItemCnt: 2, MainHsnCode: "851713", Irn: reg.Irn, IrnDt: reg.AckDt}, q)

	got, err := c.GetByDocument(t.Context(), "INV", "T1/2627/000123", saleDay)
	require.NoError(t, err)
	assert.Equal(t, reg, got)
}

func TestQRSignatureIsChecked(t *testing.T) {
	_, sb, _ := setup(t)
	other := sandbox.New(nil) // same published key: a forged payload must still fail
	tok, err := irp.SignJWT(sandbox.TestKey(), sandbox.KeyID, map[string]string{"data": `{"Irn":"x"}`})
	require.NoError(t, err)
	_, err = irp.VerifyQR(tok, other.PublicKey())
	require.NoError(t, err)
	tampered := tok[:len(tok)-4] + "AAAA"
	_, err = irp.VerifyQR(tampered, sb.PublicKey())
	assert.ErrorIs(t, err, irp.ErrSignature)
	parts := strings.Split(tok, ".")
	none := "eyJhbGciOiJub25lIn0." + parts[1] + "." // {"alg":"none"}, no signature
	_, err = irp.VerifyQR(none, sb.PublicKey())
	assert.ErrorIs(t, err, irp.ErrSignature)
}

// TestDuplicateFetchesTheIRN: a second generate of one document is refused as a
// duplicate (2150) naming the IRN; get by document details fetches it, signed QR
// and all.
func TestDuplicateFetchesTheIRN(t *testing.T) {
	c, sb, _ := setup(t)
	inv := mustBuild(t, invoiceDoc())
	first, err := c.Generate(t.Context(), inv)
	require.NoError(t, err)
	_, err = c.Generate(t.Context(), inv)
	require.ErrorIs(t, err, irp.ErrDuplicate)
	assert.True(t, irp.Definite(err))
	got, err := c.GetByDocument(t.Context(), "INV", inv.DocDtls.No, saleDay)
	require.NoError(t, err)
	assert.Equal(t, first, got)
	assert.Equal(t, 1, sb.Registered())
}

// TestLostAnswerIsInquired: the IRP registers the document and the answer is
// lost; the client reports an unknown outcome (not a refusal), and the inquiry by
// document details finds the registration.
func TestLostAnswerIsInquired(t *testing.T) {
	c, sb, _ := setup(t)
	require.NoError(t, c.Authenticate(t.Context()))
	sb.LoseAnswers(1)
	_, err := c.Generate(t.Context(), mustBuild(t, invoiceDoc()))
	unknownThenFound(t, c, sb, err)
	assert.Equal(t, 1, sb.Calls(irp.PathGenerate))
}

// unknownThenFound checks a generate whose answer was lost or unreadable
// (err): an unknown outcome, not a refusal, of a document the IRP did
// register once, which the inquiry by document details finds.
func unknownThenFound(t *testing.T, c *irp.Client, sb *sandbox.Sandbox, err error) {
	t.Helper()
	require.ErrorIs(t, err, irp.ErrUnknown)
	assert.False(t, irp.Definite(err))
	assert.Equal(t, 1, sb.Registered())
	reg, err := c.GetByDocument(t.Context(), "INV", "T1/2627/000123", saleDay)
	require.NoError(t, err)
	assert.True(t, hex64(reg.Irn))
}

func TestDownIsUnknownAndNotFoundIsDefinite(t *testing.T) {
	c, sb, _ := setup(t)
	sb.SetDown(true)
	_, err := c.Generate(t.Context(), mustBuild(t, invoiceDoc()))
	require.ErrorIs(t, err, irp.ErrUnknown)
	sb.SetDown(false)
	_, err = c.GetByDocument(t.Context(), "INV", "T1/2627/000123", saleDay)
	require.ErrorIs(t, err, irp.ErrNotFound)
	assert.True(t, irp.Definite(err))
}

func TestCancelWindow(t *testing.T) {
	for _, tc := range []struct {
		after time.Duration
		err   error
	}{
		{23*time.Hour + 59*time.Minute, nil},
		{24*time.Hour + time.Minute, irp.ErrCancelWindow},
	} {
		t.Run(tc.after.String(), func(t *testing.T) {
			c, _, clk := setup(t)
			reg, err := c.Generate(t.Context(), mustBuild(t, invoiceDoc()))
			require.NoError(t, err)
			clk.Add(tc.after)
			_, err = c.Cancel(t.Context(), reg.Irn, irp.CancelOrder, "sale voided")
			if tc.err != nil {
				assert.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			got, err := c.GetByDocument(t.Context(), "INV", "T1/2627/000123", saleDay)
			require.NoError(t, err)
			assert.Equal(t, "CNL", got.Status)
			_, err = c.Cancel(t.Context(), reg.Irn, irp.CancelOrder, "again")
			assert.ErrorIs(t, err, irp.ErrCancelled)
		})
	}
}

// TestSandboxValidations: the IRP's checks refuse, with their codes, what the
// schema alone lets through.
func TestSandboxValidations(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(inv *irp.Invoice)
		code string
	}{
		{"buyer GSTIN check digit", func(inv *irp.Invoice) { inv.BuyerDtls.Gstin = "27AAACR5055K1Z8" }, irp.CodeInvalidGSTIN},
		{"item total vs price × qty", func(inv *irp.Invoice) { inv.ItemList[0].TotAmt += 500 }, irp.CodeValueMismatch},
		{"item value vs its taxes", func(inv *irp.Invoice) { inv.ItemList[1].TotItemVal += 1000 }, irp.CodeValueMismatch},
		{"invoice total vs items", func(inv *irp.Invoice) { inv.ValDtls.AssVal -= 10000 }, irp.CodeValueMismatch},
		{"tax vs rate", func(inv *irp.Invoice) { inv.ItemList[0].GstRt = 28000 }, irp.CodeValueMismatch},
		{"seller not the taxpayer", func(inv *irp.Invoice) { inv.SellerDtls.Gstin = localBuyer }, "2160"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, sb, _ := setup(t)
			inv := mustBuild(t, invoiceDoc())
			tc.edit(&inv)
			_, err := c.Generate(t.Context(), inv)
			var e *irp.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tc.code, e.Code, e.Message)
			assert.Equal(t, 0, sb.Registered())
		})
	}
}

func TestTokenIsRenewed(t *testing.T) {
	c, sb, clk := setup(t)
	_, err := c.Generate(t.Context(), mustBuild(t, invoiceDoc()))
	require.NoError(t, err)
	clk.Add(7 * time.Hour) // past the token's 6 hours
	_, err = c.GetByDocument(t.Context(), "INV", "T1/2627/000123", saleDay)
	require.NoError(t, err)
	assert.Equal(t, 2, sb.Calls(irp.PathAuth))
}

// TestOverASocket serves the sandbox's handler over HTTP.
func TestOverASocket(t *testing.T) {
	sb := sandbox.New(nil)
	srv := httptest.NewServer(sb)
	t.Cleanup(srv.Close)
	c, err := irp.New(srv.URL, sandbox.Credentials(sellerGSTIN), irp.WithPublicKey(sb.PublicKey()), irp.WithEncryptionKey(sb.EncryptionKey()))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	d := invoiceDoc()
	d.Date = time.Now().In(irp.IST)
	reg, err := c.Generate(ctx, mustBuild(t, d))
	require.NoError(t, err)
	assert.True(t, hex64(reg.Irn))
	sb.SetDown(true)
	_, err = c.GetByDocument(ctx, "INV", d.Number, d.Date)
	assert.ErrorIs(t, err, irp.ErrUnknown)
}

// TestRevokedTokenIsRenewedOnce: the IRP refuses a token before its expiry
// (1005); the client authenticates again once and sends the generate again, a
// definite refusal having processed nothing. One document is registered.
func TestRevokedTokenIsRenewedOnce(t *testing.T) {
	c, sb, _ := setup(t)
	require.NoError(t, c.Authenticate(t.Context()))
	sb.ExpireTokens()
	reg, err := c.Generate(t.Context(), mustBuild(t, invoiceDoc()))
	require.NoError(t, err)
	assert.True(t, hex64(reg.Irn))
	assert.Equal(t, 2, sb.Calls(irp.PathAuth))
	assert.Equal(t, 2, sb.Calls(irp.PathGenerate), "the refused call and the one after the new token")
	assert.Equal(t, 1, sb.Registered())
}

// TestTokenRefusedAgainIsNotLooped: tokens that are expired when given; the
// client renews the token once, then gives up with the IRP's sentence.
func TestTokenRefusedAgainIsNotLooped(t *testing.T) {
	c, sb, _ := setup(t)
	sb.SetTokenLife(0)
	_, err := c.Generate(t.Context(), mustBuild(t, invoiceDoc()))
	require.ErrorIs(t, err, irp.ErrAuth)
	assert.True(t, irp.Definite(err))
	assert.Contains(t, err.Error(), "Invalid Token")
	assert.Equal(t, 2, sb.Calls(irp.PathAuth))
	assert.Equal(t, 2, sb.Calls(irp.PathGenerate))
	assert.Equal(t, 0, sb.Registered())
}

// TestWrongEncryptionKey: a client holding a public key that is not the IRP's
// encryption key (here the signing key's) is refused at authentication with
// a sentence naming the key; no generate is sent. A client without one is not
// made.
func TestWrongEncryptionKey(t *testing.T) {
	sb := sandbox.New(func() time.Time { return saleDay })
	c, err := irp.New("https://irp.sandbox.invalid", sandbox.Credentials(sellerGSTIN),
		irp.WithHTTPClient(&http.Client{Transport: sb.Transport()}), irp.WithEncryptionKey(sb.PublicKey()))
	require.NoError(t, err)
	_, err = c.Generate(t.Context(), mustBuild(t, invoiceDoc()))
	require.ErrorIs(t, err, irp.ErrEncryptionKey)
	assert.True(t, irp.Definite(err), "a definite refusal: nothing was registered")
	assert.Contains(t, err.Error(), "not encrypted with the IRP's public encryption key")
	assert.Equal(t, 0, sb.Calls(irp.PathGenerate))

	_, err = irp.New("https://irp.sandbox.invalid", sandbox.Credentials(sellerGSTIN))
	assert.ErrorContains(t, err, "no public encryption key")
}

// TestAnswerThatDoesNotDecryptIsInquired: the IRP registers the document and
// answers under a key that is not the session's, one whose padding the session
// key refuses or, as about one in 256 such answers, accepts, "decrypting" it
// into bytes that are not the answer. Either way the outcome is unknown (not
// a refusal), the session is ended, and the inquiry, on a new session, finds
// the registration. The generate is not sent again.
func TestAnswerThatDoesNotDecryptIsInquired(t *testing.T) {
	for _, tc := range []struct {
		name   string
		garble func(*sandbox.Sandbox, int)
	}{
		{"the padding refused", (*sandbox.Sandbox).GarbleAnswers},
		{"decrypted to garbage", (*sandbox.Sandbox).GarbleAnswersLegibly},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, sb, _ := setup(t)
			tc.garble(sb, 1)
			_, err := c.Generate(t.Context(), mustBuild(t, invoiceDoc()))
			unknownThenFound(t, c, sb, err)
			assert.Equal(t, 2, sb.Calls(irp.PathAuth), "a new session after the answer that did not decrypt")
			assert.Equal(t, 1, sb.Calls(irp.PathGenerate))
		})
	}
}

// TestEveryCallIsEncrypted: what goes over the wire between the client and the
// sandbox never holds the invoice, the credentials or the IRN in the clear.
func TestEveryCallIsEncrypted(t *testing.T) {
	clk := &clock{t: saleDay}
	sb := sandbox.New(clk.Now)
	var seen bytes.Buffer
	spy := roundTrip(func(req *http.Request) (*http.Response, error) {
		if req.Body != nil {
			b, _ := io.ReadAll(req.Body)
			seen.Write(b)
			req.Body = io.NopCloser(bytes.NewReader(b))
		}
		res, err := sb.Transport().RoundTrip(req)
		if err == nil {
			b, _ := io.ReadAll(res.Body)
			seen.Write(b)
			res.Body = io.NopCloser(bytes.NewReader(b))
		}
		return res, err
	})
	c, err := irp.New("https://irp.sandbox.invalid", sandbox.Credentials(sellerGSTIN),
		irp.WithHTTPClient(&http.Client{Transport: spy}), irp.WithPublicKey(sb.PublicKey()), irp.WithEncryptionKey(sb.EncryptionKey()), irp.WithClock(clk.Now))
	require.NoError(t, err)
	inv := mustBuild(t, invoiceDoc())
	reg, err := c.Generate(t.Context(), inv)
	require.NoError(t, err)
	_, err = c.GetByDocument(t.Context(), "INV", inv.DocDtls.No, saleDay)
	require.NoError(t, err)
	_, err = c.Cancel(t.Context(), reg.Irn, irp.CancelOrder, "sale voided")
	require.NoError(t, err)
	for _, clear := range []string{`"Password"`, `"AppKey"`, localBuyer, "Reliance Traders", reg.Irn, reg.AckNo, "sale voided", `"ItemList"`} {
		assert.NotContains(t, seen.String(), clear)
	}
	assert.Contains(t, seen.String(), `"Sek"`, "the authentication's answer is seen")
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestSessionKeyThatDoesNotDecrypt: the IRP answers a Sek that does not decrypt
// with the AppKey sent; the client says so (ErrSession, an unknown outcome for
// the document, which is then inquired), sends no generate, and the next call
// authenticates again and registers.
func TestSessionKeyThatDoesNotDecrypt(t *testing.T) {
	c, sb, _ := setup(t)
	sb.GarbleSessionKeys(1)
	_, err := c.Generate(t.Context(), mustBuild(t, invoiceDoc()))
	require.ErrorIs(t, err, irp.ErrSession)
	assert.False(t, irp.Definite(err))
	assert.Contains(t, err.Error(), "does not decrypt with the AppKey sent")
	assert.Equal(t, 0, sb.Calls(irp.PathGenerate))
	_, err = c.Generate(t.Context(), mustBuild(t, invoiceDoc()))
	require.NoError(t, err)
	assert.Equal(t, 2, sb.Calls(irp.PathAuth))
}
