package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// stateVersion is the format version of the state file.
const stateVersion = 1

// ErrStateFile matches the error New returns when the state file given with
// WithStateFile is damaged or cannot be read.
var ErrStateFile = errors.New("sandbox: state file unusable")

// WithStateFile makes the sandbox keep its state in the file at path: New loads
// it (a missing file means an empty sandbox), and every request that changes the
// state saves it atomically before its answer is written. The file holds orders,
// payments (the last four digits of a card and a salted hash, never the number or
// the CVV), blocked IMEIs and used refund ids; injected faults and rate-limit
// windows are not kept.
func WithStateFile(path string) Option { return func(c *config) { c.stateFile = path } }

// stateDoc is the state file: {"v":1,...}. Orders are in creation order.
type stateDoc struct {
	V            int           `json:"v"`
	Orders       []stateOrder  `json:"orders"`
	RefundTxnIDs []stateRefund `json:"refund_txn_ids"` // unique_txn_ids used, per merchant
	RefundIDs    []string      `json:"refund_ids"`     // refund ids handed out
}

type stateRefund struct {
	MerchantID  string `json:"merchant_id"`
	UniqueTxnID string `json:"unique_txn_id"`
}

type stateProduct struct {
	Code   string `json:"product_code"`
	Amount int64  `json:"product_amount"`
}

type stateOrder struct {
	MerchantID      string              `json:"merchant_id"`
	ID              string              `json:"service_order_id"`
	MerchantOrderID string              `json:"merchant_order_id"`
	Token           string              `json:"token"`
	Created         time.Time           `json:"created"`
	Amount          int64               `json:"amount"`
	Currency        string              `json:"currency"`
	Desc            string              `json:"order_desc,omitempty"`
	ReturnURL       string              `json:"return_url"`
	CountryCode     string              `json:"country_code,omitempty"`
	Mobile          string              `json:"mobile,omitempty"`
	Email           string              `json:"email,omitempty"`
	Products        []stateProduct      `json:"products,omitempty"`
	Payments        []statePayment      `json:"payments,omitempty"`
	Refunded        int64               `json:"refunded,omitempty"`
	Expired         bool                `json:"expired,omitempty"`
	IMEIOK          map[string][]string `json:"imei_validated,omitempty"` // product code -> IMEIs
	IMEIs           []string            `json:"imeis_blocked,omitempty"`
}

type statePayment struct {
	ID             string    `json:"payment_id"`
	Amount         int64     `json:"amount"`
	Mode           string    `json:"mode"`
	Status         string    `json:"status"`
	Stage          int       `json:"stage"`
	OutcomeKind    int       `json:"outcome"`
	OutcomeCode    int       `json:"outcome_code,omitempty"`
	OutcomeMessage string    `json:"outcome_message,omitempty"`
	Captured       bool      `json:"captured,omitempty"`
	Last4          string    `json:"last4,omitempty"`
	Holder         string    `json:"holder,omitempty"`
	Issuer         string    `json:"issuer,omitempty"`
	CardHash       string    `json:"salted_card_hash,omitempty"`
	Mobile         string    `json:"mobile,omitempty"`
	Created        time.Time `json:"created"`
	Completed      time.Time `json:"completed,omitzero"`
	CaptureAt      time.Time `json:"capture_at,omitzero"`
	Code           int       `json:"response_code"`
	Message        string    `json:"response_message,omitempty"`
	AuthCode       string    `json:"auth_code,omitempty"`
	RRN            string    `json:"rrn,omitempty"`
	Refunded       int64     `json:"refunded,omitempty"`
	Hosted         bool      `json:"hosted,omitempty"`
}

// snapshot encodes the state. The caller holds s.mu. The encoding is
// deterministic, so equal states give equal bytes.
func (s *Sandbox) snapshot() ([]byte, error) {
	doc := stateDoc{V: stateVersion, Orders: make([]stateOrder, 0, len(s.seq)),
		RefundTxnIDs: []stateRefund{}, RefundIDs: []string{}}
	for _, id := range s.seq {
		o := s.orders[id]
		so := stateOrder{MerchantID: o.m.ID, ID: o.id, MerchantOrderID: o.merchantOrderID, Token: o.token,
			Created: o.created, Amount: o.amount, Currency: o.currency, Desc: o.desc, ReturnURL: o.returnURL,
			CountryCode: o.cust.CountryCode, Mobile: o.cust.Mobile, Email: o.cust.Email,
			Refunded: o.refunded, Expired: o.expired, IMEIs: append([]string(nil), o.imeis...)}
		for _, p := range o.products {
			so.Products = append(so.Products, stateProduct(p))
		}
		for code, set := range o.imeiOK {
			if len(set) == 0 {
				continue
			}
			if so.IMEIOK == nil {
				so.IMEIOK = map[string][]string{}
			}
			so.IMEIOK[code] = sortedKeys(set)
		}
		for _, p := range o.payments {
			so.Payments = append(so.Payments, statePayment{ID: p.id, Amount: p.amount, Mode: p.mode, Status: p.status,
				Stage: p.stage, OutcomeKind: int(p.outcome.kind), OutcomeCode: p.outcome.code,
				OutcomeMessage: p.outcome.message, Captured: p.captured, Last4: p.last4, Holder: p.holder,
				Issuer: p.issuer, CardHash: p.hash, Mobile: p.mobile, Created: p.created, Completed: p.completed,
				CaptureAt: p.captureAt, Code: p.code, Message: p.message, AuthCode: p.authCode, RRN: p.rrn,
				Refunded: p.refunded, Hosted: p.hosted})
		}
		doc.Orders = append(doc.Orders, so)
	}
	for key := range s.refundIDs {
		m, txn, _ := strings.Cut(key, "\x00")
		doc.RefundTxnIDs = append(doc.RefundTxnIDs, stateRefund{MerchantID: m, UniqueTxnID: txn})
	}
	sort.Slice(doc.RefundTxnIDs, func(i, j int) bool {
		a, b := doc.RefundTxnIDs[i], doc.RefundTxnIDs[j]
		return a.MerchantID < b.MerchantID || a.MerchantID == b.MerchantID && a.UniqueTxnID < b.UniqueTxnID
	})
	doc.RefundIDs = append(doc.RefundIDs, sortedKeys(s.refundNos)...)
	return json.Marshal(doc)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// save writes the state file if the state changed since the last save. Saves are
// serialised by s.saveMu, and each one encodes the state after taking it, so the
// file never goes back to an older state: when save returns nil, the file holds
// every change made before it was called.
func (s *Sandbox) save() error {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	s.mu.Lock()
	b, err := s.snapshot()
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("sandbox: save state: %w", err)
	}
	if bytes.Equal(b, s.saved) {
		return nil
	}
	if err := writeAtomic(s.stateFile, b); err != nil {
		return fmt.Errorf("sandbox: save state: %w", err)
	}
	s.saved = b
	return nil
}

// writeAtomic replaces path with b: a temporary file in the same directory with
// mode 0600, synced, then renamed over path.
func writeAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*.tmp")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmp.Name())
		done = true
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		done = true
		return err
	}
	done = true
	if d, err := os.Open(dir); err == nil { // make the rename durable; not possible on every system
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// load reads the state file into the empty sandbox s. A missing file leaves it
// empty; an unreadable or damaged one is an ErrStateFile error and is left as it is.
func (s *Sandbox) load() error {
	path := s.stateFile
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &stateError{path: path, cause: err, unreadable: true}
	}
	if err := s.restore(b); err != nil {
		return &stateError{path: path, cause: err}
	}
	s.saved, err = s.snapshot()
	if err != nil {
		return &stateError{path: path, cause: err}
	}
	return nil
}

// stateError is the one-sentence error of an unusable state file.
type stateError struct {
	path       string
	cause      error
	unreadable bool
}

func (e *stateError) Error() string {
	what := "is damaged"
	if e.unreadable {
		what = "cannot be read"
	}
	return fmt.Sprintf("the sandbox's state file %s %s (%v); move it away to start the sandbox empty — the terminal's journal is not affected",
		e.path, what, e.cause)
}

func (e *stateError) Unwrap() []error { return []error{ErrStateFile, e.cause} }

// restore fills the empty sandbox s from the state file's bytes, checking that
// they make a consistent state.
func (s *Sandbox) restore(b []byte) error {
	var head struct {
		V *int `json:"v"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	if head.V == nil {
		return errors.New("no format version")
	}
	if *head.V != stateVersion {
		return fmt.Errorf("format version %d, this program reads version %d", *head.V, stateVersion)
	}
	var doc stateDoc
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&doc); err != nil {
		return err
	}
	if d.More() {
		return errors.New("data after the state")
	}
	stubs := map[string]*merchant{} // merchants this sandbox is not configured with
	merchantOf := func(id string) *merchant {
		if m := s.merchants[id]; m != nil {
			return m
		}
		if stubs[id] == nil {
			stubs[id] = &merchant{Merchant: Merchant{ID: id}}
		}
		return stubs[id]
	}
	for _, so := range doc.Orders {
		if !allDigits(so.ID) || so.Token == "" || !validOrderID(so.MerchantOrderID) || !allDigits(so.MerchantID) {
			return fmt.Errorf("order %q has a bad id, token or merchant", so.ID)
		}
		if s.orders[so.ID] != nil || s.byToken[so.Token] != nil {
			return fmt.Errorf("order %s appears twice", so.ID)
		}
		key := so.MerchantID + "\x00" + so.MerchantOrderID
		if s.orderIDs[key] {
			return fmt.Errorf("merchant order id %s appears twice", so.MerchantOrderID)
		}
		if so.Created.IsZero() || so.Amount < minAmount || so.Refunded < 0 {
			return fmt.Errorf("order %s has no creation time or a bad amount", so.ID)
		}
		o := &order{m: merchantOf(so.MerchantID), id: so.ID, merchantOrderID: so.MerchantOrderID, token: so.Token,
			created: so.Created, amount: so.Amount, currency: so.Currency, desc: so.Desc, returnURL: so.ReturnURL,
			cust:     customer{CountryCode: so.CountryCode, Mobile: so.Mobile, Email: so.Email},
			refunded: so.Refunded, expired: so.Expired, imeiOK: map[string]map[string]bool{}}
		for _, p := range so.Products {
			o.products = append(o.products, product(p))
		}
		for code, list := range so.IMEIOK {
			o.imeiOK[code] = map[string]bool{}
			for _, imei := range list {
				o.imeiOK[code][imei] = true
			}
		}
		for _, imei := range so.IMEIs {
			if s.imeis[imei] != "" {
				return fmt.Errorf("IMEI %s is blocked by two orders", imei)
			}
			s.imeis[imei] = o.id
			o.imeis = append(o.imeis, imei)
		}
		captured := 0
		for _, sp := range so.Payments {
			if !allDigits(sp.ID) || s.payments[sp.ID] != nil {
				return fmt.Errorf("payment %q of order %s has a bad or repeated id", sp.ID, so.ID)
			}
			if sp.Stage < stageAuth || sp.Stage > stageDone || sp.OutcomeKind < int(outcomeApprove) ||
				sp.OutcomeKind > int(outcomePendingHold) || sp.Amount < 0 || sp.Refunded < 0 || sp.Refunded > sp.Amount {
				return fmt.Errorf("payment %s has a bad stage, outcome or amount", sp.ID)
			}
			if sp.Captured {
				captured++
			}
			p := &payment{id: sp.ID, o: o, amount: sp.Amount, mode: sp.Mode, status: sp.Status, stage: sp.Stage,
				outcome:  cardOutcome{kind: outcomeKind(sp.OutcomeKind), code: sp.OutcomeCode, message: sp.OutcomeMessage},
				captured: sp.Captured, last4: sp.Last4, holder: sp.Holder, issuer: sp.Issuer, hash: sp.CardHash,
				mobile: sp.Mobile, created: sp.Created, completed: sp.Completed, captureAt: sp.CaptureAt,
				code: sp.Code, message: sp.Message, authCode: sp.AuthCode, rrn: sp.RRN, refunded: sp.Refunded, hosted: sp.Hosted}
			o.payments = append(o.payments, p)
			s.payments[p.id] = p
		}
		if captured > 1 {
			return fmt.Errorf("order %s has %d captured payments", so.ID, captured)
		}
		s.orders[o.id] = o
		s.byToken[o.token] = o
		s.orderIDs[key] = true
		s.seq = append(s.seq, o.id)
	}
	for _, r := range doc.RefundTxnIDs {
		if r.MerchantID == "" || r.UniqueTxnID == "" {
			return errors.New("a used refund id has no merchant or no id")
		}
		s.refundIDs[r.MerchantID+"\x00"+r.UniqueTxnID] = true
	}
	for _, id := range doc.RefundIDs {
		s.refundNos[id] = true
	}
	return nil
}
