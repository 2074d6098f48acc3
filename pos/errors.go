package pos

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"galla/gateway"
)

// Sentencer is implemented by errors that carry their own sentence for the cashier;
// Sentence uses it before anything else, so other parts of pos can add errors
// without touching the table here.
type Sentencer interface {
	Sentence() string
}

// GenericSentence is what Sentence says of an error it does not know. The caller
// logs the error itself once, at the top.
const GenericSentence = "Something went wrong; the sale is saved. Try again or call the manager."

// sentenceOf pairs a sentinel with its sentence.
type sentenceOf struct {
	err error
	s   string
}

// sentences lists the known sentinels, the most telling first: a payment answer that
// could not be verified or was lost is said before anything else it may also match.
func sentences() []sentenceOf {
	return []sentenceOf{
		// The payment service: outcomes first.
		{gateway.ErrSignature, "The payment service's answer could not be verified; do not hand over the goods — it will be checked again."},
		{gateway.ErrOutcomeUnknown, "The payment service's answer was lost; do not take the payment again — the sale is saved and its status will be checked."},
		{gateway.ErrOfferNotApplicable, "This EMI offer is not available on this card; choose another offer or another card."},
		{gateway.ErrOfferOutdated, "The EMI offers have changed since they were shown; reload the offers and choose again."},
		{gateway.ErrIMEIRequired, "This brand's EMI needs the IMEI of each phone; scan the IMEIs and pay again."},
		{gateway.ErrIMEIRejected, "The payment service did not accept an IMEI; check that it is this phone's and not used in another sale, then scan it again."},
		{gateway.ErrTokenExpired, "The payment session has expired; start the payment again."},
		{gateway.ErrAlreadyPaid, "This sale is already paid; print the receipt instead of charging again."},
		{gateway.ErrDuplicateRefund, "This refund was already made; check the sale's status before refunding again."},
		{gateway.ErrDuplicateOrder, "This order number was already used at the payment service; the sale is saved and its status will be checked."},
		{gateway.ErrAmountMismatch, "The amount does not match the order at the payment service; check the cart and start the payment again."},
		{gateway.ErrInvalidCard, "The card details are not valid: check the card number, expiry, CVV and name, and type them again."},
		{gateway.ErrInvalidRequest, "The payment service did not accept the payment details; check the card and the offer, and try again."},
		{gateway.ErrUnauthorized, "The payment service refused this terminal's merchant ID or access code; ask the manager to check the payment settings."},
		{gateway.ErrSecureHash, "The payment service refused this terminal's signature; ask the manager to check the secret key in the payment settings."},
		{gateway.ErrSecret, "The payment settings are not valid; ask the manager to check the merchant ID, access code and secret key."},
		{gateway.ErrConfig, "The payment settings are not valid; ask the manager to check the merchant ID, access code and secret key."},
		{gateway.ErrNotFound, "The payment service does not know this order; check the order number on the receipt."},
		{gateway.ErrPayloadTooLarge, "The sale is too large to send in one payment; split it into smaller sales."},
		{gateway.ErrServer, "The payment service has a fault; try again in a few minutes, or take another payment method."},
		{gateway.ErrMalformed, "The payment service's answer could not be read; try again in a moment."},
		{gateway.ErrInvalidInput, "Some payment details are missing or not valid; check them and try again."},

		// The order and the journal.
		{ErrOrderPaid, "This sale is already paid; print the receipt instead of charging again."},
		{ErrPaymentInFlight, "A payment for this sale is still in progress; wait for its result."},
		{ErrAttemptsUsed, "This sale has used all its payment attempts; start a new sale or take another payment method."},
		{ErrNotRefundable, "This refund is not possible: the sale is not paid, or the amount is more than is left to refund."},
		{ErrOrderNotFound, "No sale with this order number is in the journal; check the number on the receipt."},
		{ErrDayClosed, "This day is closed and its sales cannot change; ask the manager."},

		// The cart.
		{ErrEmptyCart, "The cart is empty; scan or search a product first."},
		{ErrUnknownProduct, "No product has this barcode or code; check it, or search the product by name."},
		{ErrNotInCart, "That product is no longer in the cart; look at the cart and try again."},
		{ErrBadQuantity, fmt.Sprintf("The quantity must be from 1 to %d; type it again.", MaxQty)},
		{ErrBadDiscount, "A discount cannot be negative; type it again."},
		{ErrDiscountTooLarge, "The discount is more than the line's amount; lower the discount first."},
		{ErrNotSerialised, "This product has no IMEI, so none is needed."},
		{ErrTooManyIMEIs, "There are more IMEIs than units on this line; remove the extra IMEIs or raise the quantity."},
		{ErrDuplicateIMEI, "This IMEI is already entered for another unit; scan the IMEI of this unit."},
		{ErrIMEIMissing, "An IMEI is missing; scan or type the IMEI of every phone in the cart."},
		{ErrIMEILength, "An IMEI has 15 digits; check it on the box (or dial *#06# on the phone) and type it again."},
		{ErrIMEIDigits, "An IMEI has digits only; check it and type it again."},
		{ErrIMEICheckDigit, "This IMEI is not valid (its last digit does not match); check the digits and type it again."},
		{ErrBadIMEI, "This IMEI is not valid; check the digits and type it again."},
		{ErrBadAmount, "That is not an amount of money; type rupees, such as 1499 or 1499.50."},
		{ErrCashShort, "The cash given is less than the total; take more cash or choose another payment."},

		// Staff.
		{ErrShortManagerPIN, "A manager's PIN has 6 to 8 digits; type a longer one."},
		{ErrBadPIN, "A PIN has 4 to 8 digits; type it again."},
		{ErrUnknownStaff, "No staff member has this ID; choose your name from the list."},
		{ErrStaffExists, "A staff member of this name exists; use another name, such as one with an initial."},
		{ErrWrongPIN, "Wrong PIN: it is no manager's PIN. Type it again, or ask a manager."},
		{ErrStaffDisabled, "This staff member is disabled; a manager can enable them again in Settings."},
		{ErrLastManager, "The last manager cannot be disabled: add another manager first."},
		{ErrBadRole, "The role must be cashier or manager."},
		{ErrBadStaffName, "A staff name has 1 to 50 letters; type it again."},
		{ErrFirstStaffManager, "The first staff member must be a manager; add a manager first."},
		{ErrNoManager, "No manager is set up; add a manager first."},
		{ErrWeakPINHash, "This staff member's PIN record is damaged; a manager must set a new PIN."},
	}
}

// ErrNotJournaled reports a journal write that failed before any money could move
// (the sale's intent, or a new attempt journaled before its payment call): nothing
// was sent to the payment service.
var ErrNotJournaled = sentenceError{"the journal could not be written before the payment; nothing was sent",
	"The journal cannot be written (is the disk full?), so nothing was charged; free disk space, then take the payment again."}

// ErrNotRecorded reports a payment that may have moved money while the journal
// could not record it: it must never be charged again (see NotRecordedError).
var ErrNotRecorded = errors.New("a payment may have been taken but the journal could not record it")

// NotRecordedError is the error of a payment that may have moved money (create
// order or the payment call was sent) whose next state the journal could not
// record, even after retries. The engine holds the payment in memory as unknown
// and takes no new payment until Reconcile, run once the journal can be written,
// has resolved it from the payment service. It matches ErrNotRecorded and the
// journal's error.
type NotRecordedError struct {
	OrderID string
	Err     error
}

func (e *NotRecordedError) Error() string {
	return fmt.Sprintf("pos: order %q: %v: %v", e.OrderID, ErrNotRecorded, e.Err)
}

// Unwrap returns ErrNotRecorded and the journal's error.
func (e *NotRecordedError) Unwrap() []error { return []error{ErrNotRecorded, e.Err} }

// Sentence says what the cashier must do: never charge again, free disk space,
// reconcile.
func (e *NotRecordedError) Sentence() string {
	return "A payment may have been taken for order " + e.OrderID + ": do not charge again; free disk space, then run galla reconcile"
}

// Sentence turns any error into one sentence a cashier can act on: what happened
// and what to do. It knows the sentinels of pos and of gateway (matched with
// errors.Is, through any wrapping) and errors that implement Sentencer; anything
// else gets GenericSentence. A sentence never holds a card number: the text comes
// from fixed sentences and numbers pos computed, and any run of 12 or more digits
// is hidden as a last guard. Sentence(nil) is "".
func Sentence(err error) string {
	if err == nil {
		return ""
	}
	if nr, ok := errors.AsType[*NotRecordedError](err); ok {
		// Fixed text and a merchant order id pos made (its date and time would
		// look like a long number to the guard below).
		return nr.Sentence()
	}
	return hideLongNumbers(sentence(err))
}

func sentence(err error) string {
	var s Sentencer
	if errors.As(err, &s) {
		if t := strings.TrimSpace(s.Sentence()); t != "" {
			return t
		}
	}
	// Outcome-unknown and unverified answers outrank everything else they match.
	if errors.Is(err, gateway.ErrSignature) || errors.Is(err, gateway.ErrOutcomeUnknown) {
		return lookup(err)
	}
	if e, ok := errors.AsType[*gateway.Error](err); ok && errors.Is(e, gateway.ErrRateLimited) {
		if e.RetryAfter > 0 {
			return fmt.Sprintf("The payment service is busy; wait %s and try again.", waitText(e.RetryAfter))
		}
		return "The payment service is busy; wait a minute and try again."
	}
	if errors.Is(err, gateway.ErrRateLimited) {
		return "The payment service is busy; wait a minute and try again."
	}
	if errors.Is(err, gateway.ErrInvalidCard) {
		// The card check names what is wrong (never more of the number than its last
		// four digits): say that rather than a list of everything it could be.
		msg := err.Error()
		if i := strings.LastIndex(msg, ": "); i >= 0 && i+2 < len(msg) && !strings.Contains(gateway.ErrInvalidCard.Error(), msg[i+2:]) {
			return "The card cannot be used: " + msg[i+2:] + "; check it and type it again, or ask for another card."
		}
	}
	if e, ok := errors.AsType[*CashShortError](err); ok {
		return fmt.Sprintf("The cash given is %s short of the total %s; take more cash or choose another payment.", e.Short(), e.Total)
	}
	if e, ok := errors.AsType[*WrongPINError](err); ok {
		switch e.AttemptsLeft {
		case 0:
			return "Wrong PIN; check it and type it again."
		case 1:
			return fmt.Sprintf("Wrong PIN: 1 attempt left before this user is locked for %d minutes.", int(LockDuration/time.Minute))
		}
		return fmt.Sprintf("Wrong PIN: %d attempts left before this user is locked for %d minutes.", e.AttemptsLeft, int(LockDuration/time.Minute))
	}
	if e, ok := errors.AsType[*LockedError](err); ok {
		return fmt.Sprintf("Too many wrong PINs: this user is locked until %s; wait, or ask a manager to unlock it (Staff, Unlock [F6], or \"galla staff unlock NAME\").", e.Until.Format("15:04"))
	}
	if e, ok := errors.AsType[*ImportError](err); ok && len(e.Problems) > 0 {
		more := ""
		switch n := min(len(e.Problems), maxProblems) - 1; {
		case n == 1:
			more = " (and 1 more problem)"
		case n > 1:
			more = fmt.Sprintf(" (and %d more problems)", n)
		}
		return fmt.Sprintf("The catalog was not imported: %s%s; fix the file and import it again.", e.Problems[0], more)
	}
	if errors.Is(err, ErrBadCatalog) {
		return "The catalog was not imported because the file has problems; fix the file and import it again."
	}
	if s := lookup(err); s != "" {
		return s
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "The payment service did not answer in time; check the network and try again."
	case errors.Is(err, context.Canceled):
		return "The action was cancelled."
	}
	return GenericSentence
}

func lookup(err error) string {
	for _, s := range sentences() {
		if errors.Is(err, s.err) {
			return s.s
		}
	}
	return ""
}

// waitText says a wait in plain words: "30 seconds", "2 minutes".
func waitText(d time.Duration) string {
	switch {
	case d <= time.Second:
		return "a second"
	case d < 90*time.Second:
		return fmt.Sprintf("%d seconds", int((d+time.Second-1)/time.Second))
	}
	return fmt.Sprintf("%d minutes", int((d+time.Minute-1)/time.Minute))
}

// idPattern is an id Engine.newID makes (a merchant order id, a refund id, a
// shift id): a prefix of letters and digits, the date and time in 14 digits, a
// dash and 8 hex digits. Its digits are a time, not a card number: it is kept
// whole so that a sentence can name the order.
//
// An IMEI named as one ("IMEI 490154203237518") is kept too: the cashier typed
// it from the phone's box, and it is journaled as the unit sold. One that could
// be an American Express number (34 or 37 first) is hidden all the same.
var idPattern = regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9]{0,7}20\d{12}-[0-9a-f]{8}\b|\bIMEI (?:[0-24-9]\d|3[0-35689])\d{13}\b`)

// hideLongNumbers replaces every run of 12 or more digits, even one broken by
// spaces or dashes as card numbers are written, with "[number hidden]". The ids
// Galla makes (idPattern) are kept.
func hideLongNumbers(s string) string {
	ids := idPattern.FindAllStringIndex(s, -1)
	if len(ids) == 0 {
		return hideDigitRuns(s)
	}
	var b strings.Builder
	last := 0
	for _, m := range ids {
		b.WriteString(hideDigitRuns(s[last:m[0]]))
		b.WriteString(s[m[0]:m[1]])
		last = m[1]
	}
	b.WriteString(hideDigitRuns(s[last:]))
	return b.String()
}

// hideDigitRuns is hideLongNumbers without the ids.
func hideDigitRuns(s string) string {
	var b strings.Builder
	i := 0
	for i < len(s) {
		c := s[i]
		if c < '0' || c > '9' {
			b.WriteByte(c)
			i++
			continue
		}
		j, digits, end := i, 0, i
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ' ' || s[j] == '-') {
			if s[j] >= '0' && s[j] <= '9' {
				digits++
				end = j + 1
			}
			j++
		}
		if digits >= 12 {
			b.WriteString("[number hidden]")
		} else {
			b.WriteString(s[i:end])
		}
		i = end
	}
	return b.String()
}
