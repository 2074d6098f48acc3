package ui

import (
	"strings"

	"galla/pos"
)

// phoneWaitStep is the second step of a pay-on-phone payment as the counter
// knows it: the counter sees neither the scan nor the customer's bank step,
// only that it waits for the phone until the payment service's answer.
const phoneWaitStep = "Customer scans the code and pays on the phone"

// phoneView words the payment screen for a pay-on-phone payment: the amount the
// customer pays in the title, and the wait for the phone instead of a customer
// authenticating that nobody may have begun. The payment screen calls it after
// each report it shows; it does nothing for another tender.
func (s *payScreen) phoneView() {
	if s.req.Tender != pos.TenderPhone {
		return
	}
	l := s.steps[1]
	l.SetText(strings.Replace(l.Text, stepNames[1], phoneWaitStep, 1))
	amount := s.req.Amount // a split sale's tender
	if amount == 0 && len(s.req.Lines) > 0 {
		if b, err := s.u.till.Catalog.Price(s.req.Lines); err == nil {
			amount = b.Total
		}
	}
	if amount > 0 && s.run != nil && !strings.Contains(s.title.Text, amount.String()) {
		s.title.SetText("Pay on phone " + amount.String() + ": waiting for the customer")
	}
}
