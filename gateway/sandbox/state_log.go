package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"galla/internal/atomicfile"
)

// The state file is a log, one JSON value per line (format version 3):
//
//	{"v":3,"archive":[...]}                                   the header, written with the file; the
//	                                                          archive's segments (archive.go), if any
//	{"order":{...}}                                           an order's whole state; a later line for the
//	                                                          same service_order_id replaces the earlier one
//	{"refund_txn":{"merchant_id":"...","unique_txn_id":"..."}} a unique_txn_id used by a refund
//	{"refund_id":"..."}                                       a refund id handed out
//
// A request that changes the state appends the lines of what it changed (its
// orders, rewritten whole, and its refund ids) and syncs them before its answer is
// written, so a save costs the size of one order, not of the whole state. New
// replays the log and rewrites it compacted, through a temporary file renamed over
// it, when it has grown to more than twice the live state. A last line cut off by
// a crash in the middle of an append is dropped: its request never answered.
//
// New moves the orders that are old and final out of the log into the archive
// (archive.go), so that the log it replays holds the recent and unfinished orders
// only: when it compacts, and when they take a quarter of compactMin (256 KiB,
// some 350 orders, a few milliseconds of replay) of the log.
//
// Version 1 was the whole state as one JSON document, rewritten on every change;
// version 2 was this log without an archive. New reads both and rewrites them at
// once in version 3.
const (
	legacyVersion = 1
	logVersion2   = 2
	stateVersion  = 3
)

// compactMinBytes is the least garbage (bytes of replaced lines) worth a
// compaction at New.
const compactMinBytes = 1 << 20

// ErrStateFile matches the error New returns when the state file given with
// WithStateFile is damaged or cannot be read.
var ErrStateFile = errors.New("sandbox: state file unusable")

// WithStateFile makes the sandbox keep its state in the file at path: New loads
// it (a missing file means an empty sandbox), and every request that changes the
// state appends what it changed to the file and syncs it before its answer is
// written. The file holds orders, payments (the last four digits of a
// card, never the number, the CVV or anything else derived from them), blocked
// IMEIs and used refund ids; injected faults and rate-limit windows are not kept.
// Close releases the file.
func WithStateFile(path string) Option { return func(c *config) { c.stateFile = path } }

// withCompactMin sets the least garbage worth a compaction, and so the least
// bytes of archivable orders worth archiving, a quarter of it (tests use small
// ones).
func withCompactMin(n int64) Option { return func(c *config) { c.compactMin = n } }

// stateDoc is the whole state: the version 1 file, and what a log
// replays to (with the list of its archive). Orders are in the log's order.
type stateDoc struct {
	V            int           `json:"v"`
	Archive      []*segment    `json:"-"` // a version 3 log's archive
	Orders       []stateOrder  `json:"orders"`
	RefundTxnIDs []stateRefund `json:"refund_txn_ids"` // unique_txn_ids used, per merchant
	RefundIDs    []string      `json:"refund_ids"`     // refund ids handed out
}

// stateRecord is one line of a version 2 log after the header; exactly one field
// is set.
type stateRecord struct {
	Order     *stateOrder  `json:"order,omitempty"`
	RefundTxn *stateRefund `json:"refund_txn,omitempty"`
	RefundID  string       `json:"refund_id,omitempty"`
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
	LegacyHash     string    `json:"salted_card_hash,omitempty"` // read from version 1 files and dropped; never written
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

// stateOf encodes an order as its state-file form.
func stateOf(o *order) stateOrder {
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
			Issuer: p.issuer, Mobile: p.mobile, Created: p.created, Completed: p.completed,
			CaptureAt: p.captureAt, Code: p.code, Message: p.message, AuthCode: p.authCode, RRN: p.rrn,
			Refunded: p.refunded, Hosted: p.hosted})
	}
	return so
}

// line encodes one record as a log line, newline included. The encoding is
// deterministic, so equal states give equal bytes.
func line(r stateRecord) []byte {
	b, err := json.Marshal(r)
	if err != nil { // only plain strings, numbers and times: cannot happen
		panic(fmt.Sprintf("sandbox: encode state record: %v", err))
	}
	return append(b, '\n')
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// stateLog is the sandbox's persistence: the state file (sandbox.json in the
// terminal's data directory) as the log described above. It notes what each
// request changes (touch, noteRefundTxn, noteRefundID) under the core's mu, and
// save appends it and syncs it before the answer is written; load replays the
// file into the empty core at New. With an empty path nothing is saved: the
// refund ids are only noted in the core.
type stateLog struct {
	*core
	path     string               // "" keeps the state in memory only
	segments []*segment           // the archive, oldest first, under mu
	stubs    map[string]*merchant // merchants of kept orders this sandbox is not configured with, under mu
	// bytesRead counts the bytes read from the state file and the archive.
	bytesRead atomic.Int64
	dirty     []*order      // orders touched since the last save, under mu
	unsaved   []stateRecord // refund ids not saved yet, under mu

	saveMu     sync.Mutex // serialises saves; taken before mu
	log        *os.File   // the state file open for appending, or nil; under saveMu
	logSize    int64      // its length after the last whole append, under saveMu
	logExists  bool       // the state file has been written, under saveMu
	broken     error      // a failed append that could not be undone, under saveMu
	compactMin int64
}

// touch marks o for the next save: every order a request reaches is settled
// first, and settle touches it, so the save looks at the orders of that request
// only. The caller holds sl.mu.
func (sl *stateLog) touch(o *order) {
	if sl.path == "" || o.dirty {
		return
	}
	o.dirty = true
	sl.dirty = append(sl.dirty, o)
}

// noteRefundTxn records a used unique_txn_id for the next save. The caller holds sl.mu.
func (sl *stateLog) noteRefundTxn(merchantID, txn string) {
	sl.refundIDs[merchantID+"\x00"+txn] = true
	if sl.path != "" {
		sl.unsaved = append(sl.unsaved, stateRecord{RefundTxn: &stateRefund{MerchantID: merchantID, UniqueTxnID: txn}})
	}
}

// noteRefundID records a refund id handed out for the next save. The caller holds sl.mu.
func (sl *stateLog) noteRefundID(id string) {
	sl.refundNos[id] = true
	if sl.path != "" {
		sl.unsaved = append(sl.unsaved, stateRecord{RefundID: id})
	}
}

// batch is what one save appends: the lines, and what to mark saved once they
// are on disk (or unsaved again when they could not be written).
type batch struct {
	buf     []byte
	orders  []*order
	sums    [][sha256.Size]byte
	records []stateRecord
}

// collect takes the changes since the last save: each touched order whose
// encoding differs from the one last written, and the new refund ids. The caller
// holds sl.mu.
func (sl *stateLog) collect() *batch {
	bt := &batch{}
	for _, o := range sl.dirty {
		o.dirty = false
		so := stateOf(o)
		l := line(stateRecord{Order: &so})
		sum := sha256.Sum256(l)
		if sum == o.savedSum {
			continue
		}
		bt.buf = append(bt.buf, l...)
		bt.orders = append(bt.orders, o)
		bt.sums = append(bt.sums, sum)
	}
	sl.dirty = sl.dirty[:0]
	for _, r := range sl.unsaved {
		bt.buf = append(bt.buf, line(r)...)
	}
	bt.records, sl.unsaved = sl.unsaved, nil
	return bt
}

// done marks a batch saved, or, when err is not nil, unsaved again so that the
// next save retries it. The caller holds sl.mu.
func (sl *stateLog) done(bt *batch, err error) {
	if err == nil {
		for i, o := range bt.orders {
			o.savedSum = bt.sums[i]
			if o.archived { // changed: the log holds it again
				o.archived = false
				sl.seq = append(sl.seq, o.id)
			}
		}
		return
	}
	for _, o := range bt.orders {
		sl.touch(o)
	}
	sl.unsaved = append(bt.records, sl.unsaved...)
}

// save appends the changes made since the last save to the state file and syncs
// it. Saves are serialised by sl.saveMu; a save that finds nothing to write
// returns at once, because the save before it (which it waited for) wrote its
// changes. So when save returns nil, the file holds every change made before it
// was called, and concurrent requests share one append and one sync.
func (sl *stateLog) save() error {
	sl.saveMu.Lock()
	defer sl.saveMu.Unlock()
	sl.mu.Lock()
	bt := sl.collect()
	sl.mu.Unlock()
	if len(bt.buf) == 0 {
		return nil
	}
	err := sl.appendLog(bt.buf)
	sl.mu.Lock()
	sl.done(bt, err)
	sl.mu.Unlock()
	if err != nil {
		return fmt.Errorf("sandbox: save state: %w", err)
	}
	return nil
}

// logHeader is the first line of a version 3 log.
type logHeader struct {
	V       int        `json:"v"`
	Archive []*segment `json:"archive,omitempty"`
}

// header is the first line of the log: the version and the archive's segments.
// The caller holds sl.mu or is New.
func (sl *stateLog) header() []byte {
	b, err := json.Marshal(logHeader{V: stateVersion, Archive: sl.segments})
	if err != nil { // only plain strings and numbers: cannot happen
		panic(fmt.Sprintf("sandbox: encode state header: %v", err))
	}
	return append(b, '\n')
}

// sumOf is what a save compares an order's line with.
func sumOf(l []byte) [sha256.Size]byte { return sha256.Sum256(l) }

// appendLog appends b to the state file and syncs it. The first save creates the
// file whole (header and b) through a renamed temporary file, so the file never
// exists without its header. A failed append is cut off again, so that the next
// one does not follow half a line. The caller holds sl.saveMu.
func (sl *stateLog) appendLog(b []byte) error {
	if sl.broken != nil {
		return sl.broken
	}
	if !sl.logExists {
		sl.mu.Lock()
		full := append(sl.header(), b...)
		sl.mu.Unlock()
		if err := atomicfile.Write(sl.path, full); err != nil {
			return err
		}
		sl.logExists, sl.logSize = true, int64(len(full))
		return nil
	}
	if sl.log == nil {
		f, err := os.OpenFile(sl.path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		sl.log = f
	}
	n, err := sl.log.Write(b)
	if err == nil {
		err = sl.log.Sync()
	}
	if err != nil {
		if terr := sl.log.Truncate(sl.logSize); terr != nil {
			sl.broken = fmt.Errorf("a failed append could not be cut off (%v), so nothing more is saved until a restart: %w", terr, err)
		}
		return err
	}
	sl.logSize += int64(n)
	return nil
}

// close releases the state file (Sandbox.Close). It is safe to call more than
// once; a request after it opens the file again.
func (sl *stateLog) close() error {
	sl.saveMu.Lock()
	defer sl.saveMu.Unlock()
	sl.mu.Lock()
	for _, s := range sl.segments {
		if s.f != nil {
			_ = s.f.Close()
			s.f = nil
		}
	}
	sl.mu.Unlock()
	if sl.log == nil {
		return nil
	}
	err := sl.log.Close()
	sl.log = nil
	if err != nil {
		return fmt.Errorf("sandbox: close state file: %w", err)
	}
	return nil
}

// load reads the state file into the empty core. A missing file leaves it
// empty; an unreadable or damaged one is an ErrStateFile error and is left as it
// is. The log is rewritten compacted when it is of an older version, when it
// holds more than twice its live state, or when its old and final orders take
// compactMin/4 bytes (they go to the archive then); a log whose last line was cut
// off by a crash is cut back to its last whole line. New reads the log and the
// header's list of the archive, never the archive itself.
func (sl *stateLog) load() error {
	path := sl.path
	atomicfile.RemoveTemps(path)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &stateError{path: path, cause: err, unreadable: true}
	}
	sl.bytesRead.Add(int64(len(b)))
	doc, whole, err := parseState(b)
	if err != nil {
		return &stateError{path: path, cause: err}
	}
	sl.segments = doc.Archive
	if err := sl.restore(doc); err != nil {
		return &stateError{path: path, cause: err}
	}
	sl.removeStraySegments()
	// Each order's line is what a save compares with.
	now := sl.now()
	var old []*order
	var oldBytes int64
	live := sl.liveState(func(o *order, l []byte) {
		o.savedSum = sumOf(l)
		if archivable(o, now) {
			old = append(old, o)
			oldBytes += int64(len(l))
		}
	})
	sl.logExists = true
	garbage := int64(whole) - int64(len(live))
	compact := garbage > int64(len(live)) && garbage >= sl.compactMin
	var merged []string
	if len(old) > 0 && (doc.V != stateVersion || compact || oldBytes >= sl.compactMin/4) {
		if merged, err = sl.archive(old); err != nil {
			return err
		}
		live = sl.liveState(nil)
		compact = true
	}
	switch {
	case doc.V != stateVersion || compact:
		if err := atomicfile.Write(path, live); err != nil {
			return fmt.Errorf("sandbox: compact state file %s: %w", path, err)
		}
		sl.logSize = int64(len(live))
		for _, name := range merged {
			_ = os.Remove(filepath.Join(filepath.Dir(path), name))
		}
	case whole < len(b):
		if err := os.Truncate(path, int64(whole)); err != nil {
			return fmt.Errorf("sandbox: drop the cut-off last line of %s: %w", path, err)
		}
		sl.logSize = int64(whole)
	default:
		sl.logSize = int64(len(b))
	}
	return nil
}

// liveState is the log's part of the state as a compacted log: the header, each
// order's line in the log's order (each also given to each), then the used refund
// ids, sorted. The archive is not in it. The caller holds sl.mu or is New.
func (sl *stateLog) liveState(each func(o *order, line []byte)) []byte {
	live := sl.header()
	for _, id := range sl.seq {
		o := sl.orders[id]
		so := stateOf(o)
		l := line(stateRecord{Order: &so})
		if each != nil {
			each(o, l)
		}
		live = append(live, l...)
	}
	for _, key := range sortedKeys(sl.refundIDs) {
		m, txn, _ := strings.Cut(key, "\x00")
		live = append(live, line(stateRecord{RefundTxn: &stateRefund{MerchantID: m, UniqueTxnID: txn}})...)
	}
	for _, id := range sortedKeys(sl.refundNos) {
		live = append(live, line(stateRecord{RefundID: id})...)
	}
	return live
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

// parseState reads a state file of any version into the whole state it holds
// (a version 3 log's archive as the list of its segments). whole is the length of
// b up to the end of its last whole line: a log may end in a line cut off by a
// crash, which is left out.
func parseState(b []byte) (doc *stateDoc, whole int, err error) {
	first := b
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		first = b[:i]
	}
	var head struct {
		V *int `json:"v"`
	}
	if err := json.Unmarshal(first, &head); err != nil {
		return nil, 0, err
	}
	if head.V == nil {
		return nil, 0, errors.New("no format version")
	}
	switch *head.V {
	case legacyVersion:
		doc, err := parseLegacy(b)
		return doc, len(b), err
	case logVersion2, stateVersion:
		return parseLog(b)
	}
	return nil, 0, fmt.Errorf("format version %d, this program reads versions 1 to %d", *head.V, stateVersion)
}

// parseLegacy reads a version 1 file.
func parseLegacy(b []byte) (*stateDoc, error) {
	var doc stateDoc
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errors.New("data after the state")
	}
	return &doc, nil
}

// strict decodes one JSON value that must fill v exactly.
func strict(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("data after the value")
	}
	return nil
}

// parseLog replays a version 2 or 3 log.
func parseLog(b []byte) (*stateDoc, int, error) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return nil, 0, errors.New("the header line is cut off")
	}
	var head logHeader
	if err := strict(b[:i], &head); err != nil {
		return nil, 0, fmt.Errorf("line 1: %w", err)
	}
	if head.V == logVersion2 && head.Archive != nil {
		return nil, 0, errors.New("line 1: a version 2 log has no archive")
	}
	if err := checkSegments(head.Archive); err != nil {
		return nil, 0, fmt.Errorf("line 1: %w", err)
	}
	doc := &stateDoc{V: head.V, Archive: head.Archive}
	at := map[string]int{} // service order id -> index in doc.Orders
	refunds := map[stateRefund]bool{}
	ids := map[string]bool{}
	pos, n := i+1, 1
	for pos < len(b) {
		n++
		j := bytes.IndexByte(b[pos:], '\n')
		if j < 0 {
			break // the last append was cut off by a crash: its request never answered
		}
		var r stateRecord
		if err := strict(b[pos:pos+j], &r); err != nil {
			return nil, 0, fmt.Errorf("line %d: %w", n, err)
		}
		set := 0
		if r.Order != nil {
			set++
			if k, ok := at[r.Order.ID]; ok {
				doc.Orders[k] = *r.Order
			} else {
				at[r.Order.ID] = len(doc.Orders)
				doc.Orders = append(doc.Orders, *r.Order)
			}
		}
		if r.RefundTxn != nil {
			set++
			if !refunds[*r.RefundTxn] {
				refunds[*r.RefundTxn] = true
				doc.RefundTxnIDs = append(doc.RefundTxnIDs, *r.RefundTxn)
			}
		}
		if r.RefundID != "" {
			set++
			if !ids[r.RefundID] {
				ids[r.RefundID] = true
				doc.RefundIDs = append(doc.RefundIDs, r.RefundID)
			}
		}
		if set != 1 {
			return nil, 0, fmt.Errorf("line %d: not one order, refund or refund id", n)
		}
		pos += j + 1
	}
	return doc, pos, nil
}

// restore fills the empty core with the state of a state file, checking that
// it is consistent.
func (sl *stateLog) restore(doc *stateDoc) error {
	for _, so := range doc.Orders {
		o, err := sl.adopt(so)
		if err != nil {
			return err
		}
		sl.seq = append(sl.seq, o.id)
	}
	for _, r := range doc.RefundTxnIDs {
		if r.MerchantID == "" || r.UniqueTxnID == "" {
			return errors.New("a used refund id has no merchant or no id")
		}
		sl.refundIDs[r.MerchantID+"\x00"+r.UniqueTxnID] = true
	}
	for _, id := range doc.RefundIDs {
		sl.refundNos[id] = true
	}
	return nil
}

// adopt checks a kept order and puts it into memory with its payments, token,
// merchant order id and blocked IMEIs (not into the log's order, seq). The caller
// holds sl.mu or is New.
func (sl *stateLog) adopt(so stateOrder) (*order, error) {
	if !allDigits(so.ID) || so.Token == "" || !validOrderID(so.MerchantOrderID) || !allDigits(so.MerchantID) {
		return nil, fmt.Errorf("order %q has a bad id, token or merchant", so.ID)
	}
	if sl.orders[so.ID] != nil || sl.byToken[so.Token] != nil {
		return nil, fmt.Errorf("order %s appears twice", so.ID)
	}
	key := so.MerchantID + "\x00" + so.MerchantOrderID
	if sl.orderIDs[key] {
		return nil, fmt.Errorf("merchant order id %s appears twice", so.MerchantOrderID)
	}
	if so.Created.IsZero() || so.Amount < minAmount || so.Refunded < 0 {
		return nil, fmt.Errorf("order %s has no creation time or a bad amount", so.ID)
	}
	m := sl.merchants[so.MerchantID]
	if m == nil { // a merchant this sandbox is not configured with
		if sl.stubs == nil {
			sl.stubs = map[string]*merchant{}
		}
		if sl.stubs[so.MerchantID] == nil {
			sl.stubs[so.MerchantID] = &merchant{Merchant: Merchant{ID: so.MerchantID}}
		}
		m = sl.stubs[so.MerchantID]
	}
	o := &order{m: m, id: so.ID, merchantOrderID: so.MerchantOrderID, token: so.Token,
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
	blocks := map[string]bool{}
	for _, imei := range so.IMEIs {
		if sl.imeis[imei] != "" || blocks[imei] {
			return nil, fmt.Errorf("IMEI %s is blocked by two orders", imei)
		}
		blocks[imei] = true
	}
	captured := 0
	seen := map[string]bool{}
	for _, sp := range so.Payments {
		if !allDigits(sp.ID) || sl.payments[sp.ID] != nil || seen[sp.ID] {
			return nil, fmt.Errorf("payment %q of order %s has a bad or repeated id", sp.ID, so.ID)
		}
		seen[sp.ID] = true
		if sp.Stage < stageAuth || sp.Stage > stageDone || sp.OutcomeKind < int(outcomeApprove) ||
			sp.OutcomeKind > int(outcomePendingHold) || sp.Amount < 0 || sp.Refunded < 0 || sp.Refunded > sp.Amount {
			return nil, fmt.Errorf("payment %s has a bad stage, outcome or amount", sp.ID)
		}
		if sp.Captured {
			captured++
		}
		p := &payment{id: sp.ID, o: o, amount: sp.Amount, mode: sp.Mode, status: sp.Status, stage: sp.Stage,
			outcome:  cardOutcome{kind: outcomeKind(sp.OutcomeKind), code: sp.OutcomeCode, message: sp.OutcomeMessage},
			captured: sp.Captured, last4: sp.Last4, holder: sp.Holder, issuer: sp.Issuer,
			mobile: sp.Mobile, created: sp.Created, completed: sp.Completed, captureAt: sp.CaptureAt,
			code: sp.Code, message: sp.Message, authCode: sp.AuthCode, rrn: sp.RRN, refunded: sp.Refunded, hosted: sp.Hosted}
		o.payments = append(o.payments, p)
	}
	if captured > 1 {
		return nil, fmt.Errorf("order %s has %d captured payments", so.ID, captured)
	}
	// Checked whole: only now does memory learn of it.
	for _, imei := range so.IMEIs {
		sl.imeis[imei] = o.id
		o.imeis = append(o.imeis, imei)
	}
	for _, p := range o.payments {
		sl.payments[p.id] = p
	}
	sl.orders[o.id] = o
	sl.byToken[o.token] = o
	sl.orderIDs[key] = true
	return o, nil
}
