package store

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"galla/store/api"
)

// Keys is the server's certificate and the CA's that the terminals pin, kept
// in server_keys so that every copy of the server presents the same one.
type Keys struct{ *dbCore }

// The rows of server_keys.
const (
	keyCA     = "ca"
	keyServer = "server"
)

// ErrNoCertificate reports a database without the server's certificate: run
// "galla store init".
var ErrNoCertificate = errors.New("store: the database holds no server certificate: run \"galla store init --db URL\" first")

// InitCertificate makes the store's CA and the server's certificate, signed by
// it for hosts (names or IP addresses; localhost and the loopback addresses are
// always added), unless the database holds them already. It returns the CA's
// fingerprint, the one terminals pin, and whether it made them now. The keys are
// kept in server_keys, so that every copy of the server presents the same
// certificate (docs/adr/0004-store-server.md).
func (ks *Keys) InitCertificate(ctx context.Context, hosts []string) (fingerprint string, created bool, err error) {
	if err := pgx.BeginFunc(ctx, ks.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "LOCK TABLE server_keys IN EXCLUSIVE MODE"); err != nil {
			return err
		}
		var caPEM string
		err := tx.QueryRow(ctx, "SELECT cert_pem FROM server_keys WHERE name = $1", keyCA).Scan(&caPEM)
		if err == nil {
			fingerprint, err = pemFingerprint(caPEM)
			return err
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		ca, srv, err := newCertificates(ks.now(), hosts)
		if err != nil {
			return err
		}
		for _, k := range []struct {
			name string
			kp   keyPair
		}{{keyCA, ca}, {keyServer, srv}} {
			if _, err := tx.Exec(ctx, "INSERT INTO server_keys (name, cert_pem, key_pem) VALUES ($1, $2, $3)", k.name, k.kp.certPEM, k.kp.keyPEM); err != nil {
				return err
			}
		}
		fingerprint, created = api.Fingerprint(ca.der), true
		return nil
	}); err != nil {
		return "", false, ks.wrap("certificate", err)
	}
	return fingerprint, created, nil
}

// TLSCertificate returns the server's certificate with the CA's after it (the
// chain a terminal checks against its pin) and the CA's fingerprint.
func (ks *Keys) TLSCertificate(ctx context.Context) (tls.Certificate, string, error) {
	rows, err := ks.pool.Query(ctx, "SELECT name, cert_pem, key_pem FROM server_keys WHERE name IN ($1, $2)", keyCA, keyServer)
	if err != nil {
		return tls.Certificate{}, "", ks.wrap("certificate", err)
	}
	pems := map[string][2]string{}
	for rows.Next() {
		var name, c, k string
		if err := rows.Scan(&name, &c, &k); err != nil {
			return tls.Certificate{}, "", ks.wrap("certificate", err)
		}
		pems[name] = [2]string{c, k}
	}
	if err := rows.Err(); err != nil {
		return tls.Certificate{}, "", ks.wrap("certificate", err)
	}
	ca, okCA := pems[keyCA]
	srv, okSrv := pems[keyServer]
	if !okCA || !okSrv {
		return tls.Certificate{}, "", ErrNoCertificate
	}
	cert, err := tls.X509KeyPair([]byte(srv[0]+ca[0]), []byte(srv[1]))
	if err != nil {
		return tls.Certificate{}, "", fmt.Errorf("store: certificate: %w", err)
	}
	fp, err := pemFingerprint(ca[0])
	if err != nil {
		return tls.Certificate{}, "", fmt.Errorf("store: certificate: %w", err)
	}
	return cert, fp, nil
}

// pemFingerprint is the Fingerprint of a PEM certificate.
func pemFingerprint(p string) (string, error) {
	b, _ := pem.Decode([]byte(p))
	if b == nil || b.Type != "CERTIFICATE" {
		return "", errors.New("the stored certificate is not PEM")
	}
	return api.Fingerprint(b.Bytes), nil
}

// keyPair is a certificate and its key, PEM-encoded.
type keyPair struct {
	der     []byte
	certPEM string
	keyPEM  string
}

// newCertificates makes a CA (20 years) and a server certificate signed by it
// (10 years) for hosts, both ECDSA P-256.
func newCertificates(now time.Time, hosts []string) (ca, srv keyPair, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return ca, srv, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "Galla store CA", Organization: []string{"Galla"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(20, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return ca, srv, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return ca, srv, err
	}
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return ca, srv, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "Galla store server", Organization: []string{"Galla"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(10, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	for _, h := range hosts {
		if h = strings.TrimSpace(h); h == "" || h == "localhost" {
			continue
		}
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		return ca, srv, err
	}
	if ca, err = encodePair(caDER, caKey); err != nil {
		return ca, srv, err
	}
	srv, err = encodePair(srvDER, srvKey)
	return ca, srv, err
}

func encodePair(der []byte, key *ecdsa.PrivateKey) (keyPair, error) {
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return keyPair{}, err
	}
	return keyPair{
		der:     der,
		certPEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		keyPEM:  string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})),
	}, nil
}

// serial is a random 128-bit serial number.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}
