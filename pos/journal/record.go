package journal

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"galla/pos"

	bolt "go.etcd.io/bbolt"
)

// The formats of a stored event (the value of the events bucket under its
// sequence). Format 1 was written by schema versions 1 and 2 and is read as it
// is; format 2 is written from schema version 3 on.
const (
	recordV1 = 1
	recordV2 = 2
)

// recordMagic opens every value of format 2: "GJ" and the format. Salvage looks
// for it in the raw bytes of a damaged file.
var recordMagic = []byte{'G', 'J', recordV2}

// flagKeyed marks a record of format 2 whose hash is an HMAC-SHA256 with the
// terminal's chain key; without it the hash is a plain SHA-256.
const flagKeyed = 0x01

// recordHeader is the fixed part of a record of format 2: magic (3), flags (1),
// seq (8), prev hash (32), hash (32). The event's kind in clear and the body
// follow, each after its length (uvarint).
const recordHeader = 3 + 1 + 8 + 32 + 32

// kindOpen opens the kind in clear of a record of format 2: the kind is kept as
// the JSON member it is in the event, "kind":"order.intent", so that the raw
// bytes of a file say what each record is (a reader of the bytes, salvage,
// a test that damages one) without inflating it.
const kindOpen = `"kind":"`

// maxEventJSON bounds the JSON a body may inflate to (a catalog of a million
// products stays well below it), so that a damaged or crafted body cannot make
// a reader allocate without end.
const maxEventJSON = 256 << 20

// envelope is one value of format 1:
//
//	{"v":1,"hash":"<64 hex>","event":{...,"seq":N,...,"prev_hash":"<64 hex>",...}}
//
// The event is the compact JSON of a pos.Event with Seq and PrevHash set and Hash
// empty; hash is SHA-256(prev hash bytes || the event's bytes exactly as stored).
type envelope struct {
	V     int             `json:"v"`
	Hash  string          `json:"hash"`
	Event json.RawMessage `json:"event"`
}

// chainHash is the hash of format 1: SHA-256(prev || event), event being the
// exact stored bytes.
func chainHash(prev [32]byte, event []byte) [32]byte {
	h := sha256.New()
	h.Write(prev[:])
	h.Write(event)
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// sealer writes and reads the records of one journal: it holds the chain key
// (nil: the chain is not keyed) and the compressors of the bodies.
type sealer struct {
	key  []byte
	v    *vault   // seals the bodies that name a person (seal.go); nil without a key
	macs *macPool // the hash states of key; nil: a new one for each record
	zip  codec
}

// newSealer returns the sealer of a journal keyed with key (nil: unkeyed).
func newSealer(key []byte) sealer {
	return sealer{key: key, v: newVault(key), macs: newMACPool(key)}
}

// keyed reports whether s writes keyed records.
func (s *sealer) keyed() bool { return s.key != nil }

// keyOf is the key r's hash is made with: s's key for a keyed record, nil for
// an unkeyed one (and for every record of format 1).
func (s *sealer) keyOf(r *record) []byte {
	if r.Keyed {
		return s.key
	}
	return nil
}

// mac is the hash of a record of format 2: HMAC-SHA256 with key over prev, the
// record's magic, flags and sequence (head), and everything after its hash as
// stored (the kind and the body with their lengths); SHA-256 of the same when
// key is nil.
func mac(key []byte, prev [32]byte, head, body []byte) [32]byte {
	var s sealer
	return s.mac(key, prev, head, body)
}

// mac is the package's mac with a state from s's pool when key is s's.
func (s *sealer) mac(key []byte, prev [32]byte, head, body []byte) [32]byte {
	st := s.macs.get(key)
	st.writeHash(prev)
	st.write(head)
	st.write(body)
	sum := st.sum32()
	s.macs.put(key, st)
	return sum
}

// sealEvent encodes ev, whose Seq and PrevHash are set, as an unkeyed record of
// format 2 (the record of a journal opened without a chain key).
func sealEvent(ev *pos.Event) ([]byte, [32]byte, error) {
	var s sealer
	return s.seal(ev)
}

// seal encodes ev, whose Seq and PrevHash are set, as a stored value of format
// 2, keyed when s has a key. It returns the value and the event's hash.
//
//	"GJ" 0x02 | flags | u64 seq | [32]byte prev | [32]byte hash |
//	uvarint k | k bytes "kind":"KIND" | uvarint n | n bytes body
//
// The body is the compact JSON of ev without its chain (Seq 0, no PrevHash, no
// Hash: the header holds them), compressed with DEFLATE and eventDict.
func (s *sealer) seal(ev *pos.Event) ([]byte, [32]byte, error) {
	prev, err := parseHash(ev.PrevHash)
	if err != nil {
		return nil, [32]byte{}, err
	}
	return s.sealPrev(ev, prev)
}

// sealPrev is seal of ev whose PrevHash is prev in hex.
func (s *sealer) sealPrev(ev *pos.Event, prev [32]byte) ([]byte, [32]byte, error) {
	// The body is written into the codec's buffer, not a copy of its own, from
	// a copy of ev without its chain (on the stack: appendEventJSON keeps
	// nothing it is given).
	s.zip.jmu.Lock()
	defer s.zip.jmu.Unlock()
	unchained := *ev
	unchained.Seq, unchained.PrevHash, unchained.Hash = 0, "", ""
	body, err := s.zip.marshalEvent(&unchained)
	if err != nil {
		return nil, [32]byte{}, err
	}
	kindLen := len(kindOpen) + len(ev.Kind) + 1 // "kind":"KIND"
	// A body compresses to about a third: room for that, else append grows it.
	data := make([]byte, recordHeader, recordHeader+2*binary.MaxVarintLen64+kindLen+len(body)/2+32)
	copy(data, recordMagic)
	if s.keyed() {
		data[3] = flagKeyed
	}
	binary.BigEndian.PutUint64(data[4:12], ev.Seq)
	copy(data[12:44], prev[:])
	data = binary.AppendUvarint(data, uint64(kindLen))
	data = append(append(append(data, kindOpen...), ev.Kind...), '"')
	kind := data[len(data)-kindLen:]
	data, packed := s.zip.deflateBody(data, body)
	sum := s.mac(s.key, prev, data[:12], data[recordHeader:])
	copy(data[44:76], sum[:])
	if s.v != nil && personal(body) {
		// The hash above is the plaintext record's; the body is stored sealed.
		return s.sealedForm(data[:recordHeader], string(kind), packed), sum, nil
	}
	return data, sum, nil
}

// sealedForm is a record of format 2 with its body sealed: head (the header,
// its hash that of the plaintext record) with flagSealed, the kind in clear,
// and packed (the compressed body) sealed with the data key.
func (s *sealer) sealedForm(head []byte, kind string, packed []byte) []byte {
	out := make([]byte, recordHeader, recordHeader+len(kind)+len(packed)+s.v.aead.NonceSize()+s.v.aead.Overhead()+2*binary.MaxVarintLen64)
	copy(out, head[:recordHeader])
	out[3] |= flagSealed
	out = binary.AppendUvarint(out, uint64(len(kind)))
	out = append(out, kind...)
	box := s.v.seal(bodyAAD(out[:12], kind), packed)
	out = binary.AppendUvarint(out, uint64(len(box)))
	return append(out, box...)
}

// bodyAAD binds a sealed body to its record's magic, flags, sequence and kind.
func bodyAAD(head []byte, kind string) []byte {
	return append(bytes.Clone(head), kind...)
}

// plainForm is the record r of format 2 as it was before its body was sealed:
// the header without flagSealed and the kind and the plaintext body with their
// lengths. Its hash is made over this form.
func plainForm(data, kindStored, packed []byte) []byte {
	out := make([]byte, recordHeader, len(data))
	copy(out, data[:recordHeader])
	out[3] &^= flagSealed
	out = binary.AppendUvarint(out, uint64(len(kindStored)))
	out = append(out, kindStored...)
	out = binary.AppendUvarint(out, uint64(len(packed)))
	return append(out, packed...)
}

// Errors of decodeRecord, wrapped with the detail.
var (
	errRecordFormat  = errors.New("not a journal event")
	errRecordVersion = errors.New("unknown event format version")
	errRecordHash    = errors.New("event does not match its hash")
	errRecordKey     = errors.New("the event is keyed with the terminal's chain key, and no key was given")
	// errRecordSealed is a sealed body and no key, or one that does not open it.
	errRecordSealed = fmt.Errorf("the event's customer details are sealed: %w", ErrSealed)
)

// record is a stored value decoded by decodeRecord.
type record struct {
	Seq    uint64
	Prev   [32]byte
	Hash   [32]byte
	Format int    // recordV1 or recordV2
	Keyed  bool   // the hash is an HMAC with the chain key
	Sealed bool   // the body is sealed with the data key (flagSealed)
	kind   string // format 2: the kind in clear
	body   []byte
	zip    *codec // nil: body is the event's JSON (format 1)
}

// decodeRecord decodes one stored value of a journal without a chain key; see
// (*sealer).decode.
func decodeRecord(data []byte) (*record, error) {
	var s sealer
	return s.decode(data)
}

// decode decodes one stored value and checks that it is consistent in itself: a
// known format, well-formed hashes, and a hash that matches the previous hash
// and the event's bytes (with s's key for a keyed record; a keyed record and no
// key is errRecordKey). The link to the record before is left to verifyChain,
// the event's JSON to event. It never panics, whatever data holds.
func (s *sealer) decode(data []byte) (*record, error) {
	if bytes.HasPrefix(data, recordMagic) {
		return s.decodeV2(data)
	}
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, fmt.Errorf("%w: %w", errRecordFormat, err)
	}
	if env.V != recordV1 {
		return nil, fmt.Errorf("%w %d", errRecordVersion, env.V)
	}
	if len(env.Event) == 0 || env.Event[0] != '{' {
		return nil, fmt.Errorf("%w: no event", errRecordFormat)
	}
	var head struct {
		Seq      uint64 `json:"seq"`
		PrevHash string `json:"prev_hash"`
	}
	if err := json.Unmarshal(env.Event, &head); err != nil {
		return nil, fmt.Errorf("%w: %w", errRecordFormat, err)
	}
	if head.Seq == 0 {
		return nil, fmt.Errorf("%w: no sequence", errRecordFormat)
	}
	r := &record{Seq: head.Seq, Format: recordV1, body: env.Event}
	var err error
	if r.Prev, err = parseHash(head.PrevHash); err != nil {
		return nil, fmt.Errorf("%w: prev_hash: %w", errRecordFormat, err)
	}
	if r.Hash, err = parseHash(env.Hash); err != nil {
		return nil, fmt.Errorf("%w: hash: %w", errRecordFormat, err)
	}
	if chainHash(r.Prev, r.body) != r.Hash {
		return nil, errRecordHash
	}
	return r, nil
}

// decodeV2 is decode of a value that starts with recordMagic. It checks the
// hash only: the body is inflated by event.
func (s *sealer) decodeV2(data []byte) (*record, error) {
	r, n, err := splitV2(data)
	if err != nil {
		return nil, err
	}
	if n != len(data) {
		return nil, fmt.Errorf("%w: %d bytes after the body", errRecordFormat, len(data)-n)
	}
	if r.Keyed && !s.keyed() {
		return nil, errRecordKey
	}
	key := s.key
	if !r.Keyed {
		key = nil
	}
	plain := data[:n]
	if r.Sealed {
		if s.v == nil {
			return nil, errRecordSealed
		}
		kind := []byte(kindOpen + r.kind + `"`)
		packed, err := s.v.open(bodyAAD(data[:12], string(kind)), r.body)
		if err != nil {
			return nil, errRecordSealed
		}
		plain, r.body = plainForm(data, kind, packed), packed
	}
	if s.mac(key, r.Prev, plain[:12], plain[recordHeader:]) != r.Hash {
		return nil, errRecordHash
	}
	r.zip = &s.zip
	return r, nil
}

// splitV2 reads the header of a record of format 2 at the start of data and
// returns it with its body (not yet checked against its hash) and the record's
// length in data.
func splitV2(data []byte) (*record, int, error) {
	if len(data) < recordHeader+1 || !bytes.HasPrefix(data, recordMagic) {
		return nil, 0, fmt.Errorf("%w: too short", errRecordFormat)
	}
	if data[3]&^(flagKeyed|flagSealed) != 0 {
		return nil, 0, fmt.Errorf("%w: unknown flags %#x", errRecordFormat, data[3])
	}
	r := &record{Format: recordV2, Keyed: data[3]&flagKeyed != 0, Sealed: data[3]&flagSealed != 0, Seq: binary.BigEndian.Uint64(data[4:12])}
	if r.Seq == 0 {
		return nil, 0, fmt.Errorf("%w: no sequence", errRecordFormat)
	}
	copy(r.Prev[:], data[12:44])
	copy(r.Hash[:], data[44:76])
	kind, at, ok := lengthPrefixed(data, recordHeader)
	if !ok || len(kind) < len(kindOpen)+2 || !bytes.HasPrefix(kind, []byte(kindOpen)) || kind[len(kind)-1] != '"' {
		return nil, 0, fmt.Errorf("%w: bad kind", errRecordFormat)
	}
	r.kind = string(kind[len(kindOpen) : len(kind)-1])
	if r.body, at, ok = lengthPrefixed(data, at); !ok {
		return nil, 0, fmt.Errorf("%w: bad body length", errRecordFormat)
	}
	return r, at, nil
}

// lengthPrefixed reads the bytes at data[at:] that follow their length
// (uvarint, not zero) and returns them and where they end.
func lengthPrefixed(data []byte, at int) ([]byte, int, bool) {
	size, k := binary.Uvarint(data[at:])
	if k <= 0 || size == 0 || size > uint64(len(data)-at-k) {
		return nil, 0, false
	}
	start := at + k
	return data[start : start+int(size)], start + int(size), true
}

// json returns the event's JSON as stored (format 1) or inflated (format 2).
func (r *record) json() ([]byte, error) {
	if r.zip == nil {
		return r.body, nil
	}
	return r.zip.inflate(r.body, maxEventJSON)
}

// DecodeEvent decodes one value of the events bucket of a journal without a
// chain key into the pos.Event it holds, with Hash filled in, after checking the
// value against its own hash. A keyed value is refused. It never panics,
// whatever data holds.
func DecodeEvent(data []byte) (pos.Event, error) {
	r, err := decodeRecord(data)
	if err != nil {
		return pos.Event{}, fmt.Errorf("journal: decode event: %w", err)
	}
	return r.event()
}

// event decodes the pos.Event of r and fills in its Seq, PrevHash and Hash.
func (r *record) event() (pos.Event, error) {
	var ev pos.Event
	raw, err := r.json()
	if err == nil {
		err = json.Unmarshal(raw, &ev)
	}
	if err != nil {
		return pos.Event{}, fmt.Errorf("journal: decode event %d: %w: %w", r.Seq, errRecordFormat, err)
	}
	if r.Format == recordV2 && string(ev.Kind) != r.kind {
		return pos.Event{}, fmt.Errorf("journal: decode event %d: %w: kind %q in clear, %q inside", r.Seq, errRecordFormat, r.kind, ev.Kind)
	}
	ev.Seq, ev.PrevHash = r.Seq, hex.EncodeToString(r.Prev[:])
	ev.Hash = hex.EncodeToString(r.Hash[:])
	return ev, nil
}

// parseHash decodes 64 hex digits.
func parseHash(s string) ([32]byte, error) {
	var h [32]byte
	if len(s) != 64 {
		return h, fmt.Errorf("%d hex digits, want 64", len(s))
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, err
	}
	return h, nil
}

// headIn is the head of the log in events: the sequence of its last event and
// that event's hash, as the record stores it (not checked here: the walk of the
// chain checks it); 0 and the zero hash for an empty log. ok is false when the
// last key or record is malformed. From schema 8 on this is the head, and the
// file keeps only a mark of it to check it by (headMark); files of schema 7
// and before kept it whole in meta (metaHead).
func headIn(events *bolt.Bucket) (seq uint64, h [32]byte, ok bool) {
	k, v := events.Cursor().Last()
	return headOfLast(k, v)
}

// headOfLast is headIn of the last key k and its record v.
func headOfLast(k, v []byte) (seq uint64, h [32]byte, ok bool) {
	if k == nil {
		return 0, h, true
	}
	if len(k) != 8 {
		return 0, h, false
	}
	seq = beU64(k)
	if bytes.HasPrefix(v, recordMagic) {
		if len(v) < recordHeader || binary.BigEndian.Uint64(v[4:12]) != seq {
			return seq, h, false
		}
		copy(h[:], v[44:76])
		return seq, h, true
	}
	var env envelope // format 1
	if err := json.Unmarshal(v, &env); err != nil {
		return seq, h, false
	}
	h, err := parseHash(env.Hash)
	return seq, h, err == nil
}

// headMark is what a file of schema 8 or later keeps of its head, in the
// events bucket's own sequence number (bbolt's Bucket.Sequence, a field of the
// bucket's header, which every commit that writes an event writes back
// anyway: no bucket opened and no page written for it): the low 32 bits of
// the last event's sequence and the first 32 bits of its hash. The walk of the
// chain and Open compare it with the last event (fileHeadMatches): a log
// whose last events were deleted, or whose last event was rewritten with its
// hash redone, no longer matches it, as it no longer matched the head in meta.
func headMark(seq uint64, h [32]byte) uint64 {
	return seq<<32 | uint64(binary.BigEndian.Uint32(h[:4]))
}

// fileHeadMatches reports whether what the file keeps of its head names the
// last event, seq with hash h: the mark in the events bucket's sequence from
// schema 8 on, the head in meta before (and a head found in meta later must
// name it too). named is the sequence what it keeps names, for the error.
func fileHeadMatches(tx *bolt.Tx, seq uint64, h [32]byte) (ok bool, named uint64) {
	schema := schemaOf(tx)
	if v := tx.Bucket(bucketMeta).Get(metaHead); v != nil || schema < schemaHeadInEvents {
		s, hh, ok := headOf(v)
		if !ok || s != seq || hh != h {
			return false, s
		}
	}
	if schema >= schemaHeadInEvents {
		if m := tx.Bucket(bucketEvents).Sequence(); m != headMark(seq, h) {
			return false, seq&^0xffffffff | m>>32
		}
	}
	return true, seq
}

// headOf splits a head value (a meta head of schema 7 and before, or
// headValue's) into the last sequence and its hash; a missing head is
// sequence 0 with the zero hash.
func headOf(v []byte) (uint64, [32]byte, bool) {
	var h [32]byte
	if v == nil {
		return 0, h, true
	}
	if len(v) != 40 {
		return 0, h, false
	}
	copy(h[:], v[8:])
	return beU64(v[:8]), h, true
}

// headValue is a head value: 8-byte big-endian seq || 32-byte hash.
func headValue(seq uint64, h [32]byte) []byte {
	v := make([]byte, 40)
	binary.BigEndian.PutUint64(v, seq)
	copy(v[8:], h[:])
	return v
}

// errNoEvent reports a sequence number past the end of the log.
var errNoEvent = errors.New("no such event")

// eventAt decodes the event stored at seq.
func (s *sealer) eventAt(events *bolt.Bucket, seq uint64) (pos.Event, error) {
	v := events.Get(u64(seq))
	if v == nil {
		return pos.Event{}, fmt.Errorf("event %d: %w", seq, errNoEvent)
	}
	r, err := s.decode(v)
	if err != nil {
		return pos.Event{}, fmt.Errorf("event %d: %w", seq, err)
	}
	return r.event()
}

// beU64 decodes 8 big-endian bytes.
func beU64(b []byte) uint64 {
	var v uint64
	for _, c := range b[:8] {
		v = v<<8 | uint64(c)
	}
	return v
}
