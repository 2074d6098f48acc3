package irp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/irp"
)

// nicSchema is testdata/inv01-v1.1.schema.json (NIC's published INV-01 v1.1,
// testdata/SOURCE.md) turned into a draft-07 JSON Schema by the rules SOURCE.md
// lists: the top-level blocks become properties of an object, the array blocks
// (ItemList, PrecDocDtls) become arrays of their objects, PrecDocDtls' required
// list moves from among RefDtls' properties into it, and every "type" is
// lowercase. No constraint of NIC's is changed or dropped.
func nicSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile("testdata/inv01-v1.1.schema.json")
	require.NoError(t, err)
	var nic map[string]any
	require.NoError(t, json.Unmarshal(raw, &nic))

	required := nic["required"]
	delete(nic, "required")
	items := nic["ItemList"].(map[string]any)
	nic["ItemList"] = map[string]any{"type": "array", "minItems": 1, "items": map[string]any{
		"type": "object", "properties": items["properties"], "required": items["required"]}}
	ref := nic["RefDtls"].(map[string]any)["properties"].(map[string]any)
	prec := ref["PrecDocDtls"].(map[string]any)
	prec["required"] = ref["required"]
	delete(ref, "required")
	ref["PrecDocDtls"] = map[string]any{"type": "array", "items": prec}
	doc := map[string]any{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": nic, "required": required}
	lowerTypes(doc)

	b, err := json.Marshal(doc)
	require.NoError(t, err)
	parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("inv01.json", parsed))
	s, err := c.Compile("inv01.json")
	require.NoError(t, err)
	return s
}

func lowerTypes(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "type" {
				x[k] = strings.ToLower(s)
				continue
			}
			lowerTypes(e)
		}
	case []any:
		for _, e := range x {
			lowerTypes(e)
		}
	}
}

func validate(t *testing.T, s *jsonschema.Schema, b []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	return s.Validate(v)
}

func TestBuildMatchesTheINV01Schema(t *testing.T) {
	s := nicSchema(t)
	for _, tc := range []struct {
		name string
		doc  irp.Document
	}{
		{"intra-state invoice", invoiceDoc()},
		{"inter-state credit note", creditNoteDoc()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := mustBuild(t, tc.doc)
			assert.NoError(t, validate(t, s, inv.JSON()))
		})
	}
}

// TestSchemaRefusesBrokenInvoices proves the schema check can fail: each broken
// field is refused.
func TestSchemaRefusesBrokenInvoices(t *testing.T) {
	s := nicSchema(t)
	for _, tc := range []struct {
		name   string
		break_ func(inv *irp.Invoice)
	}{
		{"document number starting with 0", func(inv *irp.Invoice) { inv.DocDtls.No = "0T1/2627/1" }},
		{"document type", func(inv *irp.Invoice) { inv.DocDtls.Typ = "BOS" }},
		{"seller without PIN", func(inv *irp.Invoice) { inv.SellerDtls.Pin = 0 }},
		{"buyer GSTIN", func(inv *irp.Invoice) { inv.BuyerDtls.Gstin = "27-AAPFU" }},
		{"no items", func(inv *irp.Invoice) { inv.ItemList = []irp.Item{} }},
		{"HSN too short", func(inv *irp.Invoice) { inv.ItemList[0].HsnCd = "85" }},
		{"round-off over a rupee", func(inv *irp.Invoice) { inv.ValDtls.RndOffAmt = 12000 }},
		{"supply type", func(inv *irp.Invoice) { inv.TranDtls.SupTyp = "B2C" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := mustBuild(t, invoiceDoc())
			tc.break_(&inv)
			assert.Error(t, validate(t, s, inv.JSON()))
		})
	}
}

// TestBuildFigures checks the INV-01's figures against the document's, computed
// by hand: 2 × ₹10,000.00 at 18% is ₹20,000.00 + ₹1,800.00 CGST + ₹1,800.00
// SGST; ₹499.00 at 5% is ₹12.48 + ₹12.48; round-off −₹0.96; the total
// ₹24,123.00.
func TestBuildFigures(t *testing.T) {
	inv := mustBuild(t, invoiceDoc())
	var got map[string]any
	require.NoError(t, json.Unmarshal(inv.JSON(), &got))
	val := got["ValDtls"].(map[string]any)
	assert.Equal(t, 20499.0, val["AssVal"])
	assert.Equal(t, 1812.48, val["CgstVal"])
	assert.Equal(t, 1812.48, val["SgstVal"])
	assert.Equal(t, -0.96, val["RndOffAmt"])
	assert.Equal(t, 24123.0, val["TotInvVal"])
	item := got["ItemList"].([]any)[0].(map[string]any)
	assert.Equal(t, 10000.0, item["UnitPrice"])
	assert.Equal(t, 18.0, item["GstRt"])
	assert.Equal(t, 23600.0, item["TotItemVal"])
	seller := got["SellerDtls"].(map[string]any)
	assert.Equal(t, 400050.0, seller["Pin"])
	assert.Equal(t, "Mumbai", seller["Loc"])
	assert.Equal(t, "919820012345", seller["Ph"])
	assert.Equal(t, "26/11/2026", got["DocDtls"].(map[string]any)["Dt"])
	assert.Nil(t, got["RefDtls"])

	cn := mustBuild(t, creditNoteDoc())
	require.NotNil(t, cn.RefDtls)
	assert.Equal(t, []irp.PrecDoc{{InvNo: "T1/2627/000100", InvDt: "23/11/2026"}}, cn.RefDtls.PrecDocDtls)
	assert.Equal(t, irp.Amount(11800_00), cn.ValDtls.TotInvVal)
}

func TestBuildRefusesIncompleteDocuments(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(d *irp.Document)
	}{
		{"no PIN in the shop's address", func(d *irp.Document) { d.Seller.Address = []string{"Shop 4, Linking Road", "Mumbai"} }},
		{"HSN of 5 digits", func(d *irp.Document) { d.Lines[0].HSN = "85171" }},
		{"number too long", func(d *irp.Document) { d.Number = "T1/2627/0000000123" }},
		{"buyer without address", func(d *irp.Document) { d.Buyer.Address = "" }},
		{"bill of supply", func(d *irp.Document) { d.Type = "BOS" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := invoiceDoc()
			tc.edit(&d)
			_, err := irp.Build(d)
			assert.ErrorIs(t, err, irp.ErrIncomplete)
		})
	}
}

const irnWant = "bff1ef414009fb86c4cc05470f44b23ead8ca3bd164b82646c633c9696460029"

func TestIRN(t *testing.T) {
	// sha256("27AAPFU0939F1ZV2026-27INVT1/2627/000123"), by sha256sum.
	got := irp.IRN(sellerGSTIN, irp.FinancialYear(saleDay), "INV", "T1/2627/000123")
	assert.Equal(t, "2026-27", irp.FinancialYear(saleDay))
	assert.Equal(t, "2025-26", irp.FinancialYear(saleDay.AddDate(0, -8, 0)))
	assert.True(t, hex64(got), got)
	assert.Equal(t, irnWant, got)
}
