package irp_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/irp"
)

// inv01Schema compiles testdata/inv01.schema.json, Galla's JSON Schema (draft-07)
// of the INV-01 v1.1 blocks a counter sends, written from NIC's published field
// rules (docs/irp-contract.md, INV-01 schema).
func inv01Schema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/inv01.schema.json")
	require.NoError(t, err)
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("inv01.schema.json", doc))
	s, err := c.Compile("inv01.schema.json")
	require.NoError(t, err)
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, b []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	return s.Validate(v)
}

// refusals lists where and by which keyword the schema refused a document, one
// "location: keyword" per failing keyword ("/DocDtls/Dt: pattern", ": required
// ValDtls"), so a test can tell the refusal it meant from another.
func refusals(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{err.Error()}
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		for _, c := range e.Causes {
			walk(c)
		}
		if len(e.Causes) > 0 {
			return
		}
		loc := ""
		if len(e.InstanceLocation) > 0 {
			loc = "/" + strings.Join(e.InstanceLocation, "/")
		}
		kw := "?"
		if p := e.ErrorKind.KeywordPath(); len(p) > 0 {
			kw = p[len(p)-1]
		}
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			kw += " " + strings.Join(k.Missing, ",")
		case *kind.AdditionalProperties:
			kw += " " + strings.Join(k.Properties, ",")
		}
		out = append(out, loc+": "+kw)
	}
	walk(ve)
	return out
}

// interStateInvoiceDoc is a B2B invoice to a buyer in Karnataka, charged IGST:
// 2 × ₹10,000.00 at 18% and a repair service of ₹500.00 at 18%.
func interStateInvoiceDoc() irp.Document {
	d := invoiceDoc()
	d.Number = "T1/2627/000124"
	d.Buyer = irp.Buyer{GSTIN: buyerGSTIN, Name: "Bangalore Gadgets", Address: "1 Residency Road, Bengaluru 560025", State: "29"}
	d.PlaceOfSupply = "29"
	d.Lines = []irp.Line{
		{Description: "Phone X1 128GB", HSN: "851713", Qty: 2, RateBP: 1800, Taxable: 20000_00, IGST: 3600_00},
		{Description: "Screen repair", HSN: "9987", Qty: 1, Service: true, RateBP: 1800, Taxable: 500_00, IGST: 90_00},
	}
	d.RoundOff = 0
	return d
}

// localCreditNoteDoc is a B2B credit note to the buyer in the shop's own state,
// against the intra-state invoice, for the case returned.
func localCreditNoteDoc() irp.Document {
	d := invoiceDoc()
	d.Type, d.Number = irp.TypeCreditNote, "CT1/2627/000008"
	d.Lines = []irp.Line{{Description: "Case", HSN: "3926", Qty: 1, Unit: "PCS", RateBP: 500, Taxable: 499_00, CGST: 12_48, SGST: 12_48}}
	d.RoundOff = 4
	d.OriginalNumber, d.OriginalDate = "T1/2627/000123", saleDay
	return d
}

// cessDoc is an intra-state B2B invoice of December 2025, before compensation
// cess ended on pan masala: 10 packs at ₹10.00, 28% GST and 60% cess.
func cessDoc() irp.Document {
	d := invoiceDoc()
	d.Number, d.Date = "T1/2526/000981", time.Date(2025, time.December, 10, 17, 0, 0, 0, irp.IST)
	d.Lines = []irp.Line{{Description: "Pan masala 10g", HSN: "21069020", Unit: "PAC", Qty: 10, RateBP: 2800, CessRateBP: 6000,
		Taxable: 100_00, CGST: 14_00, SGST: 14_00, Cess: 60_00}}
	d.RoundOff = 0
	return d
}

// TestBuildMatchesTheINV01Schema validates the JSON Build writes, as it is sent,
// against the schema.
func TestBuildMatchesTheINV01Schema(t *testing.T) {
	s := inv01Schema(t)
	for _, tc := range []struct {
		name string
		doc  irp.Document
	}{
		{"intra-state invoice (CGST and SGST)", invoiceDoc()},
		{"inter-state invoice (IGST) with a service", interStateInvoiceDoc()},
		{"inter-state credit note", creditNoteDoc()},
		{"intra-state credit note", localCreditNoteDoc()},
		{"a line with cess", cessDoc()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := mustBuild(t, tc.doc)
			err := validate(t, s, inv.JSON())
			assert.NoError(t, err, "%s\n%v", inv.JSON(), err)
		})
	}

	// What the fixtures are meant to cover is in the JSON: otherwise the
	// cases above would prove less than their names say.
	igst := mustBuild(t, interStateInvoiceDoc())
	assert.Equal(t, irp.Amount(3690_00), igst.ValDtls.IgstVal)
	assert.Zero(t, igst.ValDtls.CgstVal)
	assert.Equal(t, "Y", igst.ItemList[1].IsServc)
	cess := mustBuild(t, cessDoc())
	assert.Equal(t, irp.Rate(60_000), cess.ItemList[0].CesRt)
	assert.Equal(t, irp.Amount(60_00), cess.ValDtls.CesVal)
	assert.Equal(t, "PAC", cess.ItemList[0].Unit)
	local := mustBuild(t, localCreditNoteDoc())
	require.NotNil(t, local.RefDtls)
	assert.Equal(t, irp.TypeCreditNote, local.DocDtls.Typ)
	assert.Equal(t, irp.Amount(12_48), local.ValDtls.SgstVal)
}

// removed, as the value of an edit, deletes the field.
type removed struct{}

var remove = removed{}

// edit sets the field at path ("ItemList/0/HsnCd") of a document decoded as
// JSON to v, or deletes it when v is remove.
func edit(t *testing.T, doc map[string]any, path string, v any) {
	t.Helper()
	keys := strings.Split(path, "/")
	var cur any = doc
	for _, k := range keys[:len(keys)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[k]
		case []any:
			i, err := strconv.Atoi(k)
			require.NoError(t, err, path)
			cur = c[i]
		}
		require.NotNil(t, cur, "%s: no %s", path, k)
	}
	last := keys[len(keys)-1]
	switch c := cur.(type) {
	case map[string]any:
		if _, ok := v.(removed); ok {
			require.Contains(t, c, last, path)
			delete(c, last)
			return
		}
		c[last] = v
	case []any:
		i, err := strconv.Atoi(last)
		require.NoError(t, err, path)
		c[i] = v
	}
}

// TestINV01SchemaRefusesMalformedDocuments proves the schema bites: each
// document Build wrote, valid as written, is refused once one field is broken,
// and refused for that field.
func TestINV01SchemaRefusesMalformedDocuments(t *testing.T) {
	s := inv01Schema(t)
	for _, tc := range []struct {
		name  string
		doc   func() irp.Document
		path  string
		value any
		want  string // the refusal: "location: keyword"
	}{
		{"seller GSTIN not of a GSTIN's form", invoiceDoc, "SellerDtls/Gstin", "27-AAPFU0939F1Z", "/SellerDtls/Gstin: pattern"},
		{"seller GSTIN in small letters", invoiceDoc, "SellerDtls/Gstin", "27aapfu0939f1zv", "/SellerDtls/Gstin: pattern"},
		{"buyer GSTIN without the Z", invoiceDoc, "BuyerDtls/Gstin", "27AAACR5055K1X7", "/BuyerDtls/Gstin: pattern"},
		{"buyer GSTIN of no state", invoiceDoc, "BuyerDtls/Gstin", "45AAACR5055K1Z7", "/BuyerDtls/Gstin: pattern"},
		{"unregistered buyer (URP) on a B2B invoice", invoiceDoc, "BuyerDtls/Gstin", "URP", "/BuyerDtls/Gstin: pattern"},
		{"no ValDtls", invoiceDoc, "ValDtls", remove, ": required ValDtls"},
		{"no SellerDtls", invoiceDoc, "SellerDtls", remove, ": required SellerDtls"},
		{"no DocDtls", creditNoteDoc, "DocDtls", remove, ": required DocDtls"},
		{"no items", invoiceDoc, "ItemList", []any{}, "/ItemList: minItems"},
		{"date the ISO way", invoiceDoc, "DocDtls/Dt", "2026-11-26", "/DocDtls/Dt: pattern"},
		{"date with dashes", invoiceDoc, "DocDtls/Dt", "26-11-2026", "/DocDtls/Dt: pattern"},
		{"date of month 13", invoiceDoc, "DocDtls/Dt", "26/13/2026", "/DocDtls/Dt: pattern"},
		{"date with a two-digit year", invoiceDoc, "DocDtls/Dt", "26/11/26", "/DocDtls/Dt: pattern"},
		{"preceding invoice's date the ISO way", creditNoteDoc, "RefDtls/PrecDocDtls/0/InvDt", "2026-11-23", "/RefDtls/PrecDocDtls/0/InvDt: pattern"},
		{"preceding invoice without its number", creditNoteDoc, "RefDtls/PrecDocDtls/0/InvNo", remove, "/RefDtls/PrecDocDtls/0: required InvNo"},
		{"HSN of 3 digits", invoiceDoc, "ItemList/0/HsnCd", "851", "/ItemList/0/HsnCd: pattern"},
		{"HSN of 9 digits", invoiceDoc, "ItemList/1/HsnCd", "392690990", "/ItemList/1/HsnCd: pattern"},
		{"HSN with a letter", invoiceDoc, "ItemList/0/HsnCd", "8517A3", "/ItemList/0/HsnCd: pattern"},
		{"unknown SupTyp", invoiceDoc, "TranDtls/SupTyp", "B2C", "/TranDtls/SupTyp: enum"},
		{"RegRev not Y or N", invoiceDoc, "TranDtls/RegRev", "No", "/TranDtls/RegRev: enum"},
		{"IsServc not Y or N", invoiceDoc, "ItemList/0/IsServc", "false", "/ItemList/0/IsServc: enum"},
		{"document type BOS", invoiceDoc, "DocDtls/Typ", "BOS", "/DocDtls/Typ: enum"},
		{"document number starting with 0", invoiceDoc, "DocDtls/No", "0T1/2627/1", "/DocDtls/No: pattern"},
		{"document number of 17 characters", invoiceDoc, "DocDtls/No", "T1/2627/000000123", "/DocDtls/No: pattern"},
		{"version 1.0", invoiceDoc, "Version", "1.0", "/Version: enum"},
		{"seller without PIN", invoiceDoc, "SellerDtls/Pin", remove, "/SellerDtls: required Pin"},
		{"PIN of 5 digits", invoiceDoc, "SellerDtls/Pin", 40005, "/SellerDtls/Pin: minimum"},
		{"PIN as text", creditNoteDoc, "BuyerDtls/Pin", "560025", "/BuyerDtls/Pin: type"},
		{"place of supply 40", interStateInvoiceDoc, "BuyerDtls/Pos", "40", "/BuyerDtls/Pos: pattern"},
		{"state code of one digit", invoiceDoc, "SellerDtls/Stcd", "7", "/SellerDtls/Stcd: pattern"},
		{"phone of 5 digits", invoiceDoc, "SellerDtls/Ph", "12345", "/SellerDtls/Ph: pattern"},
		{"unit not a UQC", invoiceDoc, "ItemList/0/Unit", "NUM", "/ItemList/0/Unit: enum"},
		{"GST rate 17%", invoiceDoc, "ItemList/0/GstRt", 17, "/ItemList/0/GstRt: enum"},
		{"negative cess", cessDoc, "ItemList/0/CesAmt", -60, "/ItemList/0/CesAmt: minimum"},
		{"round-off over ₹99.99", invoiceDoc, "ValDtls/RndOffAmt", 120, "/ValDtls/RndOffAmt: maximum"},
		{"amount with three decimals", invoiceDoc, "ItemList/0/AssAmt", json.Number("20000.005"), "/ItemList/0/AssAmt: multipleOf"},
		{"amount as text", invoiceDoc, "ValDtls/TotInvVal", "24123.00", "/ValDtls/TotInvVal: type"},
		{"a field the schema does not name", invoiceDoc, "TranDtls/EcmGstin", sellerGSTIN, "/TranDtls: additionalProperties EcmGstin"},
		{"a block the schema does not name", invoiceDoc, "DispDtls", map[string]any{"Nm": "Galla Mobiles"}, ": additionalProperties DispDtls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := mustBuild(t, tc.doc()).JSON()
			require.NoError(t, validate(t, s, raw), "the document as Build wrote it")
			var doc map[string]any
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			require.NoError(t, dec.Decode(&doc))
			edit(t, doc, tc.path, tc.value)
			broken, err := json.Marshal(doc)
			require.NoError(t, err)

			err = validate(t, s, broken)
			require.Error(t, err, "%s", broken)
			assert.Contains(t, refusals(err), tc.want, "%v", err)
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
