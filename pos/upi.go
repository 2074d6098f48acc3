package pos

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// SettingUPI is the settings key of the shop's UPI address (VPA), a JSON string.
const SettingUPI = "upi.vpa"

// vpaRE is a UPI virtual payment address: a handle and a bank's code
// (NPCI UPI linking specification: name@psp).
var vpaRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{1,255}@[A-Za-z][A-Za-z0-9.-]{1,63}$`)

// CheckVPA checks a UPI address as a manager typed it; empty turns UPI off.
func CheckVPA(vpa string) error {
	if vpa == "" || vpaRE.MatchString(vpa) {
		return nil
	}
	return sentenceErr("The UPI address is the shop's VPA, like shopname@okhdfcbank: letters, digits, dots or dashes, then @ and the bank's handle.")
}

// UPILink is the dynamic UPI QR's content (the NPCI UPI linking specification's
// upi://pay intent): pa the shop's VPA, pn its name, am the amount in rupees with
// two decimals, tr the sale's reference, tn a note, cu INR. Each value is
// percent-encoded (a space as %20, never "+", which UPI apps show as is), but
// for the @ of an address, which apps expect as typed.
func UPILink(vpa, name string, amount Paise, ref, note string) (string, error) {
	if vpa == "" {
		return "", ErrNoVPA
	}
	if err := CheckVPA(vpa); err != nil {
		return "", err
	}
	if amount <= 0 {
		return "", sentenceErr("Type an amount for the UPI payment.")
	}
	var b strings.Builder
	b.WriteString("upi://pay?")
	add := func(k, v string) {
		if v == "" {
			return
		}
		if !strings.HasSuffix(b.String(), "?") {
			b.WriteByte('&')
		}
		v = strings.ReplaceAll(url.QueryEscape(v), "+", "%20")
		b.WriteString(k + "=" + strings.ReplaceAll(v, "%40", "@"))
	}
	add("pa", vpa)
	add("pn", name)
	add("am", fmt.Sprintf("%d.%02d", amount/100, amount%100))
	add("tr", ref)
	add("tn", note)
	add("cu", "INR")
	return b.String(), nil
}

// ErrNoVPA refuses UPI before the shop's VPA is set.
var ErrNoVPA = sentenceErr("The shop's UPI address is not set; a manager can set it in Settings (F10), or take another payment method.")

// LoadVPA reads the shop's UPI address; "" when none is set.
func LoadVPA(ctx context.Context, j Journal) (string, error) {
	raw, err := j.Setting(ctx, SettingUPI)
	if err != nil || raw == nil {
		return "", err
	}
	var vpa string
	if err := json.Unmarshal(raw, &vpa); err != nil {
		return "", fmt.Errorf("pos: setting %q: %w", SettingUPI, err)
	}
	return vpa, nil
}

// UPIRequest is what the UPI screen shows: the QR's content and the reference
// the customer's app shows with the payment, for the cashier to match.
type UPIRequest struct {
	Link   string
	Ref    string
	Amount Paise
	VPA    string
}
