package pos

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"galla/pos/gstr"
)

// The exports an accountant takes from the counter (DESIGN.md section 9): the
// GSTR-1 of a month and a CSV of every line sold or returned. Both read the
// journal's orders day by day and turn each into its documents with
// GSTRDocuments.

// ErrExportRange refuses an export whose first day is after its last.
var ErrExportRange = sentenceErr("The first day of the export is after its last day; give --from before --to.")

// MaxExportDays is the longest export: three years of days, read one by one.
const MaxExportDays = 3*365 + 1

// ErrExportTooLong refuses an export of more than MaxExportDays days.
var ErrExportTooLong = sentenceErr(fmt.Sprintf("An export covers at most %d days (three years); export a longer period in parts.", MaxExportDays))

// GSTRDocuments maps one journaled order to the documents it issued, as GSTR-1
// and the accountant's CSV read them: the sale's tax invoice (or bill of supply:
// a composition shop, or a sale numbered in the B series of exempt goods) once it
// is paid, and a credit note for each done refund, citing the sale's number.
// Dates are in loc; staff names what an id journaled with the sale or refund is
// called.
//
// The buyer journaled with the sale names a registered buyer (B2B) and decides
// the place of supply (PlaceOfSupply, IGST Act s.10): across states the tax is
// IGST, within the state CGST and SGST. Each line's taxable value and cess are
// TaxWithCess's, the GST of each document the portal's arithmetic per rate
// (DocumentTax), and what was charged beyond that the document's round-off. A return's credit note reverses the goods and
// tax its items name (pos/return.go); a refund made before returns had items
// reverses every line when it refunded the whole sale, and is a credit note of
// value only, spread over the lines in proportion to their amounts, otherwise.
func GSTRDocuments(o Order, shop Shop, terminal string, loc *time.Location, staff func(id string) string) []gstr.Document {
	return GSTRDocumentsAt(o, ShopsOf(shop), terminal, loc, staff)
}

// GSTRDocumentsAt is GSTRDocuments for a shop whose registration may have
// changed: each document follows the shop as registered on its date
// (Shops.At), as its print does. The invoice is a tax invoice, a bill of supply
// or an unregistered shop's receipt (an invoice stating no tax) by the shop of
// the sale's date; a credit note states tax only when its invoice did and the
// shop still did on the note's date. Each document's Seller is the
// registration it was issued under, which decides the GSTR-1 it belongs in.
func GSTRDocumentsAt(o Order, shops Shops, terminal string, loc *time.Location, staff func(id string) string) []gstr.Document {
	if (!o.State.Paid() && o.State != StateReturn) || len(o.Lines) == 0 || o.Sale != "" {
		return nil // a split sale's tender is no document: its sale is
	}
	if staff == nil {
		staff = func(id string) string { return id }
	}
	date := dayTime(o.PaidDay, saleTime(o), loc)
	if o.Origin != nil {
		date = dayTime(o.Origin.PaidDay, o.Origin.PaidAt, loc)
	}
	shop := shops.At(date)
	kind := gstr.Invoice
	if shop.Registration() == Composition || (o.DocNo != 0 && strings.HasPrefix(o.Series, "B")) || (o.Origin != nil && o.Origin.Series != "" && strings.HasPrefix(o.Origin.Series, "B")) {
		kind = gstr.BillOfSupply
	}
	var buyer Buyer
	if o.Buyer != nil {
		buyer = o.Buyer.Normal()
	}
	place := PlaceOfSupply(shop.State, buyer)
	invoice := gstr.Document{
		Kind:          kind,
		Number:        firstNonEmpty(o.InvoiceNumber(terminal), o.ID),
		Date:          date,
		Seller:        sellerOf(shop),
		BuyerGSTIN:    buyer.GSTIN,
		BuyerName:     buyer.Name,
		PlaceOfSupply: firstNonEmpty(place.State, shop.State),
		ShopState:     shop.State,
		Tender:        tenderText(o),
		Cashier:       staff(o.Staff),
		Cancelled:     o.Cancelled != nil,
	}
	// Registration decides, as on the documents: a shop that states no tax
	// exports none (Shops.StatesTax, the rule the X/Z reports follow too).
	noTax := kind == gstr.BillOfSupply || !shops.StatesTax(date)
	printed := receiptLines(o, place.Interstate) // the IMEIs given to each line, as the receipt prints them
	amounts := make([]Paise, len(o.Lines))
	for i, l := range o.Lines {
		amounts[i] = l.Amount()
		gl := gstrLine(l, l.Amount(), l.Qty, noTax)
		if i < len(printed) {
			gl.IMEIs = printed[i].IMEIs
		}
		invoice.Lines = append(invoice.Lines, gl)
	}
	invoice.RoundOff = documentGST(invoice.Lines, amounts, noTax, place.Interstate)
	total := o.Totals.Total
	if total == 0 {
		total = ComputeTotals(o.Lines).Total
	}
	docs := []gstr.Document{invoice}
	if o.Origin != nil {
		// A return order's invoice is its own counter's document: only the
		// credit notes issued here are this counter's, citing it.
		docs = nil
	}
	for n, rf := range o.Refunds {
		if rf.Status != RefundDone || rf.Cancel {
			continue // a cancellation's refund issues no credit note
		}
		cnDate := dayTime(rf.Day, rf.Time, loc)
		cnShop := shops.At(cnDate)
		cnNoTax := noTax || !shops.StatesTax(cnDate)
		cnSeller := sellerOf(cnShop)
		if !shops.StatesTax(date) {
			// A note against a receipt or a composition bill of supply
			// reverses a supply no GSTR-1 reported: it files where its
			// invoice does, in none.
			cnSeller = invoice.Seller
		}
		cn := gstr.Document{
			Kind:           gstr.CreditNote,
			Number:         firstNonEmpty(rf.Number(terminal), fmt.Sprintf("%s/R%d", o.ID, n+1)),
			Date:           cnDate,
			Seller:         cnSeller,
			OriginalNumber: invoice.Number,
			OriginalDate:   invoice.Date,
			OriginalValue:  invoice.Value(),
			BuyerGSTIN:     invoice.BuyerGSTIN,
			BuyerName:      invoice.BuyerName,
			PlaceOfSupply:  invoice.PlaceOfSupply,
			ShopState:      invoice.ShopState,
			Tender:         invoice.Tender,
			Cashier:        staff(rf.Staff),
		}
		var back []Paise // what each line of the credit note gives back
		switch {
		case len(rf.Items) > 0:
			for _, it := range rf.Items {
				if it.Line < 0 || it.Line >= len(o.Lines) {
					continue
				}
				l := returnedLine(o.Lines[it.Line], it, cnNoTax)
				l.IMEIs = it.IMEIs
				cn.Lines = append(cn.Lines, l)
				back = append(back, it.Amount)
			}
		case rf.Amount >= total && cnNoTax == noTax:
			cn.Lines = make([]gstr.Line, len(invoice.Lines))
			copy(cn.Lines, invoice.Lines)
			back = amounts
		case rf.Amount >= total:
			for i, l := range o.Lines {
				gl := gstrLine(l, l.Amount(), l.Qty, cnNoTax)
				gl.IMEIs = invoice.Lines[i].IMEIs
				cn.Lines = append(cn.Lines, gl)
			}
			back = amounts
		default:
			for i, share := range Spread(rf.Amount, amounts) {
				if share != 0 {
					cn.Lines = append(cn.Lines, gstrLine(o.Lines[i], share, 0, cnNoTax))
					back = append(back, share)
				}
			}
		}
		cn.RoundOff = documentGST(cn.Lines, back, cnNoTax, place.Interstate)
		docs = append(docs, cn)
	}
	return docs
}

// sellerOf is the registration a document of shop is issued under.
func sellerOf(shop Shop) *gstr.Seller {
	return &gstr.Seller{GSTIN: shop.GSTIN, Composition: shop.Registration() == Composition}
}

// gstrLine is l as a document line for a GST-inclusive amount of it (the
// line's own, or a refund's share) and a quantity: its taxable value and cess
// (TaxWithCess); documentGST then sets the GST of the document's lines. A
// document without tax (a bill of supply) carries all of it as the value of the
// supply.
func gstrLine(l Line, amount Paise, qty int, noTax bool) gstr.Line {
	out := gstr.Line{Description: l.Name, HSN: l.HSN, HSNDesc: HSNDescription(l.HSN), UQC: string(l.Unit), Qty: qty, Supply: string(l.Supply)}
	if noTax {
		out.Taxable = gstr.Paise(amount)
		return out
	}
	tx := TaxWithCess(amount, l.GSTRate, l.Cess)
	out.Rate = gstr.Rate(l.GSTRate.BP())
	out.Taxable, out.Cess = gstr.Paise(tx.Taxable), gstr.Paise(tx.Cess)
	return out
}

// returnedLine is a return's item as a credit note's line: the taxable value
// and cess the return reversed (exactly the sale's, split by the rule of
// pos/return.go); documentGST then sets the GST of the credit note's lines.
func returnedLine(l Line, it ReturnItem, noTax bool) gstr.Line {
	out := gstr.Line{Description: l.Name, HSN: l.HSN, HSNDesc: HSNDescription(l.HSN), UQC: string(l.Unit), Qty: it.Qty, Supply: string(l.Supply)}
	if noTax {
		out.Taxable = gstr.Paise(it.Amount)
		return out
	}
	out.Rate = gstr.Rate(it.Rate.BP())
	if it.Rate.IsZero() {
		out.Rate = gstr.Rate(l.GSTRate.BP())
	}
	out.Taxable = gstr.Paise(it.Taxable)
	cess := it.Amount - it.Taxable - it.Tax // a cess the item's amount holds beside its GST
	out.Cess = gstr.Paise(max(cess, 0))
	return out
}

// documentGST sets the GST of one document's lines by the portal's arithmetic
// (DocumentTax: per rate of the document, as IGST across states) and returns the
// document's round-off: what its lines charge (amounts) less their taxable
// values, GST and cess. A document without tax has none.
func documentGST(lines []gstr.Line, amounts []Paise, noTax, interstate bool) gstr.Paise {
	if noTax {
		return 0
	}
	lts := make([]LineTax, len(lines))
	rates := make([]Rate, len(lines))
	var off Paise
	for i, l := range lines {
		lts[i] = LineTax{Taxable: Paise(l.Taxable), Cess: Paise(l.Cess)}
		rates[i] = RateBP(int(l.Rate))
	}
	DocumentTax(lts, rates, interstate)
	for i := range lines {
		l := &lines[i]
		l.CGST, l.SGST, l.IGST = gstr.Paise(lts[i].CGST), gstr.Paise(lts[i].SGST), gstr.Paise(lts[i].IGST)
		if i < len(amounts) {
			off += amounts[i]
		}
		off -= lts[i].Taxable + lts[i].Tax + lts[i].Cess
	}
	return gstr.Paise(off)
}

// Spread divides amount over parts in proportion to their sizes, to the paisa:
// each share rounded down, the paise left over going one each to the parts with
// the largest remainders (the first of equals first). The shares add up to
// amount exactly.
func Spread(amount Paise, parts []Paise) []Paise {
	out := make([]Paise, len(parts))
	var total Paise
	for _, p := range parts {
		total += p
	}
	if total <= 0 || amount == 0 {
		return out
	}
	rem := make([]int64, len(parts))
	left := amount
	for i, p := range parts {
		num := int64(amount) * int64(p)
		out[i] = Paise(num / int64(total))
		rem[i] = num % int64(total)
		left -= out[i]
	}
	order := make([]int, len(parts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case rem[a] > rem[b]:
			return -1
		case rem[a] < rem[b]:
			return 1
		}
		return 0
	})
	for _, i := range order {
		if left <= 0 {
			break
		}
		out[i]++
		left--
	}
	return out
}

// tenderText is how a sale was paid, as the accountant's CSV shows it: the
// tender, the card's brand and last four, the EMI plan; for a sale of
// tenders, theirs as recorded when it completed (Order.PaidBy).
func tenderText(o Order) string {
	if o.PaidBy != "" {
		return o.PaidBy // a sale's tenders, recorded when it completed
	}
	s := string(o.Tender)
	if o.CardLast4 != "" {
		s += " " + strings.TrimSpace(o.CardBrand+" "+o.CardLast4)
	}
	if o.EMI != nil {
		s += " " + PlanName(o.EMI)
	}
	return s
}

// dayTime is at in loc when that falls on day (DayLayout), else midnight of day:
// a document is dated the day its event was journaled on.
func dayTime(day string, at time.Time, loc *time.Location) time.Time {
	if !at.IsZero() && ToDay(at.In(loc)) == day {
		return at.In(loc)
	}
	d, err := time.ParseInLocation(DayLayout, day, loc)
	if err != nil {
		return at.In(loc)
	}
	return d
}

// returnDocuments is the shop and the documents of period for a return filed
// under gstin, or, with gstin "", under the GSTIN the shop was registered under
// as a regular taxpayer during the period (a GSTR-1 is per GSTIN, and documents
// issued under another registration are left out of it: gstr.Document.Seller).
// A shop whose GSTIN changed in the period (a new registration, after moving
// state) names the one it files for: with gstin "" it is refused with a sentence
// naming them. It is refused with a sentence when the shop had no GSTIN during
// the whole period, was under the composition scheme (CMP-08 and GSTR-4), never
// held gstin, or did not hold it as a regular taxpayer in the period.
func (ds *Documents) returnDocuments(ctx context.Context, period gstr.Period, gstin string) (Shop, []gstr.Document, error) {
	shops, err := LoadShops(ctx, ds.j)
	if err != nil {
		return Shop{}, nil, err
	}
	first, last := period.Days(ds.eng.Now().Location())
	during := shops.During(first, last.AddDate(0, 0, 1).Add(-time.Nanosecond))
	regular := map[string]Shop{} // each GSTIN held as a regular taxpayer in the period: its last details
	var gstins []string
	for _, s := range during {
		if s.Registration() != Regular {
			continue
		}
		if _, ok := regular[s.GSTIN]; !ok {
			gstins = append(gstins, s.GSTIN)
		}
		regular[s.GSTIN] = s
	}
	if gstin = strings.ToUpper(strings.TrimSpace(gstin)); gstin != "" {
		shop, ok := regular[gstin]
		switch {
		case ok:
		case !slices.Contains(shops.GSTINs(), gstin):
			return Shop{}, nil, Errorf("The shop never held GSTIN %s (its GSTINs: %s): give one of them to --gstin.", gstin, orNone(shops.GSTINs()))
		case len(gstins) > 0:
			return Shop{}, nil, Errorf("GSTIN %s was not the shop's regular registration in %s (%s was): it files no GSTR-1 for it; give the period in which it was.", gstin, period, strings.Join(gstins, ", "))
		default:
			return Shop{}, nil, Errorf("GSTIN %s was not the shop's regular registration in %s: it files no GSTR-1 for it; give the period in which it was.", gstin, period)
		}
		docs, err := ds.ExportDocuments(ctx, first, last)
		return shop, docs, err
	}
	switch {
	case len(gstins) > 1:
		return Shop{}, nil, Errorf("In %s the shop was registered under %s, and a GSTR-1 is filed per GSTIN: say which with --gstin (for example --gstin %s).", period, joinAnd(gstins), gstins[len(gstins)-1])
	case len(gstins) == 1:
		docs, err := ds.ExportDocuments(ctx, first, last)
		return regular[gstins[0]], docs, err
	case shops.Today.Registration() == Unregistered:
		return Shop{}, nil, sentenceErr("GSTR-1 is filed under the shop's GSTIN, which is not set: set it with galla shop set --gstin (or in Settings), then export again.")
	case during[len(during)-1].Registration() == Unregistered:
		return Shop{}, nil, Errorf("The shop had no GSTIN in %s (its documents were receipts, with no tax): it files no GSTR-1 for it, so there is nothing to export.", period)
	}
	return Shop{}, nil, Errorf("In %s the shop was under the composition scheme, which files CMP-08 and GSTR-4, not GSTR-1: there is nothing to export.", period)
}

// orNone is the GSTINs joined, or "none".
func orNone(gstins []string) string {
	if len(gstins) == 0 {
		return "none"
	}
	return strings.Join(gstins, ", ")
}

// joinAnd joins words as a sentence lists them: "A and B", "A, B and C".
func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// OtherDocuments says which documents of r's period are not in it because they
// were issued under another registration (gstr.Return.Other): while the shop
// had no GSTIN, under the composition scheme, or under another GSTIN; "" when
// there are none.
func OtherDocuments(r *gstr.Return) string {
	if r == nil || len(r.Other) == 0 {
		return ""
	}
	var groups []string
	byWhy := map[string][]string{}
	for _, d := range r.Other {
		why := "under GSTIN " + d.Seller.GSTIN
		switch {
		case d.Seller.GSTIN == "":
			why = "while the shop had no GSTIN"
		case d.Seller.Composition:
			why = "under the composition scheme"
		}
		if _, ok := byWhy[why]; !ok {
			groups = append(groups, why)
		}
		byWhy[why] = append(byWhy[why], d.Number)
	}
	parts := make([]string, len(groups))
	for i, why := range groups {
		parts[i] = strings.Join(byWhy[why], ", ") + " " + why
	}
	n := "documents were"
	if len(r.Other) == 1 {
		n = "document was"
	}
	return fmt.Sprintf("%d %s issued in the period under another registration than GSTIN %s and %s not in this return: %s.",
		len(r.Other), n, r.GSTIN, map[bool]string{true: "is", false: "are"}[len(r.Other) == 1], strings.Join(parts, "; "))
}

// GSTR1Period is the GSTR-1 of a month, or of a quarter for a shop filing
// quarterly under the QRMP scheme (gstr.GSTR1Period), under gstin: "" for the
// GSTIN the shop held in the period, or one of the shop's GSTINs in force then
// (a shop whose GSTIN changed files a return for each). iff says the B2B
// documents of the quarter's first two months went in their IFF.
func (ds *Documents) GSTR1Period(ctx context.Context, period gstr.Period, gstin string, iff bool) (*gstr.Return, error) {
	shop, docs, err := ds.returnDocuments(ctx, period, gstin)
	if err != nil {
		return nil, err
	}
	r, err := gstr.GSTR1Period(period, shop.GSTIN, docs, iff)
	if err != nil {
		return nil, fmt.Errorf("pos: gstr1 %s: %w", period, err)
	}
	// Table 12's desc: the text of the HSN list the shop loaded, over the
	// built-in master's the lines carry (HSNDescription).
	list, err := ds.hsnMaster(ctx)
	if err != nil {
		return nil, err
	}
	if list != nil {
		r.DescribeHSN(func(code string) string { return hsnDescription(list, code) })
	}
	if shop.Turnover > EInvoiceTurnover {
		for _, code := range r.HSNCodes() {
			if len(code) < 6 {
				r.ShortHSN = append(r.ShortHSN, code)
			}
		}
	}
	return r, nil
}

// ShortHSN says which HSN codes of r's table 12 have fewer digits than the
// shop's declared turnover asks (gstr.Return.ShortHSN), and what to do; ""
// when none. The lines sold carry the codes of the catalog they were sold
// from: one imported before the shop declared a turnover above ₹5 crore is
// not checked again (docs/gst.md, "What a shop sets up").
func ShortHSN(r *gstr.Return) string {
	if r == nil || len(r.ShortHSN) == 0 {
		return ""
	}
	return fmt.Sprintf("The shop declared an aggregate turnover above %s, and table 12 (HSN) of this return has %s of fewer than six digits: %s; the portal takes six (Notification 78/2020-Central Tax). Give the six-digit codes in the offline tool before uploading, and import the catalog with six-digit codes so that later sales carry them.",
		EInvoiceTurnover, map[bool]string{true: "a code", false: "codes"}[len(r.ShortHSN) == 1], joinAnd(r.ShortHSN))
}

// IFF is the Invoice Furnishing Facility of month for a quarterly filer: the
// month's B2B invoices and credit notes to registered buyers (gstr.IFF). The
// last month of a quarter has none: its documents go in the quarter's GSTR-1.
// gstin is as GSTR1Period takes it.
func (ds *Documents) IFF(ctx context.Context, month gstr.Month, gstin string) (*gstr.Return, error) {
	shop, docs, err := ds.returnDocuments(ctx, gstr.MonthPeriod(month), gstin)
	if err != nil {
		return nil, err
	}
	r, err := gstr.IFF(month, shop.GSTIN, docs)
	if errors.Is(err, gstr.ErrIFFMonth) {
		return nil, Errorf("%s is the last month of its quarter (%s): its B2B invoices go in the quarter's GSTR-1 (galla export gstr1 --quarter %s), not in an IFF.", month, gstr.QuarterOf(month), gstr.QuarterOf(month))
	}
	if err != nil {
		return nil, fmt.Errorf("pos: iff %s: %w", month, err)
	}
	return r, nil
}
