package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// Bucket names (see doc.go for the tree and the keys and values of each).
var (
	bucketMeta        = []byte("meta")
	bucketEvents      = []byte("events")
	bucketOrders      = []byte("orders")
	bucketDays        = []byte("days")
	bucketUnresolved  = []byte("unresolved")
	bucketZ           = []byte("z_reports")
	bucketClosedDays  = []byte("closed_days")
	bucketStaff       = []byte("staff")
	bucketSettings    = []byte("settings")
	bucketCatalog     = []byte("catalog")
	bucketCheckpoints = []byte("checkpoints")
	// bucketDocuments holds the document series (numbers.go): the last number of
	// each and the order every number was given to. Created when first needed, so
	// that no migration is needed for journals made before series.
	bucketDocuments = []byte("documents")
	// bucketIMEIs holds the record of every IMEI sold or freed (imeis.go,
	// schema 6).
	bucketIMEIs = []byte("imeis")
	// bucketStockDays lists the stock events by business day (stock.go,
	// schema 6).
	bucketStockDays = []byte("stock_days")
	// bucketStockInvoices holds the delivery that received each supplier's
	// invoice (stock.go, schema 7; keyed by pos.InvoiceKey since schema 9).
	bucketStockInvoices = []byte("stock_invoices")
)

// Keys in the meta bucket.
var (
	metaSchema  = []byte("schema")     // 8-byte big-endian schema version
	metaHead    = []byte("head")       // schema 7 and before: 8-byte big-endian last sequence || 32-byte hash of that event (headFromEvents)
	metaReceipt = []byte("receipt_no") // 8-byte big-endian last receipt number handed out
	metaZ       = []byte("z_no")       // 8-byte big-endian last Z report number
	metaKey     = []byte("chain_key")  // HMAC-SHA256 of keyCheckLabel under the chain key (schema 3)
	// metaGallaVersion ("galla_version", version.go): the last Galla that opened it.
)

// catalogKey is the one key of the catalog bucket.
var catalogKey = []byte("products")

// derivedBuckets are rebuilt from the events by Rebuild. meta's counters are
// derived too; its schema version and the events are not.
var derivedBuckets = [][]byte{
	bucketOrders, bucketDays, bucketUnresolved,
	bucketZ, bucketClosedDays, bucketStaff, bucketSettings, bucketCatalog,
	bucketCheckpoints, bucketDocuments, bucketIMEIs, bucketStockDays, bucketStockInvoices, bucketProofs,
}

// migration moves the file from schema version-1 to version.
type migration struct {
	version uint64
	name    string
	apply   func(tx *bolt.Tx) error
}

// migrations lists every schema change in order. A new one is appended here, the
// tree in doc.go and docs/journal-schema.md is redrawn, and nothing above is edited.
var migrations = []migration{
	{version: 1, name: "create the buckets", apply: createBuckets},
	{version: 2, name: "checkpoints at every Z report, compact events", apply: sealCheckpoints},
	{version: 3, name: "events in binary records, compressed and keyed", apply: binaryRecords},
	{version: 4, name: "a keyed proof on every derived record", apply: recordProofs},
	{version: 5, name: "the customers' details sealed", apply: sealedRecords},
	{version: 6, name: "a record of every IMEI sold, the stock events by day", apply: imeiRecords},
	{version: 7, name: "the stock events in each IMEI's record, the deliveries by invoice", apply: stockRecordsBump},
	{version: 8, name: "the head read from the last event, not kept in meta", apply: headFromEvents},
	{version: 9, name: "the deliveries keyed by the letters and digits of their names", apply: invoiceKeys},
}

// schemaCheckpoints is the first schema with the checkpoints bucket and compact
// events.
const schemaCheckpoints = 2

// sealCheckpoints moves a file of schema 1 to 2. Its events stay as they are
// (decodeRecord reads both envelopes), so the
// hash chain is untouched. The checkpoints bucket is derived: it is left
// missing here, so that Open finds a derived bucket missing, verifies the whole
// chain and rebuilds every derived bucket from the events, sealing a
// checkpoint at every day.closed on the way (once, at the first Open by this
// build).
func sealCheckpoints(*bolt.Tx) error { return nil }

// binaryRecords moves a file of schema 2 to 3: from here on events are written
// as records of format 2 (record.go: a binary header, the body compressed, the
// hash keyed when a chain key is given). The events already stored stay
// byte for byte as they are, and are read and verified as format 1: rewriting
// them would change every hash after the first, and with them the checkpoints
// and the Z digests already printed and sent. The bump itself is what the
// migration does: a build that knows only schema 2 cannot read the new records,
// and refuses the file (ErrNewerSchema) instead of calling it damaged.
func binaryRecords(*bolt.Tx) error { return nil }

// recordProofs moves a file of schema 3 to 4: every derived record pos reads to
// decide carries a keyed proof (proof.go). The proofs bucket, derived, is left
// missing here: Open then compares every derived record with a replay of the
// events, refuses the file if one does not match (an edit made before the
// upgrade), and only then rebuilds them with their proofs and journals
// journal.records_proved (Journal.proveRecords), once.
func recordProofs(*bolt.Tx) error { return nil }

// sealedRecords moves a file of schema 4 to 5: from here on the events and
// records that name a person are stored sealed (seal.go). The bump itself is
// what the migration does, as for binaryRecords: a build of schema 4 reads a
// sealed record as damage, and must refuse the file as newer instead. The
// details already stored in clear are sealed once the key is known to be the
// journal's and its records proved (Journal.sealPersonal, reseal.go).
func sealedRecords(*bolt.Tx) error { return nil }

// imeiRecords moves a file of schema 5 to 6: the record of every IMEI sold or
// freed (imeis.go), derived in the transaction of the event, which the till
// reads instead of a snapshot of every IMEI ever sold, and the stock events
// listed by business day (stock.go), which the stock moves of a few days read
// instead of every event. The buckets, derived, are left missing here, as the
// checkpoints' were (sealCheckpoints): Open then verifies the whole chain and
// rebuilds every derived bucket from the events, these and the IMEIs' proofs
// with them, once. The bump is what keeps
// a build of schema 5, which would sell a phone without writing its record,
// from opening the file (ErrNewerSchema).
func imeiRecords(*bolt.Tx) error { return nil }

// schemaIMEIs is the first schema with the imeis and stock_days buckets.
const schemaIMEIs = 6

// stockRecordsBump moves a file of schema 6 to 7: the record of each IMEI
// names the stock events that named it (the delivery or transfer that
// received it, the adjustments and transfers sent since; imeis.go), and the
// stock_invoices bucket holds the delivery that received each supplier's
// invoice (stock.go), so that the till's stock book keeps only what is on
// hand: a unit sold leaves it and is read back from its receipt when it is
// returned, and an invoice received twice is refused by one lookup. The new
// bucket, derived, is left missing here, as schema 6 left its own
// (imeiRecords): Open then verifies the whole chain and rebuilds every derived
// bucket from the events, the records of IMEIs with their stock events and
// their proofs with them, once. The bump keeps a build of schema 6, which
// would receive a delivery without naming it in its units' records, from
// opening the file (ErrNewerSchema).
func stockRecordsBump(*bolt.Tx) error { return nil }

// schemaStockRecords is the first schema whose records of IMEIs name their
// stock events, with the stock_invoices bucket.
const schemaStockRecords = 7

// headFromEvents moves a file of schema 7 to 8: the head of the log (the last
// event's sequence and hash) is read from the last event itself (headIn; the
// hash is in its record's header) rather than kept in meta as well, where every
// Append wrote it again: a bucket opened, its node read and written back in
// each commit (about 13 heap allocations an Append) for a copy of what the
// events bucket holds. What the file keeps to check its head by is a mark in
// the events bucket's header (headMark), which the commit writes anyway. The
// head in meta must name the last event, as the walk of the chain required:
// one that does not is damage (headMismatchError, a *CorruptError at Open),
// and the file is left as it was. It is then deleted and the mark set. A
// build of schema 7 would find no head in meta and take the log for empty:
// the bump keeps it from opening the file (ErrNewerSchema). The head record
// beside the file (head.go) is unchanged.
func headFromEvents(tx *bolt.Tx) error {
	meta, events := tx.Bucket(bucketMeta), tx.Bucket(bucketEvents)
	seq, h, ok := headOf(meta.Get(metaHead))
	last, lastHash, lastOK := headIn(events)
	if !ok || !lastOK || seq != last || h != lastHash {
		return &headMismatchError{seq: max(seq, last)}
	}
	if err := meta.Delete(metaHead); err != nil {
		return err
	}
	return events.SetSequence(headMark(last, lastHash))
}

// headMismatchError is headFromEvents' refusal of a head in meta that does not
// name the last event.
type headMismatchError struct{ seq uint64 }

func (e *headMismatchError) Error() string {
	return "the head in meta does not match the last event"
}

// schemaHeadInEvents is the first schema without the head in meta.
const schemaHeadInEvents = 8

// invoiceKeys moves a file of schema 8 to 9: the stock_invoices bucket is
// keyed by pos.InvoiceKey (the letters and digits of the supplier's name and
// of the invoice number, case-folded), the rule that says which invoices are
// one, instead of the names without regard to case or spacing (indexKey,
// schemas 7 and 8). An invoice is then looked up by one Get of its own key,
// where the old key made every lookup of an invoice not received read every
// key of the bucket. Each entry is moved to the key of the names its old key
// holds (splitIndexKey), its value unchanged. Two old entries that fall on
// one new key (INV-77 and INV/77, which the till took for two invoices
// before pos.InvoiceKey) keep the first delivery, the lower sequence, as a
// replay of the events through deriveStockDay does: deriveStockDay does not
// replace an entry, and an old key held one delivery only, since Galla
// refused an invoice received twice by indexKey's rule, or a stricter one,
// from the first delivery it recorded. An entry whose value is not a
// sequence number was changed outside Galla: it is kept over the others, so
// that the check after the migration (Open's, galla journal verify) still
// finds it. A file without the bucket (of schema 6 or older, migrated by
// the same Open) has nothing to move: Open rebuilds it from the events. A
// build of schema 8 would look the new keys up by the old rule and receive
// an invoice twice: the bump keeps it from opening the file
// (ErrNewerSchema).
func invoiceKeys(tx *bolt.Tx) error {
	b := tx.Bucket(bucketStockInvoices)
	if b == nil {
		return nil
	}
	keep := map[string][]byte{}
	if err := b.ForEach(func(k, v []byte) error {
		key := pos.InvoiceKey(splitIndexKey(k))
		if have, ok := keep[key]; !ok || firstDelivery(v, have) {
			keep[key] = bytes.Clone(v)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := tx.DeleteBucket(bucketStockInvoices); err != nil {
		return err
	}
	b, err := tx.CreateBucket(bucketStockInvoices)
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(keep)) {
		if err := b.Put([]byte(k), keep[k]); err != nil {
			return err
		}
	}
	return nil
}

// firstDelivery reports whether the entry value v of stock_invoices comes
// before have under one key: the lower sequence number, or a value that is
// not one (kept, to be found by the check).
func firstDelivery(v, have []byte) bool {
	if len(v) != 8 || len(have) != 8 {
		return len(v) != 8 && len(have) == 8
	}
	return beU64(v) < beU64(have)
}

// schemaInvoiceKeys is the first schema whose stock_invoices is keyed by
// pos.InvoiceKey.
const schemaInvoiceKeys = 9

// SchemaVersion is the schema version this build writes.
func SchemaVersion() uint64 { return migrations[len(migrations)-1].version }

// createBuckets creates every bucket of schema 1 that is missing.
func createBuckets(tx *bolt.Tx) error {
	for _, name := range append([][]byte{bucketMeta, bucketEvents}, derivedBuckets...) {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("bucket %s: %w", name, err)
		}
	}
	return nil
}

// schemaOf reads the schema version of the file; 0 for a new file.
func schemaOf(tx *bolt.Tx) uint64 {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return 0
	}
	return getU64(meta, metaSchema)
}

// u64 encodes v as 8 bytes big-endian, so that keys sort as numbers.
func u64(v uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, v)
	return b
}

// getU64 reads an 8-byte big-endian value; 0 when absent or malformed.
func getU64(b *bolt.Bucket, key []byte) uint64 {
	v := b.Get(key)
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

// putU64 stores v under key as 8 bytes big-endian.
func putU64(b *bolt.Bucket, key []byte, v uint64) error {
	return b.Put(key, u64(v))
}

// sep separates the parts of a composite key. Days and ids never hold it
// (checkDay, checkID), so composite keys cannot collide and the keys under one
// prefix are one contiguous range.
const sep = 0x00

// errBadID is returned for an order id or day that would break the key layout.
var errBadID = errors.New("id is empty, longer than 200 bytes or holds a NUL byte")

// checkID rejects ids that cannot be part of a composite key (order ids, staff
// ids).
func checkID(id string) error {
	if id == "" || len(id) > 200 {
		return errBadID
	}
	for i := 0; i < len(id); i++ {
		if id[i] == sep {
			return errBadID
		}
	}
	return nil
}

// dayPrefix is the key prefix of every order of day in the days bucket.
func dayPrefix(day string) []byte {
	return append([]byte(day), sep)
}

// dayKey is day | 0x00 | 8-byte big-endian sequence of the order's first event:
// a day's orders sort in the order of their first event, and one order is listed
// once per day.
func dayKey(day string, first uint64) []byte {
	return append(dayPrefix(day), u64(first)...)
}

// orderEventPrefix is the key prefix of the index of orderID's events in the
// orders bucket. It sorts right after the order's own key (orderID), so an
// Append usually finds both on the same page.
func orderEventPrefix(orderID string) []byte {
	return append([]byte(orderID), sep)
}

// orderEventKey is orderID | 0x00 | 8-byte big-endian sequence.
func orderEventKey(orderID string, seq uint64) []byte {
	return append(orderEventPrefix(orderID), u64(seq)...)
}

// checkDay accepts a business day written YYYY-MM-DD.
func checkDay(day string) error {
	if _, err := time.Parse(time.DateOnly, day); err != nil || len(day) != len(time.DateOnly) {
		return fmt.Errorf("day %q is not YYYY-MM-DD", day)
	}
	return nil
}
