package journal

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestOrderJSONMatchesMarshal checks that appendOrderJSON writes json.Marshal's
// bytes: for every state of every order of the test scripts' days (card, cash,
// unknown, refunded, stale, a named buyer's, EMI and phone sales, a busy day),
// for an order with every field of every type it holds set (so that a field
// added to Order, Line, Totals, RateTotal, Attempt or Customer and not to the encoder
// fails here), for the zero order, and for strings json escapes. Along the
// way, ApplyInPlace gives what Apply gives.
func TestOrderJSONMatchesMarshal(t *testing.T) {
	checked := 0 // orders json.Marshal encodes: the others must fail too
	check := func(t *testing.T, o *pos.Order, what string) {
		t.Helper()
		want, wantErr := json.Marshal(o)
		got, err := marshalOrder(o)
		if wantErr != nil {
			assert.Error(t, err, what)
			return
		}
		require.NoError(t, err, what)
		checked++
		assert.Equal(t, string(want), string(got), what)
	}

	t.Run("the scripts' orders", func(t *testing.T) {
		var s script
		evs := s.representative(t)
		evs = append(evs, buyerEvents(t, &s)...)
		evs = append(evs, s.busyDay("2026-11-23", 40, 2)...)
		evs = append(evs, s.emiSale("G-EMI-1", "2026-11-24", 4999900)...)
		orders := map[string]*pos.Order{}
		states := 0
		for i, ev := range evs {
			if !ev.Kind.IsOrderEvent() {
				continue
			}
			ev.Seq = uint64(i + 1)
			o := orders[ev.OrderID]
			if o == nil {
				o = new(pos.Order)
				orders[ev.OrderID] = o
			}
			// ApplyInPlace, which derive uses, makes what Apply makes, and
			// refuses what it refuses.
			in := o.Clone()
			errIn := in.ApplyInPlace(ev)
			err := o.Apply(ev)
			assert.Equal(t, fmt.Sprint(err), fmt.Sprint(errIn), "%s of %s", ev.Kind, ev.OrderID)
			if err == nil {
				assert.Equal(t, o, in, "%s of %s", ev.Kind, ev.OrderID)
				states++
				check(t, o, string(ev.Kind)+" of "+ev.OrderID)
			}
		}
		require.Greater(t, states, 200)
	})

	t.Run("every field set", func(t *testing.T) {
		var o pos.Order
		for n := 1; n <= 3; n++ { // n elements in each slice, other values
			fill(reflect.ValueOf(&o).Elem(), n)
			before := checked
			check(t, &o, fmt.Sprintf("every field set (%d)", n))
			require.Equal(t, before+1, checked, "json.Marshal encodes the filled order")
		}
	})

	t.Run("empty and zero", func(t *testing.T) {
		check(t, &pos.Order{}, "zero order")
		check(t, &pos.Order{Lines: []pos.Line{}, Totals: pos.Totals{ByRate: []pos.RateTotal{}}, Attempts: []pos.Attempt{}, IMEIs: []string{}}, "empty slices")
		check(t, &pos.Order{Lines: []pos.Line{{}}, Totals: pos.Totals{ByRate: []pos.RateTotal{{}}}, Attempts: []pos.Attempt{{}}, Customer: &pos.Customer{}}, "zero elements")
		check(t, &pos.Order{Customer: &pos.Customer{Email: "a@b"}}, "a customer's email only")
		check(t, &pos.Order{Customer: &pos.Customer{Mobile: "9876543210", Email: "a@b"}}, "no country code")
	})

	t.Run("strings json escapes and times", func(t *testing.T) {
		for _, s := range jsonEscapeCases {
			o := pos.Order{ID: s, Staff: s, Lines: []pos.Line{{Name: s, IMEIs: []string{s}}}, Attempts: []pos.Attempt{{Reason: s}}}
			check(t, &o, s)
		}
		for _, tm := range jsonTimeCases {
			check(t, &pos.Order{Opened: tm, PaidAt: tm, Attempts: []pos.Attempt{{Started: tm}}}, tm.String())
		}
	})
}

// jsonEscapeCases are strings encoding/json escapes or replaces: the hand
// written encoders (appendOrderJSON, appendEventJSON) must write them as it
// does.
var jsonEscapeCases = []string{`a"b`, `a\b`, "<b>&", "tab\there", "\x00\x1f\x7f", "\b\f\n\r/'", "https://shop.example/return?order=G-1&x=<y>", "नमस्ते", "\u2028\u2029", "bad \xff utf-8", "é"}

// jsonTimeCases are times time.Time.MarshalJSON writes in its own ways (zones,
// nanoseconds) or refuses (years outside 0–9999, offsets of a day).
var jsonTimeCases = []time.Time{
	{},
	time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC),
	time.Date(2026, 11, 27, 12, 0, 0, 120000000, time.FixedZone("IST", 5*3600+1800)),
	time.Date(2026, 11, 27, 12, 0, 0, 1, time.FixedZone("", -7*3600)),
	time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600)),
	time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 23*3600+59*60+30)),
}

// fill sets every settable field of v, recursively, to a value other than its
// zero one made from n: strings, numbers, bools, times, rates, a slice of n
// elements and a pointer to a filled value.
func fill(v reflect.Value, n int) {
	switch v.Type() {
	case reflect.TypeFor[json.RawMessage]():
		v.SetBytes(fmt.Appendf(nil, `{"n":%d}`, n))
		return
	case reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Date(2026, 11, 20+n, 10, n, 3, 500*n, time.FixedZone("IST", 5*3600+1800))))
		return
	case reflect.TypeFor[pos.Rate]():
		r, err := pos.ParseRate([]string{"18", "0.25", "1.5"}[n%3])
		if err != nil {
			panic(err)
		}
		v.Set(reflect.ValueOf(r))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("s" + string(rune('0'+n)) + v.Type().Name())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(100*n + 7))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(100*n + 9))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(s.Index(i), n+i)
		}
		v.Set(s)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), n)
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, n)
		fill(e, n)
		m.SetMapIndex(k, e)
		v.Set(m)
	}
}
