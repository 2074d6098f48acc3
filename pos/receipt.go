package pos

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"galla/receipts"
)

// Settings keys (settings.changed) that receipts read.
const (
	// SettingShop holds the Shop printed at the top of every receipt (JSON).
	SettingShop = "shop"
	// SettingPrinter holds the receipt printer's receipts.Profile (JSON).
	SettingPrinter = "printer"
)

// Shop is the seller as the settings name it: printed at the top of every receipt.
type Shop struct {
	Name    string   `json:"name"`
	Address []string `json:"address,omitempty"` // one printed line each
	GSTIN   string   `json:"gstin,omitempty"`
	Phone   string   `json:"phone,omitempty"`
	// State is the GST state code of the shop ("27"): the place of supply of what
	// is sold at the counter.
	State string `json:"state,omitempty"`
	// Composition is a shop under the composition scheme: it issues bills of
	// supply, never tax invoices, and charges no GST.
	Composition bool `json:"composition,omitempty"`
	// Rates is the shop's choice of GST rates by date (ShopRates): the rates its
	// catalog may carry, within those in force (RateSchedule). Empty is every
	// rate in force; Shop.RatesOn is the rates of a day.
	Rates ShopRates `json:"rates,omitempty"`
	// Turnover is the shop's aggregate turnover of the previous financial year; above ₹5 crore HSN takes six digits and B2B invoices are e-invoiced.
	Turnover Paise `json:"turnover,omitempty"`
}

// Check checks the shop's details as `galla shop set` and Settings take them: a
// name, an address, a GST state code, and a GSTIN (when given) that validates and
// belongs to that state.
func (s Shop) Check() error {
	if strings.TrimSpace(s.Name) == "" || len(s.Address) == 0 {
		return Errorf("The shop needs its name and address: they head every document.")
	}
	return s.CheckTax()
}

// CheckTax checks the shop's GST registration: a state code, and a GSTIN (when
// given) that validates and belongs to that state.
func (s Shop) CheckTax() error {
	if s.GSTIN != "" {
		if err := CheckGSTIN(s.GSTIN); err != nil {
			return err // said first: a mistyped GSTIN also names a wrong state
		}
	}
	if err := CheckStateCode(s.State); err != nil {
		return err
	}
	if s.GSTIN != "" && s.GSTIN[:2] != s.State {
		return Errorf("The GSTIN %s is registered in state %s, not %s: correct the state code or the GSTIN.", s.GSTIN, s.GSTIN[:2], s.State)
	}
	return nil
}

// DocumentTitle is what a sale's document is: a RECEIPT (not a tax document) while
// the shop's GSTIN is not set, a BILL OF SUPPLY for a composition shop, else a TAX
// INVOICE (Registration.Title).
func (s Shop) DocumentTitle() string { return s.Registration().Title() }

// TitleFor is what the document of a sale of lines is: DocumentTitle, except that
// a registered shop's sale of exempt goods only (every line at 0% and no cess) is a
// BILL OF SUPPLY (CGST Rule 49), not a tax invoice.
func (s Shop) TitleFor(lines []Line) string {
	title := s.DocumentTitle()
	if title != "TAX INVOICE" || len(lines) == 0 {
		return title
	}
	for _, l := range lines {
		if !l.GSTRate.IsZero() || !l.Cess.IsZero() {
			return title
		}
	}
	return "BILL OF SUPPLY"
}

// SaleTotals is the money of o's document and its place of supply: the totals of
// its lines, with the tax as IGST when the place of supply (PlaceOfSupply, from
// the buyer journaled with the sale) is another state than shop's. The order's
// journaled Totals always split the tax as CGST + SGST; documents, reports and
// returns that state the tax read it from here.
func SaleTotals(o Order, shop Shop) (Totals, Place) {
	var buyer Buyer
	if o.Buyer != nil {
		buyer = o.Buyer.Normal()
	}
	place := PlaceOfSupply(shop.State, buyer)
	totals := o.Totals
	if len(o.Lines) > 0 {
		totals = ComputeTotals(o.Lines)
	}
	if place.Interstate {
		totals = totals.Interstate()
	}
	return totals, place
}

// LoadShop reads the shop from the journal's settings; a terminal where it was never
// set gets the zero Shop (the receipt then starts with the invoice title).
func LoadShop(ctx context.Context, j Journal) (Shop, error) {
	var s Shop
	raw, err := j.Setting(ctx, SettingShop)
	if err != nil || raw == nil {
		return s, err
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("pos: setting %q: %w", SettingShop, err)
	}
	return s, nil
}

// LoadPrinter reads the receipt printer's profile from the journal's settings; ok is
// false when none is configured.
func LoadPrinter(ctx context.Context, j Journal) (p receipts.Profile, ok bool, err error) {
	raw, err := j.Setting(ctx, SettingPrinter)
	if err != nil || raw == nil {
		return p, false, err
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, false, fmt.Errorf("pos: setting %q: %w", SettingPrinter, err)
	}
	return p, true, nil
}

// ReceiptOptions are what a receipt needs beyond the order and the shop.
type ReceiptOptions struct {
	Terminal string // the terminal's name, e.g. "T1"
	Cashier  string // who prints it; empty: the staff journaled with the sale
	// QRKey is the terminal's key the QR code is signed with; nil prints no QR code.
	QRKey []byte
	// Reprint is 0 for the first print and N for the Nth copy ("DUPLICATE —
	// reprint N"); see NextReprint.
	Reprint int
	Footer  []string
	// Sandbox marks the document as the embedded sandbox's (the till's mode): a
	// sale's own gateway, when its journal records one, decides for it.
	Sandbox bool
	// Tenders are, for a split-tender sale, the orders of the tenders that paid
	// it (Documents.ReceiptDocument loads them); each is printed as its own payment.
	Tenders []Order
}

// sandboxed reports whether o's documents carry the sandbox mark: its payment
// went through the sandbox, or (a cash sale, or one journaled before gateways were
// recorded) the till runs on the sandbox.
func sandboxed(o Order, opt ReceiptOptions) bool {
	if o.Gateway != "" {
		return o.Gateway == GatewaySandbox
	}
	return opt.Sandbox
}

// NextReprint returns the Reprint number the next print of o's receipt carries: 0
// when it was never printed, else one more than the copies printed so far.
func NextReprint(o Order) int {
	if !o.Printed && o.Reprints == 0 {
		return 0
	}
	return o.Reprints + 1
}

// NextRefundReprint is NextReprint for a refund's receipt: 0 when it was never
// printed, else one more than the copies printed so far.
func NextRefundReprint(r Refund) int {
	if !r.Printed && r.Reprints == 0 {
		return 0
	}
	return r.Reprints + 1
}

// DoneRefund returns o's nth done refund, counted from 1 in the order they were
// made; n of 0 is the latest. ok is false when there is no such refund.
func DoneRefund(o Order, n int) (r Refund, ok bool) {
	var done []Refund
	for _, rf := range o.Refunds {
		if rf.Status == RefundDone {
			done = append(done, rf)
		}
	}
	switch {
	case len(done) == 0 || n < 0 || n > len(done):
		return Refund{}, false
	case n == 0:
		return done[len(done)-1], true
	}
	return done[n-1], true
}

// ReceiptNumber formats a receipt number for print: the terminal, then six digits
// ("T1-000123").
func ReceiptNumber(terminal string, n uint64) string {
	if n == 0 {
		return ""
	}
	s := fmt.Sprintf("%06d", n)
	if terminal != "" {
		s = terminal + "-" + s
	}
	return s
}

// ReceiptFor turns a journaled sale into the document printed for it (CGST Rules
// 46 and 49): the shop with its GSTIN and state, the number and date, the buyer and
// the place of supply, the lines with HSN, quantity, unit price, discount, taxable
// value, rate and tax, the tax per rate (CGST + SGST, or IGST across states) with
// cess, the HSN summary, the total in figures and words, the tender (card brand and
// last four, auth code, RRN, the service's order and payment ids, whether the
// answer was verified; the EMI plan; cash and change), the IMEIs, and a QR code
// signed with opt.QRKey that pulls the order up at the counter.
func ReceiptFor(o Order, shop Shop, opt ReceiptOptions) receipts.Receipt {
	var buyer Buyer
	if o.Buyer != nil {
		buyer = o.Buyer.Normal()
	}
	totals, place := SaleTotals(o, shop)
	r := receipts.Receipt{
		Kind:            receipts.KindSale,
		Shop:            receiptShop(shop),
		Title:           saleTitle(shop, o),
		Number:          o.Number(opt.Terminal),
		Terminal:        opt.Terminal,
		Cashier:         firstNonEmpty(opt.Cashier, o.Staff),
		Time:            saleTime(o),
		MerchantOrderID: o.ID,
		Lines:           receiptLines(o, place.Interstate),
		Reprint:         opt.Reprint,
		Footer:          opt.Footer,
		Sandbox:         sandboxed(o, opt),
		Buyer:           receiptBuyer(buyer),
		Interstate:      place.Interstate,
	}
	if place.State != "" {
		r.PlaceOfSupply = stateLabel(place.State)
	}
	r.Taxes = receiptTaxes(totals.ByRate)
	if r.Title == "TAX INVOICE" {
		r.HSN = receiptHSN(HSNSummary(o.Lines, place.Interstate))
	}
	r.Total = int64(totals.Total)
	if r.Total == 0 {
		r.Total = int64(o.Amount)
	}
	paid := o.Captured
	if paid == 0 {
		paid = o.Amount
	}
	value := int64(totals.Taxable + totals.Tax + totals.Cess) // the invoice value by the portal's arithmetic
	if len(o.Lines) == 0 {
		value = r.Total
	}
	if off := int64(paid) - value; value != 0 && off != 0 && off > -100 && off < 100 {
		// What was charged differs from the taxable value and its tax by the
		// paise of the portal's per-rate rounding, or by rounding the total to
		// the rupee: the difference is the round-off line (docs/gst.md).
		r.RoundOff = off
		r.Total = int64(paid)
	}
	r.Tenders = []receipts.Tender{saleTender(o, paid)}
	if len(opt.Tenders) > 0 { // a split sale: each tender that paid it
		r.Tenders = r.Tenders[:0]
		for _, t := range opt.Tenders {
			r.Tenders = append(r.Tenders, saleTender(t, t.Captured))
		}
	}
	if opt.QRKey != nil {
		q := receipts.QRPayload{MerchantOrderID: o.ID, ServiceOrderID: o.ServiceOrderID, PaymentID: o.PaymentID, Amount: int64(paid)}
		if len(opt.Tenders) == 1 {
			// A sale of one tender carries its tender's service ids, as an
			// order of one tender carries its own.
			q.ServiceOrderID, q.PaymentID = opt.Tenders[0].ServiceOrderID, opt.Tenders[0].PaymentID
		}
		r.QR = receipts.SignQR(opt.QRKey, q)
	}
	r.Cancelled = cancelledMark(o, opt.Tenders)
	registered(&r, shop)
	return r
}

// RefundReceiptFor turns a done refund of a journaled sale, named by its
// unique_txn_id, into its refund receipt. A full refund lists the sale's lines and
// GST; a partial one the amount only. Its QR code carries the refunded amount as a
// negative number.
func RefundReceiptFor(o Order, uniqueTxnID string, shop Shop, opt ReceiptOptions) (receipts.Receipt, error) {
	var ref *Refund
	for i := range o.Refunds {
		if o.Refunds[i].UniqueTxnID == uniqueTxnID {
			ref = &o.Refunds[i]
		}
	}
	if ref == nil {
		return receipts.Receipt{}, fmt.Errorf("pos: refund receipt of %q: no refund %q: %w", o.ID, uniqueTxnID, ErrOrderNotFound)
	}
	if ref.Status != RefundDone {
		return receipts.Receipt{}, fmt.Errorf("pos: refund receipt of %q: refund %q is %s: %w", o.ID, uniqueTxnID, ref.Status, ErrNotRefundable)
	}
	if ref.DocNo != 0 {
		return CreditNoteFor(o, *ref, shop, opt), nil
	}
	partial := ref.Amount < o.Captured
	r := receipts.Receipt{
		Kind:            receipts.KindRefund,
		Shop:            receiptShop(shop),
		Number:          ref.Number(opt.Terminal),
		Terminal:        opt.Terminal,
		Cashier:         firstNonEmpty(opt.Cashier, ref.Staff),
		Time:            ref.Time,
		MerchantOrderID: o.ID,
		Total:           int64(ref.Amount),
		Reprint:         opt.Reprint,
		Footer:          opt.Footer,
		Sandbox:         sandboxed(o, opt),
		Refund: &receipts.Refund{
			OriginalNumber:  o.Number(opt.Terminal),
			OriginalOrderID: o.ID,
			OriginalTime:    saleTime(o),
			UniqueTxnID:     ref.UniqueTxnID,
			Partial:         partial,
			Reason:          ref.Reason,
		},
	}
	if !partial {
		totals, place := SaleTotals(o, shop)
		r.Lines = receiptLines(o, place.Interstate)
		r.Taxes = receiptTaxes(totals.ByRate)
	}
	r.Tenders = []receipts.Tender{refundTender(o, ref.Amount)}
	r.QR = refundQR(opt.QRKey, o, ref.Amount)
	registered(&r, shop)
	return r, nil
}

// refundTender is the tender line of a refund of amount through via: the
// sale's tender without what only a payment has (tendered, change, EMI, the
// card's codes), verified, as a refund is done only on a verified answer.
func refundTender(via Order, amount Paise) receipts.Tender {
	t := saleTender(via, amount)
	t.Tendered, t.Change, t.EMI, t.AuthCode, t.RRN = 0, 0, nil, "", ""
	t.Verified = true
	return t
}

// refundQR is the signed QR payload of a refund of amount of o, "" without a
// key.
func refundQR(key []byte, o Order, amount Paise) string {
	if key == nil {
		return ""
	}
	return receipts.SignQR(key, receipts.QRPayload{
		MerchantOrderID: o.ID, ServiceOrderID: o.ServiceOrderID, PaymentID: o.PaymentID, Amount: -int64(amount),
	})
}

// ReportReceipt turns an X or Z report into the slip printed for it.
func ReportReceipt(rep Report, shop Shop, opt ReceiptOptions) receipts.Receipt {
	r := receipts.Receipt{
		Kind:     receipts.KindXReport,
		Shop:     receiptShop(shop),
		Terminal: opt.Terminal,
		Cashier:  firstNonEmpty(opt.Cashier, rep.ClosedBy),
		Time:     rep.Generated,
		Reprint:  opt.Reprint,
		Footer:   opt.Footer,
		Sandbox:  opt.Sandbox,
	}
	if rep.Kind == "Z" {
		r.Kind = receipts.KindZReport
		r.Number = fmt.Sprintf("Z-%04d", rep.ZNo)
		if opt.Terminal != "" {
			r.Number = opt.Terminal + "-" + r.Number
		}
	}
	// A shop that states no tax (Registration.ShowsTax) prints no tax rows.
	r.NoTax = !shop.Registration().ShowsTax()
	body := &receipts.Report{
		ZNumber:      int(rep.ZNo),
		Refunds:      receipts.ReportRow{Label: "Refunds", Amount: int64(rep.Refunded)},
		Failed:       receipts.ReportRow{Label: "Failed payments", Count: rep.Failed.Count, Amount: int64(rep.Failed.Amount)},
		Unknown:      receipts.ReportRow{Label: "Outcome unknown", Count: rep.Unknown.Count, Amount: int64(rep.Unknown.Amount)},
		Taxes:        receiptTaxes(rep.GST),
		Net:          int64(rep.NetSales),
		CashExpected: int64(rep.CashExpected),
		FirstReceipt: ReceiptNumber(opt.Terminal, rep.FirstReceipt),
		LastReceipt:  ReceiptNumber(opt.Terminal, rep.LastReceipt),
	}
	body.Returns, body.NetTaxes = receiptTaxes(rep.ReturnsGST), receiptTaxes(rep.NetGST)
	if r.NoTax {
		body.Taxes, body.Returns, body.NetTaxes = nil, nil, nil
	}
	if rep.Discounts != 0 {
		body.Discounts = receipts.ReportRow{Label: "Discounts given", Amount: int64(rep.Discounts)}
	}
	for _, d := range rep.Documents {
		body.Documents = append(body.Documents, DocNumber(opt.Terminal, d.Series, d.FirstNo)+" to "+DocNumber("", d.Series, d.LastNo))
	}
	if rep.Abandoned.Count > 0 {
		body.Abandoned = receipts.ReportRow{Label: "Abandoned orders", Count: rep.Abandoned.Count, Amount: int64(rep.Abandoned.Amount)}
	}
	if d, err := time.ParseInLocation(DayLayout, rep.Day, locationOf(rep.Generated)); err == nil {
		body.Day = d
	}
	sales := 0
	for _, s := range rep.Sales {
		sales += s.Count
		body.ByTender = append(body.ByTender, receipts.ReportRow{Label: tenderName(s.Tender), Count: s.Count, Amount: int64(s.Amount)})
	}
	body.Sales = receipts.ReportRow{Label: "Sales", Count: sales, Amount: int64(rep.GrossSales)}
	for _, s := range rep.Refunds {
		body.Refunds.Count += s.Count
	}
	for _, p := range rep.EMIPlans {
		label := strings.TrimSpace(fmt.Sprintf("%s %dm %s", p.Issuer, p.Months, p.Program))
		body.ByEMI = append(body.ByEMI, receipts.ReportRow{Label: label, Count: p.Count, Amount: int64(p.Amount)})
	}
	r.Report = body
	if rep.Digest != "" {
		// The journal's seal of the day, printed as an anchor outside the file.
		r.Footer = append(r.Footer, "Journal seal", rep.Digest[:32], rep.Digest[32:])
	}
	return r
}

func locationOf(t time.Time) *time.Location {
	if t.IsZero() {
		return time.Local
	}
	return t.Location()
}

func tenderName(t TenderKind) string {
	switch t {
	case TenderCard:
		return "Card"
	case TenderEMI:
		return "EMI"
	case TenderCash:
		return "Cash"
	case TenderPhone:
		return "Phone"
	case TenderUPI:
		return "UPI (confirmed by the cashier)"
	case TenderNote:
		return "Credit note"
	case TenderSplit:
		return "Split sales (their tax; paid by their tenders)"
	}
	return string(t)
}

// registered marks the document r of shop as its registration decides
// (Registration): the legend under its title, "Reverse charge: No", and whether
// it states any tax. A document that states none loses every tax figure here,
// so that no format can print one: prices and amounts only.
func registered(r *receipts.Receipt, shop Shop) {
	g := shop.Registration()
	r.NoTax, r.Legend, r.NoReverseCharge = !g.ShowsTax(), g.Legend(), g.ReverseCharge()
	if !r.NoTax {
		return
	}
	if g == Unregistered {
		// Where a supply takes place decides a GST registrant's tax; a seller
		// outside GST states none.
		r.PlaceOfSupply, r.Interstate = "", false
	}
	r.Taxes, r.HSN = nil, nil
	for i := range r.Lines {
		untaxed(&r.Lines[i])
	}
	if r.Credit != nil {
		for i := range r.Credit.Lines {
			untaxed(&r.Credit.Lines[i].Line)
			r.Credit.Lines[i].Taxable, r.Credit.Lines[i].Tax = 0, 0
		}
	}
	r.RoundOff = untaxedRoundOff(*r)
}

// untaxedRoundOff is the round-off of a document that states no tax: what its
// total differs from the amounts of its lines by, not from a taxable value and
// tax it does not print (a ₹74,999.00 phone is ₹74,999.00, not an invoice value
// of 74,998.99 and 0.01 of round-off). A document without lines, or whose lines
// are not all it pays (a partial refund), has none.
func untaxedRoundOff(r receipts.Receipt) int64 {
	var sum int64
	n := len(r.Lines)
	for _, l := range r.Lines {
		sum += l.Amount
	}
	if r.Credit != nil {
		n += len(r.Credit.Lines)
		for _, l := range r.Credit.Lines {
			sum += l.Amount
		}
	}
	if off := r.Total - sum; n > 0 && off > -100 && off < 100 {
		return off
	}
	return 0
}

// untaxed clears a document line's tax figures.
func untaxed(l *receipts.Line) {
	l.GSTRate, l.Taxable, l.Tax, l.CessRate, l.Cess = 0, 0, 0, 0, 0
}

func receiptShop(s Shop) receipts.Shop {
	out := receipts.Shop{Name: s.Name, Address: s.Address, GSTIN: s.GSTIN, Phone: s.Phone}
	if _, ok := States[s.State]; ok {
		out.State = stateLabel(s.State)
	}
	return out
}

// stateLabel is a state as documents print it: "Maharashtra (27)".
func stateLabel(code string) string {
	if name, ok := States[code]; ok {
		return name + " (" + code + ")"
	}
	return code
}

func receiptBuyer(b Buyer) *receipts.Buyer {
	if b.IsZero() {
		return nil
	}
	out := &receipts.Buyer{Name: b.Name, Address: b.Address, GSTIN: b.GSTIN, Phone: b.Phone}
	if b.State != "" {
		out.State = stateLabel(b.State)
	}
	if b.ShipState != "" {
		out.DeliveredTo = stateLabel(b.ShipState)
	}
	out.DeliveryAddress = b.ShipAddress
	return out
}

func receiptHSN(rows []HSNTotal) []receipts.HSNLine {
	out := make([]receipts.HSNLine, 0, len(rows))
	for _, h := range rows {
		out = append(out, receipts.HSNLine{
			HSN: h.HSN, Rate: h.Rate.BP(), Qty: h.Qty, Taxable: int64(h.Taxable),
			CGST: int64(h.CGST), SGST: int64(h.SGST), IGST: int64(h.IGST), Cess: int64(h.Cess),
		})
	}
	return out
}

func saleTime(o Order) time.Time {
	if !o.PaidAt.IsZero() {
		return o.PaidAt
	}
	if !o.Updated.IsZero() {
		return o.Updated
	}
	return o.Opened
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// receiptLines copies the sale's lines, each with its share of its rate's GST
// (DocumentLines); IMEIs journaled for the order rather than per line go to its
// serialised lines in order, one per unit.
func receiptLines(o Order, interstate bool) []receipts.Line {
	taxes := DocumentLines(o.Lines, interstate)
	spare := o.IMEIs
	seen := map[string]bool{}
	for _, l := range o.Lines {
		for _, imei := range l.IMEIs {
			seen[imei] = true
		}
	}
	out := make([]receipts.Line, 0, len(o.Lines))
	for i, l := range o.Lines {
		imeis := append([]string(nil), l.IMEIs...)
		for l.Serialised && len(imeis) < l.Qty && len(spare) > 0 {
			if !seen[spare[0]] {
				imeis = append(imeis, spare[0])
				seen[spare[0]] = true
			}
			spare = spare[1:]
		}
		lt := taxes[i]
		out = append(out, receipts.Line{
			Name:      l.Name,
			HSN:       l.HSN,
			Qty:       l.Qty,
			Unit:      string(l.Unit.OrNOS()),
			UnitPrice: int64(l.UnitPrice),
			Discount:  int64(l.Discount),
			Amount:    int64(l.Amount()),
			GSTRate:   l.GSTRate.BP(),
			Taxable:   int64(lt.Taxable),
			Tax:       int64(lt.Tax),
			CessRate:  l.Cess.BP(),
			Cess:      int64(lt.Cess),
			IMEIs:     imeis,
		})
	}
	return out
}

func receiptTaxes(rates []RateTotal) []receipts.TaxLine {
	out := make([]receipts.TaxLine, 0, len(rates))
	for _, t := range rates {
		if t.Rate.IsZero() && t.Tax == 0 && t.Cess == 0 {
			continue // exempt goods: no tax to show
		}
		out = append(out, receipts.TaxLine{Rate: t.Rate.BP(), Taxable: int64(t.Taxable), CGST: int64(t.CGST), SGST: int64(t.SGST), IGST: int64(t.IGST), Cess: int64(t.Cess)})
	}
	return out
}

// saleTender is the sale's payment as the receipt shows it.
func saleTender(o Order, amount Paise) receipts.Tender {
	t := receipts.Tender{
		Kind:           receipts.TenderKind(o.Tender),
		Amount:         int64(amount),
		CardBrand:      o.CardBrand,
		CardLast4:      o.CardLast4,
		AuthCode:       o.AuthCode,
		RRN:            o.RRN,
		ServiceOrderID: o.ServiceOrderID,
		PaymentID:      o.PaymentID,
		Method:         o.PaymentMode,
		Verified:       o.Verified,
	}
	switch o.Tender {
	case TenderCash:
		t.CardBrand, t.CardLast4, t.Method = "", "", ""
		t.Tendered, t.Change = int64(o.CashTendered), int64(o.Change)
	case TenderEMI:
		if o.EMI != nil {
			t.EMI = receiptEMI(*o.EMI)
		}
	case TenderNote:
		t.CardBrand, t.CardLast4, t.Method = "", "", o.NoteNo // a split sale's credit-note tender
		if o.Note != nil {
			t.Method = o.Note.Number // the credit note that paid it
		}
	}
	return t
}

func receiptEMI(p EMIPlan) *receipts.EMIPlan {
	program := "Bank EMI"
	if p.Program == "brand" {
		program = strings.TrimSpace(p.Brand + " brand EMI")
	}
	if p.Subvention != "" && p.Subvention != "standard" {
		program += ", " + p.Subvention
	}
	f := p.Figures()
	e := &receipts.EMIPlan{
		Issuer:       p.Issuer,
		Program:      program,
		TenureMonths: f.Months,
		Financed:     int64(f.Principal),
		Monthly:      int64(f.Instalment),
		LastMonthly:  int64(f.Last),
		InterestRate: int(p.RateBP / 100), // ×10000 to basis points
		Interest:     int64(f.Interest),
		Discount:     int64(f.Discount),
		NoCost:       f.NoCost,
		TotalCost:    int64(f.Total),
	}
	if p.Debit {
		e.Issuer += " (debit)"
	}
	return e
}
