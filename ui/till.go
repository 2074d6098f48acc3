package ui

import (
	"context"
	"io"
	"time"

	"galla/pos"
)

// Till is everything the screens need from pos. It is a union of small interfaces so
// that a screen's test can fake only what that screen uses; main wires the real pos
// engine. Every method that may touch the network, the journal or a printer takes a
// context and is called off the UI goroutine.
type Till interface {
	Counter
	Staffer
	Catalog
	Payer
	Books
	Admin
}

// Counter reports the terminal's standing for the status bar.
type Counter interface {
	// Status returns the gateway mode, whether the service answers and how many
	// payments have an outcome that is not known yet.
	Status(ctx context.Context) Status
}

// Status is what the status bar shows.
type Status struct {
	Live    bool // the live payment service; false means the embedded sandbox
	Online  bool // the payment service answered recently
	Unknown int  // orders whose payment outcome is not known yet
	// Checking is true while the journal's startup check (bbolt's and the hash
	// chain's) still runs; payments wait for it.
	Checking bool
	// Damaged is the sentence (naming the last backup) of a journal that failed
	// its startup check, "" when it passed or still runs: payments are stopped.
	Damaged string
}

// Role is a member of staff's role (pos's own type).
type Role = pos.Role

// The roles.
const (
	RoleCashier = pos.RoleCashier
	RoleManager = pos.RoleManager
)

// StaffMember is one person who may sign in.
type StaffMember struct {
	Name string
	Role Role
}

// Manager reports whether s may approve refunds, discounts, day close and settings.
func (s StaffMember) Manager() bool { return s.Role == RoleManager }

// Staffer signs staff in and keeps the staff list.
type Staffer interface {
	// Staff lists who may sign in; an empty list means a fresh journal.
	Staff(ctx context.Context) ([]StaffMember, error)
	// AddStaff adds a member with a PIN; the first member must be a manager.
	AddStaff(ctx context.Context, name string, role Role, pin string) error
	// SignIn checks name's PIN.
	SignIn(ctx context.Context, name, pin string) (StaffMember, error)
	// Authorize returns the manager whose PIN pin is, for an override.
	Authorize(ctx context.Context, pin string) (StaffMember, error)
}

// Product is one catalog item (pos's own type).
type Product = pos.Product

// Line is one cart line as the screen holds it: pos prices it.
type Line struct {
	Product    Product
	Qty        int
	Discount   pos.Paise // off the whole line, GST included
	ApprovedBy string    // the manager who approved a discount above the limit (by PIN, through Authorize)
}

// Bill is a cart priced by pos.
type Bill struct {
	Lines    []pos.Paise // each line's amount after discount, GST included
	Gross    pos.Paise   // before discounts
	Discount pos.Paise
	Taxable  pos.Paise
	CGST     pos.Paise
	SGST     pos.Paise
	Total    pos.Paise
}

// Catalog finds products and prices carts.
type Catalog interface {
	// Search finds products whose name, code or barcode matches q, as typed.
	Search(q string, limit int) []Product
	// Lookup finds the product whose barcode or SKU is exactly code.
	Lookup(code string) (Product, bool)
	// Price totals the lines with their GST; it refuses a discount above the limit
	// that no manager approved with an error matching pos.ErrDiscountNeedsManager.
	Price(lines []Line) (Bill, error)
	// DiscountLimit is the largest line discount a cashier may give alone, as a
	// manager set it in the settings; 0 means every discount needs a manager.
	DiscountLimit(l Line) pos.Paise
}

// Card is the one owning type of card data: its formatting methods print only the
// brand and last four digits, and Zero wipes it.
type Card interface {
	Last4() string
	Brand() string
	Check(now time.Time) error
	Zero()
}

// EMIOffer is one EMI plan: an issuer's tenure for a product or the cart (pos's own
// type, with the calculator's tenure object kept verbatim).
type EMIOffer = pos.EMIPlan

// IMEI is one serialised unit's IMEI for a brand EMI sale.
type IMEI struct {
	ProductCode string
	IMEI        string
}

// Step is where a payment stands, as the progress screen shows it.
type Step int

// The steps of a payment.
const (
	StepCreating       Step = iota // journaling and creating the order
	StepCreated                    // order created
	StepAuthenticating             // the customer authenticates (OTP, 3-D Secure, phone)
	StepVerifying                  // polling the verified status
	StepDone                       // an outcome
)

// PayRequest asks pos to take a payment for a cart.
type PayRequest struct {
	OrderID  string // empty for a new order; a FAILED order's id to retry it
	Lines    []Line
	Tender   pos.TenderKind
	Card     Card      // card and EMI
	Offer    *EMIOffer // EMI
	IMEIs    []IMEI    // brand EMI that requires them
	Tendered pos.Paise // cash
	Cashier  string
}

// Progress is a report from a payment in flight.
type Progress struct {
	OrderID     string
	Step        Step
	OTP         bool          // the embedded sandbox waits for the OTP, typed in the window
	AuthURL     string        // live: the authentication page opened for the customer
	CheckoutURL string        // pay on phone: the page the customer opens
	Checks      int           // status inquiries made so far
	NextCheck   time.Duration // until the next inquiry
	Note        string        // a sentence for the cashier while waiting (a phone attempt failed; the customer may try again)
}

// Outcome is how a payment ended.
type Outcome struct {
	OrderID    string
	State      pos.OrderState // PAID, FAILED or UNKNOWN
	Verified   bool           // the service's answer carried a good signature
	Unverified bool           // an answer came but could not be verified
	Reason     string         // for FAILED: why, as a sentence
	CanRetry   bool           // FAILED with attempts left on the same order
	Amount     pos.Paise
	Change     pos.Paise // cash
	ReceiptNo  string
}

// Payer takes payments.
type Payer interface {
	// NewCard makes the owning card value from what was typed.
	NewCard(number, expiryMonth, expiryYear, cvv, holder string) Card
	// CardBrand names the brand of a card number as typed (VISA, MASTERCARD, ...).
	CardBrand(number string) string
	// EMIOffers lists the EMI plans for the lines (one product or the whole cart).
	EMIOffers(ctx context.Context, lines []Line) ([]EMIOffer, error)
	// ValidateScheme asks the service whether card's issuer gives offer today.
	ValidateScheme(ctx context.Context, lines []Line, offer EMIOffer, card Card) error
	// Pay takes a payment and reports progress (progress may be nil) until an
	// outcome: PAID, FAILED or UNKNOWN. It wipes the card when the call is done.
	Pay(ctx context.Context, req PayRequest, progress func(Progress)) (Outcome, error)
	// SubmitOTP completes the embedded sandbox's authentication step.
	SubmitOTP(ctx context.Context, orderID, otp string) error
	// Receipt renders an order's receipt as a PNG image.
	Receipt(ctx context.Context, orderID string) ([]byte, error)
	// Print prints an order's receipt (again when reprint).
	Print(ctx context.Context, orderID string, reprint bool) error
}

// OrderSummary is one order in the journal.
type OrderSummary struct {
	OrderID   string
	At        time.Time
	State     pos.OrderState
	Tender    pos.TenderKind
	Amount    pos.Paise
	Refunded  pos.Paise
	Cashier   string
	ReceiptNo string
	Detail    string // card brand and last four, EMI plan
}

// OrderEvent is one journaled event of an order.
type OrderEvent struct {
	At     time.Time
	Kind   string
	Detail string
}

// Books is the manager's view of the journal.
type Books interface {
	// Orders lists the orders of day.
	Orders(ctx context.Context, day time.Time) ([]OrderSummary, error)
	// History lists an order's events.
	History(ctx context.Context, orderID string) ([]OrderEvent, error)
	// Refund refunds amount of a paid order, authorised by a manager's PIN. A
	// verified refund has Verified set; otherwise its outcome is still pending.
	Refund(ctx context.Context, orderID string, amount pos.Paise, pin string) (Outcome, error)
	// XReport renders day's X report as text.
	XReport(ctx context.Context, day time.Time) (string, error)
	// CloseDay closes day with a Z report, authorised by a manager's PIN, and
	// renders the report as text.
	CloseDay(ctx context.Context, day time.Time, pin string) (string, error)
	// RefundReceipt renders the receipt of an order's latest done refund as a PNG
	// image.
	RefundReceipt(ctx context.Context, orderID string) ([]byte, error)
	// PrintRefund prints the receipt of an order's latest done refund; every copy
	// after the first is a reprint.
	PrintRefund(ctx context.Context, orderID string) error
	// ReportReceipt renders day's report as the printed slip, a PNG image: the X
	// report, or the sealed Z report once the day is closed.
	ReportReceipt(ctx context.Context, day time.Time) ([]byte, error)
	// PrintReport prints day's report (X, or Z once closed) on the receipt printer.
	PrintReport(ctx context.Context, day time.Time) error
	// ExportCSV writes day's orders as CSV, one row per order.
	ExportCSV(ctx context.Context, day time.Time, w io.Writer) error
	// OrderFromQR reads a receipt's QR text and returns its order id.
	OrderFromQR(text string) (string, error)
}

// Settings is the shop's configuration as the settings screen edits it.
type Settings struct {
	ShopName       string
	Address        string
	GSTIN          string
	Live           bool
	GatewayURL     string
	MerchantID     string
	AccessCode     string
	SecretSet      bool // a secret is stored; it is never shown
	PrinterProfile string
	PrinterAddr    string
	// DiscountLimit is the largest line discount a cashier gives without a
	// manager's PIN; 0 means every discount needs one.
	DiscountLimit pos.Paise
	// PhoneListen is where the page for pay on the customer's phone listens,
	// host:port; empty means this computer only (127.0.0.1:0). A LAN address such
	// as 0.0.0.0:7071 lets a phone on the shop's Wi-Fi open it.
	PhoneListen string
}

// Admin reads and changes the settings.
type Admin interface {
	Settings(ctx context.Context) (Settings, error)
	// SaveSettings stores s; an empty secret keeps the stored one.
	SaveSettings(ctx context.Context, s Settings, secret string) error
	// PrinterProfiles names the printer profiles on offer.
	PrinterProfiles() []string
	// TestPrint prints a test page on the configured printer.
	TestPrint(ctx context.Context) error
}
