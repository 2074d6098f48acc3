package pos

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
)

type ownSentence struct{}

func (ownSentence) Error() string    { return "pos: own" }
func (ownSentence) Sentence() string { return "Print the receipt again from the journal." }

func TestSentence(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("pos: checkout: %w", err) }
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"offer not applicable", wrap(&gateway.Error{HTTPStatus: 400, Code: "14826", Message: "Offer is not applicable on card"}),
			"This EMI offer is not available on this card; choose another offer or another card."},
		{"offer outdated", wrap(&gateway.Error{HTTPStatus: 400, Code: "14819"}),
			"The EMI offers have changed since they were shown; reload the offers and choose again."},
		{"IMEI required", &gateway.Error{HTTPStatus: 400, Code: "14831"},
			"This brand's EMI needs the IMEI of each phone; scan the IMEIs and pay again."},
		{"token expired", &gateway.Error{HTTPStatus: 401, Code: "4011"}, "The payment session has expired; start the payment again."},
		{"unauthorized", &gateway.Error{HTTPStatus: 401, Code: "401"},
			"The payment service refused this terminal's merchant ID or access code; ask the manager to check the payment settings."},
		{"signature outranks all", wrap(errors.Join(gateway.ErrServer, fmt.Errorf("inquire: %w", gateway.ErrSignature))),
			"The payment service's answer could not be verified; do not hand over the goods — it will be checked again."},
		{"outcome unknown outranks a server fault", errors.Join(&gateway.Error{HTTPStatus: 502}, gateway.ErrOutcomeUnknown),
			"The payment service's answer was lost; do not take the payment again — the sale is saved and its status will be checked."},
		{"server", wrap(&gateway.Error{HTTPStatus: 503}),
			"The payment service has a fault; try again in a few minutes, or take another payment method."},
		{"rate limited, with a wait", wrap(&gateway.Error{HTTPStatus: 429, Code: "429", RetryAfter: 30 * time.Second}),
			"The payment service is busy; wait 30 seconds and try again."},
		{"rate limited", gateway.ErrRateLimited, "The payment service is busy; wait a minute and try again."},
		{"card", wrap(fmt.Errorf("%w: the card number ending 1112 is mistyped", gateway.ErrInvalidCard)),
			"The card cannot be used: the card number ending 1112 is mistyped; check it and type it again, or ask for another card."},
		{"card, no detail", wrap(gateway.ErrInvalidCard),
			"The card details are not valid: check the card number, expiry, CVV and name, and type them again."},
		{"cash short", wrap(&CashShortError{Total: 149950, Tendered: Rupees(1000)}),
			"The cash given is ₹499.50 short of the total ₹1,499.50; take more cash or choose another payment."},
		{"wrong PIN", &WrongPINError{AttemptsLeft: 3}, "Wrong PIN: 3 attempts left before this user is locked for 30 minutes."},
		{"wrong PIN, last", &WrongPINError{AttemptsLeft: 1}, "Wrong PIN: 1 attempt left before this user is locked for 30 minutes."},
		{"locked", &LockedError{Until: time.Date(2026, 11, 22, 14, 5, 0, 0, time.UTC)},
			"Too many wrong PINs: this user is locked until 14:05; wait, or ask a manager to unlock it (Staff, Unlock [F6], or \"galla staff unlock NAME\")."},
		{"import", &ImportError{Problems: []Problem{{Line: 4, SKU: "PH-1", Msg: "the price must be more than zero"}, {Line: 9, Msg: "x"}, {Line: 12, Msg: "y"}}},
			"The catalog was not imported: line 4 (SKU PH-1): the price must be more than zero (and 2 more problems); fix the file and import it again."},
		{"IMEI", fmt.Errorf("pos: set IMEI: %w", CheckIMEI("490154203237519")),
			"This IMEI is not valid (its last digit does not match); check the digits and type it again."},
		{"empty cart", wrap(ErrEmptyCart), "The cart is empty; scan or search a product first."},
		{"own sentence", wrap(ownSentence{}), "Print the receipt again from the journal."},
		{"import, whole file", &ImportError{Problems: []Problem{{Msg: "the file is empty"}}},
			"The catalog was not imported: the file is empty; fix the file and import it again."},
		{"deadline", wrap(context.DeadlineExceeded), "The payment service did not answer in time; check the network and try again."},
		{"unknown", errors.New("bolt: disk full"), GenericSentence},
		{"unknown with a card number", fmt.Errorf("charge 4111 1111 1111 1111: %w", errors.New("boom")), GenericSentence},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sentence(tt.err)
			assert.Equal(t, tt.want, got, "Sentence(%v)", tt.err)
		})
	}
}

// TestSentenceTable checks every entry of the table: reachable through wrapping
// (no earlier entry shadows it), and one plain sentence.
func TestSentenceTable(t *testing.T) {
	for _, s := range sentences() {
		got := Sentence(fmt.Errorf("pos: op: %w", s.err))
		assert.Equal(t, s.s, got, "Sentence(%v)", s.err)
		assertOneSentence(t, got)
	}
}

func assertOneSentence(t *testing.T, s string) {
	t.Helper()
	assert.NotEmpty(t, s)
	assert.True(t, unicode.IsUpper([]rune(s)[0]), "%q starts with a capital", s)
	assert.True(t, strings.HasSuffix(s, "."), "%q ends with a full stop", s)
	assert.NotContains(t, s, "\n")
	assert.NotContains(t, strings.ToLower(s), "pos:", "%q leaks an internal error", s)
	assert.NotContains(t, strings.ToLower(s), "gateway:", "%q leaks an internal error", s)
}

func TestSentenceHidesCardNumbers(t *testing.T) {
	ie := &ImportError{Problems: []Problem{{Line: 2, SKU: printable("4111111111111111"), Msg: "the name is missing"}}}
	got := Sentence(ie)
	assert.NotContains(t, got, "4111111111111111")
	assert.Contains(t, got, "[number hidden]")
	assert.NotContains(t, ie.Error(), "4111111111111111")

	tests := []struct{ in, want string }{
		{"card 4111 1111 1111 1111 declined", "card [number hidden] declined"},
		{"card 4111-1111-1111-1111.", "card [number hidden]."},
		{"locked until 14:05 on 2026-11-22", "locked until 14:05 on 2026-11-22"},
		{"₹1,23,456.78 short", "₹1,23,456.78 short"},
		{"barcode 8806095124018 ", "barcode [number hidden] "},
		{"12345678901", "12345678901"},
		// An order id names the order; a card number beside it is still hidden.
		{"Sale T120261124191426-567fcbba was paid by split", "Sale T120261124191426-567fcbba was paid by split"},
		{"order G20261122100000-3cf2ccb7, card 4111111111111111", "order G20261122100000-3cf2ccb7, card [number hidden]"},
		{"T4111111111111111-3cf2ccb7", "T[number hidden]cf2ccb7"},
		{"IMEI 490154203237518 is sold already", "IMEI 490154203237518 is sold already"},
		{"IMEI 378282246310005 is sold already", "IMEI [number hidden] is sold already"},
		{"IMEI 4901542032375189", "IMEI [number hidden]"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, hideLongNumbers(tt.in), "hideLongNumbers(%q)", tt.in)
	}
}

func TestSentenceNamesTheCardProblem(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		card *gateway.Card
		want string
	}{
		{gateway.NewCard("4111111111111111", "01", "2020", "123", "R Kumar"), "The card cannot be used: the card expired at the end of 01/2020; check it and type it again, or ask for another card."},
		{gateway.NewCard("4111111111111112", "12", "2030", "123", "R Kumar"), "The card cannot be used: the card number ending 1112 is mistyped (its check digit is wrong); check it and type it again, or ask for another card."},
	}
	for _, tt := range tests {
		err := tt.card.Check(at)
		require.Error(t, err)
		got := Sentence(err)
		assert.Equal(t, tt.want, got)
		assert.NotContains(t, got, "411111111111")
	}
}
