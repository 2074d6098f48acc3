package receipts

import "time"

// Kind is what a receipt is: a sale, a refund, or one of the day's reports.
type Kind string

// The kinds of receipt.
const (
	KindSale    Kind = "sale"     // a tax invoice for a paid order
	KindRefund  Kind = "refund"   // a refund of (part of) a paid order
	KindXReport Kind = "x-report" // the day so far, printed at any time
	KindZReport Kind = "z-report" // the numbered report that closes the day
	// KindTestPage is a printer's test page: the printer's width, its
	// characters and a code, no sale and no money.
	KindTestPage Kind = "test-page"
)

// TenderKind is how a sale was paid. The values are the same words pos uses.
type TenderKind string

// The tenders a receipt can show.
const (
	TenderCard  TenderKind = "card"
	TenderEMI   TenderKind = "emi"
	TenderCash  TenderKind = "cash"
	TenderPhone TenderKind = "phone"
	TenderUPI   TenderKind = "upi" // UPI to the shop's VPA, confirmed by the cashier (split tender)
)

// Receipt is everything a printed receipt or report shows, as plain values: amounts
// are int64 paise, times are time.Time printed in their own location. pos fills it
// from a journaled order; the renderers (Text, ESCPOS, Renderer.PNG, Renderer.PDF)
// only read it. It never holds a full card number: CardLast4 is all there is.
type Receipt struct {
	Kind Kind
	Shop Shop
	// Title is what a sale's document is ("TAX INVOICE", "BILL OF SUPPLY",
	// "RECEIPT"); "" prints TAX INVOICE.
	Title string

	Number   string    // the receipt number, e.g. "T1-000123"
	Terminal string    // the terminal's name, e.g. "T1"
	Cashier  string    // who rang the sale up (or printed the report)
	Time     time.Time // when the sale was paid (or the report printed)

	MerchantOrderID string // Galla's order id (also in the QR code)

	// Buyer is who the document is issued to; nil names nobody (a walk-in sale
	// under ₹50,000).
	Buyer *Buyer
	// PlaceOfSupply is the state the supply takes place in, as printed:
	// "Karnataka (29)"; Interstate is set when it is not the shop's state (the
	// tax is IGST).
	PlaceOfSupply string
	Interstate    bool
	// NoTax marks a document of a seller who may not state tax: one not
	// registered under GST (CGST Act s.32) or under the composition scheme
	// (s.10(4)). It prints prices only, in every format: no taxable value, rate,
	// GST, CGST, SGST, IGST, cess, HSN summary of tax or tax reversed.
	NoTax bool
	// Legend is the line printed under the title: the composition scheme's
	// sentence (CGST Rule 5(1)(f)) or that the seller is not registered.
	Legend string
	// NoReverseCharge prints "Reverse charge: No" (CGST Rule 46(p)) with the
	// number and date: a registered seller's documents say it.
	NoReverseCharge bool

	Lines []Line    // the items sold (or refunded)
	Taxes []TaxLine // taxable value and GST per rate
	HSN   []HSNLine // taxable value and GST per HSN code and rate
	Total int64     // GST-inclusive total in paise (for a refund: the amount refunded)
	// RoundOff is what rounding the invoice value to the rupee added (negative:
	// took away); Total includes it. Zero prints no round-off line.
	RoundOff int64

	Tenders []Tender    // how it was paid (for a refund: where the money goes back)
	Refund  *Refund     // set for KindRefund
	Credit  *CreditNote // set for KindCreditNote (credit.go)
	Report  *Report     // set for KindXReport and KindZReport

	// Reprint is 0 for the original, which a sale's document or a credit note
	// marks ORIGINAL FOR RECIPIENT (CGST Rule 48(1)), and N for the Nth copy,
	// which prints "DUPLICATE — reprint N".
	Reprint int

	// QR is the signed QR text (SignQR), printed as a QR code; empty prints none.
	QR string

	Footer []string // closing lines: returns policy, thanks

	// Sandbox marks a document of the embedded sandbox: "SANDBOX — NOT A VALID
	// TAX DOCUMENT" at its top and its end, in every format.
	Sandbox bool

	// Cancelled, when set, marks a sale document that was cancelled (cancel.go):
	// CANCELLED in large type with the reason, at its top and its end.
	Cancelled *Cancelled
}

// SandboxMark is what a sandbox document says at its top and its end.
const SandboxMark = "SANDBOX — NOT A VALID TAX DOCUMENT"

// Shop is the seller as the settings name it.
type Shop struct {
	Name    string
	Address []string // one printed line each
	GSTIN   string
	Phone   string
	State   string // the state, as printed: "Maharashtra (27)"
}

// Buyer is the customer a document is issued to.
type Buyer struct {
	Name    string
	Address string
	State   string // as printed: "Karnataka (29)"
	GSTIN   string // set for a registered buyer (B2B)
	Phone   string
	// DeliveredTo is the state the goods are delivered to, as printed, when the
	// shop delivers them; "" when they are taken at the counter.
	DeliveredTo string
	// DeliveryAddress is the address the goods are delivered to (CGST Rule
	// 46(e) and (o)), printed before DeliveredTo.
	DeliveryAddress string
}

// Line is one item of a sale or refund.
type Line struct {
	Name      string
	HSN       string   // HSN/SAC code
	Qty       int      // units
	Unit      string   // the unit quantity code (UQC) of Qty: NOS, PCS, BOX, KGS…
	UnitPrice int64    // GST-inclusive paise per unit
	Discount  int64    // paise taken off the line
	Amount    int64    // GST-inclusive paise for the line (after any discount)
	GSTRate   int      // GST rate in basis points: 1800 is 18%
	Taxable   int64    // the line's taxable value, paise
	Tax       int64    // the line's GST, paise
	CessRate  int      // cess rate in basis points; 0 for none
	Cess      int64    // the line's cess, paise
	IMEIs     []string // serial numbers of serialised items, one per unit
}

// TaxLine is the GST of one rate: the taxable value and its central and state
// halves (or the integrated tax of an inter-state sale).
type TaxLine struct {
	Rate    int   // basis points: 1800 is 18%
	Taxable int64 // paise
	CGST    int64 // paise
	SGST    int64 // paise
	IGST    int64 // paise; zero for a sale within the state
	Cess    int64 // paise
}

// HSNLine is the HSN summary's row of one HSN code at one rate.
type HSNLine struct {
	HSN     string
	Rate    int // basis points
	Qty     int
	Taxable int64 // paise
	CGST    int64
	SGST    int64
	IGST    int64
	Cess    int64
}

// Tender is one payment of a sale, or the destination of a refund.
type Tender struct {
	Kind   TenderKind
	Amount int64 // paise

	CardBrand string // VISA, MASTERCARD, RUPAY...
	CardLast4 string // the last four digits; never more
	AuthCode  string
	RRN       string

	ServiceOrderID string // the payment service's order id
	PaymentID      string // the payment service's payment id
	Method         string // for a phone payment: UPI, NETBANKING, WALLET, CARD
	Verified       bool   // the status answer's signature was verified

	EMI *EMIPlan // set for TenderEMI

	Tendered int64 // cash handed over, paise
	Change   int64 // cash given back, paise
}

// EMIPlan is the instalment plan a customer chose, in the figures pos computes
// for it (pos.EMIFigures), printed so that they reconcile: Financed + Interest −
// Discount == TotalCost == Monthly × (TenureMonths − 1) + LastMonthly.
type EMIPlan struct {
	Issuer       string // the issuing bank
	Program      string // "bank EMI" or the brand's programme, e.g. "SAMSUNG no-cost"
	TenureMonths int
	Financed     int64 // the amount financed (the loan), paise
	Monthly      int64 // each monthly instalment but the last, paise
	LastMonthly  int64 // the last instalment, paise: Monthly and the paise left over
	InterestRate int   // basis points per year
	Interest     int64 // the bank's interest over the tenure, paise
	Discount     int64 // what the brand or the shop pays of that interest, paise
	NoCost       bool  // the discount pays all the interest
	TotalCost    int64 // what the customer pays in all, paise
}

// Refund tells what a refund receipt refunds.
type Refund struct {
	OriginalNumber  string    // the sale's receipt number
	OriginalOrderID string    // the sale's merchant order id
	OriginalTime    time.Time // when the sale was paid
	UniqueTxnID     string    // the refund's own id
	Partial         bool      // less than the whole sale
	Reason          string
}

// Report is the body of an X or Z report.
type Report struct {
	Day     time.Time // the business day (its date is printed)
	ZNumber int       // the Z report's number; 0 for an X report

	Sales     ReportRow // paid orders and their total
	Refunds   ReportRow
	Failed    ReportRow // verified failures
	Unknown   ReportRow // outcomes still unknown
	Abandoned ReportRow // orders whose create answer was lost; the sale moved on

	FirstReceipt, LastReceipt string // the receipt numbers the day used

	ByTender []ReportRow // sales by tender
	ByEMI    []ReportRow // sales by EMI plan ("HDFC 6m no-cost")
	Taxes    []TaxLine   // GST collected per rate

	// Returns is the GST reversed by the day's credit notes per rate, NetTaxes
	// the GST less it (credit.go); Discounts the sales' line discounts; Documents
	// the first and last number of each series ("T1/2627/000001 to …").
	Returns   []TaxLine
	NetTaxes  []TaxLine
	Discounts ReportRow
	Documents []string

	Net          int64 // sales less refunds, paise
	CashExpected int64 // cash that should be in the drawer, paise
}

// ReportRow is one line of a report: a label, a count and an amount.
type ReportRow struct {
	Label  string
	Count  int
	Amount int64 // paise
}
