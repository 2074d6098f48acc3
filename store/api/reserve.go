package api

import "encoding/json"

// The store-wide decisions (DESIGN.md section 11): reserved on the server, in a
// transaction with a row lock, before money moves. Every request is signed
// like the others (Auth). A refusal is an Error with CodeTaken (someone else
// holds it) or CodeExceeded (more than is left), and a sentence for the
// cashier.
const (
	PathReserveIMEI       = "/api/v1/reserve/imei"              // POST ReserveIMEI → Reserved
	PathIssueCreditNote   = "/api/v1/reserve/credit-note/issue" // POST IssueCreditNote → Reserved
	PathReserveCreditNote = "/api/v1/reserve/credit-note"       // POST ReserveCreditNote → Reserved
	PathReserveReturn     = "/api/v1/reserve/return"            // POST ReserveReturn → Reserved
	PathRelease           = "/api/v1/reserve/release"           // POST Release → Reserved
)

// The codes of a refused reservation.
const (
	CodeTaken    = "taken"    // the IMEI is sold or reserved by another order
	CodeExceeded = "exceeded" // more than the credit note's or the invoice's remaining value
	CodeNotFound = "not_found"
	// CodeForeign refuses a claim a counter made about another counter's
	// numbers (a credit note of another counter's series): the store raises an
	// alarm.
	CodeForeign = "foreign"
	// CodeLinesNeeded refuses a return of another counter's invoice that names
	// no lines (a counter older than the line-by-line check): update it.
	CodeLinesNeeded = "lines_needed"
)

// ReserveIMEI reserves IMEIs for the terminal's order: each is sold at most
// once in the store. Asking again for the same order is harmless.
type ReserveIMEI struct {
	OrderID string   `json:"order_id"`
	IMEIs   []string `json:"imeis"`
}

// IssueCreditNote records a credit note issued at the terminal, before the
// terminal's event of it has reached the store: Value (paise) is what is left of
// it. Number must be of the terminal's own credit-note series (T1/C2627/00012);
// another counter's number is refused (CodeForeign) with an alarm. The record is
// a claim bound to the terminal: only the terminal itself may redeem against it,
// and the store verifies it when the note's event arrives (an alarm when the
// event says otherwise, or never comes). Any other counter redeems the note only
// once the store holds that event.
type IssueCreditNote struct {
	Number  string `json:"number"`
	OrderID string `json:"order_id,omitempty"`
	Value   int64  `json:"value"`
}

// ReserveCreditNote redeems Amount (paise) of a credit note for the
// terminal's order: never more than what is left of it.
type ReserveCreditNote struct {
	Number  string `json:"number"`
	OrderID string `json:"order_id"`
	Amount  int64  `json:"amount"`
}

// ReserveReturn reserves Amount (paise) of a refund of an invoice, perhaps of
// another counter, named by its document number (T1/000123): never more than
// was paid for it less what was refunded or reserved already. RefundID is the
// refund's unique_txn_id at the terminal. Lines are the goods (or a price
// adjustment's split) the refund gives back, each checked against the
// invoice's line as its own counter's events hold it, units and money, less
// what every counter returned or reserved of it; their amounts add up to
// Amount. A return of another counter's invoice must name them
// (CodeLinesNeeded); the invoice's own counter may reserve by amount alone.
type ReserveReturn struct {
	Document string       `json:"document"`
	RefundID string       `json:"refund_id"`
	Amount   int64        `json:"amount"`
	Lines    []ReturnLine `json:"lines,omitempty"`
}

// ReturnLine is what a return takes back of one line of the invoice: Line is
// the line's index on the invoice (0 for the first, as pos.ReturnItem), SKU its
// item code, Qty the units (0 for a price adjustment), Amount the money
// (paise, GST-inclusive) and IMEIs the serialised units that come back.
type ReturnLine struct {
	Line   int      `json:"line"`
	SKU    string   `json:"sku"`
	Qty    int      `json:"qty"`
	Amount int64    `json:"amount"`
	IMEIs  []string `json:"imeis,omitempty"`
}

// Release gives back what the terminal reserved for an order whose money did
// not move (a failed or abandoned sale: OrderID), or for a refund that failed
// (RefundID).
type Release struct {
	OrderID  string `json:"order_id,omitempty"`
	RefundID string `json:"refund_id,omitempty"`
}

// Reserved is a reservation granted: what is left afterwards (paise) of a
// credit note or an invoice; the sale's terminal and order of a return.
type Reserved struct {
	Remaining    int64  `json:"remaining,omitempty"`
	SoldTerminal string `json:"sold_terminal,omitempty"`
	SoldOrder    string `json:"sold_order,omitempty"`
	Released     int    `json:"released,omitempty"`
}

// PathInvoice is an invoice of any counter of the store, as its events were
// projected: a return at another counter reads what it sold from it.
const PathInvoice = "/api/v1/invoice" // POST InvoiceRequest → Invoice

// InvoiceRequest names an invoice by its document number as printed
// (T1/2627/000123) or by its sale's merchant order id.
type InvoiceRequest struct {
	Document string `json:"document"`
}

// Invoice is a paid sale of a counter as the store holds it: its number as
// printed, the counter and order, the order itself (pos.Order's JSON: lines,
// totals, buyer, tender, when it was paid) and what may still be returned of it
// store-wide (paise): paid, less refunded and reserved by returns anywhere.
type Invoice struct {
	Number     string          `json:"number"`
	Terminal   string          `json:"terminal"`
	OrderID    string          `json:"order_id"`
	Order      json.RawMessage `json:"order"`
	Returnable int64           `json:"returnable"`
}

// PathReturnedElsewhere lists the terminal's own invoices that other counters
// returned or are returning (their reservations at the store), so that the
// counter remembers them while the store cannot be reached: a return of such
// an invoice then waits for the store (docs/security.md "Offline returns").
// The link asks it after each sync.
const PathReturnedElsewhere = "/api/v1/returned-elsewhere" // POST ReturnedElsewhereRequest → ReturnedElsewhere

// MaxReturnedElsewhere bounds the invoices one answer lists, the latest
// returned first; the counter keeps what earlier answers said.
const MaxReturnedElsewhere = 1000

// ReturnedElsewhereRequest asks for the terminal's invoices returned at other
// counters; it carries nothing (the signature names the terminal).
type ReturnedElsewhereRequest struct{}

// ReturnedElsewhere are the terminal's invoices returned at other counters.
type ReturnedElsewhere struct {
	Invoices []ElsewhereReturn `json:"invoices"`
}

// ElsewhereReturn is one invoice of the terminal that other counters returned
// or are returning: its order and number as printed, the money (paise) they
// reserved for it in all, and which counters ("T2, T3").
type ElsewhereReturn struct {
	OrderID  string `json:"order_id"`
	Number   string `json:"number"`
	Amount   int64  `json:"amount"`
	Counters string `json:"counters"`
}
