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

// arrayHeader starts an array of n elements of the type elem, with or
// without NULLs, with room for size more bytes.
func arrayHeader(n int, elem uint32, nulls bool, size int) binArray {
	b := make([]byte, 0, 20+size)
	b = binary.BigEndian.AppendUint32(b, 1) // dimensions
	var hasNull uint32
	if nulls {
		hasNull = 1
	}
	b = binary.BigEndian.AppendUint32(b, hasNull)
	b = binary.BigEndian.AppendUint32(b, elem)
	b = binary.BigEndian.AppendUint32(b, uint32(n)) // the dimension's length
	b = binary.BigEndian.AppendUint32(b, 1)         // its lower bound
	return b
}

// textArray is s as text[].
func textArray(s []string) binArray {
	if s == nil {
		return nil
	}
	size := 4 * len(s)
	for _, v := range s {
		size += len(v)
	}
	b := arrayHeader(len(s), oidText, false, size)
	for _, v := range s {
		b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	return b
}

// int8Array is s as int8[].
func int8Array(s []int64) binArray {
	if s == nil {
		return nil
	}
	b := arrayHeader(len(s), oidInt8, false, 12*len(s))
	for _, v := range s {
		b = binary.BigEndian.AppendUint32(b, 8)
		b = binary.BigEndian.AppendUint64(b, uint64(v))
	}
	return b
}

// int4Array is s as int4[].
func int4Array(s []int32) binArray {
	if s == nil {
		return nil
	}
	b := arrayHeader(len(s), oidInt4, false, 8*len(s))
	for _, v := range s {
		b = binary.BigEndian.AppendUint32(b, 4)
		b = binary.BigEndian.AppendUint32(b, uint32(v))
	}
	return b
}

// y2k is PostgreSQL's epoch of dates and times.
var y2k = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// dateArray is s as date[], an invalid date NULL.
func dateArray(s []pgtype.Date) binArray {
	if s == nil {
		return nil
	}
	nulls := false
	for _, d := range s {
		nulls = nulls || !d.Valid
	}
	b := arrayHeader(len(s), oidDate, nulls, 8*len(s))
	for _, d := range s {
		if !d.Valid {
			b = binary.BigEndian.AppendUint32(b, math.MaxUint32) // -1: NULL
			continue
		}
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
		b = binary.BigEndian.AppendUint32(b, 4)
		b = binary.BigEndian.AppendUint32(b, uint32(days))
	}
	return b
}

// stampArray is s as timestamptz[], an invalid time NULL.
func stampArray(s []pgtype.Timestamptz) binArray {
	if s == nil {
		return nil
	}
	nulls := false
	for _, t := range s {
		nulls = nulls || !t.Valid
	}
	b := arrayHeader(len(s), oidTimestamptz, nulls, 12*len(s))
	for _, t := range s {
		if !t.Valid {
			b = binary.BigEndian.AppendUint32(b, math.MaxUint32) // -1: NULL
			continue
		}
		var us int64
		switch t.InfinityModifier {
		case pgtype.Infinity:
			us = math.MaxInt64
		case pgtype.NegativeInfinity:
			us = math.MinInt64
		default:
			us = t.Time.Unix()*1_000_000 + int64(t.Time.Nanosecond())/1000 - y2k.Unix()*1_000_000
		}
		b = binary.BigEndian.AppendUint32(b, 8)
		b = binary.BigEndian.AppendUint64(b, uint64(us))
	}
	return b
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
