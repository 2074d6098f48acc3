package store

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// The arrays of the projections' set-based writes (project_sets.go,
// project_refunds.go) are encoded here, once, in PostgreSQL's binary format
// and straight from their Go slices, and handed to pgx as they are
// (binArray). pgx encodes a slice element by element through an interface:
// a heap allocation for each string and for most numbers, reflection for each
// date and time. That was about half of the projector's allocations (some
// 20 000 a batch of 1 000 events) and most of its encoding time. The bytes
// sent are the ones pgx sends (its array header, each element's length and
// its binary form, -1 for NULL), so PostgreSQL reads the same arrays.

// binArray is a one-dimensional array in PostgreSQL's binary format; nil is
// NULL. Only pipeTx.queue sends one, to a parameter of its array type.
type binArray []byte

// Array and element OIDs (pg_type).
const (
	oidText        = 25
	oidInt8        = 20
	oidInt4        = 23
	oidDate        = 1082
	oidTimestamptz = 1184
)

// arrayOIDs are the array types a binArray is sent as.
var arrayOIDs = []uint32{pgtype.TextArrayOID, pgtype.Int8ArrayOID, pgtype.Int4ArrayOID, pgtype.DateArrayOID, pgtype.TimestamptzArrayOID}

// arrayOf is s as a one-dimensional array of the type elem, in
// PostgreSQL's binary format, nil for a nil s (NULL): the array's header
// (dimensions, whether it holds a NULL, the element's type, the dimension's
// length and its lower bound), then each element as its length and its
// binary form (put), or -1 where valid says it is NULL (valid nil: none is).
// size is about the bytes of the elements, for the buffer to be allocated
// once.
func arrayOf[T any](s []T, elem uint32, size int, valid func(T) bool, put func([]byte, T) []byte) binArray {
	if s == nil {
		return nil
	}
	var hasNull uint32
	if valid != nil {
		for _, v := range s {
			if !valid(v) {
				hasNull = 1
				break
			}
		}
	}
	b := make([]byte, 0, 20+size)
	b = binary.BigEndian.AppendUint32(b, 1) // dimensions
	b = binary.BigEndian.AppendUint32(b, hasNull)
	b = binary.BigEndian.AppendUint32(b, elem)
	b = binary.BigEndian.AppendUint32(b, uint32(len(s))) // the dimension's length
	b = binary.BigEndian.AppendUint32(b, 1)              // its lower bound
	for _, v := range s {
		if valid != nil && !valid(v) {
			b = binary.BigEndian.AppendUint32(b, math.MaxUint32) // -1: NULL
			continue
		}
		at := len(b)
		b = put(binary.BigEndian.AppendUint32(b, 0), v)
		binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at-4)) // the element's length
	}
	return b
}

// textArray is s as text[].
func textArray(s []string) binArray {
	size := 4 * len(s)
	for _, v := range s {
		size += len(v)
	}
	return arrayOf(s, oidText, size, nil, func(b []byte, v string) []byte { return append(b, v...) })
}

// int8Array is s as int8[].
func int8Array(s []int64) binArray {
	return arrayOf(s, oidInt8, 12*len(s), nil, func(b []byte, v int64) []byte { return binary.BigEndian.AppendUint64(b, uint64(v)) })
}

// int4Array is s as int4[].
func int4Array(s []int32) binArray {
	return arrayOf(s, oidInt4, 8*len(s), nil, func(b []byte, v int32) []byte { return binary.BigEndian.AppendUint32(b, uint32(v)) })
}

// jsonArray is a text[] of JSON values built element by element, each
// value marshalled straight into the array's bytes: the orders' snapshots,
// the largest of the projections' arrays, are neither allocated one by one
// (json.Marshal's copy of each) nor copied again into text strings and then
// into an array. The zero jsonArray is NULL.
type jsonArray struct {
	b   []byte
	n   int
	enc *json.Encoder // writes into b (Write)
}

// Write appends p to the array's bytes, for enc.
func (a *jsonArray) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}

// snapshotSize is about the bytes of an order's snapshot (1 000–1 500).
const snapshotSize = 1536

// add appends v's JSON, as json.Marshal writes it, passed through seal when
// seal is not nil (which may give back its argument or new bytes). The
// first add makes room for n elements of about snapshotSize bytes.
func (a *jsonArray) add(v any, seal func([]byte) ([]byte, error), n int) error {
	if a.b == nil {
		a.b = make([]byte, 20, 20+n*(4+snapshotSize))
		binary.BigEndian.PutUint32(a.b[0:], 1) // dimensions; no NULL
		binary.BigEndian.PutUint32(a.b[8:], oidText)
		binary.BigEndian.PutUint32(a.b[16:], 1) // the lower bound; the length is set by array
		a.enc = json.NewEncoder(a)
	}
	at := len(a.b)
	a.b = binary.BigEndian.AppendUint32(a.b, 0)
	if err := a.enc.Encode(v); err != nil {
		a.b = a.b[:at]
		return err
	}
	a.b = a.b[:len(a.b)-1] // the newline Encode ends a value with
	if seal != nil {
		js, err := seal(a.b[at+4:])
		if err != nil {
			a.b = a.b[:at]
			return err
		}
		a.b = append(a.b[:at+4], js...) // js may be those very bytes
	}
	binary.BigEndian.PutUint32(a.b[at:], uint32(len(a.b)-at-4))
	a.n++
	return nil
}

// array is the array built, nil (NULL) when nothing was added.
func (a *jsonArray) array() binArray {
	if a.b == nil {
		return nil
	}
	binary.BigEndian.PutUint32(a.b[12:], uint32(a.n))
	return a.b
}

// y2k is PostgreSQL's epoch of dates and times.
var y2k = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// dateArray is s as date[], an invalid date NULL.
func dateArray(s []pgtype.Date) binArray {
	return arrayOf(s, oidDate, 8*len(s), func(d pgtype.Date) bool { return d.Valid }, func(b []byte, d pgtype.Date) []byte {
		var days int32
		switch d.InfinityModifier {
		case pgtype.Infinity:
			days = math.MaxInt32
		case pgtype.NegativeInfinity:
			days = math.MinInt32
		default:
			t := d.Time
			days = int32((time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC).Unix() - y2k.Unix()) / 86400)
		}
		return binary.BigEndian.AppendUint32(b, uint32(days))
	})
}

// stampArray is s as timestamptz[], an invalid time NULL.
func stampArray(s []pgtype.Timestamptz) binArray {
	return arrayOf(s, oidTimestamptz, 12*len(s), func(t pgtype.Timestamptz) bool { return t.Valid }, func(b []byte, t pgtype.Timestamptz) []byte {
		var us int64
		switch t.InfinityModifier {
		case pgtype.Infinity:
			us = math.MaxInt64
		case pgtype.NegativeInfinity:
			us = math.MinInt64
		default:
			us = t.Time.Unix()*1_000_000 + int64(t.Time.Nanosecond())/1000 - y2k.Unix()*1_000_000
		}
		return binary.BigEndian.AppendUint64(b, uint64(us))
	})
}

// binArrayOf is v as a binArray when it is a slice of a type the projections'
// sets hold, else v.
func binArrayOf(v any) any {
	switch s := v.(type) {
	case []string:
		return textArray(s)
	case []int64:
		return int8Array(s)
	case []int32:
		return int4Array(s)
	case []pgtype.Date:
		return dateArray(s)
	case []pgtype.Timestamptz:
		return stampArray(s)
	}
	return v
}

// binArrayCodec is an array type's codec that also sends a binArray as it is.
type binArrayCodec struct{ pgtype.Codec }

func (c binArrayCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	switch value.(type) {
	case binArray, leadArray:
		if format == pgtype.BinaryFormatCode {
			return binArrayPlan{}
		}
	}
	return c.Codec.PlanEncode(m, oid, format, value)
}

// leadArray is the first binArray of a statement's arguments, with the size
// of all of them (size): pgx encodes a statement's arguments one after the
// other into one buffer, which it keeps only up to 256 bytes from one
// statement to the next, so that without room made at the first array the
// buffer grew and was copied again at each of the statement's arrays (the
// orders' statement has eighteen).
type leadArray struct {
	binArray
	size int
}

// leadArrays marks the first binArray of args (encoded) as leadArray, and
// returns the size of the arrays.
func leadArrays(args []any) int {
	first, size := -1, 0
	for i, a := range args {
		if b, ok := a.(binArray); ok && b != nil {
			if first < 0 {
				first = i
			}
			size += len(b)
		}
	}
	if first >= 0 {
		args[first] = leadArray{args[first].(binArray), size}
	}
	return size
}

type binArrayPlan struct{}

func (binArrayPlan) Encode(value any, buf []byte) ([]byte, error) {
	var a binArray
	switch v := value.(type) {
	case binArray:
		a = v
	case leadArray:
		a, buf = v.binArray, slices.Grow(buf, v.size+256) // 256: the small arguments after it
	}
	if a == nil {
		return nil, nil // NULL
	}
	return append(buf, a...), nil
}

// sendsBinArrays makes m (a connection's) send binArrays until restore is
// called: each array type's codec is wrapped, and does what it did for every
// other value. The connection goes back to the pool with its own codecs
// (pgx's CopyFrom looks for its array codec by its type).
func sendsBinArrays(m *pgtype.Map) (restore func()) {
	var was []*pgtype.Type
	for _, oid := range arrayOIDs {
		t, ok := m.TypeForOID(oid)
		if !ok {
			continue
		}
		if _, done := t.Codec.(binArrayCodec); done {
			continue
		}
		was = append(was, t)
		m.RegisterType(&pgtype.Type{Name: t.Name, OID: t.OID, Codec: binArrayCodec{t.Codec}})
	}
	return func() {
		for _, t := range was {
			m.RegisterType(t)
		}
	}
}
