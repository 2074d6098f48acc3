package sandbox

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"math/big"
	"sync"
)

// IDKind names the kind of identifier the sandbox asks an IDSource for.
type IDKind int

// The kinds of identifiers.
const (
	IDOrder    IDKind = iota // service order id: digits
	IDPayment                // payment id: digits
	IDToken                  // order token before URL encoding: base64 text
	IDRefund                 // refund id: digits
	IDAuthCode               // authorisation code: 6 digits
	IDRRN                    // retrieval reference number: 12 digits
)

// IDSource hands out the identifiers the sandbox assigns. The sandbox calls it
// with its own lock held; a source that may be shared must be safe for concurrent use.
type IDSource interface {
	// NewID returns a fresh identifier of the given kind.
	NewID(kind IDKind) string
}

// Sequential returns a deterministic IDSource for tests: service order ids
// 100000001, 100000002, ...; payment ids 200000001, ...; refund ids 300000001, ...;
// tokens "SBXTOKEN000001==" (so that URL encoding matters); auth codes 000001, ...;
// RRNs 000000000001, ....
func Sequential() IDSource { return &sequential{n: map[IDKind]int{}} }

type sequential struct {
	mu sync.Mutex
	n  map[IDKind]int
}

func (q *sequential) NewID(kind IDKind) string {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.n[kind]++
	n := q.n[kind]
	switch kind {
	case IDOrder:
		return fmt.Sprint(100000000 + n)
	case IDPayment:
		return fmt.Sprint(200000000 + n)
	case IDRefund:
		return fmt.Sprint(300000000 + n)
	case IDToken:
		return fmt.Sprintf("SBX+TOKEN/%06d==", n)
	case IDAuthCode:
		return fmt.Sprintf("%06d", n)
	default:
		return fmt.Sprintf("%012d", n)
	}
}

// randomIDs is the default source: random ids shaped like the real service's.
type randomIDs struct{}

func (randomIDs) NewID(kind IDKind) string {
	switch kind {
	case IDToken:
		b := make([]byte, 31) // 44 base64 characters ending in "="
		_, _ = rand.Read(b)
		return base64.StdEncoding.EncodeToString(b)
	case IDOrder:
		return randDigits(9, true)
	case IDPayment:
		return randDigits(10, true)
	case IDRefund:
		return randDigits(10, true)
	case IDAuthCode:
		return randDigits(6, false)
	default:
		return randDigits(12, false)
	}
}

// randDigits returns n random decimal digits; nonZero keeps the first digit 1-9.
func randDigits(n int, nonZero bool) string {
	b := make([]byte, n)
	for i := range b {
		lo := int64(0)
		if i == 0 && nonZero {
			lo = 1
		}
		v, err := rand.Int(rand.Reader, big.NewInt(10-lo))
		if err != nil {
			panic(err)
		}
		b[i] = byte('0' + lo + v.Int64())
	}
	return string(b)
}
