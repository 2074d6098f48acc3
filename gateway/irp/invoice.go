package irp

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Version is the INV-01 schema version the invoices are built to.
const Version = "1.1"

// Document types of DocDtls.Typ.
const (
	TypeInvoice    = "INV"
	TypeCreditNote = "CRN"
)

// DateLayout is the date format of the INV-01 (dd/mm/yyyy).
const DateLayout = "02/01/2006"

// Amount is money in paise, written in the INV-01 as rupees with two decimals.
type Amount int64

// MarshalJSON writes a as a JSON number of rupees: 1234.50.
func (a Amount) MarshalJSON() ([]byte, error) {
	neg := a < 0
	if neg {
		a = -a
	}
	s := fmt.Sprintf("%d.%02d", a/100, a%100)
	if neg {
		s = "-" + s
	}
	return []byte(s), nil
}

// UnmarshalJSON reads a JSON number of rupees with at most two decimals.
func (a *Amount) UnmarshalJSON(b []byte) error {
	p, err := parseFixed(string(b), 2)
	if err != nil {
		return fmt.Errorf("irp: amount %s: %w", b, err)
	}
	*a = Amount(p)
	return nil
}

// Rate is a percentage in thousandths of a percent (18% is 18000, 0.25% is 250),
// written in the INV-01 as a number: 18, 0.25.
type Rate int64

// MarshalJSON writes r as a JSON number of percent.
func (r Rate) MarshalJSON() ([]byte, error) {
	s := strconv.FormatInt(int64(r)/1000, 10)
	if f := int64(r) % 1000; f != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%03d", f), "0")
	}
	return []byte(s), nil
}

// UnmarshalJSON reads a JSON number of percent with at most three decimals.
func (r *Rate) UnmarshalJSON(b []byte) error {
	p, err := parseFixed(string(b), 3)
	if err != nil {
		return fmt.Errorf("irp: rate %s: %w", b, err)
	}
	*r = Rate(p)
	return nil
}

// Price is a unit price in thousandths of a rupee (tenths of a paisa), as the
// INV-01 allows three decimals for it.
type Price int64

// MarshalJSON writes p as a JSON number of rupees with three decimals.
func (p Price) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, "%d.%03d", p/1000, p%1000), nil
}

// UnmarshalJSON reads a JSON number of rupees with at most three decimals.
func (p *Price) UnmarshalJSON(b []byte) error {
	v, err := parseFixed(string(b), 3)
	if err != nil {
		return fmt.Errorf("irp: price %s: %w", b, err)
	}
	*p = Price(v)
	return nil
}

var errNumber = errors.New("not a number with the allowed decimals")

// parseFixed reads a decimal number as an integer of 10^-places units.
func parseFixed(s string, places int) (int64, error) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	frac = strings.TrimRight(frac, "0")
	if whole == "" || len(frac) > places {
		return 0, errNumber
	}
	for len(frac) < places {
		frac += "0"
	}
	v, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return 0, errNumber
	}
	if neg {
		v = -v
	}
	return v, nil
}

// Invoice is the INV-01 JSON of one document (schema version 1.1), the body of
// generate IRN. Only the blocks a counter's B2B invoice or credit note fills are
// modelled.
type Invoice struct {
	Version    string    `json:"Version"`
	TranDtls   TranDtls  `json:"TranDtls"`
	DocDtls    DocDtls   `json:"DocDtls"`
	SellerDtls Party     `json:"SellerDtls"`
	BuyerDtls  Party     `json:"BuyerDtls"`
	ItemList   []Item    `json:"ItemList"`
	ValDtls    ValDtls   `json:"ValDtls"`
	RefDtls    *RefDtls  `json:"RefDtls,omitempty"`
	ShipDtls   *ShipDtls `json:"ShipDtls,omitempty"`
}

// TranDtls is the supply: GST, B2B, no reverse charge.
type TranDtls struct {
	TaxSch      string `json:"TaxSch"`
	SupTyp      string `json:"SupTyp"`
	RegRev      string `json:"RegRev"`
	IgstOnIntra string `json:"IgstOnIntra"`
}

// DocDtls names the document: type, number and date.
type DocDtls struct {
	Typ string `json:"Typ"`
	No  string `json:"No"`
	Dt  string `json:"Dt"`
}

// Party is the seller or the buyer. Pos is the place of supply (buyer only).
type Party struct {
	Gstin string `json:"Gstin"`
	LglNm string `json:"LglNm"`
	TrdNm string `json:"TrdNm,omitempty"`
	Pos   string `json:"Pos,omitempty"`
	Addr1 string `json:"Addr1"`
	Addr2 string `json:"Addr2,omitempty"`
	Loc   string `json:"Loc"`
	Pin   int    `json:"Pin,omitempty"`
	Stcd  string `json:"Stcd"`
	Ph    string `json:"Ph,omitempty"`
}

// ShipDtls is where the goods are delivered, when not the buyer's address.
type ShipDtls struct {
	LglNm string `json:"LglNm"`
	Addr1 string `json:"Addr1"`
	Loc   string `json:"Loc"`
	Pin   int    `json:"Pin"`
	Stcd  string `json:"Stcd"`
}

// Item is one line. TotAmt = UnitPrice × Qty (to the paisa), AssAmt = TotAmt −
// Discount, TotItemVal = AssAmt + every tax.
type Item struct {
	SlNo       string `json:"SlNo"`
	PrdDesc    string `json:"PrdDesc"`
	IsServc    string `json:"IsServc"`
	HsnCd      string `json:"HsnCd"`
	Qty        int    `json:"Qty"`
	Unit       string `json:"Unit"`
	UnitPrice  Price  `json:"UnitPrice"`
	TotAmt     Amount `json:"TotAmt"`
	Discount   Amount `json:"Discount"`
	AssAmt     Amount `json:"AssAmt"`
	GstRt      Rate   `json:"GstRt"`
	IgstAmt    Amount `json:"IgstAmt"`
	CgstAmt    Amount `json:"CgstAmt"`
	SgstAmt    Amount `json:"SgstAmt"`
	CesRt      Rate   `json:"CesRt"`
	CesAmt     Amount `json:"CesAmt"`
	TotItemVal Amount `json:"TotItemVal"`
}

// ValDtls is the document's totals.
type ValDtls struct {
	AssVal    Amount `json:"AssVal"`
	CgstVal   Amount `json:"CgstVal"`
	SgstVal   Amount `json:"SgstVal"`
	IgstVal   Amount `json:"IgstVal"`
	CesVal    Amount `json:"CesVal"`
	Discount  Amount `json:"Discount"`
	OthChrg   Amount `json:"OthChrg"`
	RndOffAmt Amount `json:"RndOffAmt"`
	TotInvVal Amount `json:"TotInvVal"`
}

// RefDtls refers a credit note to the invoice it reduces.
type RefDtls struct {
	PrecDocDtls []PrecDoc `json:"PrecDocDtls"`
}

// PrecDoc is a preceding document: number and date.
type PrecDoc struct {
	InvNo string `json:"InvNo"`
	InvDt string `json:"InvDt"`
}

// Document is what Build needs of a B2B invoice or credit note, in paise and
// hundredths of a percent as Galla keeps them.
type Document struct {
	Type   string // TypeInvoice or TypeCreditNote
	Number string // "T1/2627/000123"
	Date   time.Time
	Seller Seller
	Buyer  Buyer
	// PlaceOfSupply is the GST state code of the place of supply.
	PlaceOfSupply string
	Lines         []Line
	RoundOff      int64 // paise, −99..99
	// Of a credit note: the invoice it reduces.
	OriginalNumber string
	OriginalDate   time.Time
}

// Seller is the shop: its GSTIN, name, and address as printed (one line each,
// the 6-digit PIN code in one of them).
type Seller struct {
	GSTIN   string
	Name    string
	Address []string
	State   string
	Phone   string
}

// Buyer is the registered buyer.
type Buyer struct {
	GSTIN   string
	Name    string
	Address string // one line, as printed
	State   string
}

// Line is one line of the document.
type Line struct {
	Description string
	HSN         string
	Unit        string // the unit quantity code ("NOS"); "" is NOS
	Qty         int    // 0 for a credit note of value only
	Service     bool
	RateBP      int64 // the GST rate in hundredths of a percent (1800 is 18%)
	CessRateBP  int64
	Taxable     int64 // paise
	IGST        int64
	CGST        int64
	SGST        int64
	Cess        int64
}

// Errors of Build, matched with errors.Is.
var (
	// ErrIncomplete reports a document that lacks what the INV-01 requires.
	ErrIncomplete = errors.New("irp: the document lacks what the e-invoice requires")
)

var (
	pinRE   = regexp.MustCompile(`\b[1-9][0-9]{5}\b`)
	hsnRE   = regexp.MustCompile(`^([0-9]{4}|[0-9]{6}|[0-9]{8})$`)
	docNoRE = regexp.MustCompile(`^[A-Za-z1-9][A-Za-z0-9/-]{0,15}$`)
)

// Build is the INV-01 JSON of d. It refuses (ErrIncomplete) a document the IRP
// would refuse for a missing or malformed field: a seller address without a PIN
// code, an HSN code not of 4, 6 or 8 digits, a document number the schema does not
// allow.
func Build(d Document) (Invoice, error) {
	bad := func(format string, a ...any) (Invoice, error) {
		return Invoice{}, fmt.Errorf("%w: %s", ErrIncomplete, fmt.Sprintf(format, a...))
	}
	if d.Type != TypeInvoice && d.Type != TypeCreditNote {
		return bad("document type %q", d.Type)
	}
	if !docNoRE.MatchString(d.Number) {
		return bad("document number %q: up to 16 letters, digits, / and -, not starting with 0, / or -", d.Number)
	}
	if len(d.Lines) == 0 {
		return bad("no lines")
	}
	seller, err := sellerParty(d.Seller)
	if err != nil {
		return Invoice{}, err
	}
	if d.Buyer.GSTIN == "" || len(strings.TrimSpace(d.Buyer.Name)) < 3 || strings.TrimSpace(d.Buyer.Address) == "" {
		return bad("the buyer's GSTIN, name and address are needed")
	}
	buyer := Party{Gstin: d.Buyer.GSTIN, LglNm: clip(d.Buyer.Name, 100), Pos: d.PlaceOfSupply, Stcd: d.Buyer.State}
	buyer.Addr1, buyer.Loc, buyer.Pin = addressParts([]string{d.Buyer.Address})
	if buyer.Stcd == "" {
		buyer.Stcd = d.Buyer.GSTIN[:2]
	}
	inv := Invoice{
		Version:    Version,
		TranDtls:   TranDtls{TaxSch: "GST", SupTyp: "B2B", RegRev: "N", IgstOnIntra: "N"},
		DocDtls:    DocDtls{Typ: d.Type, No: d.Number, Dt: d.Date.Format(DateLayout)},
		SellerDtls: seller,
		BuyerDtls:  buyer,
	}
	var v ValDtls
	for i, l := range d.Lines {
		if !hsnRE.MatchString(l.HSN) {
			return bad("line %d: HSN code %q is not of 4, 6 or 8 digits", i+1, l.HSN)
		}
		desc := strings.TrimSpace(l.Description)
		if len(desc) < 3 {
			desc = (desc + "   ")[:3]
		}
		unit := l.Unit
		if unit == "" {
			unit = "NOS"
		}
		it := Item{
			SlNo: strconv.Itoa(i + 1), PrdDesc: clip(desc, 300), IsServc: yn(l.Service), HsnCd: l.HSN,
			Qty: l.Qty, Unit: unit, TotAmt: Amount(l.Taxable), AssAmt: Amount(l.Taxable),
			GstRt: Rate(l.RateBP * 10), CesRt: Rate(l.CessRateBP * 10),
			IgstAmt: Amount(l.IGST), CgstAmt: Amount(l.CGST), SgstAmt: Amount(l.SGST), CesAmt: Amount(l.Cess),
			TotItemVal: Amount(l.Taxable + l.IGST + l.CGST + l.SGST + l.Cess),
		}
		it.UnitPrice = Price(l.Taxable * 10)
		if l.Qty > 0 {
			it.UnitPrice = Price((l.Taxable*10 + int64(l.Qty)/2) / int64(l.Qty))
		}
		inv.ItemList = append(inv.ItemList, it)
		v.AssVal += it.AssAmt
		v.CgstVal += it.CgstAmt
		v.SgstVal += it.SgstAmt
		v.IgstVal += it.IgstAmt
		v.CesVal += it.CesAmt
	}
	v.RndOffAmt = Amount(d.RoundOff)
	v.TotInvVal = v.AssVal + v.CgstVal + v.SgstVal + v.IgstVal + v.CesVal + v.RndOffAmt
	inv.ValDtls = v
	if d.Type == TypeCreditNote && d.OriginalNumber != "" {
		inv.RefDtls = &RefDtls{PrecDocDtls: []PrecDoc{{InvNo: d.OriginalNumber, InvDt: d.OriginalDate.Format(DateLayout)}}}
	}
	return inv, nil
}

// JSON is inv as sent to the IRP.
func (inv Invoice) JSON() []byte {
	b, _ := json.Marshal(inv) // only strings, numbers and fixed structs: cannot fail
	return b
}

func sellerParty(s Seller) (Party, error) {
	p := Party{Gstin: s.GSTIN, LglNm: clip(s.Name, 100), Stcd: s.State, Ph: digits(s.Phone)}
	if len(p.Ph) < 6 || len(p.Ph) > 12 {
		p.Ph = ""
	}
	if p.Stcd == "" && len(s.GSTIN) >= 2 {
		p.Stcd = s.GSTIN[:2]
	}
	if s.GSTIN == "" || len(strings.TrimSpace(s.Name)) < 3 {
		return Party{}, fmt.Errorf("%w: the shop's GSTIN and name are needed", ErrIncomplete)
	}
	p.Addr1, p.Loc, p.Pin = addressParts(s.Address)
	if p.Pin == 0 {
		return Party{}, fmt.Errorf("%w: the shop's address has no 6-digit PIN code", ErrIncomplete)
	}
	if p.Addr1 == "" || len(p.Loc) < 3 {
		return Party{}, fmt.Errorf("%w: the shop's address needs a street and a town", ErrIncomplete)
	}
	return p, nil
}

// addressParts splits printed address lines into the INV-01's Addr1 (the first
// line), Loc (the town: the line with the PIN code without it, or the last line)
// and Pin.
func addressParts(lines []string) (addr1, loc string, pin int) {
	var kept []string
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			kept = append(kept, l)
		}
	}
	if len(kept) == 0 {
		return "", "", 0
	}
	addr1 = clip(kept[0], 100)
	loc = kept[len(kept)-1]
	for i := len(kept) - 1; i >= 0; i-- {
		if m := pinRE.FindString(kept[i]); m != "" {
			pin, _ = strconv.Atoi(m)
			loc = strings.Trim(strings.Replace(kept[i], m, "", 1), " ,-")
			break
		}
	}
	if parts := strings.Split(loc, ","); len(parts) > 1 {
		loc = strings.TrimSpace(parts[len(parts)-1])
		if len(loc) < 3 {
			loc = strings.TrimSpace(parts[0])
		}
	}
	if len(loc) < 3 {
		loc = addr1
	}
	return addr1, clip(loc, 50), pin
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), `"`, "'")
	if len(s) > n {
		s = s[:n]
	}
	return s
}

func digits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func yn(b bool) string {
	if b {
		return "Y"
	}
	return "N"
}
