package receipts

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// qrPrefix opens every receipt QR text and names its format's version.
const qrPrefix = "GALLA1"

// ErrForgedQR is returned by ParseQR for a QR text that is not in Galla's format or
// whose signature does not match the terminal's key: the receipt was not printed by
// this terminal, or was altered.
var ErrForgedQR = errors.New("receipts: qr: not signed by this terminal")

// QRPayload is what a receipt's QR code carries: enough to pull the order up at the
// counter. Amount is in paise.
type QRPayload struct {
	MerchantOrderID string
	ServiceOrderID  string
	PaymentID       string
	Amount          int64
}

// MinQRKeyLen is the shortest QR signing key accepted (the terminal makes 32
// random bytes).
const MinQRKeyLen = 16

// SignQR returns the compact QR text of p signed with the terminal's key:
// "GALLA1|moid|soid|pid|amount|sig", where sig is the unpadded base64url HMAC-SHA256
// of everything before the last "|". A "|" or "%" inside an id is written as %7C or
// %25, so any id round-trips through ParseQR.
//
// A key shorter than MinQRKeyLen signs nothing: SignQR returns "" and the document
// prints no QR code (a QR signed with an empty key proves nothing).
func SignQR(key []byte, p QRPayload) string {
	if len(key) < MinQRKeyLen {
		return ""
	}
	body := strings.Join([]string{
		qrPrefix,
		qrEscape(p.MerchantOrderID),
		qrEscape(p.ServiceOrderID),
		qrEscape(p.PaymentID),
		strconv.FormatInt(p.Amount, 10),
	}, "|")
	return body + "|" + qrSig(key, body)
}

// ParseQR checks the signature of a scanned QR text with the terminal's key and
// returns its payload. Anything malformed or wrongly signed is ErrForgedQR.
func ParseQR(key []byte, text string) (QRPayload, error) {
	if len(key) < MinQRKeyLen {
		return QRPayload{}, fmt.Errorf("%w: the terminal has no QR key", ErrForgedQR)
	}
	text = strings.TrimSpace(text)
	i := strings.LastIndexByte(text, '|')
	if i < 0 {
		return QRPayload{}, ErrForgedQR
	}
	body, sig := text[:i], text[i+1:]
	want := qrSig(key, body)
	if !hmac.Equal([]byte(sig), []byte(want)) {
		return QRPayload{}, ErrForgedQR
	}
	f := strings.Split(body, "|")
	if len(f) != 5 || f[0] != qrPrefix {
		return QRPayload{}, fmt.Errorf("%w: %d fields", ErrForgedQR, len(f))
	}
	amount, err := strconv.ParseInt(f[4], 10, 64)
	if err != nil {
		return QRPayload{}, fmt.Errorf("%w: amount", ErrForgedQR)
	}
	var p QRPayload
	for dst, src := range map[*string]string{&p.MerchantOrderID: f[1], &p.ServiceOrderID: f[2], &p.PaymentID: f[3]} {
		if *dst, err = qrUnescape(src); err != nil {
			return QRPayload{}, fmt.Errorf("%w: %w", ErrForgedQR, err)
		}
	}
	p.Amount = amount
	return p, nil
}

// VerifyQR is ParseQR under the name ADR 0001 gives it.
func VerifyQR(key []byte, text string) (QRPayload, error) { return ParseQR(key, text) }

func qrSig(key []byte, body string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func qrEscape(s string) string {
	if !strings.ContainsAny(s, "|%") {
		return s
	}
	return strings.NewReplacer("%", "%25", "|", "%7C").Replace(s)
}

func qrUnescape(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		switch {
		case strings.HasPrefix(s[i:], "%25"):
			b.WriteByte('%')
		case strings.HasPrefix(s[i:], "%7C"):
			b.WriteByte('|')
		default:
			return "", errors.New("bad escape")
		}
		i += 2
	}
	return b.String(), nil
}
