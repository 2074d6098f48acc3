package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLuhn(t *testing.T) {
	tests := []struct {
		digits string
		want   bool
	}{
		{"4111111111111111", true},
		{"5555555555554444", true},
		{"378282246310005", true},
		{"4000000000000002", true},
		{"4386280000000004", true},
		{"5522600000000005", true},
		{"5126520000000005", true},
		{"490154203237518", true}, // an IMEI
		{"4111111111111112", false},
		{"490154203237519", false},
		{"0", true},
		{"", false},
		{"4111 1111 1111 1111", false},
		{"41111111111111a1", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Luhn(tt.digits), "Luhn(%q)", tt.digits)
	}
}

func TestCardBrand(t *testing.T) {
	tests := []struct {
		number string
		want   string
	}{
		{"4111111111111111", BrandVisa},
		{"4386280000000004", BrandVisa},
		{"5555555555554444", BrandMastercard},
		{"5105105105105100", BrandMastercard},
		{"2221000000000009", BrandMastercard},
		{"2720990000000000", BrandMastercard},
		{"2721000000000000", BrandUnknown},
		{"378282246310005", BrandAmex},
		{"341111111111111", BrandAmex},
		{"6522000000000000", BrandRuPay},
		{"6521000000000000", BrandRuPay},
		{"6070000000000000", BrandRuPay},
		{"8100000000000000", BrandRuPay},
		{"8200000000000000", BrandRuPay},
		{"5080000000000000", BrandRuPay},
		{"36000000000000", BrandDiners},
		{"38000000000000", BrandDiners},
		{"30000000000000", BrandDiners},
		{"30500000000000", BrandDiners},
		{"30600000000000", BrandUnknown},
		{"6011111111111117", BrandDiscover},
		{"6500000000000002", BrandDiscover},
		{"9999999999999999", BrandUnknown},
		{"4", BrandUnknown},
		{"", BrandUnknown},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, NewCard(tt.number, "", "", "", "").Brand(), "Brand(%s)", tt.number)
	}
	var nilCard *Card
	assert.Equal(t, BrandUnknown, nilCard.Brand())
}

func TestNewCardNormalises(t *testing.T) {
	c := NewCard(" 4111-1111 1111\t1111 ", "7", "30", " 123 ", "  Asha Rao ")
	assert.Equal(t, "1111", c.Last4())
	assert.Equal(t, "07", c.ExpiryMonth)
	assert.Equal(t, "2030", c.ExpiryYear)
	assert.Equal(t, "Asha Rao", c.Holder)
	assert.NoError(t, c.Check(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)))
}

func TestCardCheck(t *testing.T) {
	now := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		card    *Card
		wantErr string
	}{
		{"visa", NewCard("4111111111111111", "12", "2030", "123", "Asha"), ""},
		{"amex", NewCard("378282246310005", "12", "2030", "1234", "Asha"), ""},
		{"expires this month", NewCard("4111111111111111", "11", "2026", "123", "Asha"), ""},
		{"expired last month", NewCard("4111111111111111", "10", "2026", "123", "Asha"), "expired"},
		{"expired last year", NewCard("4111111111111111", "12", "2025", "123", "Asha"), "expired"},
		{"bad month", NewCard("4111111111111111", "13", "2030", "123", "Asha"), "month"},
		{"zero month", NewCard("4111111111111111", "00", "2030", "123", "Asha"), "month"},
		{"bad year", NewCard("4111111111111111", "12", "20301", "123", "Asha"), "year"},
		{"luhn", NewCard("4111111111111112", "12", "2030", "123", "Asha"), "check digit"},
		{"too short", NewCard("41111111111", "12", "2030", "123", "Asha"), "12 to 19"},
		{"too long", NewCard("41111111111111111111", "12", "2030", "123", "Asha"), "12 to 19"},
		{"letters", NewCard("4111a11111111111", "12", "2030", "123", "Asha"), "digits only"},
		{"cvv short", NewCard("4111111111111111", "12", "2030", "12", "Asha"), "3 digits"},
		{"amex cvv 3", NewCard("378282246310005", "12", "2030", "123", "Asha"), "4 digits"},
		{"cvv letters", NewCard("4111111111111111", "12", "2030", "12a", "Asha"), "3 digits"},
		{"no holder", NewCard("4111111111111111", "12", "2030", "123", ""), "name"},
		{"long holder", NewCard("4111111111111111", "12", "2030", "123", strings.Repeat("a", 51)), "name"},
		{"nil", nil, "no card"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.card.Check(now)
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalidCard)
			assert.Contains(t, err.Error(), tt.wantErr)
			if tt.card != nil && len(tt.card.number) > 4 {
				assert.NotContains(t, err.Error(), string(tt.card.number[:len(tt.card.number)-4]),
					"no digit beyond the last four in %q", err.Error())
			}
			assert.NotContains(t, err.Error(), "123\"")
		})
	}
}

// TestCardNeverPrintsDigits formats a card every way a program might and checks
// that neither its number nor its CVV appears.
//
// The check must not be able to fail by chance (issue 11.16: a CVV of "987" once
// matched the milliseconds of a log line's timestamp). So:
//
//   - every output checked is free of a clock: the slog handlers drop the time
//     attribute, and nothing else here prints the time, so each output is a pure
//     function of the card and the check gives the same answer on every run;
//   - two cards with the same brand and last four digits but different hidden
//     digits and CVV must print identically every way: whatever their digits, no
//     output can then depend on them, which does not rest on which digits were
//     chosen;
//   - the searched strings are the full numbers and their twelve hidden digits,
//     runs longer than any clock field prints (RFC 3339 fractions have at most
//     nine digits), and the CVVs, whose absence is meaningful only because the
//     output holds no clock.
func TestCardNeverPrintsDigits(t *testing.T) {
	cards := []struct{ number, cvv string }{
		{"4539148803436467", "862"},
		{"4862037529146467", "305"},
	}
	type wrapper struct {
		Card  *Card
		Value Card
		Any   any
	}
	verbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T %v", "%20v", "%-v"}
	handlers := map[string]func(*bytes.Buffer) slog.Handler{
		"text": func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, noClock()) },
		"json": func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, noClock()) },
	}
	// outputs returns every printing of card by name.
	outputs := func(card *Card) map[string]string {
		out := map[string]string{}
		values := map[string]any{"pointer": card, "value": *card, "in a struct": wrapper{card, *card, card}, "in a slice": []*Card{card}}
		for name, v := range values {
			for _, verb := range verbs {
				out[name+" with "+verb] = fmt.Sprintf(verb, v)
			}
			j, err := json.Marshal(v)
			require.NoError(t, err)
			out["json of "+name] = string(j)
		}
		for name, h := range handlers {
			var buf bytes.Buffer
			slog.New(h(&buf)).Info("pay", "card", card, "value", *card, slog.Any("any", card), "group", wrapper{Card: card})
			out["slog "+name] = buf.String()
		}
		return out
	}

	first := outputs(NewCard(cards[0].number, "07", "2030", cards[0].cvv, "Asha"))
	second := outputs(NewCard(cards[1].number, "07", "2030", cards[1].cvv, "Asha"))
	assert.Equal(t, first, second, "cards that differ only in hidden digits and CVV print alike")
	for name, out := range first {
		for _, c := range cards {
			assert.NotContains(t, out, c.number, "%s: %s", name, out)
			assert.NotContains(t, out, c.number[:12], "%s: %s", name, out)
			assert.NotContains(t, out, fmt.Sprintf("%x", c.number), "%s: %s", name, out)
			assert.NotContains(t, out, c.cvv, "%s: %s", name, out)
		}
	}
	for _, name := range []string{"slog text", "slog json"} {
		assert.Contains(t, first[name], "VISA •••• 6467", "%s logs the last four", name)
		assert.NotContains(t, first[name], "time", "%s has no clock", name)
	}

	card := NewCard("4111111111111111", "07", "2030", "123", "Asha")
	assert.Equal(t, "VISA •••• 1111", card.String())
	assert.Equal(t, "VISA •••• 1111", fmt.Sprint(card))
	assert.Equal(t, "gateway.Card{VISA •••• 1111}", fmt.Sprintf("%#v", card))
	j, err := json.Marshal(card)
	require.NoError(t, err)
	assert.Equal(t, `"VISA •••• 1111"`, string(j))
}

// noClock makes slog handlers leave out the time, so that their output depends
// only on what is logged.
func noClock() *slog.HandlerOptions {
	return &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
}

func TestCardZero(t *testing.T) {
	card := NewCard("4111111111111111", "07", "2030", "123", "Asha")
	num, cv := card.number, card.cvv
	card.Zero()
	assert.Equal(t, make([]byte, len(num)), num, "the number's buffer is wiped")
	assert.Equal(t, make([]byte, len(cv)), cv, "the CVV's buffer is wiped")
	assert.Empty(t, card.Last4())
	assert.Equal(t, "UNKNOWN ••••", card.String())
	assert.ErrorIs(t, card.Check(time.Now()), ErrInvalidCard)
	var nilCard *Card
	nilCard.Zero() // no panic
}

func ExampleCard() {
	card := NewCard("4111 1111 1111 1111", "12", "2030", "123", "Asha Rao")
	defer card.Zero()
	fmt.Println(card)
	fmt.Printf("%#v\n", card)
	j, _ := json.Marshal(card)
	fmt.Println(string(j))
	fmt.Println(card.Check(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)))
	// Output:
	// VISA •••• 1111
	// gateway.Card{VISA •••• 1111}
	// "VISA •••• 1111"
	// <nil>
}
