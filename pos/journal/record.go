package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"galla/pos"
)

// recordVersion is the version of the stored envelope written by this build (the
// event inside has its own version, pos.EventVersion).
const recordVersion = 1

// envelope is one value of the events bucket:
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

// chainHash is SHA-256(prev || event), event being the exact stored bytes.
func chainHash(prev [32]byte, event []byte) [32]byte {
	h := sha256.New()
	h.Write(prev[:])
	h.Write(event)
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// sealEvent encodes ev, whose Seq and PrevHash are set, as a stored value. It
// returns the value and the event's hash.
func sealEvent(ev *pos.Event) ([]byte, [32]byte, error) {
	prev, err := parseHash(ev.PrevHash)
	if err != nil {
		return nil, [32]byte{}, err
	}
	ev.Hash = ""
	// json.Marshal writes compact, HTML-escaped JSON: exactly the bytes that
	// encoding the envelope would store, so they are hashed and stored as they are.
	body, err := json.Marshal(ev)
	if err != nil {
		return nil, [32]byte{}, err
	}
	sum := chainHash(prev, body)
	data := make([]byte, 0, len(body)+100)
	data = append(data, `{"v":`...)
	data = strconv.AppendInt(data, recordVersion, 10)
	data = append(data, `,"hash":"`...)
	data = hex.AppendEncode(data, sum[:])
	data = append(data, `","event":`...)
	data = append(data, body...)
	data = append(data, '}')
	return data, sum, nil
}

// Errors of decodeRecord, wrapped with the detail.
var (
	errRecordFormat  = errors.New("not a journal event")
	errRecordVersion = errors.New("unknown event format version")
	errRecordHash    = errors.New("event does not match its hash")
)

// record is a stored value decoded by decodeRecord.
type record struct {
	Seq   uint64
	Prev  [32]byte
	Hash  [32]byte
	Event json.RawMessage
}

// decodeRecord decodes one stored value and checks that it is consistent in
// itself: a known envelope version, well-formed hashes, and a hash that matches
// the previous hash and the event's bytes. The link to the record before is left
// to verifyChain. It never panics, whatever data holds.
func decodeRecord(data []byte) (*record, error) {
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, fmt.Errorf("%w: %w", errRecordFormat, err)
	}
	if env.V != recordVersion {
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
	r := &record{Seq: head.Seq, Event: env.Event}
	var err error
	if r.Prev, err = parseHash(head.PrevHash); err != nil {
		return nil, fmt.Errorf("%w: prev_hash: %w", errRecordFormat, err)
	}
	if r.Hash, err = parseHash(env.Hash); err != nil {
		return nil, fmt.Errorf("%w: hash: %w", errRecordFormat, err)
	}
	if chainHash(r.Prev, r.Event) != r.Hash {
		return nil, errRecordHash
	}
	return r, nil
}

// DecodeEvent decodes one value of the events bucket into the pos.Event it holds,
// with Hash filled in, after checking the value against its own hash. It never
// panics, whatever data holds.
func DecodeEvent(data []byte) (pos.Event, error) {
	r, err := decodeRecord(data)
	if err != nil {
		return pos.Event{}, fmt.Errorf("journal: decode event: %w", err)
	}
	return r.event()
}

// event decodes the pos.Event of r and fills in its Hash.
func (r *record) event() (pos.Event, error) {
	var ev pos.Event
	if err := json.Unmarshal(r.Event, &ev); err != nil {
		return pos.Event{}, fmt.Errorf("journal: decode event %d: %w: %w", r.Seq, errRecordFormat, err)
	}
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

// headOf splits the meta head value into the last sequence and its hash; a
// missing head is sequence 0 with the zero hash.
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

// headValue is the meta head value: 8-byte big-endian seq || 32-byte hash.
func headValue(seq uint64, h [32]byte) []byte {
	return append(u64(seq), h[:]...)
}

// beU64 decodes 8 big-endian bytes.
func beU64(b []byte) uint64 {
	var v uint64
	for _, c := range b[:8] {
		v = v<<8 | uint64(c)
	}
	return v
}
