package irp

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// IRN is the Invoice Reference Number the IRP gives a document: the SHA-256, in
// 64 lowercase hex digits, of the seller's GSTIN, the financial year ("2026-27"),
// the document type and the document number, concatenated.
func IRN(gstin, fy, typ, no string) string {
	sum := sha256.Sum256([]byte(gstin + fy + typ + no))
	return hex.EncodeToString(sum[:])
}

// FinancialYear is the Indian financial year of t (1 April to 31 March), as the
// IRN takes it: "2026-27".
func FinancialYear(t time.Time) string {
	y := t.Year()
	if t.Month() < time.April {
		y--
	}
	return fmt.Sprintf("%d-%02d", y, (y+1)%100)
}

// QRData is the content of the IRP's signed QR code (the "data" claim of its JWT).
type QRData struct {
	SellerGstin string `json:"SellerGstin"`
	BuyerGstin  string `json:"BuyerGstin"`
	DocNo       string `json:"DocNo"`
	DocTyp      string `json:"DocTyp"`
	DocDt       string `json:"DocDt"`
	TotInvVal   Amount `json:"TotInvVal"`
	ItemCnt     int    `json:"ItemCnt"`
	MainHsnCode string `json:"MainHsnCode"`
	Irn         string `json:"Irn"`
	IrnDt       string `json:"IrnDt"`
}

// ErrSignature reports a signed QR code or invoice whose signature does not verify
// with the IRP's public key, or that is not a JWT signed with RS256.
var ErrSignature = errors.New("irp: the IRP's signature does not verify")

var b64 = base64.RawURLEncoding

// SignJWT signs claims as a compact JWT with RS256 (RSASSA-PKCS1-v1_5 with
// SHA-256), the algorithm of the IRP's signed invoice and QR code; kid names the
// key.
func SignJWT(key *rsa.PrivateKey, kid string, claims any) (string, error) {
	head, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT", "kid": kid})
	body, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("irp: sign: %w", err)
	}
	in := b64.EncodeToString(head) + "." + b64.EncodeToString(body)
	sum := sha256.Sum256([]byte(in))
	sig, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, sum[:])
	if err != nil {
		return "", fmt.Errorf("irp: sign: %w", err)
	}
	return in + "." + b64.EncodeToString(sig), nil
}

// VerifyJWT checks token's RS256 signature with pub and returns its claims. Any
// other algorithm ("none" included) is refused with ErrSignature.
func VerifyJWT(token string, pub *rsa.PublicKey) (json.RawMessage, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || pub == nil {
		return nil, ErrSignature
	}
	head, err := b64.DecodeString(parts[0])
	if err != nil {
		return nil, ErrSignature
	}
	var h struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(head, &h) != nil || h.Alg != "RS256" {
		return nil, ErrSignature
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil {
		return nil, ErrSignature
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig) != nil {
		return nil, ErrSignature
	}
	body, err := b64.DecodeString(parts[1])
	if err != nil {
		return nil, ErrSignature
	}
	return body, nil
}

// VerifyQR checks the IRP's signed QR code with its public key and returns what
// it says.
func VerifyQR(token string, pub *rsa.PublicKey) (QRData, error) {
	body, err := VerifyJWT(token, pub)
	if err != nil {
		return QRData{}, err
	}
	var c struct {
		Data string `json:"data"`
	}
	var q QRData
	if err := json.Unmarshal(body, &c); err != nil {
		return q, fmt.Errorf("irp: qr claims: %w", err)
	}
	if err := json.Unmarshal([]byte(c.Data), &q); err != nil {
		return q, fmt.Errorf("irp: qr data: %w", err)
	}
	return q, nil
}
