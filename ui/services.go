package ui

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"galla/pos"
)

// Services are the capabilities the window uses, one typed field each, in the
// manner of a composition root handing a server its services: main fills each
// field with the one pos service that implements it (the status bar's Counter
// with the pos.Till, whose own Status it is). No screen asks a value what else
// it can do: what the window can do is what these fields declare, and New
// refuses a Services with a field missing.
//
// The fields are embedded, no two sharing a method name; the screens name the
// service they call (u.till.Catalog.Search, not u.till.Search).
type Services struct {
	// Counter is the status bar's standing: gateway mode, service, unknowns.
	Counter
	// Staffer signs staff in and out, approves overrides and keeps the staff list.
	Staffer
	// Catalog finds and prices products and holds carts aside.
	Catalog
	// Customers checks and remembers the buyer an invoice names.
	Customers
	// Checkout takes payments: one tender or several, EMI with its IMEI checks.
	Checkout
	// Pending follows the payments not final: checked now, or followed up.
	Pending
	// IMEIs checks a scanned IMEI is free and finds the sales of one.
	IMEIs
	// Returns takes goods back, refunds and cancels invoices.
	Returns
	// Drawer keeps the shift and the cash in the drawer.
	Drawer
	// Books is the journal's orders, the X and Z reports and the business day.
	Books
	// Documents renders and prints receipts and report slips.
	Documents
	// Admin reads and changes the settings, the shop's UPI address with them.
	Admin
	// Stock is the goods on hand and received (stock.go).
	Stock
}

// Checkout takes payments (the sale's one path to money in).
type Checkout interface {
	Payer
	Tenderer
	IMEIChecker
}

// IMEIs answers about serialised units by their IMEI.
type IMEIs interface {
	Serials
	IMEIFinder
}

// Returns gives money back: goods returned on a credit note, a refund of a paid
// order, an invoice cancelled when its supply did not happen.
type Returns interface {
	Returner
	Canceller
	// Refund refunds amount of a paid order, authorised by a manager's PIN. A
	// verified refund has Verified set; otherwise its outcome is still pending.
	Refund(ctx context.Context, orderID string, amount pos.Paise, pin string) (Outcome, error)
}

// Documents are the receipts of sales and refunds, drawn and printed (a copy after
// the first is a reprint), the report slips and the printer's test page.
type Documents interface {
	// Receipt renders an order's receipt as a PNG image.
	Receipt(ctx context.Context, orderID string) ([]byte, error)
	// Print prints an order's receipt (again when reprint).
	Print(ctx context.Context, orderID string, reprint bool) error
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
	// TestPrint prints a test page on the configured printer.
	TestPrint(ctx context.Context) error
}

// Check reports the fields of s left unset (nil, or a nil pointer): a wiring
// that leaves one is a programming error, and New panics with this error.
func (s Services) Check() error {
	var missing []string
	v := reflect.ValueOf(s)
	for i := range v.NumField() {
		f := v.Field(i)
		if f.IsNil() || f.Elem().Kind() == reflect.Pointer && f.Elem().IsNil() {
			missing = append(missing, v.Type().Field(i).Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("ui: the window's services lack %s", strings.Join(missing, ", "))
	}
	return nil
}
