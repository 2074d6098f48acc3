package pos

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"galla/pos/gstr"
)

// Report is the X report of a day (or, sealed, its Z report). It reads only that
// day's orders (Journal.OrdersByDay). A sale counts on the day its payment was
// confirmed; failed, unknown and abandoned orders on the day of the sale; a refund
// on the day it was made.
type Report struct {
	Kind string `json:"kind"` // "X", or "Z" once the day is closed
	ZNo  uint64 `json:"z_no,omitempty"`
	Day  string `json:"day"`
	// Period is, when above 1, the period of Day the report covers (ADR 0010):
	// the sales after the date's Z report of period Period-1. 0 is the whole
	// date, or its only period.
	Period    int       `json:"period,omitempty"`
	Generated time.Time `json:"generated"`
	ClosedBy  string    `json:"closed_by,omitempty"`

	Sales      []TenderTotal `json:"sales"`     // paid sales by tender
	EMIPlans   []PlanTotal   `json:"emi_plans"` // EMI sales by issuer, program and tenure
	GST        []RateTotal   `json:"gst"`       // GST of the paid sales by rate
	GrossSales Paise         `json:"gross_sales"`
	Refunds    []TenderTotal `json:"refunds"` // refunds (credit notes) done this day by where the money went: card, cash, note
	Refunded   Paise         `json:"refunded"`
	NetSales   Paise         `json:"net_sales"` // GrossSales − Refunded
	// Discounts are the line discounts of the paid sales.
	Discounts Paise `json:"discounts"`
	// ReturnsGST is the GST the day's credit notes reversed, by rate; NetGST is
	// GST less ReturnsGST, by rate.
	ReturnsGST []RateTotal `json:"returns_gst,omitempty"`
	NetGST     []RateTotal `json:"net_gst,omitempty"`
	// Documents are the first and last number the day used in each series.
	Documents []SeriesRange `json:"documents,omitempty"`

	Failed    Count `json:"failed"`    // verified failures
	Unknown   Count `json:"unknown"`   // outcome not final: inquire
	Abandoned Count `json:"abandoned"` // create order's answer lost; the sale moved on
	// Cancelled are the documents of the day that were cancelled (cancel.go):
	// their numbers stay in Documents, their money and tax are in no total.
	Cancelled    Count `json:"cancelled"`
	CashExpected Paise `json:"cash_expected"` // cash sales − cash refunds, and cash taken on open sales (it is in the drawer)

	// OpenSales are the split sales not complete (no invoice yet) that took
	// tenders this day, with what was paid on each: that money is in no sales
	// total (Sales, GrossSales, NetSales) until its sale is complete, and then on
	// the day it is; its cash is in CashExpected, being in the drawer. OpenPaid
	// is their sum.
	OpenSales []OpenSaleRow `json:"open_sales,omitempty"`
	OpenPaid  Paise         `json:"open_paid,omitempty"`
	// OpenAtClose are, on a Z report, every split sale still open when the day
	// closed (OpenListed says the list was taken): the terminal lists its open
	// sales back to the last Z that lists them (Engine.Sales.OpenSales).
	OpenAtClose []string `json:"open_at_close,omitempty"`
	OpenListed  bool     `json:"open_listed,omitempty"`
	// Dropped are, on a Z report, the sales left open with nothing paid and
	// nothing in flight that the close of day dropped (Sales.DropSale): they
	// held no money, so nothing was given back.
	Dropped []string `json:"dropped,omitempty"`

	FirstReceipt uint64      `json:"first_receipt,omitempty"`
	LastReceipt  uint64      `json:"last_receipt,omitempty"`
	Orders       []ReportRow `json:"orders"`

	// Digest is the journal's seal of a Z report (DESIGN.md section 4): a hash of
	// the chain at the day's close and of the day's derived records, printed on
	// the report so that a copy outside the file anchors it. "" for an X report.
	Digest string `json:"digest,omitempty"`
}

// ZDigester is a Journal that tells the seal of Z report zno (pos/journal).
type ZDigester interface {
	ZDigest(ctx context.Context, zno uint64) (string, error)
}

// OpenSaleRow is one split sale still open in a report: the sale, its amount,
// and its tenders paid on the report's day.
type OpenSaleRow struct {
	Sale    string        `json:"sale"`
	Opened  time.Time     `json:"opened"`
	Amount  Paise         `json:"amount"` // the sale's amount (0 when the sale's order is not at hand)
	Paid    Paise         `json:"paid"`   // paid on it this day, less what was given back
	Tenders []TenderTotal `json:"tenders"`
}

// SeriesRange is the first and last number of one document series in a report.
type SeriesRange struct {
	Series  string `json:"series"`
	FirstNo uint64 `json:"first"`
	LastNo  uint64 `json:"last"`
}

// addRate adds t (the tax of amount at rate) into m.
func addRate(m map[Rate]*RateTotal, rate Rate, t LineTax) {
	g := m[rate]
	if g == nil {
		g = &RateTotal{Rate: rate}
		m[rate] = g
	}
	g.Amount += t.Amount
	g.Taxable += t.Taxable
	g.Tax += t.Tax
	g.CGST += t.CGST
	g.SGST += t.SGST
	g.IGST += t.IGST
	g.Cess += t.Cess
}

// rateTax is a RateTotal as the LineTax addRate takes.
func rateTax(rt RateTotal) LineTax {
	return LineTax{Amount: rt.Amount, Taxable: rt.Taxable, Tax: rt.Tax, CGST: rt.CGST, SGST: rt.SGST, IGST: rt.IGST, Cess: rt.Cess}
}

// negated is t with every amount's sign turned.
func negated(t LineTax) LineTax {
	return LineTax{Amount: -t.Amount, Taxable: -t.Taxable, Tax: -t.Tax, CGST: -t.CGST, SGST: -t.SGST, IGST: -t.IGST, Cess: -t.Cess}
}

func rateTotals(m map[Rate]*RateTotal) []RateTotal {
	var out []RateTotal
	for _, g := range m {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b RateTotal) int { return a.Rate.Compare(b.Rate) })
	return out
}

// refundRates is the tax a done refund of o reversed, by rate: its items, or for
// one made before returns had items, the whole sale's (a full refund) or the
// amount split over the sale's lines. The GST is the portal's arithmetic on the
// credit note's taxable values (GSTOn), as IGST when the sale was supplied in
// another state, as its credit note and GSTR-1 state it.
func refundRates(o *Order, rf Refund, shop Shop, into map[Rate]*RateTotal) {
	sale, place := SaleTotals(*o, shop)
	items := rf.Items
	if len(items) == 0 {
		if rf.Amount >= o.Captured {
			for _, rt := range sale.ByRate {
				addRate(into, rt.Rate, rateTax(rt))
			}
			return
		}
		items = (&Order{Lines: o.Lines}).Returns().AdjustmentItems(rf.Amount)
	}
	var note Totals
	for _, it := range items {
		i := slices.IndexFunc(note.ByRate, func(rt RateTotal) bool { return rt.Rate == it.Rate })
		if i < 0 {
			note.ByRate = append(note.ByRate, RateTotal{Rate: it.Rate})
			i = len(note.ByRate) - 1
		}
		note.ByRate[i].Amount += it.Amount
		note.ByRate[i].Taxable += it.Taxable
		note.ByRate[i].Cess += max(it.Amount-it.Taxable-it.Tax, 0) // a cess beside the GST
	}
	for _, rt := range note.taxed(place.Interstate).ByRate {
		addRate(into, rt.Rate, rateTax(rt))
	}
}

// TenderTotal is the count and amount of one tender.
type TenderTotal struct {
	Tender TenderKind `json:"tender"`
	Count  int        `json:"count"`
	Amount Paise      `json:"amount"`
}

// PlanTotal is the count and amount of one EMI plan.
type PlanTotal struct {
	Issuer  string `json:"issuer"`
	Program string `json:"program"`
	Months  int    `json:"months"`
	Count   int    `json:"count"`
	Amount  Paise  `json:"amount"`
}

// Count is a number of orders and their amount.
type Count struct {
	Count  int   `json:"count"`
	Amount Paise `json:"amount"`
}

// ReportRow is one order of the day's report: one CSV row.
type ReportRow struct {
	OrderID   string     `json:"order_id"`
	SaleDay   string     `json:"sale_day"`
	Time      time.Time  `json:"time"`
	Tender    TenderKind `json:"tender"`
	Plan      string     `json:"plan,omitempty"`
	Status    OrderState `json:"status"`
	Amount    Paise      `json:"amount"`
	Captured  Paise      `json:"captured"`
	Refunded  Paise      `json:"refunded"` // refunds done this day
	GST       Paise      `json:"gst"`
	ReceiptNo uint64     `json:"receipt_no,omitempty"`
	// DocumentNo is the sale's document number without its terminal
	// ("2627/000001", Order.NumberText), CreditNotes its credit notes of the day
	// ("C2627/00001"): the CSV prints them with the terminal.
	DocumentNo  string   `json:"document_no,omitempty"`
	CreditNotes []string `json:"credit_notes,omitempty"`
	doc         docRef   // DocumentNo, to print with a terminal
	notes       []docRef // CreditNotes, the same
	Card        string   `json:"card,omitempty"` // brand and last four digits only
	Reason      string   `json:"reason,omitempty"`
}

// PlanName names an EMI plan in a report: "HDFC 6m bank no-cost".
func PlanName(p *EMIPlan) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("%s %dm %s %s", p.Issuer, p.TenureMonths, p.Program, p.Subvention)
}

// SealedReport is the JSON a Z report is sealed with in its day.closed event:
// the report without its rows (Orders), which Engine.Ledger.Report rebuilds from the
// day's orders. A sealed Z report stays a few hundred bytes however many sales
// the day had (DESIGN.md section 7: at most 8 KB).
func SealedReport(r *Report) ([]byte, error) {
	sealed := *r
	sealed.Orders = nil
	return json.Marshal(&sealed)
}

// ErrBadDay reports a day that is not YYYY-MM-DD, or a day close of a future day.
var ErrBadDay = sentenceError{"not a valid day", "A day is written YYYY-MM-DD and cannot be in the future; type it again."}

// BuildReport computes the X report of day from the orders that have an event on
// that day, for a shop whose details are not known: its money (sales by tender,
// refunds, cash expected) and no GST, since a shop not known to be registered
// stated no tax (ShopReport is the report of a shop).
func BuildReport(day string, orders []*Order, now time.Time) *Report {
	return ShopReport(day, orders, now, Shop{})
}

// ShopReport computes the X report of day from the orders that have an event on
// that day. Its GST is each sale's document's (SaleTotals: CGST and SGST, or
// IGST for a supply to another state, and the cess, by the portal's
// arithmetic) and each credit note's.
func ShopReport(day string, orders []*Order, now time.Time, shop Shop) *Report {
	return ShopReportAt(day, orders, now, ShopsOf(shop))
}

// ShopReportAt is ShopReport for a shop whose registration may have changed:
// each sale's GST is its document's as the shop was registered when it was
// paid, each credit note's as it was when the note was issued (Shops.At, as
// GSTRDocumentsAt). A document issued while the shop had no GSTIN or was under
// the composition scheme stated no tax, and its tax is in no GST row and no
// row's GST: its amount counts as sales only. The rule is Shops.StatesTax, the
// one GSTR-1 and the CSV follow, and it holds as well for a shop with no
// registration history: one that never had a GSTIN, or was always under the
// composition scheme, has no GST rows at all.
func ShopReportAt(day string, orders []*Order, now time.Time, shops Shops) *Report {
	taxed := shops.StatesTax
	r := &Report{Kind: "X", Day: day, Generated: now}
	sales := map[TenderKind]*TenderTotal{}
	refunds := map[TenderKind]*TenderTotal{}
	plans := map[string]*PlanTotal{}
	gst := map[Rate]*RateTotal{}
	reversed := map[Rate]*RateTotal{}
	series := map[string]*SeriesRange{}
	document := func(s string, n uint64) {
		if n == 0 || s == "" {
			return
		}
		sr := series[s]
		if sr == nil {
			sr = &SeriesRange{Series: s, FirstNo: n, LastNo: n}
			series[s] = sr
		}
		sr.FirstNo, sr.LastNo = min(sr.FirstNo, n), max(sr.LastNo, n)
	}
	seen := map[string]bool{}
	receipt := func(n uint64) {
		if n == 0 {
			return
		}
		if r.FirstReceipt == 0 || n < r.FirstReceipt {
			r.FirstReceipt = n
		}
		r.LastReceipt = max(r.LastReceipt, n)
	}
	byID := map[string]*Order{} // a tender's sale (Order.Sale) is found here
	for _, o := range orders {
		if byID[o.ID] == nil {
			byID[o.ID] = o
		}
	}
	open := map[string]*OpenSaleRow{}
	gross := func(o *Order, amount Paise) {
		add(sales, o.Tender, amount)
		r.GrossSales += amount
		if o.EMI != nil {
			k := fmt.Sprintf("%s|%s|%d", o.EMI.Issuer, o.EMI.Program, o.EMI.TenureMonths)
			p := plans[k]
			if p == nil {
				p = &PlanTotal{Issuer: o.EMI.Issuer, Program: o.EMI.Program, Months: o.EMI.TenureMonths}
				plans[k] = p
			}
			p.Count++
			p.Amount += amount
		}
	}
	for _, o := range orders {
		if seen[o.ID] {
			continue
		}
		seen[o.ID] = true
		if o.Voided() {
			// A cancelled invoice (or a tender given back by its cancellation)
			// is in no total: only its number and a count remain.
			if o.Sale == "" && o.State.Paid() && o.PaidDay == day {
				receipt(o.ReceiptNo)
				document(o.Series, o.DocNo)
				r.Cancelled.Count++
				r.Cancelled.Amount += o.Amount
				reason := ""
				if o.Cancelled != nil {
					reason = o.Cancelled.Reason
				}
				r.Orders = append(r.Orders, ReportRow{OrderID: o.ID, SaleDay: o.Day, Time: o.Opened, Tender: o.Tender, Plan: PlanName(o.EMI),
					Status: StatusCancelled, Amount: o.Amount, ReceiptNo: o.ReceiptNo, DocumentNo: o.NumberText(), doc: docRef{o.Series, o.DocNo, o.ReceiptNo}, Reason: reason})
			}
			continue
		}
		row := ReportRow{OrderID: o.ID, SaleDay: o.Day, Time: o.Opened, Tender: o.Tender, Plan: PlanName(o.EMI),
			Status: o.State, Amount: o.Amount, Reason: o.Reason}
		if o.CardLast4 != "" {
			row.Card = o.CardBrand + " " + o.CardLast4
		}
		inDay := false
		if o.Sale != "" && o.State.Paid() {
			// A split sale's tender counts in the sales once its sale is complete,
			// on the day it is (with the sale's GST); a tender of a sale not
			// complete is listed apart on the day it was paid, and what of it
			// was given back (a void) counts as sold on the day it was given back,
			// against its refund. Cash is in the drawer from the day it was taken.
			if o.PaidDay == day {
				inDay = true
				row.Captured = o.Captured
				if o.Tender == TenderCash {
					r.CashExpected += o.Captured
				}
			}
			sale := byID[o.Sale]
			switch {
			case sale != nil && sale.State.Paid():
				if sale.PaidDay == day {
					gross(o, o.Captured)
				}
			default:
				for _, rf := range o.Refunds {
					if rf.Status == RefundDone && rf.Day == day {
						gross(o, rf.Amount)
					}
				}
				if o.PaidDay == day && (sale == nil || sale.State == StateOpen) && o.Captured > o.Refunded {
					os := open[o.Sale]
					if os == nil {
						os = &OpenSaleRow{Sale: o.Sale}
						if sale != nil {
							os.Opened, os.Amount = sale.Opened, sale.Amount
						}
						open[o.Sale] = os
					}
					left := o.Captured - o.Refunded
					os.Paid += left
					i := slices.IndexFunc(os.Tenders, func(t TenderTotal) bool { return t.Tender == o.Tender })
					if i < 0 {
						os.Tenders = append(os.Tenders, TenderTotal{Tender: o.Tender})
						i = len(os.Tenders) - 1
					}
					os.Tenders[i].Count++
					os.Tenders[i].Amount += left
					r.OpenPaid += left
				}
			}
		} else if o.State.Paid() && o.PaidDay == day {
			inDay = true
			row.Captured, row.ReceiptNo, row.DocumentNo = o.Captured, o.ReceiptNo, o.NumberText()
			row.doc = docRef{o.Series, o.DocNo, o.ReceiptNo}
			shop := shops.At(saleTime(*o))
			sale, _ := SaleTotals(*o, shop)
			if !taxed(saleTime(*o)) {
				sale = Totals{}
			}
			row.GST = sale.Tax
			receipt(o.ReceiptNo)
			document(o.Series, o.DocNo)
			r.Discounts += o.Totals.Discount
			if !paidApart(o) {
				// A sale counts once, each tender in its own tender: a split
				// sale's tenders carry its money (above), the sale its tax.
				gross(o, o.Captured)
			}
			if o.Tender == TenderCash {
				r.CashExpected += o.Captured
			}
			for _, rt := range sale.ByRate {
				addRate(gst, rt.Rate, rateTax(rt))
			}
		}
		for _, rf := range o.Refunds {
			if rf.Status == RefundDone && rf.Day == day {
				inDay = true
				row.Refunded += rf.Amount
				if n := Number("", rf.Series, rf.DocNo, rf.ReceiptNo); n != "" {
					row.CreditNotes = append(row.CreditNotes, n)
					row.notes = append(row.notes, docRef{rf.Series, rf.DocNo, rf.ReceiptNo})
				}
				receipt(rf.ReceiptNo)
				document(rf.Series, rf.DocNo)
				to := RefundDestination(o, rf.To)
				add(refunds, TenderKind(to), rf.Amount)
				r.Refunded += rf.Amount
				if to.MovesCash() {
					r.CashExpected -= rf.Amount
				}
				if taxed(saleTime(*o)) && taxed(rf.Time) {
					refundRates(o, rf, shops.At(saleTime(*o)), reversed)
				}
			}
		}
		if o.Day == day {
			switch {
			case o.State == StateFailed:
				inDay = true
				r.Failed.Count++
				r.Failed.Amount += o.Amount
			case o.State == StateAbandoned:
				inDay = true
				r.Abandoned.Count++
				r.Abandoned.Amount += o.Amount
			case !o.State.Final():
				inDay = true
				r.Unknown.Count++
				r.Unknown.Amount += o.Amount
			}
		}
		if inDay {
			r.Orders = append(r.Orders, row)
		}
	}
	r.NetSales = r.GrossSales - r.Refunded
	for _, os := range open {
		slices.SortFunc(os.Tenders, func(a, b TenderTotal) int { return strings.Compare(string(a.Tender), string(b.Tender)) })
		r.OpenSales = append(r.OpenSales, *os)
	}
	slices.SortFunc(r.OpenSales, func(a, b OpenSaleRow) int {
		if c := a.Opened.Compare(b.Opened); c != 0 {
			return c
		}
		return strings.Compare(a.Sale, b.Sale)
	})
	r.Sales = sorted(sales)
	r.Refunds = sorted(refunds)
	for _, p := range plans {
		r.EMIPlans = append(r.EMIPlans, *p)
	}
	slices.SortFunc(r.EMIPlans, func(a, b PlanTotal) int {
		if c := strings.Compare(a.Issuer, b.Issuer); c != 0 {
			return c
		}
		if c := strings.Compare(a.Program, b.Program); c != 0 {
			return c
		}
		return a.Months - b.Months
	})
	r.GST = rateTotals(gst)
	r.ReturnsGST = rateTotals(reversed)
	net := map[Rate]*RateTotal{}
	for _, g := range r.GST {
		addRate(net, g.Rate, rateTax(g))
	}
	for _, g := range r.ReturnsGST {
		addRate(net, g.Rate, negated(rateTax(g)))
	}
	if len(r.ReturnsGST) > 0 {
		r.NetGST = rateTotals(net)
	}
	for _, sr := range series {
		r.Documents = append(r.Documents, *sr)
	}
	slices.SortFunc(r.Documents, func(a, b SeriesRange) int { return strings.Compare(a.Series, b.Series) })
	slices.SortFunc(r.GST, func(a, b RateTotal) int { return a.Rate.Compare(b.Rate) })
	r.Orders = oneTenderRows(r.Orders, byID)
	slices.SortFunc(r.Orders, func(a, b ReportRow) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return strings.Compare(a.OrderID, b.OrderID)
	})
	return r
}

func add(m map[TenderKind]*TenderTotal, t TenderKind, amount Paise) {
	v := m[t]
	if v == nil {
		v = &TenderTotal{Tender: t}
		m[t] = v
	}
	v.Count++
	v.Amount += amount
}

func sorted(m map[TenderKind]*TenderTotal) []TenderTotal {
	out := make([]TenderTotal, 0, len(m))
	for _, v := range m {
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, b TenderTotal) int { return strings.Compare(string(a.Tender), string(b.Tender)) })
	return out
}

// DayChecker is a Journal that recomputes a day's derived records (orders,
// counters) from its events and says where they differ; pos/journal implements it.
type DayChecker interface {
	CheckDay(ctx context.Context, day string) error
}

// WriteCSV writes one row per order of the report, with a header row; its
// document numbers name no terminal (WriteCSVFor).
func (r *Report) WriteCSV(w io.Writer) error { return r.WriteCSVFor(w, "") }

// WriteCSVFor writes one row per order of the report, with a header row: each
// sale's document number and its credit notes of the day as terminal printed
// them ("T1/2627/000001"; several notes separated by spaces).
func (r *Report) WriteCSVFor(w io.Writer, terminal string) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"order_id", "sale_day", "time", "tender", "plan", "status", "amount", "captured", "refunded", "gst", "receipt_no", "card", "reason", "document_no", "credit_notes"})
	for _, o := range r.Orders {
		rec := ""
		if o.ReceiptNo != 0 {
			rec = strconv.FormatUint(o.ReceiptNo, 10)
		}
		notes := make([]string, len(o.notes))
		for i, n := range o.notes {
			notes[i] = n.number(terminal)
		}
		doc := o.doc.number(terminal)
		_ = cw.Write([]string{CSVText(o.OrderID), o.SaleDay, o.Time.Format(time.RFC3339), CSVText(string(o.Tender)), CSVText(o.Plan),
			CSVText(string(o.Status)), rupees(o.Amount), rupees(o.Captured), rupees(o.Refunded), rupees(o.GST), rec, CSVText(o.Card), CSVText(o.Reason),
			CSVText(doc), CSVText(strings.Join(notes, " "))})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("pos: report csv: %w", err)
	}
	return nil
}

// docRef is a document's number as the journal keeps it (Number).
type docRef struct {
	series        string
	no, receiptNo uint64
}

func (d docRef) number(terminal string) string { return Number(terminal, d.series, d.no, d.receiptNo) }

// CSVText makes a text cell safe for a spreadsheet (DESIGN.md section 5); it is
// gstr.CSVText, the one rule every CSV export of Galla uses.
func CSVText(s string) string { return gstr.CSVText(s) }

// rupees writes an amount as plain rupees with two decimals, for CSV.
func rupees(p Paise) string {
	neg := p < 0
	if neg {
		p = -p
	}
	s := fmt.Sprintf("%d.%02d", int64(p)/100, int64(p)%100)
	if neg {
		return "-" + s
	}
	return s
}

// WriteText writes the report for a screen or an 80-column printer.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	title := "X report"
	switch r.Kind {
	case "Z":
		title = fmt.Sprintf("Z report no. %d", r.ZNo)
	case "Day":
		title = "Day report" // a closed date's every period (Ledger.Report, ADR 0010)
	}
	day := r.Day
	if r.Period > 1 {
		// A second Z of the same date (ADR 0010) says which of the date's it is.
		if d, err := time.Parse(DayLayout, r.Day); err == nil {
			day = fmt.Sprintf("%s, Z %d of %s", r.Day, r.Period, d.Format("2 Jan"))
		}
	}
	fmt.Fprintf(&b, "%s — %s (made %s)\n", title, day, r.Generated.Format("2006-01-02 15:04"))
	if r.ClosedBy != "" {
		fmt.Fprintf(&b, "Closed by %s\n", r.ClosedBy)
	}
	line := func(label string, v any) { fmt.Fprintf(&b, "  %-28s %16v\n", label, v) }
	b.WriteString("Sales\n")
	for _, s := range r.Sales {
		line(fmt.Sprintf("%s (%d)", s.Tender, s.Count), s.Amount)
	}
	line("Gross sales", r.GrossSales)
	if len(r.EMIPlans) > 0 {
		b.WriteString("EMI plans\n")
		for _, p := range r.EMIPlans {
			line(fmt.Sprintf("%s %dm %s (%d)", p.Issuer, p.Months, p.Program, p.Count), p.Amount)
		}
	}
	// rates writes each rate's taxable value and GST, and under it the GST's
	// heads that are not zero: CGST and SGST at half the rate, IGST at the
	// rate, and the cess.
	rates := func(title string, rs []RateTotal) {
		b.WriteString(title + "\n")
		for _, g := range rs {
			line(fmt.Sprintf("%s on %s", g.Rate, g.Taxable), g.Tax)
			half := RateBP(g.Rate.BP() / 2)
			if g.Rate.BP()%2 != 0 {
				half = g.Rate // an odd basis point: named by the whole rate
			}
			for _, h := range []struct {
				name string
				v    Paise
			}{{"CGST @" + half.String(), g.CGST}, {"SGST @" + half.String(), g.SGST}, {"IGST @" + g.Rate.String(), g.IGST}, {"Cess", g.Cess}} {
				if h.v != 0 {
					line("  "+h.name, h.v)
				}
			}
		}
	}
	if len(r.GST) > 0 {
		rates("GST", r.GST)
	}
	if len(r.ReturnsGST) > 0 {
		rates("GST reversed by credit notes", r.ReturnsGST)
		rates("Net GST", r.NetGST)
	}
	if r.Discounts != 0 {
		line("Discounts given", r.Discounts)
	}
	b.WriteString("Refunds\n")
	for _, s := range r.Refunds {
		line(fmt.Sprintf("%s (%d)", s.Tender, s.Count), s.Amount)
	}
	line("Refunded", r.Refunded)
	line("Net sales", r.NetSales)
	line(fmt.Sprintf("Failed (%d)", r.Failed.Count), r.Failed.Amount)
	line(fmt.Sprintf("Unknown (%d)", r.Unknown.Count), r.Unknown.Amount)
	line(fmt.Sprintf("Abandoned (%d)", r.Abandoned.Count), r.Abandoned.Amount)
	if r.Cancelled.Count > 0 {
		line(fmt.Sprintf("Cancelled invoices (%d)", r.Cancelled.Count), r.Cancelled.Amount)
	}
	if len(r.OpenSales) > 0 {
		b.WriteString("Paid on open sales (no invoice yet; in no sales total)\n")
		for _, os := range r.OpenSales {
			var parts []string
			for _, t := range os.Tenders {
				parts = append(parts, fmt.Sprintf("%s %s", t.Tender, t.Amount))
			}
			label := os.Sale
			if os.Amount > 0 {
				label = fmt.Sprintf("%s of %s", os.Sale, os.Amount)
			}
			line(label, strings.Join(parts, ", "))
		}
		line("Paid on open sales", r.OpenPaid)
	}
	if len(r.OpenAtClose) > 0 {
		line("Sales still open at close", len(r.OpenAtClose))
	}
	if len(r.Dropped) > 0 {
		b.WriteString("Dropped at close (nothing paid, nothing to give back)\n")
		for _, id := range r.Dropped {
			fmt.Fprintf(&b, "  %s\n", id)
		}
	}
	line("Cash expected in drawer", r.CashExpected)
	if r.FirstReceipt != 0 {
		line("Receipts", fmt.Sprintf("%d–%d", r.FirstReceipt, r.LastReceipt))
	}
	for _, d := range r.Documents {
		line("Series "+d.Series, fmt.Sprintf("%d–%d", d.FirstNo, d.LastNo))
	}
	if r.Digest != "" {
		fmt.Fprintf(&b, "Journal seal %s\n", r.Digest)
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("pos: report text: %w", err)
	}
	return nil
}
