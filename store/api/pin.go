package api

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"strings"
	"time"
)

// Fingerprint is the SHA-256 of a certificate's DER bytes in hex, the form a
// terminal pins: 64 lowercase hex digits.
func Fingerprint(der []byte) string {
	h := sha256.Sum256(der)
	return hex.EncodeToString(h[:])
}

// NormalizeFingerprint reads a fingerprint as people copy it (upper or lower
// case, with colons or spaces, "SHA256:" in front) and returns it as
// Fingerprint writes it.
func NormalizeFingerprint(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) > 7 && strings.EqualFold(s[:7], "sha256:") {
		s = s[7:]
	}
	s = strings.NewReplacer(":", "", " ", "", "-", "").Replace(strings.ToLower(s))
	if b, err := hex.DecodeString(s); err != nil || len(b) != 32 {
		return "", errors.New("the fingerprint must be 64 hex digits (the SHA-256 \"galla store init\" printed)")
	}
	return s, nil
}

// VerifyPinned checks a server's certificate chain against a pinned CA
// fingerprint: one certificate of the chain must be the pinned CA, and the
// first must be signed by it and valid at now. Host names are not checked: the
// pin names the store. It is the terminal's check, made in crypto/tls's VerifyPeerCertificate.
func VerifyPinned(rawCerts [][]byte, pin string, now time.Time) error {
	if len(rawCerts) == 0 {
		return errors.New("the server sent no certificate")
	}
	var ca *x509.Certificate
	for _, raw := range rawCerts {
		if Fingerprint(raw) == pin {
			c, err := x509.ParseCertificate(raw)
			if err != nil {
				return err
			}
			ca = c
		}
	}
	if ca == nil {
		return errors.New("the server's certificate is not the one pinned at enrolment (fingerprint differs)")
	}
	leaf, err := x509.ParseCertificate(rawCerts[0])
	if err != nil {
		return err
	}
	if leaf.IsCA {
		return errors.New("the server presented a CA certificate, not a server certificate")
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	_, err = leaf.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	return err
}
