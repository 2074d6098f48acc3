package gstr

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// schema compiles testdata/gstr1.schema.json, the shape of the GSTN offline
// tool's GSTR-1 JSON written for Galla (docs/gstr1.md, Schema source).
func schema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/gstr1.schema.json")
	require.NoError(t, err)
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("gstr1.schema.json", doc))
	s, err := c.Compile("gstr1.schema.json")
	require.NoError(t, err)
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, raw []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	return s.Validate(v)
}

// TestReturnsMatchTheSchema: every return the tests build (a month with every
// section, the nil and exempt month, a quarter, an IFF, a month before May 2025
// with one HSN table) is valid against the schema; and the schema is not
// empty: it refuses a return with an amount as text, IGST beside CGST, a date
// written the ISO way, or an unknown field.
func TestReturnsMatchTheSchema(t *testing.T) {
	s := schema(t)
	month := Month{Year: 2026, Month: time.July}
	q, err := ParseQuarter("2026-Q3")
	require.NoError(t, err)
	build := map[string]func() (*Return, error){
		"july 2026": func() (*Return, error) { return GSTR1(month, shopGSTIN, july2026()) },
		"quarter":   func() (*Return, error) { return GSTR1Period(q, shopGSTIN, quarter(), false) },
		"after iff": func() (*Return, error) { return GSTR1Period(q, shopGSTIN, quarter(), true) },
		"iff":       func() (*Return, error) { return IFF(month, shopGSTIN, quarter()) },
		"april 2025": func() (*Return, error) {
			return GSTR1(Month{Year: 2025, Month: time.April}, shopGSTIN, shifted(july2026(), -15))
		},
	}
	for name, f := range build {
		r, err := f()
		require.NoError(t, err, name)
		raw, err := json.Marshal(r)
		require.NoError(t, err, name)
		assert.NoError(t, validate(t, s, raw), "%s: %s", name, raw)
	}
	require.NoError(t, validate(t, s, []byte(july2026Return)), "the hand-written return")

	for name, bad := range map[string]string{
		"amount as text":   `{"gstin":"27AAPFU0939F1ZV","fp":"072026","version":"GST3.0.4","hash":"hash","b2cs":[{"sply_ty":"INTRA","pos":"27","typ":"OE","rt":18,"txval":"500.00","camt":45,"samt":45,"csamt":0}]}`,
		"IGST beside CGST": `{"gstin":"27AAPFU0939F1ZV","fp":"072026","version":"GST3.0.4","hash":"hash","b2cs":[{"sply_ty":"INTRA","pos":"27","typ":"OE","rt":18,"txval":500,"iamt":90,"camt":45,"samt":45,"csamt":0}]}`,
		"ISO date":         `{"gstin":"27AAPFU0939F1ZV","fp":"072026","version":"GST3.0.4","hash":"hash","b2cl":[{"pos":"29","inv":[{"inum":"T1/1","idt":"2026-07-10","val":118000,"itms":[{"num":1,"itm_det":{"rt":18,"txval":100000,"iamt":18000,"csamt":0}}]}]}]}`,
		"unknown field":    `{"gstin":"27AAPFU0939F1ZV","fp":"072026","version":"GST3.0.4","hash":"hash","extra":1}`,
		"three decimals":   `{"gstin":"27AAPFU0939F1ZV","fp":"072026","version":"GST3.0.4","hash":"hash","b2cs":[{"sply_ty":"INTRA","pos":"27","typ":"OE","rt":18,"txval":500.005,"camt":45,"samt":45,"csamt":0}]}`,
		"month 13":         `{"gstin":"27AAPFU0939F1ZV","fp":"132026","version":"GST3.0.4","hash":"hash"}`,
	} {
		assert.Error(t, validate(t, s, []byte(bad)), name)
	}
}

// shifted moves every document's date by months.
func shifted(docs []Document, months int) []Document {
	for i := range docs {
		docs[i].Date = docs[i].Date.AddDate(0, months, 0)
		docs[i].OriginalDate = docs[i].OriginalDate.AddDate(0, months, 0)
	}
	return docs
}
