package sandbox

import "strings"

type outcomeKind int

const (
	outcomeApprove      outcomeKind = iota // approved after the OTP step
	outcomeFrictionless                    // captured at once, no OTP
	outcomeDecline                         // declined after the OTP step
	outcomePendingHold                     // PENDING for PendingHold after the OTP, then captured
)

type cardOutcome struct {
	kind    outcomeKind
	code    int
	message string
}

// testCard is one sandbox test card of contract section 4.
type testCard struct {
	number  string
	brand   string
	issuer  string
	outcome cardOutcome
	text    string
}

// testCards is the table of contract section 4.
func testCards() []testCard {
	return []testCard{
		{"4111111111111111", "VISA", "", cardOutcome{kind: outcomeApprove}, "approved after the OTP step"},
		{"5555555555554444", "MASTERCARD", "", cardOutcome{kind: outcomeFrictionless}, "approved without an OTP step (frictionless: CAPTURED at once)"},
		{"378282246310005", "AMEX", "", cardOutcome{kind: outcomeApprove}, "Amex, approved after the OTP step (CVV 1234)"},
		{"4000000000000002", "VISA", "", cardOutcome{outcomeDecline, 5, "Transaction declined by issuer"}, "declined by the issuer (payment FAILED)"},
		{"4000000000009995", "VISA", "", cardOutcome{outcomeDecline, 51, "Insufficient funds"}, "declined: insufficient funds"},
		{"4000000000000119", "VISA", "", cardOutcome{kind: outcomePendingHold}, "stays PENDING for 20 seconds after the OTP, then CAPTURED"},
		{"4000000000000069", "VISA", "", cardOutcome{outcomeDecline, 54, "Expired card"}, "expired card (declined)"},
		{"4386280000000004", "VISA", "HDFC", cardOutcome{kind: outcomeApprove}, "HDFC credit card, approved after the OTP; eligible for HDFC bank EMI"},
		{"5522600000000005", "MASTERCARD", "ICICI", cardOutcome{kind: outcomeApprove}, "ICICI credit card, approved after the OTP; eligible for ICICI bank EMI"},
		{"5126520000000005", "MASTERCARD", "AXIS", cardOutcome{kind: outcomeApprove}, "AXIS debit card, approved after the OTP; eligible for AXIS debit EMI"},
	}
}

// outcomeOf is what the sandbox does with a test card; ok is false for any other
// number, which the sandbox refuses like an invalid card (contract section 4: it
// takes its test cards only).
func outcomeOf(number string) (outcome cardOutcome, ok bool) {
	for _, c := range testCards() {
		if c.number == number {
			return c.outcome, true
		}
	}
	return cardOutcome{}, false
}

// issuerOf names the EMI issuer of a card number, or "" when it has none.
func issuerOf(number string) string {
	if len(number) < 6 {
		return ""
	}
	switch number[:6] {
	case "438628":
		return "HDFC"
	case "552260":
		return "ICICI"
	case "512652":
		return "AXIS"
	}
	return ""
}

// brandOf names a card's network from its leading digits.
func brandOf(n string) string {
	switch {
	case strings.HasPrefix(n, "34"), strings.HasPrefix(n, "37"):
		return "AMEX"
	case strings.HasPrefix(n, "4"):
		return "VISA"
	case len(n) >= 2 && n[0] == '5' && n[1] >= '1' && n[1] <= '5', strings.HasPrefix(n, "2"):
		return "MASTERCARD"
	case strings.HasPrefix(n, "60"), strings.HasPrefix(n, "65"), strings.HasPrefix(n, "81"), strings.HasPrefix(n, "82"):
		return "RUPAY"
	}
	return "UNKNOWN"
}
