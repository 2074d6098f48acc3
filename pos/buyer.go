package pos

import (
	"errors"
	"slices"
	"strings"
	"unicode"
)

// Buyer is the customer a document is issued to, as the counter records it: a phone
// number to find them again, a name, an address and a state, and a GSTIN that makes
// the sale B2B. All optional, except that Rule 46(e) of the CGST Rules needs the
// name, address and state of an unregistered buyer whose taxable value is ₹50,000
// or more (BuyerNeeded).
type Buyer struct {
	Name    string `json:"name,omitempty"`
	Phone   string `json:"phone,omitempty"`   // ten digits
	Address string `json:"address,omitempty"` // one line, as printed
	State   string `json:"state,omitempty"`   // the GST state code ("27")
	GSTIN   string `json:"gstin,omitempty"`   // a registered buyer's; makes the sale B2B
	// ShipState is the GST state code the goods are delivered to, when the shop
	// delivers them rather than handing them over at the counter; "" for a counter
	// sale.
	ShipState string `json:"ship_state,omitempty"`
	// ShipAddress is the address the goods are delivered to, printed with
	// ShipState (CGST Rule 46(e) and (o)); "" for a counter sale.
	ShipAddress string `json:"ship_address,omitempty"`
}

// BuyerThreshold is the taxable value from which an unregistered buyer's name,
// address and state must be on the invoice (CGST Rule 46(e)): ₹50,000.00.
const BuyerThreshold = Paise(50_000_00)

// ErrBuyerNeeded is matched (errors.Is) by the refusal to pay a sale whose invoice
// needs the buyer's details that are missing.
var ErrBuyerNeeded = errors.New("the buyer's name, address and state are needed on this invoice")

// IsZero reports whether nothing is recorded about the buyer.
func (b Buyer) IsZero() bool { return b == Buyer{} }

// Registered reports whether the buyer gave a GSTIN: the sale is B2B.
func (b Buyer) Registered() bool { return b.GSTIN != "" }

// Normal returns b with spaces trimmed, the GSTIN in capitals, the phone as its
// digits, a state given by name turned into its code, and the state of a
// registered buyer taken from the GSTIN when not given.
func (b Buyer) Normal() Buyer {
	b.Name = strings.Join(strings.Fields(b.Name), " ")
	b.Address = strings.Join(strings.Fields(b.Address), " ")
	b.ShipAddress = strings.Join(strings.Fields(b.ShipAddress), " ")
	b.GSTIN = NormalGSTIN(b.GSTIN)
	b.Phone = strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return r
		}
		return -1
	}, b.Phone)
	if len(b.Phone) == 12 && strings.HasPrefix(b.Phone, "91") {
		b.Phone = b.Phone[2:]
	}
	b.State = StateCode(b.State)
	b.ShipState = StateCode(b.ShipState)
	if b.State == "" && len(b.GSTIN) == 15 {
		b.State = b.GSTIN[:2]
	}
	return b
}

// StateCode returns the GST state code of s, given as its code ("27", "7" for
// "07") or its name ("Maharashtra", without regard to case); s itself, trimmed,
// when it is neither (Buyer.Check then says so).
func StateCode(s string) string {
	s = strings.TrimSpace(s)
	if len(s) == 1 && s[0] >= '1' && s[0] <= '9' {
		s = "0" + s
	}
	if _, ok := States[s]; ok || s == "" {
		return s
	}
	for code, name := range States {
		if strings.EqualFold(name, s) {
			return code
		}
	}
	return s
}

// Check checks what is recorded about the buyer (already Normal): a GSTIN that
// validates and, with a state given, belongs to it; known state codes; a phone
// number of ten digits. Each refusal is a sentence.
func (b Buyer) Check() error {
	if b.GSTIN != "" {
		if err := CheckGSTIN(b.GSTIN); err != nil {
			var ge *GSTINError
			if errors.As(err, &ge) {
				return sentenceWrap{sentence: "The buyer's GSTIN is not valid: " + ge.Sentence() + " Without a GSTIN the sale is to an unregistered buyer.", err: err}
			}
			return err
		}
		if b.State != "" && b.State != b.GSTIN[:2] {
			return Errorf("The buyer's GSTIN %s is registered in %s (%s), but the buyer's state is %s (%s); a registered buyer's state is the GSTIN's.",
				b.GSTIN, States[b.GSTIN[:2]], b.GSTIN[:2], stateName(b.State), b.State)
		}
	}
	if b.State != "" {
		if err := CheckStateCode(b.State); err != nil {
			return err
		}
	}
	if b.ShipState != "" {
		if err := CheckStateCode(b.ShipState); err != nil {
			return err
		}
	}
	if b.Phone != "" && (len(b.Phone) != 10 || b.Phone[0] < '6') {
		return Errorf("The customer's phone number %s is not a mobile number: give its ten digits, starting with 6, 7, 8 or 9.", printable(b.Phone))
	}
	return nil
}

func stateName(code string) string {
	if n, ok := States[code]; ok {
		return n
	}
	return code
}

// BuyerNeeded reports whether an invoice of this taxable value to this buyer must
// carry the buyer's name, address and state: a registered buyer's always does
// (CGST Rule 46(d): name, address and GSTIN; the state is the GSTIN's), an
// unregistered buyer's when the taxable value is ₹50,000.00 or more (Rule 46(e)).
func BuyerNeeded(taxable Paise, b Buyer) bool {
	return b.Registered() || taxable >= BuyerThreshold
}

// CheckBuyer is the check made before a sale is paid: what is recorded about the
// buyer is valid (Check), and a TAX INVOICE (title, Shop.TitleFor) that needs the
// buyer's name, address and state (BuyerNeeded) has them. A RECEIPT (a shop
// without a GSTIN) and a BILL OF SUPPLY are not bound by Rule 46. b is normalised
// first.
func CheckBuyer(title string, taxable Paise, b Buyer) error {
	b = b.Normal()
	if err := b.Check(); err != nil {
		return err
	}
	if title != "TAX INVOICE" || !BuyerNeeded(taxable, b) {
		return nil
	}
	var missing []string
	if b.Name == "" {
		missing = append(missing, "name")
	}
	if b.Address == "" {
		missing = append(missing, "address")
	}
	if b.State == "" {
		missing = append(missing, "state")
	}
	if len(missing) == 0 {
		return nil
	}
	what := missing[0]
	if n := len(missing); n > 1 {
		what = strings.Join(missing[:n-1], ", ") + " and " + missing[n-1]
	}
	why := "The taxable value is " + taxable.String() + ", ₹50,000.00 or more: the invoice must name the buyer (CGST Rule 46(e))."
	if b.Registered() {
		why = "A sale to a registered buyer (GSTIN " + b.GSTIN + ") names the buyer on the invoice (CGST Rule 46(d))."
	}
	return sentenceWrap{
		sentence: why + " Record the buyer's " + what + ", then take the payment; nothing has been charged.",
		err:      ErrBuyerNeeded,
	}
}

// StateChoice is a state as a list offers it: "Karnataka (29)".
type StateChoice struct {
	Code, Label string
}

// StateChoices lists the GST states and union territories by name, for a choice
// of the buyer's state.
func StateChoices() []StateChoice {
	out := make([]StateChoice, 0, len(States))
	for code := range States {
		out = append(out, StateChoice{Code: code, Label: stateLabel(code)})
	}
	slices.SortFunc(out, func(a, b StateChoice) int { return strings.Compare(a.Label, b.Label) })
	return out
}
