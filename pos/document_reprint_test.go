package pos

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"galla/receipts"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The credit note of one cable of three (returnLines) gives back 498.66; its
// taxable value is 422.59 and the portal's GST on it 2 × round(422.59 × 9%) =
// 2 × 38.03 = 76.06: 498.65, so 0.01 of round-off, printed as the invoice
// prints its own (Rule 46: the difference to the amount paid is a round-off
// line), in the thermal note and on its A4 page.
func TestCreditNoteRoundOff(t *testing.T) {
	r, tl := newReturnTill(t)
	registerShop(t, tl)
	ctx := t.Context()
	res, err := sellCash(ctx, r.e, Sale{Lines: returnLines()}, 299500)
	require.NoError(t, err)
	one, err := tl.Returns.Return(ctx, ReturnRequest{Document: res.Order.Number("T1"), Items: []ReturnQty{{SKU: "ACC-CBL", Qty: 1}},
		To: RefundToCash, Reason: "faulty", PIN: managerPIN})
	require.NoError(t, err)
	d, err := tl.Returns.CreditNoteDocument(ctx, one.CreditNote)
	require.NoError(t, err)
	cn := d.Receipt
	assert.Equal(t, int64(1), cn.RoundOff)
	require.Len(t, cn.Taxes, 1)
	assert.Equal(t, []receipts.TaxLine{{Rate: 1800, Taxable: 422_59, CGST: 38_03, SGST: 38_03}}, cn.Taxes)
	assert.Equal(t, cn.Total, cn.Taxes[0].Taxable+cn.Taxes[0].CGST+cn.Taxes[0].SGST+cn.RoundOff, "the note's figures add up to what it gives back")

	for _, width := range []int{48, 32} {
		var b bytes.Buffer
		require.NoError(t, receipts.Text(&b, cn, width))
		text := b.String()
		assert.Contains(t, text, "Credit note value", "%d columns", width)
		assert.Regexp(t, `Credit note value +498\.65\n`, text)
		assert.Regexp(t, `Round off +\+0\.01\n`, text)
		assert.Regexp(t, `CREDIT +₹498\.66\n`, text)
		assert.Less(t, strings.Index(text, "Round off"), strings.Index(text, "CREDIT  "), "the round-off comes before the total")
	}
	page := pdfText(t, tl, d)
	assert.Regexp(t, `Round off +\+0\.01\n`, page)
	writePNG(t, tl, d, "credit-note-round-off")

	// A note that adds up exactly prints no round-off: the other two cables
	// reverse the rest of the line's tax (99734 = 84521 + 2 × 7607 − 1 + 1).
	var none bytes.Buffer
	zero := cn
	zero.RoundOff = 0
	require.NoError(t, receipts.Text(&none, zero, 48))
	assert.NotContains(t, none.String(), "Round off")
}

// pdfText draws d as the A4 PDF and returns what its page says
// (receipts.PageText).
func pdfText(t *testing.T, tl *Till, d *Document) string {
	t.Helper()
	var pdf bytes.Buffer
	require.NoError(t, tl.Documents.Render(&pdf, d, "pdf"))
	require.True(t, bytes.HasPrefix(pdf.Bytes(), []byte("%PDF-")))
	return receipts.PageText(d.Receipt)
}

// A document that states no tax adds up its lines: a ₹74,999.00 phone sold by a
// shop without a GSTIN is ₹74,999.00 with no "Invoice value" of 74,998.99 and
// 0.01 of round-off, which only the tax it does not state would explain.
func TestUntaxedDocumentNoRoundOff(t *testing.T) {
	o := docOrder([]Line{phoneLine(74_999_00)}, nil)
	shops := registrationShops()
	r := ReceiptFor(o, shops[Regular], ReceiptOptions{})
	assert.Equal(t, int64(1), r.RoundOff, "74,999.00 = 63,558.47 + 2 × 5,720.26 + 0.01")
	for _, g := range []Registration{Unregistered, Composition} {
		r := ReceiptFor(o, shops[g], ReceiptOptions{})
		assert.Zero(t, r.RoundOff, "%s", g)
		assert.Equal(t, int64(74_999_00), r.Total)
		text := docText(t, r)
		assert.NotContains(t, text, "Round off", "%s", g)
		assert.NotContains(t, text, "74,998.99", "%s", g)
	}
	// A total rounded to the rupee above its lines keeps that round-off: a
	// ₹0.50 discount paid as ₹59,000.00.
	line := phoneLine(59_000_00)
	line.Discount = 50
	o = docOrder([]Line{line}, nil)
	o.Captured = 59_000_00
	r = ReceiptFor(o, shops[Unregistered], ReceiptOptions{})
	assert.Equal(t, int64(50), r.RoundOff, "59,000.00 − 58,999.50")
	assert.Equal(t, int64(59_000_00), r.Total)
	text := docText(t, r)
	assert.Contains(t, text, lr48("Invoice value", "58,999.50")+"\n")
	assert.Contains(t, text, lr48("Round off", "+0.50")+"\n")
}

// TestReprintKeepsTheRegistration: every copy of a document names the shop as
// it was registered when the document was issued. An invoice and a credit note
// of a regular shop, reprinted after the shop joined the composition scheme
// and again after it gave up its GSTIN, are still TAX INVOICE and CREDIT NOTE
// with that GSTIN, name and tax; the sale made under the composition scheme is
// a BILL OF SUPPLY with the new name, whatever the shop is when it is reprinted.
func TestReprintKeepsTheRegistration(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	registerShop(t, tl) // Galla Mobiles, 27AAPFU0939F1ZV, Maharashtra, regular
	sale, err := sellCash(ctx, r.e, Sale{Lines: returnLines()}, 299500)
	require.NoError(t, err)
	note, err := tl.Returns.Return(ctx, ReturnRequest{Document: sale.Order.Number("T1"), Items: []ReturnQty{{SKU: "ACC-CASE", Qty: 1}},
		To: RefundToCash, Reason: "wrong colour", PIN: managerPIN})
	require.NoError(t, err)
	first, err := tl.Documents.ReceiptDocument(ctx, sale.Order.ID, -1)
	require.NoError(t, err)
	require.NoError(t, tl.Documents.RecordCopy(ctx, first, "stdout", "escpos")) // the original is printed

	r.clock.Advance(time.Hour)
	_, _, err = tl.Setup.SetShop(ctx, ShopDetails{Name: "Galla Mobile Store", Address: "2 FC Road, Pune", State: "27", GSTIN: goodGSTIN, Composition: true}, managerPIN)
	require.NoError(t, err)
	r.clock.Advance(time.Hour)
	later, err := sellCash(ctx, r.e, Sale{Lines: returnLines()[1:]}, 149900)
	require.NoError(t, err)

	regular := func(t *testing.T, text string) {
		t.Helper()
		for _, want := range []string{"Galla Mobiles", "1 MG Road", "GSTIN 27AAPFU0939F1ZV", "State Maharashtra (27)", "CGST @9%", "Reverse charge"} {
			assert.Contains(t, text, want)
		}
		for _, not := range []string{"Galla Mobile Store", "2 FC Road", "Composition taxable", "Seller not registered"} {
			assert.NotContains(t, text, not)
		}
	}
	for _, step := range []struct {
		name string
		shop ShopDetails
	}{
		{"composition", ShopDetails{}},
		{"no GSTIN", ShopDetails{Name: "Galla Mobile Store", Address: "2 FC Road, Pune", State: "27"}},
	} {
		t.Run(step.name, func(t *testing.T) {
			if step.shop.Name != "" {
				r.clock.Advance(time.Hour)
				_, _, err := tl.Setup.SetShop(ctx, step.shop, managerPIN)
				require.NoError(t, err)
			}
			d, err := tl.Documents.ReceiptDocument(ctx, sale.Order.ID, -1)
			require.NoError(t, err)
			assert.Equal(t, 1, d.Receipt.Reprint)
			assert.Equal(t, "TAX INVOICE", d.Receipt.Title)
			text := docText(t, d.Receipt)
			assert.Contains(t, text, "DUPLICATE")
			regular(t, text)
			assert.Contains(t, pdfText(t, tl, d), "GSTIN 27AAPFU0939F1ZV")

			cn, err := tl.Returns.CreditNoteDocument(ctx, note.CreditNote)
			require.NoError(t, err)
			assert.Equal(t, "CREDIT NOTE", cn.Receipt.Title)
			text = docText(t, cn.Receipt)
			regular(t, text)
			assert.Contains(t, text, "Tax reversed")

			bill, err := tl.Documents.ReceiptDocument(ctx, later.Order.ID, -1)
			require.NoError(t, err)
			assert.Equal(t, "BILL OF SUPPLY", bill.Receipt.Title)
			text = docText(t, bill.Receipt)
			for _, want := range []string{"Galla Mobile Store", "2 FC Road", "Composition taxable person", "GSTIN 27AAPFU0939F1ZV"} {
				assert.Contains(t, text, want)
			}
			assert.NotContains(t, text, "CGST")
			writePNG(t, tl, d, "reprint-"+strings.ReplaceAll(step.name, " ", "-"))
		})
	}

	h, err := LoadRegistrations(ctx, r.j)
	require.NoError(t, err)
	require.Len(t, h, 3, "regular, composition, no GSTIN")
	assert.Equal(t, Regular, h[0].Shop.Registration())
	assert.True(t, h[0].From.Before(h[1].From) && h[1].From.Before(h[2].From), "dated in order")
	assert.Equal(t, Composition, h[1].Shop.Registration())
	assert.Equal(t, Unregistered, h[2].Shop.Registration())

	// Saving the same details again dates nothing new.
	_, _, err = tl.Setup.SetShop(ctx, ShopDetails{Name: "Galla Mobile Store", Address: "2 FC Road, Pune", State: "27"}, managerPIN)
	require.NoError(t, err)
	h, err = LoadRegistrations(ctx, r.j)
	require.NoError(t, err)
	assert.Len(t, h, 3)
}

// writePNG draws d as the 80 mm PNG into GALLA_DOC_PNG (a directory) when it
// is set, for a person to look at; it is always drawn, so that the format is
// known to render.
func writePNG(t *testing.T, tl *Till, d *Document, name string) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, tl.Documents.Render(&b, d, "png"))
	_, err := png.Decode(bytes.NewReader(b.Bytes()))
	require.NoError(t, err)
	if dir := os.Getenv("GALLA_DOC_PNG"); dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".png"), b.Bytes(), 0o644))
	}
}

// A journal written before the registration history was kept has none: its
// documents reprint with the shop's details as they are until the shop next
// changes them, and from then on with the details it had before that change.
func TestReprintBeforeTheHistory(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	oldShop := func(s Shop) {
		t.Helper()
		raw, err := json.Marshal(s)
		require.NoError(t, err)
		// As an earlier version journaled it: the shop alone, no history.
		_, err = r.j.Append(ctx, Event{Kind: EvSettingsChanged, Time: r.clock.Now(), Setting: &Setting{Key: SettingShop, Value: raw}})
		require.NoError(t, err)
	}
	oldShop(Shop{Name: "Old Name Mobiles", Address: []string{"1 MG Road, Pune"}, State: "27"})
	sale, err := sellCash(ctx, r.e, Sale{Lines: returnLines()[1:]}, 149900)
	require.NoError(t, err)
	r.clock.Advance(time.Hour)
	oldShop(docShop)

	d, err := tl.Documents.ReceiptDocument(ctx, sale.Order.ID, -1)
	require.NoError(t, err)
	assert.Equal(t, "Galla Mobiles", d.Receipt.Shop.Name, "no history: today's details")
	assert.Equal(t, "TAX INVOICE", d.Receipt.Title)

	r.clock.Advance(time.Hour)
	_, _, err = tl.Setup.SetShop(ctx, ShopDetails{Name: "Galla Mobiles", Address: "14, FC Road, Pune 411004", State: "27", GSTIN: goodGSTIN, Composition: true}, managerPIN)
	require.NoError(t, err)
	d, err = tl.Documents.ReceiptDocument(ctx, sale.Order.ID, -1)
	require.NoError(t, err)
	assert.Equal(t, "TAX INVOICE", d.Receipt.Title, "the details before the first change the history dates")
	assert.Equal(t, docShop.GSTIN, d.Receipt.Shop.GSTIN)
}
