package ui

import (
	"context"
	"io"
	"time"

	"galla/pos"
)

// The interfaces here and beside their screens declare what the screens need from
// pos; Services gathers them into the window's typed fields. Every method that may
// touch the network, the journal or a printer takes a context and is called off the
// UI goroutine.

// Counter reports the terminal's standing for the status bar.
type Counter interface {
	// Status returns the gateway mode, whether the service answers and how many
	// payments have an outcome that is not known yet.
	Status(ctx context.Context) Status
}

// Status is what the status bar shows (pos's own type).
type Status = pos.TillStatus

// Role is a member of staff's role (pos's own type).
type Role = pos.Role

// The roles.
const (
	RoleCashier = pos.RoleCashier
	RoleManager = pos.RoleManager
)

// StaffMember is one person who may sign in (pos's own type).
type StaffMember = pos.StaffMember

// Staffer signs staff in and keeps the staff list (StaffAdmin).
type Staffer interface {
	StaffAdmin
	// Staff lists who may sign in; an empty list means a fresh journal.
	Staff(ctx context.Context) ([]StaffMember, error)
	// AddStaff adds a member with a PIN; the first member must be a manager.
	AddStaff(ctx context.Context, name string, role Role, pin string) error
	// SignIn checks name's PIN; pos journals the sign-in or its refusal.
	SignIn(ctx context.Context, name, pin string) (StaffMember, error)
	// ChangeOwnPIN sets name's PIN to newPIN once oldPIN is checked: a manager
	// signed in with MustChangePIN does it before going on.
	ChangeOwnPIN(ctx context.Context, name, oldPIN, newPIN string) (StaffMember, error)
	// SignOut journals that m signed out: locked by hand, or idle.
	SignOut(ctx context.Context, m StaffMember, idle bool) error
	// Authorize returns the manager whose PIN pin is, for the override o, and
	// journals the approval with the manager's id.
	Authorize(ctx context.Context, pin string, o Override) (StaffMember, error)
}

// Override is what a manager's PIN approves (pos's own type).
type Override = pos.Override

// Product is one catalog item (pos's own type).
type Product = pos.Product

// Line is one cart line as the screen holds it: pos prices it (pos's own type).
type Line = pos.CartLine

// Bill is a cart priced by pos.
type Bill = pos.Bill

// Catalog finds products, prices carts and holds them aside (Holder).
type Catalog interface {
	Holder
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

// Card is the one owning type of card data (pos's own interface): its
// formatting methods print only the brand and last four digits, and Zero wipes it.
type Card = pos.CardData

// EMIOffer is one EMI plan: an issuer's tenure for a product or the cart (pos's own
// type, with the calculator's tenure object kept verbatim).
type EMIOffer = pos.EMIPlan

// IMEI is one serialised unit's IMEI (pos's own type).
type IMEI = pos.UnitIMEI

// Step is where a payment stands, as the progress screen shows it.
type Step = pos.PayStep

// The steps of a payment.
const (
	StepCreating       = pos.PayCreating
	StepCreated        = pos.PayCreated
	StepAuthenticating = pos.PayAuthenticating
	StepVerifying      = pos.PayVerifying
	StepDone           = pos.PayDone
)

// PayRequest asks pos to take a payment for a cart.
type PayRequest = pos.PayRequest

// Progress is a report from a payment in flight.
type Progress = pos.PayProgress

// Outcome is how a payment ended.
type Outcome = pos.PayOutcome

// CartLock says whether a cart may take a tender or change a line while a payment
// of it is open (pos's own type).
type CartLock = pos.CartLock

// Notice is a payment left pending that is now final (pos's own type).
type Notice = pos.PayNotice

// PendingPayment is a payment whose outcome is not final (pos's own type).
type PendingPayment = pos.PendingPayment

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
}

// Pending follows the payments not final: it checks one now, says whether a
// cart is locked to its payment, and follows up those left pending.
type Pending interface {
	// CheckOrder inquires the payment of an order now ("Check now") and returns
	// where it stands.
	CheckOrder(ctx context.Context, orderID string) (Outcome, error)
	// CartLock says whether the cart whose payment is orderID is locked to it.
	CartLock(ctx context.Context, orderID string) CartLock
	// FollowUp inquires the payments left pending when their turn comes and
	// returns those that became final since it was last asked.
	FollowUp(ctx context.Context) ([]Notice, error)
}

// OrderSummary is one order in the journal.
type OrderSummary = pos.OrderSummary

// OrderEvent is one journaled event of an order.
type OrderEvent = pos.OrderEvent

// Books is the manager's view of the journal: the orders of a day, the X and Z
// reports, the close of a day, the business day open now
// (BusinessDater) and the order a receipt's QR code names.
type Books interface {
	BusinessDater
	// Orders lists the orders of day.
	Orders(ctx context.Context, day time.Time) ([]OrderSummary, error)
	// History lists an order's events.
	History(ctx context.Context, orderID string) ([]OrderEvent, error)
	// XReport renders day's X report as text.
	XReport(ctx context.Context, day time.Time) (string, error)
	// CloseDay closes day with a Z report, authorised by a manager's PIN, and
	// renders the report as text.
	// CloseDay closes a business day with its Z report (the one way a day
	// closes); ZText renders the result for the screen.
	CloseDay(ctx context.Context, r pos.CloseDayRequest) (*pos.CloseDayResult, error)
	ZText(ctx context.Context, res *pos.CloseDayResult) string
	// ExportCSV writes day's orders as CSV, one row per order.
	ExportCSV(ctx context.Context, day time.Time, w io.Writer) error
	// OrderFromQR reads a receipt's QR text and returns its order id.
	OrderFromQR(text string) (string, error)
	// FindSales finds sales by document number, IMEI, customer mobile or card
	// last four, newest first (pos.Books.FindSales).
	FindSales(ctx context.Context, text string) ([]OrderSummary, error)
	// BackupSpace is the space the journal's backups use; ok is false when the
	// terminal keeps none it can measure.
	BackupSpace() (space pos.BackupSpace, ok bool, err error)
}

// Settings is the shop's configuration as the settings screen edits it.
type Settings = pos.Settings

// Admin reads and changes the settings, the shop's UPI address (VPASetter) with
// them.
type Admin interface {
	VPASetter
	Settings(ctx context.Context) (Settings, error)
	// SaveSettings stores s as the manager by changed it, journaled with the
	// manager's id; an empty secret or access code keeps the stored one.
	SaveSettings(ctx context.Context, by StaffMember, s Settings, secret string) error
	// PrinterProfiles names the printer profiles on offer.
	PrinterProfiles() []string
}
