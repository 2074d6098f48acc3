package gstr

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Return is the GSTR-1 of one month as the GST portal's offline tool imports it
// (JSON). Sections without entries are left out.
type Return struct {
	GSTIN    string    `json:"gstin"`
	FP       string    `json:"fp"`      // the return period, MMYYYY
	Version  string    `json:"version"` // the schema version the file claims (SchemaVersion)
	Hash     string    `json:"hash"`    // "hash": a placeholder the offline tool writes too
	B2B      []B2B     `json:"b2b,omitempty"`
	B2CL     []B2CL    `json:"b2cl,omitempty"`
	B2CS     []B2CS    `json:"b2cs,omitempty"`
	CDNR     []CDNR    `json:"cdnr,omitempty"`
	CDNUR    []Note    `json:"cdnur,omitempty"`
	Nil      *Nil      `json:"nil,omitempty"`
	HSN      *HSN      `json:"hsn,omitempty"`
	DocIssue *DocIssue `json:"doc_issue,omitempty"`

	// Other is the period's documents left out because they were issued under
	// another registration (Document.Under): while the shop had no GSTIN, was
	// under the composition scheme, or had another GSTIN. They are not part of
	// the file; an exporter says which they are.
	Other []Document `json:"-"`

	// ShortHSN is the HSN codes of table 12 with fewer digits than the
	// shop's aggregate turnover asks (six above ₹5 crore, Notification
	// 78/2020-Central Tax), as the lines sold carried them; set by the
	// caller that knows the turnover, not part of the file.
	ShortHSN []string `json:"-"`
}

// DescribeHSN sets the desc of each row of r's table 12 to desc of its HSN
// code, cut as table 12 takes it (hsnDesc); a code desc gives "" keeps the
// row's (the line's Line.HSNDesc). A counter describes the codes with the
// HSN list its shop loaded.
func (r *Return) DescribeHSN(desc func(code string) string) {
	if r.HSN == nil {
		return
	}
	for _, rows := range [][]HSNRow{r.HSN.Data, r.HSN.B2B, r.HSN.B2C} {
		for i := range rows {
			if d := desc(rows[i].HSNSc); d != "" {
				rows[i].Desc = hsnDesc(d)
			}
		}
	}
}

// HSNCodes is every HSN code of r's table 12, in the order of its rows, each
// once.
func (r *Return) HSNCodes() []string {
	if r.HSN == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, rows := range [][]HSNRow{r.HSN.Data, r.HSN.B2B, r.HSN.B2C} {
		for _, h := range rows {
			if !seen[h.HSNSc] {
				seen[h.HSNSc] = true
				out = append(out, h.HSNSc)
			}
		}
	}
	return out
}

// B2B is table 4A: the invoices to one registered buyer.
type B2B struct {
	CTIN string       `json:"ctin"` // the buyer's GSTIN
	Inv  []B2BInvoice `json:"inv"`
}

// B2BInvoice is one invoice to a registered buyer.
type B2BInvoice struct {
	INum   string `json:"inum"`
	IDt    string `json:"idt"` // DD-MM-YYYY
	Val    Paise  `json:"val"`
	POS    string `json:"pos"`
	RChrg  string `json:"rchrg"`   // reverse charge: "N"
	InvTyp string `json:"inv_typ"` // "R": regular
	Itms   []Item `json:"itms"`
}

// Item is one rate of an invoice or note: its taxable value and tax.
type Item struct {
	Num    int     `json:"num"`
	ItmDet ItemDet `json:"itm_det"`
}

// ItemDet is the taxable value and tax at one rate. IGST is written for an
// inter-state supply, CGST and SGST for one within the state.
type ItemDet struct {
	Rt    Rate   `json:"rt"`
	TxVal Paise  `json:"txval"`
	IAmt  *Paise `json:"iamt,omitempty"`
	CAmt  *Paise `json:"camt,omitempty"`
	SAmt  *Paise `json:"samt,omitempty"`
	CsAmt Paise  `json:"csamt"`
}

// B2CL is table 5: large inter-state invoices to unregistered buyers, by place
// of supply.
type B2CL struct {
	POS string        `json:"pos"`
	Inv []B2CLInvoice `json:"inv"`
}

// B2CLInvoice is one large inter-state invoice to an unregistered buyer.
type B2CLInvoice struct {
	INum string `json:"inum"`
	IDt  string `json:"idt"`
	Val  Paise  `json:"val"`
	Itms []Item `json:"itms"`
}

// B2CS is table 7: every other supply to unregistered buyers, by supply type,
// place of supply and rate, net of the credit notes issued to them.
type B2CS struct {
	SplyTy string `json:"sply_ty"` // INTRA or INTER
	POS    string `json:"pos"`
	Typ    string `json:"typ"` // "OE": not through an e-commerce operator
	Rt     Rate   `json:"rt"`
	TxVal  Paise  `json:"txval"`
	IAmt   *Paise `json:"iamt,omitempty"`
	CAmt   *Paise `json:"camt,omitempty"`
	SAmt   *Paise `json:"samt,omitempty"`
	CsAmt  Paise  `json:"csamt"`
}

// CDNR is table 9B: the credit notes to one registered buyer.
type CDNR struct {
	CTIN string `json:"ctin"`
	Nt   []Note `json:"nt"`
}

// Note is one credit note (ntty "C"), in cdnr or, with Typ set, in cdnur.
type Note struct {
	Typ    string `json:"typ,omitempty"` // cdnur only: "B2CL"
	NtNum  string `json:"nt_num"`
	NtDt   string `json:"nt_dt"`
	NtTy   string `json:"ntty"` // "C": credit note
	Val    Paise  `json:"val"`
	POS    string `json:"pos"`
	RChrg  string `json:"rchrg,omitempty"`   // cdnr only: "N"
	InvTyp string `json:"inv_typ,omitempty"` // cdnr only: "R"
	Itms   []Item `json:"itms"`
}

// Nil is table 8: nil-rated and exempt supplies, by supply type.
type Nil struct {
	Inv []NilRow `json:"inv"`
}

// NilRow is the nil-rated (0% lines of tax invoices) and exempt (lines of bills
// of supply) value of one supply type, net of credit notes.
type NilRow struct {
	SplyTy  string `json:"sply_ty"` // INTRAB2B, INTRAB2C, INTRB2B, INTRB2C
	ExptAmt Paise  `json:"expt_amt"`
	NilAmt  Paise  `json:"nil_amt"`
	NgsAmt  Paise  `json:"ngsup_amt"`
}

// HSN is table 12, the HSN summary, net of credit notes. From the return period
// May 2025 the portal takes it in two tabs, supplies to registered buyers
// (hsn_b2b) and to unregistered ones (hsn_b2c); before, in one (data).
type HSN struct {
	Data []HSNRow `json:"data,omitempty"`
	B2B  []HSNRow `json:"hsn_b2b,omitempty"`
	B2C  []HSNRow `json:"hsn_b2c,omitempty"`
}

// HSNRow is one HSN code at one rate and unit.
type HSNRow struct {
	Num   int    `json:"num"`
	HSNSc string `json:"hsn_sc"`
	Desc  string `json:"desc,omitempty"`      // the HSN master's description of the code (Line.HSNDesc)
	User  string `json:"user_desc,omitempty"` // the catalog's name of the goods
	UQC   string `json:"uqc"`
	Qty   int    `json:"qty"`
	Rt    Rate   `json:"rt"`
	TxVal Paise  `json:"txval"`
	IAmt  Paise  `json:"iamt"`
	CAmt  Paise  `json:"camt"`
	SAmt  Paise  `json:"samt"`
	CsAmt Paise  `json:"csamt"`
}

// DocIssue is table 13: the documents issued in the month, per kind and series.
type DocIssue struct {
	DocDet []DocDet `json:"doc_det"`
}

// DocDet is one kind of document: 1 invoices for outward supply (tax invoices
// and bills of supply), 5 credit notes.
type DocDet struct {
	DocNum int         `json:"doc_num"`
	DocTyp string      `json:"doc_typ"`
	Docs   []DocSeries `json:"docs"`
}

// DocSeries is one number series: the first and last number issued in the
// month, how many documents were issued, how many of them are cancelled.
type DocSeries struct {
	Num      int    `json:"num"`
	From     string `json:"from"`
	To       string `json:"to"`
	TotNum   int    `json:"totnum"`
	Cancel   int    `json:"cancel"`
	NetIssue int    `json:"net_issue"`
}

// Table 13's document kinds.
const (
	docInvoices    = 1
	docCreditNotes = 5
)

// docTypes names table 13's document kinds as the portal does.
var docTypes = map[int]string{docInvoices: "Invoices for outward supply", docCreditNotes: "Credit Note"}

// SchemaVersion is the version a GSTR-1 file claims, as other exporters whose
// files the offline tool imports write it.
const SchemaVersion = "GST3.0.4"

// B2CLThreshold is the invoice value above which an inter-state invoice to an
// unregistered buyer dated d is reported invoice by invoice in b2cl: ₹1,00,000
// from 1 August 2024 (Notification 12/2024-Central Tax, amending rule 59), and
// ₹2,50,000 before.
func B2CLThreshold(d time.Time) Paise {
	if d.Before(time.Date(2024, time.August, 1, 0, 0, 0, 0, d.Location())) {
		return 250000_00
	}
	return 100000_00
}

// ErrNoGSTIN refuses a GSTR-1 without the shop's GSTIN.
var ErrNoGSTIN = errors.New("gstr: the shop's GSTIN is not set")

// GSTR1 builds the GSTR-1 of month for the shop registered as shopGSTIN from
// docs; documents dated outside month are left out, and so are those issued
// under another registration (Document.Under), which are listed in the
// return's Other. Credit notes are reported in the month they were issued.
func GSTR1(month Month, shopGSTIN string, docs []Document) (*Return, error) {
	return GSTR1Period(MonthPeriod(month), shopGSTIN, docs, false)
}

// GSTR1Period builds the GSTR-1 of a period: a month, or a quarterly (QRMP)
// filer's quarter, whose return period (fp) is its last month. With iff, the
// B2B invoices and registered credit notes of the quarter's first two months
// were furnished in their IFF (IFF) and are left out of b2b and cdnr; they
// still count in doc_issue and the HSN summary.
func GSTR1Period(period Period, shopGSTIN string, docs []Document, iff bool) (*Return, error) {
	if strings.TrimSpace(shopGSTIN) == "" {
		return nil, ErrNoGSTIN
	}
	month := period.Last()
	r := &Return{GSTIN: shopGSTIN, FP: month.FP(), Version: SchemaVersion, Hash: "hash"}
	b := builder{
		b2b:   map[string][]B2BInvoice{},
		b2cl:  map[string][]B2CLInvoice{},
		b2cs:  map[b2csKey]*B2CS{},
		cdnr:  map[string][]Note{},
		nils:  map[string]*NilRow{},
		hsn:   map[hsnKey]*HSNRow{},
		issue: map[seriesKey]*seriesAcc{},
	}
	for _, d := range docs {
		if !period.Contains(d.Date) {
			continue
		}
		if !d.Under(shopGSTIN) {
			r.Other = append(r.Other, d)
			continue
		}
		b.furnished = iff && furnished(period, d)
		if err := b.add(d); err != nil {
			return nil, err
		}
	}
	b.fill(r, month)
	return r, nil
}

type b2csKey struct {
	inter bool
	pos   string
	rate  Rate
}

type hsnKey struct {
	b2b  bool
	hsn  string
	uqc  string
	rate Rate
}

type seriesKey struct {
	doc    int
	series string
}

type seriesAcc struct {
	from, to     string
	fromN, toN   uint64
	total, cance int
}

type builder struct {
	b2b   map[string][]B2BInvoice
	b2cl  map[string][]B2CLInvoice
	b2cs  map[b2csKey]*B2CS
	cdnr  map[string][]Note
	cdnur []Note
	nils  map[string]*NilRow
	hsn   map[hsnKey]*HSNRow
	issue map[seriesKey]*seriesAcc
	// furnished is set while adding a document an IFF reported already: it
	// goes to doc_issue and the HSN summary only.
	furnished bool
}

// portalDate writes a date as the portal does: DD-MM-YYYY.
func portalDate(t time.Time) string { return t.Format("02-01-2006") }

func (b *builder) add(d Document) error {
	if d.Number == "" {
		return fmt.Errorf("gstr: a %s dated %s has no number", d.Kind, d.Date.Format(time.DateOnly))
	}
	switch d.Kind {
	case Invoice, BillOfSupply, CreditNote:
	default:
		return fmt.Errorf("gstr: document %s: unknown kind %q", d.Number, d.Kind)
	}
	if d.PlaceOfSupply == "" {
		d.PlaceOfSupply = d.ShopState
	}
	for i, l := range d.Lines {
		switch {
		case d.InterState() && (l.CGST != 0 || l.SGST != 0):
			return fmt.Errorf("gstr: %s %s line %d: CGST and SGST on a supply from state %s to %s (IGST applies)", d.Kind, d.Number, i+1, d.ShopState, d.PlaceOfSupply)
		case !d.InterState() && l.IGST != 0:
			return fmt.Errorf("gstr: %s %s line %d: IGST on a supply within state %s", d.Kind, d.Number, i+1, d.PlaceOfSupply)
		}
	}
	b.count(d)
	if d.Cancelled {
		return nil
	}
	sign := Paise(1)
	if d.Kind == CreditNote {
		sign = -1
	}
	// Nil-rated and exempt lines go to table 8; the HSN summary takes every line.
	nilKind := "INTR"
	if !d.InterState() {
		nilKind = "INTRA"
	}
	if d.Registered() {
		nilKind += "B2B"
	} else {
		nilKind += "B2C"
	}
	for _, l := range d.Lines {
		b.addHSN(d, l, sign)
		if d.Kind == BillOfSupply || l.Rate == 0 {
			n := b.nils[nilKind]
			if n == nil {
				n = &NilRow{SplyTy: nilKind}
				b.nils[nilKind] = n
			}
			// The line's own supply decides the column, so that an item is
			// in the same column on a tax invoice, a bill of supply and the
			// credit note that reverses either.
			switch l.Supply {
			case "exempt":
				n.ExptAmt += sign * l.Taxable
			case "non-gst":
				n.NgsAmt += sign * l.Taxable
			default:
				n.NilAmt += sign * l.Taxable
			}
		}
	}
	if d.Kind == BillOfSupply || b.furnished {
		return nil
	}
	items := itemsOf(d)
	switch {
	case d.Kind == Invoice && d.Registered():
		if len(items) == 0 {
			return nil
		}
		b.b2b[d.BuyerGSTIN] = append(b.b2b[d.BuyerGSTIN], B2BInvoice{INum: d.Number, IDt: portalDate(d.Date), Val: d.Value(),
			POS: d.PlaceOfSupply, RChrg: "N", InvTyp: "R", Itms: items})
	case d.Kind == Invoice && d.InterState() && d.Value() > B2CLThreshold(d.Date):
		if len(items) == 0 {
			return nil
		}
		b.b2cl[d.PlaceOfSupply] = append(b.b2cl[d.PlaceOfSupply], B2CLInvoice{INum: d.Number, IDt: portalDate(d.Date), Val: d.Value(), Itms: items})
	case d.Kind == CreditNote && d.Registered():
		if len(items) == 0 {
			return nil
		}
		b.cdnr[d.BuyerGSTIN] = append(b.cdnr[d.BuyerGSTIN], Note{NtNum: d.Number, NtDt: portalDate(d.Date), NtTy: "C", Val: d.Value(),
			POS: d.PlaceOfSupply, RChrg: "N", InvTyp: "R", Itms: items})
	case d.Kind == CreditNote && d.InterState() && d.OriginalValue > B2CLThreshold(origDate(d)):
		if len(items) == 0 {
			return nil
		}
		b.cdnur = append(b.cdnur, Note{Typ: "B2CL", NtNum: d.Number, NtDt: portalDate(d.Date), NtTy: "C", Val: d.Value(),
			POS: d.PlaceOfSupply, Itms: items})
	default:
		// Small supplies to unregistered buyers, net of their credit notes.
		for _, l := range d.Lines {
			if l.Rate == 0 {
				continue
			}
			k := b2csKey{inter: d.InterState(), pos: d.PlaceOfSupply, rate: l.Rate}
			e := b.b2cs[k]
			if e == nil {
				e = &B2CS{SplyTy: "INTRA", POS: k.pos, Typ: "OE", Rt: k.rate}
				if k.inter {
					e.SplyTy = "INTER"
				}
				b.b2cs[k] = e
			}
			e.TxVal += sign * l.Taxable
			e.CsAmt += sign * l.Cess
			if k.inter {
				e.IAmt = plus(e.IAmt, sign*l.IGST)
			} else {
				e.CAmt = plus(e.CAmt, sign*l.CGST)
				e.SAmt = plus(e.SAmt, sign*l.SGST)
			}
		}
	}
	return nil
}

// origDate is the date a credit note's original invoice is judged by: its own
// date when the note does not give it.
func origDate(d Document) time.Time {
	if d.OriginalDate.IsZero() {
		return d.Date
	}
	return d.OriginalDate
}

func zero(p *Paise) bool { return p == nil || *p == 0 }

func plus(p *Paise, v Paise) *Paise {
	if p == nil {
		return &v
	}
	s := *p + v
	return &s
}

// itemsOf sums a document's taxed lines per rate, lowest rate first.
func itemsOf(d Document) []Item {
	byRate := map[Rate]*ItemDet{}
	for _, l := range d.Lines {
		if l.Rate == 0 {
			continue
		}
		it := byRate[l.Rate]
		if it == nil {
			it = &ItemDet{Rt: l.Rate}
			byRate[l.Rate] = it
		}
		it.TxVal += l.Taxable
		it.CsAmt += l.Cess
		if d.InterState() {
			it.IAmt = plus(it.IAmt, l.IGST)
		} else {
			it.CAmt = plus(it.CAmt, l.CGST)
			it.SAmt = plus(it.SAmt, l.SGST)
		}
	}
	rates := make([]Rate, 0, len(byRate))
	for r := range byRate {
		rates = append(rates, r)
	}
	slices.Sort(rates)
	out := make([]Item, 0, len(rates))
	for i, r := range rates {
		out = append(out, Item{Num: i + 1, ItmDet: *byRate[r]})
	}
	return out
}

func (b *builder) addHSN(d Document, l Line, sign Paise) {
	uqc := l.UQC
	if uqc == "" {
		uqc = "NOS"
	}
	k := hsnKey{b2b: d.Registered(), hsn: l.HSN, uqc: uqc, rate: l.Rate}
	h := b.hsn[k]
	if h == nil {
		h = &HSNRow{HSNSc: l.HSN, Desc: hsnDesc(l.HSNDesc), User: hsnDesc(l.Description), UQC: uqc, Rt: l.Rate}
		b.hsn[k] = h
	}
	h.Qty += int(sign) * l.Qty
	h.TxVal += sign * l.Taxable
	if d.InterState() {
		h.IAmt += sign * l.IGST
	} else {
		h.CAmt += sign * l.CGST
		h.SAmt += sign * l.SGST
	}
	h.CsAmt += sign * l.Cess
}

// hsnDesc is a line's description as table 12 takes it: at most 30
// characters, cut after the last whole word that fits ("Samsung Galaxy S24 5G
// 8GB/256GB Onyx Black" is "Samsung Galaxy S24 5G", not "… 8GB/256G"), or
// at 30 characters when no word ends in the second half of them.
func hsnDesc(s string) string {
	s = strings.TrimSpace(s)
	r := []rune(s)
	if len(r) <= hsnDescMax {
		return s
	}
	head := r[:hsnDescMax+1] // one more: a word that ends at 30 is whole
	for i := hsnDescMax; i >= hsnDescMax/2; i-- {
		if head[i] == ' ' {
			return strings.TrimSpace(string(head[:i]))
		}
	}
	return strings.TrimSpace(string(r[:hsnDescMax]))
}

// hsnDescMax is the length of table 12's desc and user_desc.
const hsnDescMax = 30

var trailingDigits = regexp.MustCompile(`[0-9]+$`)

// count adds d to its series in table 13.
func (b *builder) count(d Document) {
	doc := docInvoices
	if d.Kind == CreditNote {
		doc = docCreditNotes
	}
	digits := trailingDigits.FindString(d.Number)
	n, _ := strconv.ParseUint(digits, 10, 64)
	k := seriesKey{doc: doc, series: strings.TrimSuffix(d.Number, digits)}
	if d.Kind == BillOfSupply {
		k.series = "bos:" + k.series // its own series even if it shares a prefix
	}
	s := b.issue[k]
	if s == nil {
		s = &seriesAcc{from: d.Number, to: d.Number, fromN: n, toN: n}
		b.issue[k] = s
	}
	if n < s.fromN || n == s.fromN && d.Number < s.from {
		s.from, s.fromN = d.Number, n
	}
	if n > s.toN || n == s.toN && d.Number > s.to {
		s.to, s.toN = d.Number, n
	}
	s.total++
	if d.Cancelled {
		s.cance++
	}
}

// fill writes the sums into r in a stable order.
func (b *builder) fill(r *Return, month Month) {
	for _, ctin := range sortedKeys(b.b2b) {
		inv := b.b2b[ctin]
		slices.SortStableFunc(inv, func(x, y B2BInvoice) int { return strings.Compare(x.INum, y.INum) })
		r.B2B = append(r.B2B, B2B{CTIN: ctin, Inv: inv})
	}
	for _, pos := range sortedKeys(b.b2cl) {
		inv := b.b2cl[pos]
		slices.SortStableFunc(inv, func(x, y B2CLInvoice) int { return strings.Compare(x.INum, y.INum) })
		r.B2CL = append(r.B2CL, B2CL{POS: pos, Inv: inv})
	}
	for _, e := range b.b2cs {
		if e.TxVal == 0 && e.CsAmt == 0 && zero(e.IAmt) && zero(e.CAmt) && zero(e.SAmt) {
			continue // sales wholly returned within the month
		}
		r.B2CS = append(r.B2CS, *e)
	}
	slices.SortFunc(r.B2CS, func(x, y B2CS) int {
		if c := strings.Compare(x.SplyTy, y.SplyTy); c != 0 {
			return -c // INTRA before INTER
		}
		if c := strings.Compare(x.POS, y.POS); c != 0 {
			return c
		}
		return int(x.Rt - y.Rt)
	})
	for _, ctin := range sortedKeys(b.cdnr) {
		nt := b.cdnr[ctin]
		slices.SortStableFunc(nt, func(x, y Note) int { return strings.Compare(x.NtNum, y.NtNum) })
		r.CDNR = append(r.CDNR, CDNR{CTIN: ctin, Nt: nt})
	}
	slices.SortStableFunc(b.cdnur, func(x, y Note) int { return strings.Compare(x.NtNum, y.NtNum) })
	r.CDNUR = b.cdnur
	if len(b.nils) > 0 {
		r.Nil = &Nil{}
		for _, k := range sortedKeys(b.nils) {
			r.Nil.Inv = append(r.Nil.Inv, *b.nils[k])
		}
	}
	if len(b.hsn) > 0 {
		r.HSN = &HSN{}
		defer func() {
			if len(r.HSN.Data)+len(r.HSN.B2B)+len(r.HSN.B2C) == 0 {
				r.HSN = nil
			}
		}()
		keys := make([]hsnKey, 0, len(b.hsn))
		for k := range b.hsn {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(x, y hsnKey) int {
			if c := strings.Compare(x.hsn, y.hsn); c != 0 {
				return c
			}
			if x.rate != y.rate {
				return int(x.rate - y.rate)
			}
			return strings.Compare(x.uqc, y.uqc)
		})
		split := !month.before(2025, time.May)
		for _, k := range keys {
			h := *b.hsn[k]
			if h == (HSNRow{HSNSc: h.HSNSc, Desc: h.Desc, User: h.User, UQC: h.UQC, Rt: h.Rt}) {
				continue // sold and wholly returned within the month
			}
			switch {
			case !split:
				h.Num = len(r.HSN.Data) + 1
				r.HSN.Data = append(r.HSN.Data, h)
			case k.b2b:
				h.Num = len(r.HSN.B2B) + 1
				r.HSN.B2B = append(r.HSN.B2B, h)
			default:
				h.Num = len(r.HSN.B2C) + 1
				r.HSN.B2C = append(r.HSN.B2C, h)
			}
		}
		if !split {
			// Before May 2025 the two tabs were one table: same HSN, rate
			// and unit in one row.
			r.HSN.Data = mergeHSN(r.HSN.Data)
		}
	}
	if len(b.issue) > 0 {
		keys := make([]seriesKey, 0, len(b.issue))
		for k := range b.issue {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(x, y seriesKey) int {
			if x.doc != y.doc {
				return x.doc - y.doc
			}
			return strings.Compare(x.series, y.series)
		})
		r.DocIssue = &DocIssue{}
		for _, k := range keys {
			s := b.issue[k]
			if n := len(r.DocIssue.DocDet); n == 0 || r.DocIssue.DocDet[n-1].DocNum != k.doc {
				r.DocIssue.DocDet = append(r.DocIssue.DocDet, DocDet{DocNum: k.doc, DocTyp: docTypes[k.doc]})
			}
			dd := &r.DocIssue.DocDet[len(r.DocIssue.DocDet)-1]
			dd.Docs = append(dd.Docs, DocSeries{Num: len(dd.Docs) + 1, From: s.from, To: s.to, TotNum: s.total,
				Cancel: s.cance, NetIssue: s.total - s.cance})
		}
	}
}

// mergeHSN folds rows of the same HSN, rate and unit (registered and
// unregistered buyers) into one and numbers them again.
func mergeHSN(rows []HSNRow) []HSNRow {
	var out []HSNRow
	for _, h := range rows {
		if n := len(out); n > 0 && out[n-1].HSNSc == h.HSNSc && out[n-1].Rt == h.Rt && out[n-1].UQC == h.UQC {
			o := &out[n-1]
			o.Qty += h.Qty
			o.TxVal += h.TxVal
			o.IAmt += h.IAmt
			o.CAmt += h.CAmt
			o.SAmt += h.SAmt
			o.CsAmt += h.CsAmt
			continue
		}
		out = append(out, h)
	}
	for i := range out {
		out[i].Num = i + 1
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
