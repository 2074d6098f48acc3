package irp

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"fmt"
)

// The NIC e-invoice API encrypts its payloads (docs/irp-contract.md,
// "Encryption"):
//
//   - authentication sends its JSON, base64-encoded, encrypted with the IRP's
//     RSA public key (RSAES-PKCS1-v1_5), base64; the JSON carries a random
//     32-byte AppKey, and the IRP answers a session key (Sek) encrypted under it;
//   - every later request's Data is its JSON encrypted with the session key, and
//     so is the Data of every answer: AES-256 in ECB mode, PKCS#7 padding, base64.
//
// ECB is what the API prescribes; it is written here as a loop over the block
// cipher, since the standard library offers no ECB mode.

// KeySize is the size of the AppKey and of the session key (AES-256).
const KeySize = 32

// Errors of the payload encryption, matched with errors.Is.
var (
	// ErrKeySize is an AES key that is not 32 bytes.
	ErrKeySize = errors.New("irp: an AES-256 key is 32 bytes")
	// ErrPadding is a ciphertext that is not whole blocks or whose PKCS#7
	// padding is wrong: it was encrypted with another key, or damaged.
	ErrPadding = errors.New("irp: bad padding: the data was not encrypted with this key")
	// ErrNotEncrypted is a Data that is not a base64 string.
	ErrNotEncrypted = errors.New("irp: the data is not base64 ciphertext")
)

// EncryptECB encrypts plain with the AES-256 key in ECB mode with PKCS#7
// padding (always at least one byte of padding, a whole block when plain is
// whole blocks).
func EncryptECB(key, plain []byte) ([]byte, error) {
	b, err := block(key)
	if err != nil {
		return nil, err
	}
	n := aes.BlockSize - len(plain)%aes.BlockSize
	out := make([]byte, len(plain)+n)
	copy(out, plain)
	for i := len(plain); i < len(out); i++ {
		out[i] = byte(n)
	}
	for i := 0; i < len(out); i += aes.BlockSize {
		b.Encrypt(out[i:i+aes.BlockSize], out[i:i+aes.BlockSize])
	}
	return out, nil
}

// DecryptECB decrypts ct with the AES-256 key in ECB mode and removes its
// PKCS#7 padding; ErrPadding when ct is not whole blocks or its padding is
// wrong (another key).
func DecryptECB(key, ct []byte) ([]byte, error) {
	b, err := block(key)
	if err != nil {
		return nil, err
	}
	if len(ct) == 0 || len(ct)%aes.BlockSize != 0 {
		return nil, fmt.Errorf("%w (%d bytes are not whole 16-byte blocks)", ErrPadding, len(ct))
	}
	out := make([]byte, len(ct))
	for i := 0; i < len(ct); i += aes.BlockSize {
		b.Decrypt(out[i:i+aes.BlockSize], ct[i:i+aes.BlockSize])
	}
	n := int(out[len(out)-1])
	if n == 0 || n > aes.BlockSize {
		return nil, ErrPadding
	}
	for _, p := range out[len(out)-n:] {
		if int(p) != n {
			return nil, ErrPadding
		}
	}
	return out[:len(out)-n], nil
}

func block(key []byte) (cipher.Block, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("%w, not %d", ErrKeySize, len(key))
	}
	return aes.NewCipher(key)
}

// Seal is plain encrypted with key (EncryptECB), base64: the Data of a request
// or an answer.
func Seal(key, plain []byte) (string, error) {
	ct, err := EncryptECB(key, plain)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(ct), nil
}

// Open is the plain text of data (base64 ciphertext, Seal) under key.
func Open(key []byte, data string) ([]byte, error) {
	ct, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNotEncrypted, err)
	}
	return DecryptECB(key, ct)
}

// EncryptAuth is the Data of an authentication request: payload (its JSON)
// base64-encoded, encrypted with the IRP's public key pub (RSAES-PKCS1-v1_5),
// base64. The JSON must be short enough for the key (245 bytes of base64 for
// a 2048-bit key).
func EncryptAuth(pub *rsa.PublicKey, payload []byte) (string, error) {
	if pub == nil {
		return "", errors.New("irp: no public key of the IRP to encrypt the credentials with")
	}
	msg := []byte(base64.StdEncoding.EncodeToString(payload))
	if max := pub.Size() - 11; len(msg) > max {
		return "", fmt.Errorf("irp: the credentials are too long to encrypt with the IRP's %d-bit key (%d bytes, at most %d)", pub.Size()*8, len(msg), max)
	}
	//lint:ignore SA1019 the NIC API prescribes RSAES-PKCS1-v1_5 ("RSA/ECB/PKCS1Padding") for authentication
	ct, err := rsa.EncryptPKCS1v15(rand.Reader, pub, msg)
	if err != nil {
		return "", fmt.Errorf("irp: encrypt the credentials with the IRP's key: %w", err)
	}
	return base64.StdEncoding.EncodeToString(ct), nil
}

// DecryptAuth is the JSON of an authentication request's Data, decrypted with
// the IRP's private key (the inverse of EncryptAuth). It is the sandbox's: an
// RSAES-PKCS1-v1_5 decryption that says whether it failed is a padding oracle,
// harmless for a key that is published anyway.
func DecryptAuth(priv *rsa.PrivateKey, data string) ([]byte, error) {
	ct, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNotEncrypted, err)
	}
	//lint:ignore SA1019 the NIC API prescribes RSAES-PKCS1-v1_5; only the sandbox decrypts, with a published key
	msg, err := rsa.DecryptPKCS1v15(nil, priv, ct)
	if err != nil {
		return nil, fmt.Errorf("irp: the data does not decrypt with the IRP's key: %w", err)
	}
	payload, err := base64.StdEncoding.DecodeString(string(msg))
	if err != nil {
		return nil, fmt.Errorf("irp: the decrypted data is not base64 JSON: %w", err)
	}
	return payload, nil
}

// NewKey is a random 32-byte key: an AppKey, or the IRP's session key.
func NewKey() ([]byte, error) {
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("irp: random key: %w", err)
	}
	return k, nil
}
