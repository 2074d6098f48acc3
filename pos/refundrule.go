package pos

import "slices"

// Where the money of a refund goes, and whether it moves the drawer's cash: one
// rule, read by every part that needs it. The refund itself (Engine.Refunds.Refund,
// settleRefund), the journal's check of a refund.intent (Order.checkReturn), the
// counter's returns of its own and of another counter's invoices (Returns.Return,
// returnAtStore), the open-shift requirement (Returns.RefundOrder, returnAtStore),
// the shift's expected cash (shiftReport), the X and Z reports (BuildReport), and
// the store server's projections and day report (store) all call the functions
// below; none of them says it again.

// RefundDestination is where the money of a refund of o goes: to, or, when the
// refund names none, back the way the sale was paid. That default is the rule of
// every refund journaled before refunds named their destination, and of a void's
// refund of one tender: a sale paid by a credit note goes back onto a note, one
// taken at the counter (cash, and UPI to the shop's own VPA, which the cashier
// pays back from the drawer) in cash, any other to its card through the payment
// service. A split sale's refund always names its destination (checkReturn).
func RefundDestination(o *Order, to RefundTo) RefundTo {
	switch {
	case to != "":
		return to
	case o.Tender == TenderNote:
		return RefundToNote
	case o.Tender.local():
		return RefundToCash
	}
	return RefundToCard
}

// MovesCash reports whether a refund to to is paid out of the drawer: only then
// does it lower the drawer's expected cash and need an open shift where the
// counter keeps shifts.
func (to RefundTo) MovesCash() bool { return to == RefundToCash }

// ReturnDestinations are where the money of a return of o may go, the default
// first: back the way it was paid (RefundDestination), or as a credit note. A
// brand-EMI sale whose IMEIs the service blocked goes back to its card only: the
// service frees the IMEIs when the sale is refunded in full (contract section
// 5), which a credit note never does. A split sale's money may go to any of
// them, each up to what its tenders paid (splitDestinations).
func ReturnDestinations(o *Order) []RefundTo {
	switch {
	case paidApart(o):
		return []RefundTo{RefundToCard, RefundToCash, RefundToNote}
	case brandIMEIs(o):
		return []RefundTo{RefundToCard}
	}
	if to := RefundDestination(o, ""); to != RefundToNote {
		return []RefundTo{to, RefundToNote}
	}
	return []RefundTo{RefundToNote}
}

// known reports whether to is one of the destinations.
func (to RefundTo) known() bool {
	return to == RefundToCard || to == RefundToCash || to == RefundToNote
}

// CheckRefundTo refuses a destination to that a refund of o cannot have
// (ReturnDestinations), saying where its money can go; "" is the default and
// always allowed.
func CheckRefundTo(o *Order, to RefundTo) error {
	switch {
	case to == "" || slices.Contains(ReturnDestinations(o), to):
		return nil
	case !to.known():
		return Errorf("Say where the money goes back: card, cash or note (not %q).", to)
	}
	switch {
	case brandIMEIs(o):
		return wrapf(ErrNotRefundable, "Sale %s is a brand EMI whose IMEIs the payment service holds: its money goes back to the card, and refunding it in full frees the IMEIs.", o.ID)
	case to == RefundToCard:
		return wrapf(ErrNotRefundable, "Sale %s was paid by %s: there is no card to refund; give %s.", o.ID, o.Tender, orList(ReturnDestinations(o)))
	}
	return wrapf(ErrNotRefundable, "Sale %s was paid by %s: its money goes back %s, not in %s.", o.ID, o.Tender, orList(ReturnDestinations(o)), to)
}

// foreignDestinations are where the money of a return of another counter's sale
// o may go at this counter: ReturnDestinations less the card, which only the
// counter that took it can refund through the service, and less the cash of a
// split sale, whose tenders' cash that counter alone knows, unless every tender
// that paid it was taken at the counter (paidAtCounter).
func foreignDestinations(o *Order) []RefundTo {
	return slices.DeleteFunc(ReturnDestinations(o), func(to RefundTo) bool {
		return to == RefundToCard || (paidApart(o) && to.MovesCash() && !paidAtCounter(o))
	})
}

// orList names destinations as a sentence says them: "to the card or as a
// credit note".
func orList(list []RefundTo) string {
	s := ""
	for i, to := range list {
		if i > 0 {
			s += " or "
		}
		switch to {
		case RefundToCard:
			s += "to the card"
		case RefundToCash:
			s += "in cash"
		case RefundToNote:
			s += "as a credit note"
		}
	}
	return s
}
