package store

import (
	"encoding/json"
	"reflect"
	"testing"

	"galla/pos"
)

// decoderCorpus is bodies of events as counters journal them (a day of
// sales: card and cash sales, phones with IMEIs, buyers, refunds; a shift;
// a day closed with its sealed report), and bodies no counter writes but a
// decoder may read differently: keys in another case or twice, values of
// the wrong type, numbers out of range, invalid UTF-8 and lone surrogates,
// raw data with its whitespace, trailing bytes, JSON that is not an object.
func decoderCorpus(t testing.TB) (events, odd [][]byte) {
	c := newCounter(t, "T1")
	for _, e := range daySales(c, 1000) {
		events = append(events, e.Body)
	}
	c.shiftEvent(pos.EvShiftOpened, day1, "meera", pos.ShiftRecord{ID: "S1", Float: pos.Rupees(2000)})
	c.closeDay(day1, 1)
	for _, e := range c.sent() {
		events = append(events, e.Body)
	}
	for _, s := range []string{
		`{}`, `null`, `[]`, `"order.intent"`, `12`, ``, `{`, `{"seq":1}{"seq":2}`, `{"seq":1} `, ` {"seq":1}`,
		`{"seq":1,"seq":2}`, `{"kind":"order.intent","KIND":"cash.received"}`, `{"Order_ID":"O-1","order_id":"O-2"}`,
		`{"seq":-1}`, `{"seq":1.5}`, `{"seq":"1"}`, `{"seq":18446744073709551616}`, `{"v":1e3}`, `{"v":2147483648}`,
		`{"receipt_no":null}`, `{"intent":null}`, `{"intent":{"lines":null}}`, `{"zzz":{"a":[1,2,{"b":null}]}}`,
		`{"time":"2026-11-24T10:00:00+05:30"}`, `{"time":"2026-11-24T10:00:00Z"}`, `{"time":"2026-11-24T10:00:00.123456789-07:00"}`,
		`{"time":"not a time"}`, `{"time":null}`, `{"time":12}`, `{"time":"2026-11-24"}`,
		"{\"order_id\":\"\xff\xfe\"}", `{"order_id":"\u00e9\ud800x"}`, `{"order_id":"\ud83d\ude00"}`, `{"order_id":"a\u0000b"}`,
		`{"data": {"a" : [1, 2 ]} , "seq":3}`, `{"data":null}`, `{"data":"x"}`, `{"data":[ ]}`,
		`{"extra":{"a":"b","a":"c"}}`, `{"extra":{"a":1}}`, `{"extra":null}`, `{"imeis":["1",null,"2"]}`, `{"imeis":"1"}`,
		`{"kind":"order.intent","order_id":"O-1","intent":{"tender":"CASH","lines":[{"sku":"A","qty":1,"unit_price":100,"gst_rate":18}],"amount":118}}`,
		`{"intent":{"lines":[{"gst_rate":"18"}]}}`, `{"intent":{"lines":[{"gst_rate":0.25}]}}`, `{"intent":{"lines":[{"gst_rate":1000.5}]}}`,
		`{"intent":{"lines":[{"gst_rate":null}]}}`, `{"intent":{"lines":[{"gst_rate":1e400}]}}`, `{"intent":{"lines":[{"gst_rate": 18 }]}}`,
		`{"refund":{"amount":-5}}`, `{"outcome":{"captured":9223372036854775808}}`, `{"cash":{"tendered":true}}`,
		`{"day_close":{"report":{"x":1}}}`, `{"setting":{}}`, `{"sale":{"tenders":[{}]}}`,
	} {
		odd = append(odd, []byte(s))
	}
	return events, odd
}

// decodeEventJSON decodes body as the projector did before decodeEvent, with
// encoding/json.
func decodeEventJSON(body []byte) *pos.Event {
	var ev pos.Event
	if json.Unmarshal(body, &ev) != nil {
		return nil
	}
	return &ev
}

// sameDecoding fails t unless decodeEvent decodes body as encoding/json does:
// both refuse it, or both give the same event.
func sameDecoding(t *testing.T, body []byte) {
	t.Helper()
	want, got := decodeEventJSON(body), decodeEvent(body)
	switch {
	case want == nil && got == nil:
	case want == nil:
		t.Fatalf("decodeEvent took %q, which encoding/json refuses, as %+v", body, got)
	case got == nil:
		t.Fatalf("decodeEvent refused %q, which encoding/json decodes as %+v", body, want)
	case !reflect.DeepEqual(want, got):
		t.Fatalf("decodeEvent decoded %q as\n%+v\nencoding/json as\n%+v", body, got, want)
	}
}

// TestEventDecoderAgreesWithEncodingJSON: the projector's decoder
// (decodeEvent, github.com/go-json-experiment/json in its encoding/json mode)
// decodes every event a counter journals, and every odd body of the corpus,
// exactly as encoding/json does.
func TestEventDecoderAgreesWithEncodingJSON(t *testing.T) {
	events, odd := decoderCorpus(t)
	kinds := map[pos.EventKind]bool{}
	for _, body := range events {
		sameDecoding(t, body)
		ev := decodeEventJSON(body)
		if ev == nil {
			t.Fatalf("a counter's event does not decode: %q", body)
		}
		kinds[ev.Kind] = true
	}
	if len(events) < 900 || len(kinds) < 8 {
		t.Fatalf("the corpus holds %d events of %d kinds: too few", len(events), len(kinds))
	}
	for _, body := range odd {
		sameDecoding(t, body)
	}
}

// FuzzEventDecoder: decodeEvent decodes any body as encoding/json does.
func FuzzEventDecoder(f *testing.F) {
	events, odd := decoderCorpus(f)
	kinds := map[pos.EventKind]bool{}
	for _, body := range events { // one event of each kind
		if ev := decodeEventJSON(body); ev != nil && !kinds[ev.Kind] {
			kinds[ev.Kind] = true
			f.Add(body)
		}
	}
	for _, body := range odd {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body []byte) { sameDecoding(t, body) })
}
