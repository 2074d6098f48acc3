package pos

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"

	"galla/gateway"
)

// Sale is what the counter hands the engine to take a payment: the cart's lines
// (IMEIs included) and who sells to whom.
type Sale struct {
	Lines       []Line
	Staff       string    // the cashier's staff ID or name
	Customer    *Customer // nil: Config.Customer
	Buyer       *Buyer    // the buyer named on the invoice; nil: none
	Description string    // order_desc; empty: the first line's name
	// OverrideIMEIs approves the sale's phones when the store server cannot
	// be asked to reserve them (ErrStoreOffline); nil refuses the sale then.
	OverrideIMEIs IMEIApprover
}

// ResultStatus is how a checkout ended.
type ResultStatus string

// The results of a checkout.
const (
	ResultPaid       ResultStatus = "PAID"       // verified paid
	ResultFailed     ResultStatus = "FAILED"     // a verified failure; Result.CanRetry tells whether the same order takes another attempt
	ResultUnverified ResultStatus = "UNVERIFIED" // the last answer could not be verified: outcome unknown, left to the reconciler
	ResultUnknown    ResultStatus = "UNKNOWN"    // no final answer: left to the reconciler, never charged again
)

// Result is the end of one checkout or one payment attempt.
type Result struct {
	Status   ResultStatus
	Order    *Order // the order as journaled
	Reason   string // FAILED, UNVERIFIED, UNKNOWN: why, in plain words
	CanRetry bool   // FAILED: a new attempt on the same order is allowed
	// NoteLeft is, for a credit-note tender, what is left on its note once
	// redeemed (the store's word when enrolled); -1 when the ledger cannot say.
	NoteLeft Paise
}

// Step names a stage of a checkout for the screen.
type Step string

// The steps a checkout reports.
const (
	StepJournaled      Step = "journaled"       // the sale is journaled with its order id
	StepCreated        Step = "created"         // the service created the order
	StepAbandoned      Step = "abandoned"       // create order's answer was lost; the sale moves to a fresh order id
	StepIMEIValidated  Step = "imei-validated"  // the service validated the IMEIs
	StepPaying         Step = "paying"          // the payment is being sent
	StepAuthenticating Step = "authenticating"  // the customer authenticates (3-D Secure)
	StepVerifying      Step = "verifying"       // polling the verified status
	StepUnverified     Step = "unverified"      // an answer could not be verified; still polling
	StepPaid           Step = "paid"            //
	StepFailed         Step = "failed"          //
	StepUnknown        Step = "unknown"         //
	StepWaiting        Step = "waiting-payment" // the customer pays on the phone
)

// Progress is one report to the screen during a checkout.
type Progress struct {
	Step    Step
	OrderID string
	Attempt int
	State   OrderState
	Message string
	// Challenge is set with StepAuthenticating: what the authentication needs.
	Challenge *Challenge
}

// Challenge is the authentication step of a payment: Content is the HTML page with
// the auto-submitting form the service sent (contract section 4). It holds no card
// data.
type Challenge struct {
	OrderID   string
	PaymentID string
	Content   string
}

// Authenticator takes the customer through the issuer's authentication step. With
// the live service it opens Content in the system browser; with the embedded
// sandbox the terminal may submit the one-time password itself (see SandboxOTP).
// It returns once the step is done or handed over; the outcome is known only from
// the verified status inquiry that follows.
type Authenticator interface {
	Authenticate(ctx context.Context, ch Challenge) error
}

// AuthenticatorFunc adapts a function to Authenticator.
type AuthenticatorFunc func(ctx context.Context, ch Challenge) error

// Authenticate calls f.
func (f AuthenticatorFunc) Authenticate(ctx context.Context, ch Challenge) error { return f(ctx, ch) }

// SandboxOTP returns an Authenticator that completes the sandbox's authentication
// step headless by posting the form of the challenge with the one-time password
// (contract section 4: 123456 approves).
func SandboxOTP(gw Gateway, otp string) Authenticator {
	return AuthenticatorFunc(func(ctx context.Context, ch Challenge) error {
		return gw.SubmitAuthentication(ctx, ch.Content, url.Values{"otp": {otp}})
	})
}

// PayOptions are the options of one payment.
type PayOptions struct {
	// Auth takes the customer through authentication; nil skips the step (the
	// customer completes it elsewhere, or the card needs none).
	Auth Authenticator
	// Progress receives the steps; nil ignores them. It is called on the
	// checkout's goroutine and must not block.
	Progress func(Progress)
	// Wait bounds the polling; 0 or more than Config.MaxWait means Config.MaxWait.
	Wait time.Duration
}

func (p PayOptions) report(pr Progress) {
	if p.Progress != nil {
		p.Progress(pr)
	}
}

// part names, for open, the split-tender sale a tender's order pays part of: its
// id, the id the tender.added event gave the order, and the amount. The zero
// part opens a whole sale.
type part struct {
	Sale, ID string
	Amount   Paise
	IMEIs    []UnitIMEI // the serialised units' IMEIs, for a brand-EMI tender
	// lead are the sale's changes journaled in the same commit as the tender's
	// first intent: a sale opened with its tender (its intent and
	// tender.added), so that the sale, its tender and the tender's intent are
	// in the journal together or not at all.
	lead []change
}

// ErrServiceUnreachable reports a call that could not reach the payment service
// (no connection was made), so nothing happened there.
var ErrServiceUnreachable = sentenceError{"the payment service cannot be reached",
	"The payment service cannot be reached; check the network and try again, or take another payment method."}

// products groups lines by product code (the SKU when a line has none) with their
// amounts, in first-seen order; the amounts add up to the lines' total.
func products(lines []Line) []gateway.ProductAmount {
	var out []gateway.ProductAmount
	idx := map[string]int{}
	for _, l := range lines {
		code := l.ProductCode
		if code == "" {
			code = l.SKU
		}
		if i, ok := idx[code]; ok {
			out[i].Amount += int64(l.Amount())
			continue
		}
		idx[code] = len(out)
		out = append(out, gateway.ProductAmount{Code: code, Amount: int64(l.Amount())})
	}
	return out
}

func allIMEIs(lines []Line) []string {
	var out []string
	for _, l := range lines {
		for _, s := range l.IMEIs {
			if s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// inquiryPaymentID is the payment an inquiry about o asks for: its latest attempt's,
// or "" for the order with its latest payment. A phone order is always inquired as
// an order: the customer's attempts are made on the phone, unknown to the till
// until the service reports them.
func inquiryPaymentID(o *Order) string {
	if a := o.LastAttempt(); a != nil && o.Tender != TenderPhone {
		return a.PaymentID
	}
	return ""
}

// PollScheduleText says in words how a payment's verified status is polled (the
// schedule of pollDelay and DefaultMaxWait), for the cashier.
const PollScheduleText = "Checked every second for 10 s, then after 2 s, 5 s, 10 s and 30 s, then each minute for up to 20 minutes; after that the order stays UNKNOWN for the manager."

// pollDelay returns the wait before the next inquiry: every second for the first
// 10 s, then 2 s, 5 s, 10 s and 30 s, then each minute (DESIGN.md section 3). k
// counts the inquiries made after the first 10 s.
func pollDelay(elapsed time.Duration, k int) time.Duration {
	if elapsed < 10*time.Second {
		return time.Second
	}
	steps := [...]time.Duration{2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second}
	if k < len(steps) {
		return steps[k]
	}
	return time.Minute
}

// inquiry is what one inquiry found.
type inquiry struct {
	decided       bool     // PAID or FAILED, or a verified answer that contradicts the journal
	unverified    bool     // the answer could not be verified
	paymentID     string   // the payment id the answer named
	attemptFailed *Attempt // a phone order: the attempt this answer newly recorded as failed, the order still open
	mismatch      string   // a verified answer that does not match the sale: why (recorded, not applied)
}

// MaxRecordedBody bounds the answer body kept in the journal with an ignored
// answer (DESIGN.md section 4: events stay compact).
const MaxRecordedBody = 1024

// boundedBody is at most MaxRecordedBody bytes of an answer's body, marked when
// cut. Inquiry answers carry masked card numbers only.
func boundedBody(raw []byte) string {
	if len(raw) <= MaxRecordedBody {
		return string(raw)
	}
	return strings.ToValidUTF8(string(raw[:MaxRecordedBody]), "") + "…[cut]"
}

// sameAttempts reports whether two lists of attempts say the same: the same
// attempts with the same payment ids and statuses.
func sameAttempts(a, b []Attempt) bool {
	return slices.EqualFunc(a, b, func(x, y Attempt) bool {
		return x.N == y.N && x.PaymentID == y.PaymentID && x.Status == y.Status
	})
}

// newlyFailed returns the attempt of after that failed since before, or nil.
func newlyFailed(before, after []Attempt) *Attempt {
	for i := range after {
		if after[i].Status == AttemptFailed && (i >= len(before) || before[i].Status != AttemptFailed) {
			a := after[i]
			return &a
		}
	}
	return nil
}

const unverifiedReason = "the payment service's answer could not be verified"

// outcomeOf copies an inquiry answer into an event payload.
func outcomeOf(q *gateway.Inquiry) Outcome {
	p := q.PaymentInfoData
	return Outcome{
		MerchantOrderID: q.MerchantData.OrderID, ServiceOrderID: q.ServiceOrderID(), PaymentID: p.PaymentID,
		OrderStatus: q.OrderData.OrderStatus, PaymentStatus: p.PaymentStatus, Amount: Paise(q.OrderData.Amount),
		Captured: Paise(p.CapturedAmountInPaisa), Refunded: Paise(max(q.OrderData.RefundAmount, p.RefundAmountInPaisa)),
		ResponseCode: p.PaymentResponseCode, ResponseMessage: p.PaymentResponseMessage, PaymentMode: p.PaymentMode,
		Issuer: p.IssuerName, MaskedCard: p.MaskedCardNumber, AuthCode: p.AuthCode, RRN: p.RRN,
		CompletedAt: p.PaymentCompletionDateTime,
	}
}

// ErrNotCancellable reports a cancel of an order that a payment may still reach:
// one with a payment attempt, or one paid on the customer's phone (its token left
// the terminal).
var ErrNotCancellable = sentenceError{"order not cancellable",
	"This sale cannot be cancelled: a payment may already have been made; check its status first."}
