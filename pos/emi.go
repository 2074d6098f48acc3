package pos

import (
	"encoding/json"
	"fmt"
	"strings"

	"galla/gateway"
)

// The EMI programs and subventions of an EMIPlan, in words.
const (
	ProgramBank  = "bank"
	ProgramBrand = "brand"

	SubventionNoCost   = "no-cost"
	SubventionLowCost  = "low-cost"
	SubventionStandard = "standard"
)

// Errors of the EMI flow, each with a sentence for the cashier.
var (
	// ErrOfferNotForCard is 14826: the card's bank does not give the chosen offer.
	ErrOfferNotForCard = sentenceError{"offer not applicable on card",
		"This EMI offer is not available on this card: the card's bank does not give it. Choose an offer of the card's bank, or use another card."}
	// ErrOfferOutdated is 14819: the offer changed since the calculator showed it.
	ErrOfferOutdated = sentenceError{"offer outdated",
		"This EMI offer has changed since it was shown; look up the offers again and choose one."}
	// ErrNoEMIOffer reports a cart with no EMI offer (under ₹3,000, or no issuer).
	ErrNoEMIOffer = sentenceError{"no EMI offer",
		"There is no EMI offer for this cart (EMI starts at ₹3,000); take another payment method."}
)

// sentenceError is a sentinel that carries its own sentence (see Sentencer).
type sentenceError struct{ msg, sentence string }

func (e sentenceError) Error() string    { return e.msg }
func (e sentenceError) Sentence() string { return e.sentence }

// OfferSet is the EMI calculator's answer as the counter shows it: offers grouped
// by issuer, each issuer's plans by tenure.
type OfferSet struct {
	Amount     Paise
	AcquirerID int64
	Issuers    []IssuerOffers
}

// IssuerOffers are the plans of one issuer, shortest tenure first (bank offers
// before brand offers of the same tenure).
type IssuerOffers struct {
	Issuer string
	Debit  bool
	Plans  []EMIPlan
}

// Find returns the plan of issuer (any case) with months and, when program is not
// empty, that program; ok is false when there is none. A brand offer is preferred
// to a bank offer of the same tenure when program is empty.
func (s *OfferSet) Find(issuer string, months int, program string) (EMIPlan, bool) {
	var found *EMIPlan
	for i := range s.Issuers {
		if !strings.EqualFold(s.Issuers[i].Issuer, issuer) {
			continue
		}
		for j := range s.Issuers[i].Plans {
			p := &s.Issuers[i].Plans[j]
			if p.TenureMonths != months || (program != "" && p.Program != program) {
				continue
			}
			if found == nil || p.Program == ProgramBrand {
				found = p
			}
		}
	}
	if found == nil {
		return EMIPlan{}, false
	}
	return *found, true
}

// planOf turns one calculator tenure into an EMIPlan.
func planOf(is gateway.EMIIssuer, t gateway.EMITenure, lines []Line, acquirer int64) (EMIPlan, error) {
	raw, err := json.Marshal(t)
	if err != nil {
		return EMIPlan{}, fmt.Errorf("pos: EMI plan: %w", err)
	}
	months := t.Months()
	p := EMIPlan{
		Issuer: is.IssuerName, Debit: is.IsDebitEMIIssuer, Program: ProgramBank, Subvention: SubventionStandard,
		TenureMonths: months, TenureID: t.TenureID, RateBP: t.BankInterestRate,
		Interest: Paise(t.InterestPayToBank), Benefit: Paise(t.TotalOfferredDiscountCashbackAmount),
		Loan: Paise(t.LoanAmount), AuthAmount: Paise(t.AuthAmount),
		AcquirerID: acquirer, Tenure: raw,
	}
	if t.ProgramType() == gateway.ProgramBrandEMI {
		p.Program = ProgramBrand
	}
	codes := map[string]bool{}
	for _, pd := range t.OfferScheme.ProductDetails {
		codes[pd.ProductCode] = true
		switch pd.SubventionType {
		case gateway.SubventionNoCost:
			p.Subvention = SubventionNoCost
		case gateway.SubventionLowCost:
			if p.Subvention != SubventionNoCost {
				p.Subvention = SubventionLowCost
			}
		}
	}
	if p.Program == ProgramBrand {
		for _, l := range lines {
			if codes[l.ProductCode] {
				if p.Brand == "" {
					p.Brand = l.Brand
				}
				// Brands that subsidise EMI on serialised goods (phones) make the
				// IMEI mandatory; the service answers 14831 if we are wrong.
				if l.Serialised {
					p.IMEIRequired = true
				}
			}
		}
	}
	// What the customer pays (EMIFigures): on a no-cost plan the price over the
	// tenure, not the bank's instalment with interest that the brand pays off.
	f := p.Figures()
	p.Monthly, p.TotalPayable = f.Instalment, f.Total
	return p, nil
}

func unmarshalTenure(p *EMIPlan, t *gateway.EMITenure) error {
	if p == nil || len(p.Tenure) == 0 {
		return fmt.Errorf("pos: EMI plan: %w: no tenure", ErrBadEvent)
	}
	if err := json.Unmarshal(p.Tenure, t); err != nil {
		return fmt.Errorf("pos: EMI plan: %w", err)
	}
	return nil
}

// IMEIProblem is one IMEI the service or the check digit refused.
type IMEIProblem struct {
	SKU    string
	Name   string // the product's name, as the cashier knows it
	IMEI   string
	Reason string
}

// IMEIError lists the IMEIs refused; it matches ErrBadIMEI and gateway.ErrIMEIRejected.
type IMEIError struct {
	Problems []IMEIProblem
	cause    error
}

func (e *IMEIError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.SKU + ": " + p.Reason
	}
	return "pos: IMEI validation: " + strings.Join(parts, "; ")
}

// Unwrap returns the service's error, if any.
func (e *IMEIError) Unwrap() error { return e.cause }

// Is makes an IMEIError match ErrBadIMEI.
func (e *IMEIError) Is(target error) bool { return target == ErrBadIMEI }

// Sentence says which IMEI was refused and why.
func (e *IMEIError) Sentence() string {
	if len(e.Problems) == 0 {
		return "The payment service did not accept the IMEIs; scan them again."
	}
	p := e.Problems[0]
	if p.Name != "" {
		// The IMEI itself is marked beside its field: 15 digits in a sentence
		// look like a card number and are hidden.
		return fmt.Sprintf("The IMEI typed for the %s was not accepted: %s. Scan the IMEI of this phone from its box; the offer and the other IMEIs are kept.", p.Name, p.Reason)
	}
	return fmt.Sprintf("An IMEI of %s was not accepted (%s); scan the right IMEI and pay again.", p.SKU, p.Reason)
}

// checkIMEIs checks that every unit of the serialised lines the plan covers has a
// valid IMEI.
func checkIMEIs(lines []Line, plan *EMIPlan) error {
	var probs []IMEIProblem
	for _, l := range lines {
		if !l.Serialised {
			continue
		}
		if l.MissingIMEIs() > 0 {
			return fmt.Errorf("pos: %s: %w", l.SKU, ErrIMEIMissing)
		}
		for _, s := range l.IMEIs {
			if err := CheckIMEI(s); err != nil {
				probs = append(probs, IMEIProblem{SKU: l.SKU, Name: l.Name, IMEI: s, Reason: strings.TrimPrefix(err.Error(), ErrBadIMEI.Error()+": ")})
			}
		}
	}
	if len(probs) > 0 {
		return &IMEIError{Problems: probs}
	}
	return nil
}

func imeiReason(s gateway.IMEIStatus) string {
	switch s.ResponseCode {
	case gateway.CodeInvalidIMEI:
		return "it is not a valid IMEI"
	case gateway.CodeIMEINotBrand:
		return "it is not a phone of this brand"
	case gateway.CodeIMEIBlocked:
		return "it is already used in another sale"
	}
	if s.ResponseMessage != "" {
		return strings.ToLower(s.ResponseMessage)
	}
	return "refused"
}
