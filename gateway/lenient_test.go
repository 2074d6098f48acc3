package gateway

import (
	"encoding/json"
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
