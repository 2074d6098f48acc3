package store

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"galla/store/api"
)

// The store's request decoders read bytes a terminal (or anyone holding a
// counter's credential) chose. These fuzz targets hold them to what the handlers
// rely on: no input panics them, and what they accept has the shape the
// database code assumes. `go test -fuzz FuzzCheckBatch ./store` runs one for
// longer; `make test` runs each over its seeds.

const (
	fuzzHashA = "1111111111111111111111111111111111111111111111111111111111111111"
	fuzzHashB = "2222222222222222222222222222222222222222222222222222222222222222"
	fuzzHashC = "3333333333333333333333333333333333333333333333333333333333333333"
)

// FuzzCheckBatch: a batch that decodes and that checkBatch accepts runs in
// sequence without a gap, chains each event to the one before it, carries
// 32-byte hashes and a body that is a JSON object, and holds at most
// api.MaxBatch events.
func FuzzCheckBatch(f *testing.F) {
	good, err := json.Marshal(api.Batch{TerminalID: "T1", Events: []api.Event{
		{Seq: 1, Hash: fuzzHashB, PrevHash: fuzzHashA, Kind: "order.created", Day: "2026-11-26", Body: json.RawMessage(`{"seq":1}`)},
		{Seq: 2, Hash: fuzzHashC, PrevHash: fuzzHashB, Kind: "order.paid", Body: json.RawMessage(`{"seq":2}`)},
	}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"terminal_id":"T1","events":[{"seq":1,"hash":"zz","prev_hash":"","kind":"x","body":{}}]}`))
	f.Add([]byte(`{"terminal_id":"T1","events":[{"seq":2,"hash":"` + fuzzHashA + `","prev_hash":"` + fuzzHashA + `","kind":"k","day":"2026-13-40","body":[]}]}`))
	f.Add([]byte(`{"events":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var b api.Batch
		if json.Unmarshal(data, &b) != nil {
			return
		}
		rows, err := checkBatch(b.Events)
		if err != nil {
			if !isSentence(err.Error()) {
				t.Fatalf("checkBatch refused %q with %q: not a sentence a manager can read", data, err)
			}
			return
		}
		if len(rows) != len(b.Events) || len(rows) > api.MaxBatch {
			t.Fatalf("checkBatch accepted %d events as %d rows (at most %d)", len(b.Events), len(rows), api.MaxBatch)
		}
		for i, r := range rows {
			if len(r.hash) != 32 || len(r.prev) != 32 {
				t.Fatalf("event %d accepted with a hash of %d bytes and a prev_hash of %d", r.seq, len(r.hash), len(r.prev))
			}
			if r.seq == 0 || r.kind == "" || len(r.kind) > 64 {
				t.Fatalf("event %d accepted with kind %q", r.seq, r.kind)
			}
			if len(r.body) < 2 || r.body[0] != '{' || r.body[len(r.body)-1] != '}' {
				t.Fatalf("event %d accepted with the body %q", r.seq, r.body)
			}
			if i > 0 && (r.seq != rows[i-1].seq+1 || !bytes.Equal(r.prev, rows[i-1].hash)) {
				t.Fatalf("event %d accepted after event %d without following it", r.seq, rows[i-1].seq)
			}
		}
	})
}

// isSentence: a refusal the terminal shows is words, not a Go value dump.
func isSentence(s string) bool { return s != "" && !strings.Contains(s, "%!") }

// FuzzDecodeStrict: every signed request the store decodes strictly (the
// store-wide reservations, the invoice and returned-elsewhere questions, the
// master data request) either is refused with a sentence or decodes to a value
// that encodes and decodes again to itself; nothing panics.
func FuzzDecodeStrict(f *testing.F) {
	for _, seed := range []string{
		`{"order_id":"T1-1","imeis":["356938035643809"]}`,
		`{"number":"T1/C2627/00001","value":49900}`,
		`{"number":"T1/C2627/00001","amount":100,"order_id":"T2-9"}`,
		`{"order_id":"T2-9"}`,
		`{"document":"T1/2627/000001"}`,
		`{"since":0}`,
		`{"unknown":1}`,
		`{"order_id":"a"} {"order_id":"b"}`,
		`{"imeis":[1,2,3]}`,
		``,
	} {
		f.Add([]byte(seed))
	}
	kinds := []func() any{
		func() any { return new(api.ReserveIMEI) },
		func() any { return new(api.IssueCreditNote) },
		func() any { return new(api.ReserveCreditNote) },
		func() any { return new(api.ReserveReturn) },
		func() any { return new(api.Release) },
		func() any { return new(api.InvoiceRequest) },
		func() any { return new(api.ReturnedElsewhereRequest) },
		func() any { return new(api.MasterRequest) },
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mk := range kinds {
			v := mk()
			if err := decodeStrict(data, v); err != nil {
				var ae *api.Error
				if !asAPIError(err, &ae) || ae.Code == "" || !isSentence(ae.Message) {
					t.Fatalf("decodeStrict(%q, %T) refused with %v: not the store's refusal", data, v, err)
				}
				continue
			}
			again, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("%T decoded from %q does not encode: %v", v, data, err)
			}
			w := mk()
			if err := decodeStrict(again, w); err != nil {
				t.Fatalf("%T decoded from %q, encoded as %s, is refused: %v", v, data, again, err)
			}
			if !reflect.DeepEqual(v, w) {
				t.Fatalf("%T: %q decodes to %+v, its encoding to %+v", v, data, v, w)
			}
		}
	})
}

func asAPIError(err error, ae **api.Error) bool {
	e, ok := err.(*api.Error)
	if ok {
		*ae = e
	}
	return ok
}
