package store

import (
	"encoding/binary"
	"math"
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
	if _, ok := value.(binArray); ok && format == pgtype.BinaryFormatCode {
		return binArrayPlan{}
	}
	return c.Codec.PlanEncode(m, oid, format, value)
}

type binArrayPlan struct{}

func (binArrayPlan) Encode(value any, buf []byte) ([]byte, error) {
	a := value.(binArray)
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
