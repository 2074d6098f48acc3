package gateway

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type lenientSample struct {
	S    string          `json:"s"`
	N    int64           `json:"n"`
	I    int             `json:"i"`
	B    bool            `json:"b"`
	P    *string         `json:"p"`
	L    []int64         `json:"l"`
	O    struct{ X int } `json:"o"`
	R    json.RawMessage `json:"r"`
	Skip string          `json:"-"`
}

func TestDecodeLenient(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name string
		in   string
		want lenientSample
	}{
		{"exact types", `{"s":"a","n":5,"i":-2,"b":true,"p":"q","l":[1,2],"o":{"X":3},"r":{"k":1}}`,
			lenientSample{S: "a", N: 5, I: -2, B: true, P: str("q"), L: []int64{1, 2}, O: struct{ X int }{3}, R: json.RawMessage(`{"k":1}`)}},
		{"numbers as strings", `{"n":"5","i":" 7 ","l":["1","2"],"o":{"X":"3"}}`,
			lenientSample{N: 5, I: 7, L: []int64{1, 2}, O: struct{ X int }{3}}},
		{"strings as numbers", `{"s":12345678,"p":4011}`, lenientSample{S: "12345678", P: str("4011")}},
		{"NA everywhere", `{"s":"NA","n":"NA","i":"na","b":"NA","l":"NA","o":"NA"}`, lenientSample{}},
		{"nulls", `{"s":null,"n":null,"b":null,"l":null,"o":null,"r":null}`, lenientSample{R: json.RawMessage(`null`)}},
		{"zero fraction", `{"n":"100.00","i":7.0}`, lenientSample{N: 100, I: 7}},
		{"bools as text and digits", `{"b":"true"}`, lenientSample{B: true}},
		{"bool as 1", `{"b":1}`, lenientSample{B: true}},
		{"case-insensitive key", `{"S":"x","N":2}`, lenientSample{S: "x", N: 2}},
		{"unknown fields and skipped", `{"zzz":[1,{"a":2}],"Skip":"no","-":"no"}`, lenientSample{}},
		{"empty string number", `{"n":""}`, lenientSample{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got lenientSample
			require.NoError(t, decodeLenient([]byte(tt.in), &got))
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDecodeLenientRejects(t *testing.T) {
	for _, in := range []string{
		``, `{`, `[]`, `"x"`, `{"n":1.5}`, `{"n":"1.5"}`, `{"n":"abc"}`, `{"n":{}}`, `{"n":true}`,
		`{"n":99999999999999999999}`, `{"i":1e3}`, `{"s":{}}`, `{"s":[1]}`, `{"b":"maybe"}`,
		`{"l":{}}`, `{"l":["x"]}`, `{"o":[1]}`, `{"o":"text"}`, `{"n":"-"}`, `{"n":".5"}`,
	} {
		var got lenientSample
		assert.Error(t, decodeLenient([]byte(in), &got), "decodeLenient(%s)", in)
	}
	assert.Error(t, decodeLenient([]byte(`{}`), lenientSample{}), "not a pointer")
}

func TestDecodeLenientDepth(t *testing.T) {
	type node struct {
		Next *node `json:"next"`
	}
	deep := ""
	for range 100 {
		deep += `{"next":`
	}
	deep += "null"
	for range 100 {
		deep += "}"
	}
	var n node
	assert.Error(t, decodeLenient([]byte(deep), &n))
}

// lenientProbe is a struct of every kind decodeLenient fills.
type lenientProbe struct {
	Name   string `json:"name"`
	Amount int64  `json:"amount"`
	OK     bool   `json:"ok"`
	Inner  struct {
		Code string `json:"code"`
		N    int    `json:"n"`
	} `json:"inner"`
	Items []struct {
		ID string `json:"id"`
	} `json:"items"`
	Plain string
}

// On an answer encoding/json reads into the same struct, decodeLenient reads
// the same values: member names escaped, repeated, in another case, values
// nested, spaces anywhere.
func FuzzLenientMatchesJSON(f *testing.F) {
	f.Add([]byte(`{"name":"a","amount":5,"ok":true,"inner":{"code":"X","n":2},"items":[{"id":"1"},{"id":"2"}],"Plain":"p"}`))
	f.Add([]byte(`{"\u006eame":"escaped name","NAME":"folded","name":"last wins"}`))
	f.Add([]byte(`{"Name":"only folded","AMOUNT":7,"plain":"q"}`))
	f.Add([]byte(` { "inner" : { "code" : "a\"b" , "n" : -3 } , "items" : [ ] } `))
	f.Add([]byte(`{"na\u00e9me":"x","name":"\u00e9t\u00e9"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var want lenientProbe
		if json.Unmarshal(data, &want) != nil {
			return
		}
		var got lenientProbe
		if err := decodeLenient(data, &got); err != nil {
			t.Fatalf("encoding/json read %q, decodeLenient refused it: %v", data, err)
		}
		if !reflect.DeepEqual(normalProbe(want), normalProbe(got)) {
			t.Fatalf("%q: encoding/json read %+v, decodeLenient %+v", data, want, got)
		}
	})
}

// normalProbe is p with the differences the two decoders are meant to have
// left out: NA is empty text to decodeLenient, and an empty list is no list.
func normalProbe(p lenientProbe) lenientProbe {
	for _, s := range []*string{&p.Name, &p.Plain, &p.Inner.Code} {
		if isNA(*s) {
			*s = ""
		}
	}
	for i := range p.Items {
		if isNA(p.Items[i].ID) {
			p.Items[i].ID = ""
		}
	}
	if len(p.Items) == 0 {
		p.Items = nil
	}
	return p
}

// hasMember answers as a map decoded by encoding/json has the key, and
// memberText as decodeLenient reads the member into a *string, which is what
// decodeInquiry and decodeCoded asked before.
func FuzzMemberProbes(f *testing.F) {
	f.Add([]byte(`{"order_data":{},"response_code":"1"}`))
	f.Add([]byte(`{"order\u005fdata":1,"RESPONSE_CODE":"NA"}`))
	f.Add([]byte(`{"Order_Data":1,"response_code":null}`))
	f.Add([]byte(`{"response_code":12,"response_code":"x"}`))
	f.Add([]byte(`"NA"`))
	f.Add([]byte(`[{"order_data":1}]`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		var m map[string]json.RawMessage
		_, want := m["order_data"]
		if json.Unmarshal(data, &m) == nil {
			_, want = m["order_data"]
		}
		if got := hasMember(data, "order_data"); got != want {
			t.Fatalf("%q: hasMember %v, the map %v", data, got, want)
		}
		var probe struct {
			ResponseCode *string `json:"response_code"`
		}
		err := decodeLenient(data, &probe)
		wantOK := err == nil && probe.ResponseCode != nil
		text, ok := memberText(data, "response_code")
		if ok != wantOK || (ok && text != *probe.ResponseCode) {
			t.Fatalf("%q: memberText %q %v, decodeLenient %v %v", data, text, ok, probe.ResponseCode, err)
		}
	})
}
