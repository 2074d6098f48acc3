package store

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// arrayCases are slices of every element type the projections' sets send,
// with the values at the edges of each type: empty and non-ASCII text,
// the extreme numbers, dates and times before and after PostgreSQL's epoch,
// in another zone, with nanoseconds, NULL (invalid) and the infinities.
func arrayCases() []struct {
	name string
	oid  uint32
	s    any
} {
	ist := time.FixedZone("IST", 5*3600+1800)
	return []struct {
		name string
		oid  uint32
		s    any
	}{
		{"text", pgtype.TextArrayOID, []string{"T1-20261124-000001", "", "₹ 1,299 — Café", `quote " and \ backslash`, "{a,b}", "NULL"}},
		{"text one", pgtype.TextArrayOID, []string{"x"}},
		{"int8", pgtype.Int8ArrayOID, []int64{0, 1, -1, 179800, math.MaxInt64, math.MinInt64}},
		{"int4", pgtype.Int4ArrayOID, []int32{0, 1, -1, 1800, math.MaxInt32, math.MinInt32}},
		{"date", pgtype.DateArrayOID, []pgtype.Date{
			{Time: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), Valid: true},
			{},
			{Time: time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC), Valid: true},
			{Time: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), Valid: true},
			{Time: time.Date(2026, 11, 24, 23, 30, 0, 0, ist), Valid: true}, // the day as written, not as in UTC
			{Time: time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), Valid: true},
			{InfinityModifier: pgtype.Infinity, Valid: true},
			{InfinityModifier: pgtype.NegativeInfinity, Valid: true},
		}},
		{"date no NULL", pgtype.DateArrayOID, []pgtype.Date{{Time: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), Valid: true}}},
		{"timestamptz", pgtype.TimestamptzArrayOID, []pgtype.Timestamptz{
			{Time: time.Date(2026, 11, 24, 10, 43, 0, 123456789, time.UTC), Valid: true},
			{},
			{Time: time.Date(2026, 11, 24, 16, 13, 0, 0, ist), Valid: true},
			{Time: time.Date(1999, 12, 31, 23, 59, 59, 999999000, time.UTC), Valid: true},
			{Time: time.Date(1969, 7, 20, 20, 17, 40, 0, time.UTC), Valid: true},
			{InfinityModifier: pgtype.Infinity, Valid: true},
			{InfinityModifier: pgtype.NegativeInfinity, Valid: true},
		}},
		{"timestamptz no NULL", pgtype.TimestamptzArrayOID, []pgtype.Timestamptz{{Time: time.Date(2026, 11, 24, 10, 43, 0, 0, time.UTC), Valid: true}}},
	}
}

// TestBinArraysAreThoseOfPgx: each array the projections encode themselves
// is, byte for byte, the one pgx encodes from the same slice for the same
// type, and nil is NULL.
func TestBinArraysAreThoseOfPgx(t *testing.T) {
	m := pgtype.NewMap()
	for _, c := range arrayCases() {
		t.Run(c.name, func(t *testing.T) {
			want, err := m.Encode(c.oid, pgtype.BinaryFormatCode, c.s, nil)
			require.NoError(t, err)
			got, ok := binArrayOf(c.s).(binArray)
			require.True(t, ok, "binArrayOf(%T) is not a binArray", c.s)
			assert.Equal(t, want, []byte(got))
		})
	}
	for _, s := range []any{[]string(nil), []int64(nil), []int32(nil), []pgtype.Date(nil), []pgtype.Timestamptz(nil)} {
		assert.Nil(t, binArrayOf(s), "binArrayOf(%T(nil))", s)
	}
	assert.Equal(t, 42, binArrayOf(42), "binArrayOf of a value of no array type")
}

// TestBinArraysAsPostgreSQLReadsThem sends each array as the projections
// send it (a binArray through the wrapped codecs) and as pgx sends the slice,
// reads both back from PostgreSQL in its text form, and decodes that text
// with pgx's own text-format decoder: the same text, and the values sent.
func TestBinArraysAsPostgreSQLReadsThem(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	conn, err := db.Pool().Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	m := conn.Conn().TypeMap()
	text := func(sql string, arg any) *string {
		t.Helper()
		var s *string
		require.NoError(t, conn.QueryRow(ctx, sql, arg).Scan(&s))
		return s
	}
	type sent struct {
		name, sql, pgx string
		bin            *string
		s              any
		oid            uint32
	}
	var all []sent
	cases := append(arrayCases(), struct {
		name string
		oid  uint32
		s    any
	}{"text empty", pgtype.TextArrayOID, []string{}})
	for _, c := range cases {
		tn, _ := m.TypeForOID(c.oid)
		sql := "SELECT $1::" + tn.Name[1:] + "[]::text"
		pgxText := text(sql, c.s)
		require.NotNil(t, pgxText, c.name)
		all = append(all, sent{name: c.name, sql: sql, pgx: *pgxText, s: c.s, oid: c.oid})
	}
	restore := sendsBinArrays(m)
	for i, a := range all {
		all[i].bin = text(a.sql, binArrayOf(a.s))
	}
	assert.Nil(t, text("SELECT $1::int8[]::text", binArrayOf([]int64(nil))), "a nil slice is NULL")
	restore()

	for _, a := range all {
		t.Run(a.name, func(t *testing.T) {
			require.NotNil(t, a.bin)
			assert.Equal(t, a.pgx, *a.bin, "%s: PostgreSQL's text of the binArray and of pgx's array", a.sql)
			switch want := a.s.(type) {
			case []string:
				var got []string
				require.NoError(t, m.Scan(a.oid, pgtype.TextFormatCode, []byte(*a.bin), &got))
				assert.Equal(t, want, got)
			case []int64:
				var got []int64
				require.NoError(t, m.Scan(a.oid, pgtype.TextFormatCode, []byte(*a.bin), &got))
				assert.Equal(t, want, got)
			case []int32:
				var got []int32
				require.NoError(t, m.Scan(a.oid, pgtype.TextFormatCode, []byte(*a.bin), &got))
				assert.Equal(t, want, got)
			case []pgtype.Date:
				var got []pgtype.Date
				require.NoError(t, m.Scan(a.oid, pgtype.TextFormatCode, []byte(*a.bin), &got))
				require.Len(t, got, len(want))
				for i, d := range want {
					assert.Equal(t, d.Valid, got[i].Valid, "element %d", i)
					assert.Equal(t, d.InfinityModifier, got[i].InfinityModifier, "element %d", i)
					if d.Valid && d.InfinityModifier == pgtype.Finite {
						assert.Equal(t, d.Time.Format(time.DateOnly), got[i].Time.Format(time.DateOnly), "element %d", i)
					}
				}
			case []pgtype.Timestamptz:
				var got []pgtype.Timestamptz
				require.NoError(t, m.Scan(a.oid, pgtype.TextFormatCode, []byte(*a.bin), &got))
				require.Len(t, got, len(want))
				for i, s := range want {
					assert.Equal(t, s.Valid, got[i].Valid, "element %d", i)
					assert.Equal(t, s.InfinityModifier, got[i].InfinityModifier, "element %d", i)
					if s.Valid && s.InfinityModifier == pgtype.Finite {
						assert.True(t, s.Time.Truncate(time.Microsecond).Equal(got[i].Time), "element %d: %v; want %v", i, got[i].Time, s.Time)
					}
				}
			default:
				t.Fatalf("no check of %T", a.s)
			}
		})
	}
}

// TestJSONArrayIsTheTextArrayOfTheValuesJSON: values marshalled into a
// jsonArray, some through a seal that gives back new bytes and some through
// one that gives back its argument, make the text[] of their json.Marshal
// (sealed where sealed), and nothing added is NULL.
func TestJSONArrayIsTheTextArrayOfTheValuesJSON(t *testing.T) {
	var none jsonArray
	assert.Nil(t, none.array())

	seal := func(js []byte) ([]byte, error) { return append([]byte(`{"sealed":`), append(js, '}')...), nil }
	same := func(js []byte) ([]byte, error) { return js, nil }
	values := []struct {
		v    any
		seal func([]byte) ([]byte, error)
	}{
		{map[string]any{"id": "T1-20261124-000001", "amount": 179800}, nil},
		{map[string]any{"buyer": map[string]string{"name": "A <&> B"}}, seal},
		{[]int{1, 2, 3}, same},
		{"₹ 1,299", nil},
		{map[string]any{"lines": []string{strings.Repeat("x", 3000)}}, seal}, // past the room made
	}
	var a jsonArray
	var want []string
	for _, v := range values {
		require.NoError(t, a.add(v.v, v.seal, 2))
		js, err := json.Marshal(v.v)
		require.NoError(t, err)
		if v.seal != nil {
			js, _ = v.seal(js)
		}
		want = append(want, string(js))
	}
	assert.Equal(t, []byte(textArray(want)), []byte(a.array()))

	var bad jsonArray
	require.Error(t, bad.add(func() {}, nil, 1), "a value json cannot marshal")
	require.NoError(t, bad.add(1, nil, 1))
	assert.Equal(t, []byte(textArray([]string{"1"})), []byte(bad.array()), "the refused value left nothing")
}
