package pos

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"galla/pos/gstr"
	"galla/receipts"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The shops of each registration, all in Maharashtra (27).
func registrationShops() map[Registration]Shop {
	none := docShop
	none.GSTIN = ""
	comp := docShop
	comp.Composition = true
	return map[Registration]Shop{Unregistered: none, Composition: comp, Regular: docShop}
}

// regLines are a phone (NOS) and two cases (PCS) at 18%.
func regLines() []Line {
	phone := phoneLine(59_000_00)
	phone.Unit = "NOS"
	return []Line{phone, {SKU: "CASE", Name: "Silicone case", HSN: "3926", Qty: 2, Unit: "PCS", UnitPrice: 1_180_00, GSTRate: Percent(18)}}
}

// regDocuments are the documents of a sale of regLines by shop: its invoice
// (or bill), a credit note for one case returned, and the invoice cancelled.
func regDocuments(shop Shop) map[string]receipts.Receipt {
	o := docOrder(regLines(), nil)
	o.Series, o.DocNo = SeriesOf(SaleDocKind(shop, o.Lines), o.PaidAt), 12
	tax := TaxWithCess(1_180_00, Percent(18), Rate{})
	ref := Refund{UniqueTxnID: "RF-1", Amount: 1_180_00, Status: RefundDone, Day: "2026-11-23",
		Time: o.PaidAt.Add(24 * time.Hour), Reason: "wrong colour", Series: SeriesOf(DocCreditNote, o.PaidAt), DocNo: 3, To: RefundToCash,
		Items: []ReturnItem{{Line: 1, SKU: "CASE", Qty: 1, Amount: 1_180_00, Taxable: tax.Taxable, Tax: tax.Tax, CGST: tax.CGST, Rate: Percent(18)}}}
	cancelled := o
	cancelled.Cancelled = &Cancellation{Day: "2026-11-22", Time: o.PaidAt.Add(time.Hour), Reason: "customer left before delivery"}
	opt := ReceiptOptions{Terminal: "T1"}
	return map[string]receipts.Receipt{
		"invoice":     ReceiptFor(o, shop, opt),
		"credit note": CreditNoteFor(o, ref, shop, opt),
		"cancelled":   ReceiptFor(cancelled, shop, opt),
	}
}

// regFormats renders r in every format a counter prints or sends, as the text
// each one shows: thermal text at 58 and 80 mm (the rows the PNG draws), the
// ESC/POS job's printable bytes, and the A4 PDF's page. The PNG and the PDF are
// drawn too, so that each format is known to render.
func regFormats(t *testing.T, r receipts.Receipt) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, cols := range []int{32, 48} {
		var b bytes.Buffer
		require.NoError(t, receipts.Text(&b, r, cols))
		out[fmt.Sprintf("text %d", cols)] = b.String()
		b.Reset()
		require.NoError(t, receipts.ESCPOS(&b, r, receipts.Profile{Width: cols}))
		out[fmt.Sprintf("escpos %d", cols)] = printableBytes(b.Bytes())
	}
	out["a4"] = receipts.PageText(r)
	rd, err := receipts.NewRenderer()
	require.NoError(t, err)
	for _, mm := range []int{58, 80} {
		var b bytes.Buffer
		require.NoError(t, rd.PNG(&b, r, mm))
		_, err := png.Decode(&b)
		require.NoError(t, err)
	}
	var pdf bytes.Buffer
	require.NoError(t, rd.PDF(&pdf, r))
	require.True(t, bytes.HasPrefix(pdf.Bytes(), []byte("%PDF-")))
	return out
}

// printableBytes keeps the text of an ESC/POS job: each run of control bytes
// (commands and their arguments) becomes one space.
func printableBytes(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			c = ' '
		}
		s.WriteByte(c)
	}
	return s.String()
}

var spaces = regexp.MustCompile(`\s+`)

// flat is text with every run of spaces and line breaks as one space, so that a
// sentence wrapped over lines is found whole.
func flat(s string) string { return spaces.ReplaceAllString(s, " ") }

// noTaxWords must not appear on a document of a shop that states no tax.
var noTaxWords = []string{"TAX INVOICE", "Taxable", "GST @", "GST 18", "CGST", "SGST", "IGST", "Cess", "HSN summary", "Tax reversed", "GST reversed", "Invoice No."}

// TestDocumentsFollowTheRegistration: every document (the sale's, a credit
// note, a cancelled invoice) of every registration in every format says what
// the registration makes it, and nothing it may not say. A shop with no GSTIN
// prints prices only and that it is not registered; a composition shop a BILL
// OF SUPPLY with the legend of Rule 5(1)(f) at the top and no tax anywhere; a
// regular shop a TAX INVOICE with its tax. Each carries the units, the copy it
// is and the signature line.
func TestDocumentsFollowTheRegistration(t *testing.T) {
	for reg, shop := range registrationShops() {
		for doc, r := range regDocuments(shop) {
			for format, text := range regFormats(t, r) {
				t.Run(fmt.Sprintf("%s/%s/%s", reg, doc, format), func(t *testing.T) {
					f := flat(text)
					for _, want := range []string{"ORIGINAL FOR RECIPIENT", "for Galla Mobiles", "Authorised signatory", "PCS"} {
						assert.Contains(t, f, want)
					}
					if doc != "credit note" {
						assert.Contains(t, f, "1 NOS")
					}
					switch doc {
					case "credit note":
						assert.Contains(t, f, "CREDIT NOTE")
						assert.Contains(t, f, "walk-in customer (unregistered), as on the invoice", "Rule 53(1A): the recipient as on the invoice")
					case "cancelled":
						assert.Contains(t, f, "CANCELLED")
					}
					if reg == Unregistered {
						assert.NotContains(t, f, "Reverse charge")
					} else {
						assert.Regexp(t, `Reverse charge:? +No`, f)
					}
					if reg == Regular {
						for _, want := range []string{"CGST", "SGST", "Taxable"} {
							assert.Contains(t, f, want)
						}
						if doc != "credit note" {
							assert.Contains(t, f, "TAX INVOICE")
						}
						return
					}
					for _, no := range noTaxWords {
						assert.NotContains(t, f, no)
					}
					if !strings.HasPrefix(format, "escpos") { // a command's argument may be a '%'
						assert.NotContains(t, f, "%", "no rate anywhere")
					}
					legend := UnregisteredLegend
					if reg == Composition {
						legend = CompositionLegend
						if doc != "credit note" {
							assert.Contains(t, f, "BILL OF SUPPLY")
						}
					} else if doc != "credit note" {
						assert.Contains(t, f, "RECEIPT")
					}
					require.Contains(t, f, legend)
					assert.Less(t, strings.Index(f, legend), strings.Index(f, "Silicone case"), "the legend is at the top, before the goods")
				})
			}
		}
	}
}

// TestDocumentReprintSaysDuplicate: the first print is the original for the
// recipient (Rule 48(1)); a reprint says DUPLICATE and not ORIGINAL.
func TestDocumentReprintSaysDuplicate(t *testing.T) {
	o := docOrder(regLines(), nil)
	r := ReceiptFor(o, docShop, ReceiptOptions{Terminal: "T1", Reprint: 1})
	for format, text := range regFormats(t, r) {
		assert.Contains(t, text, "DUPLICATE", format)
		assert.NotContains(t, text, "ORIGINAL FOR RECIPIENT", format)
	}
}

// TestReportFollowsTheRegistration: the X and Z reports of a shop that states
// no tax have no tax rows; a regular shop's have them.
func TestReportFollowsTheRegistration(t *testing.T) {
	rep := Report{Kind: "X", Day: "2026-11-22", GrossSales: 61_360_00, NetSales: 61_360_00,
		GST:        []RateTotal{{Rate: Percent(18), Taxable: 52_000_00, Tax: 9_360_00, CGST: 4_680_00, SGST: 4_680_00}},
		ReturnsGST: []RateTotal{{Rate: Percent(18), Taxable: 1_000_00, Tax: 180_00, CGST: 90_00, SGST: 90_00}},
		NetGST:     []RateTotal{{Rate: Percent(18), Taxable: 51_000_00, Tax: 9_180_00, CGST: 4_590_00, SGST: 4_590_00}}}
	for reg, shop := range registrationShops() {
		t.Run(reg.String(), func(t *testing.T) {
			r := ReportReceipt(rep, shop, ReceiptOptions{Terminal: "T1"})
			text := flat(docText(t, r))
			if reg == Regular {
				assert.Contains(t, text, "GST collected")
				assert.Contains(t, text, "CGST @9%")
				return
			}
			assert.Empty(t, r.Report.Taxes)
			for _, no := range append(noTaxWords, "GST collected", "Net GST", "%") {
				assert.NotContains(t, text, no)
			}
		})
	}
}

// TestCompositionRefusesInterstate: a composition shop may not supply goods to
// another state (CGST Act s.10(2)(c)): the sale is refused with a sentence
// before anything is journaled; the same sale within the state is paid. A
// regular shop's inter-state sale is paid with IGST.
func TestCompositionRefusesInterstate(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	_, _, err := tl.Setup.SetShop(ctx, ShopDetails{Name: "Galla Mobiles", Address: "14 FC Road, Pune", State: "27", GSTIN: goodGSTIN, Composition: true}, managerPIN)
	require.NoError(t, err)
	lines := []CartLine{{Product: Product{SKU: "PH", Name: "Phone", HSN: "8517", Price: 20_000_00, GSTRate: Percent(18)}, Qty: 1}}
	goa := &Buyer{Name: "Rohan Naik", Address: "House 12, Panaji", State: "Goa"}
	before := len(r.j.events)
	_, err = tl.Checkout.Pay(ctx, PayRequest{Lines: lines, Tender: TenderCash, Cashier: "Meera", Buyer: goa}, nil)
	require.ErrorIs(t, err, ErrInterstateComposition)
	assert.Contains(t, Sentence(err), "composition scheme may not supply goods to another state (CGST Act s.10(2)(c))")
	assert.Contains(t, Sentence(err), "Goa")
	assert.Equal(t, before, len(r.j.events), "a refused sale journals nothing")
	_, err = tl.Checkout.Pay(ctx, PayRequest{Lines: lines, Tender: TenderCash, Cashier: "Meera", Buyer: &Buyer{Name: "Asha", ShipState: "Goa"}}, nil)
	require.ErrorIs(t, err, ErrInterstateComposition, "a delivery to another state too")

	out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: lines, Tender: TenderCash, Cashier: "Meera", Buyer: &Buyer{Name: "Asha", Address: "FC Road, Pune", State: "27"}}, nil)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, out.State)

	_, _, err = tl.Setup.SetShop(ctx, ShopDetails{Name: "Galla Mobiles", Address: "14 FC Road, Pune", State: "27", GSTIN: goodGSTIN}, managerPIN)
	require.NoError(t, err)
	out, err = tl.Checkout.Pay(ctx, PayRequest{Lines: lines, Tender: TenderCash, Cashier: "Meera", Buyer: goa}, nil)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, out.State)
}

// TestUnregisteredRefusesInterstate: a shop not registered for GST may not
// supply goods to another state (CGST Act s.24(i)): refused with a sentence
// before anything is journaled, an address or a delivery in another state
// alike; the same sale within the state is paid.
func TestUnregisteredRefusesInterstate(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	_, _, err := tl.Setup.SetShop(ctx, ShopDetails{Name: "Galla Mobiles", Address: "14 FC Road, Pune", State: "27"}, managerPIN)
	require.NoError(t, err)
	lines := []CartLine{{Product: Product{SKU: "PH", Name: "Phone", HSN: "8517", Price: 20_000_00, GSTRate: Percent(18)}, Qty: 1}}
	before := len(r.j.events)
	for _, b := range []*Buyer{{Name: "Rohan Naik", Address: "House 12, Panaji", State: "30"}, {Name: "Asha", ShipState: "30"}} {
		_, err = tl.Checkout.Pay(ctx, PayRequest{Lines: lines, Tender: TenderCash, Cashier: "Meera", Buyer: b}, nil)
		require.ErrorIs(t, err, ErrInterstateUnregistered)
		assert.Contains(t, Sentence(err), "a shop not registered for GST may not supply goods to another state (CGST Act s.24(i)")
		assert.Contains(t, Sentence(err), "Goa")
		assert.Contains(t, Sentence(err), "within Maharashtra")
	}
	assert.Equal(t, before, len(r.j.events), "a refused sale journals nothing")

	out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: lines, Tender: TenderCash, Cashier: "Meera", Buyer: &Buyer{Name: "Asha", Address: "FC Road, Pune", State: "27"}}, nil)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, out.State)
}

// TestDocumentDeliveryAddress: goods delivered print the address they go to,
// not only its state (Rule 46(e)).
func TestDocumentDeliveryAddress(t *testing.T) {
	b := &Buyer{Name: "Asha Rao", Address: "12 MG Road, Bengaluru", State: "29", ShipState: "30", ShipAddress: "Villa 4, Calangute"}
	r := ReceiptFor(docOrder(regLines(), b), docShop, ReceiptOptions{Terminal: "T1"})
	for format, text := range regFormats(t, r) {
		assert.Contains(t, flat(text), "Delivered to Villa 4, Calangute, Goa (30)", format)
	}
}

// TestRegistrationSamples writes a document of each registration as PNG and
// PDF to GALLA_DOC_SAMPLES, to look at by eye.
func TestRegistrationSamples(t *testing.T) {
	dir := os.Getenv("GALLA_DOC_SAMPLES")
	if dir == "" {
		t.Skip("GALLA_DOC_SAMPLES names no directory")
	}
	rd, err := receipts.NewRenderer()
	require.NoError(t, err)
	for reg, shop := range registrationShops() {
		for doc, r := range regDocuments(shop) {
			name := strings.ReplaceAll(reg.String()+"-"+doc, " ", "-")
			var b bytes.Buffer
			require.NoError(t, rd.PNG(&b, r, 80))
			require.NoError(t, os.WriteFile(filepath.Join(dir, name+".png"), b.Bytes(), 0o600))
			b.Reset()
			require.NoError(t, rd.PDF(&b, r))
			require.NoError(t, os.WriteFile(filepath.Join(dir, name+".pdf"), b.Bytes(), 0o600))
			require.NoError(t, os.WriteFile(filepath.Join(dir, name+".a4.txt"), []byte(receipts.PageText(r)), 0o600))
		}
	}
}

// TestExportFollowsTheRegistration: the lines exported for the accountant (the
// CSV, GSTR-1) state tax only for a regular shop, the same rule as the
// documents; each carries its unit.
func TestExportFollowsTheRegistration(t *testing.T) {
	o := docOrder(regLines(), nil)
	for reg, shop := range registrationShops() {
		t.Run(reg.String(), func(t *testing.T) {
			docs := GSTRDocuments(o, shop, "T1", time.UTC, nil)
			require.Len(t, docs, 1)
			require.Len(t, docs[0].Lines, 2)
			assert.Equal(t, "NOS", docs[0].Lines[0].UQC, "the catalog row's unit")
			assert.Equal(t, "PCS", docs[0].Lines[1].UQC)
			var b bytes.Buffer
			require.NoError(t, gstr.WriteCSV(&b, docs))
			for _, l := range docs[0].Lines {
				if reg == Regular {
					assert.NotZero(t, l.CGST+l.SGST, "a regular shop's line states its tax")
					continue
				}
				assert.Zero(t, l.CGST+l.SGST+l.IGST+l.Cess, "no tax exported")
				assert.Zero(t, l.Rate, "no rate exported")
			}
			// ₹59,000.00 + 2 × ₹1,180.00: the value of the supply, whatever is stated of tax.
			assert.Equal(t, int64(61_360_00), int64(docs[0].Value()))
			if reg != Regular {
				assert.NotContains(t, b.String(), ",18,", "no rate in the CSV")
			}
		})
	}
}
