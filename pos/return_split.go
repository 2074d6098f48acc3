package pos

import (
	"fmt"
)

// Returns of a split-tender sale (docs/adr/0005-split-tender.md). The sale's
// order holds the lines and the invoice number, so a return of it is a refund of
// that order, with its items, and issues its credit note in the C series as for
// a sale of one tender. Its tenders' orders hold the money, and each gives back
// no more than it paid:
//
//   - to a credit note: the goods' value, whatever the tenders were;
//   - in cash: up to what the cash and UPI tenders paid and was not given back
//     in cash yet (a UPI tender to the shop's own account is paid back by the
//     cashier, like cash);
//   - to a card: through the payment service on one card, EMI or phone tender's
//     order (RefundEvent.Tender), up to what it paid and was not refunded yet.
//
// Whatever the destination, the refunds of the sale never exceed what its
// tenders paid.

// splitLeft is what is left to give back of a paid split sale, by where it can go.
type splitLeft struct {
	Total Paise        // the sale's paid amount less every refund of it
	Cash  Paise        // in cash: its cash and UPI tenders less the cash refunds
	Cards []tenderLeft // to a card: each card, EMI or phone tender
}

// tenderLeft is what is left to refund through one tender's order.
type tenderLeft struct {
	Order *Order
	Left  Paise
}

// left reads what is left to give back of a paid split sale through its
// tenders: what each paid less its own refunds (a tender refunded by itself)
// and the sale's refunds through it.
func (s *SaleStatus) left() splitLeft {
	o := s.Sale
	var out splitLeft
	var paid Paise
	for _, t := range s.Tenders {
		c := t.Order
		if c == nil || !c.State.Paid() {
			continue
		}
		own := c.Refundable()
		paid += own
		// Each tender gives back the way it was paid (RefundDestination): cash
		// and UPI from the drawer, a card through the service, a note onto a
		// note (any return can go there).
		switch RefundDestination(c, "") {
		case RefundToCash:
			out.Cash += own
		case RefundToCard:
			left := own
			for _, rf := range o.Refunds {
				if rf.Status != RefundFailed && rf.Tender == c.ID {
					left -= rf.Amount
				}
			}
			out.Cards = append(out.Cards, tenderLeft{Order: c, Left: max(left, 0)})
		}
	}
	for _, rf := range o.Refunds {
		if rf.Status == RefundFailed {
			continue
		}
		paid -= rf.Amount
		if RefundDestination(o, rf.To).MovesCash() {
			out.Cash -= rf.Amount
		}
	}
	out.Total = max(min(paid, o.Refundable()), 0)
	out.Cash = min(max(out.Cash, 0), out.Total)
	for i := range out.Cards {
		out.Cards[i].Left = min(out.Cards[i].Left, out.Total)
	}
	return out
}

// card is the card tender that can take amount back, the one with most left
// when none can, and the most any can take.
func (l splitLeft) card(amount Paise) (tenderLeft, bool, Paise) {
	var best tenderLeft
	for _, c := range l.Cards {
		if c.Left >= amount {
			return c, true, c.Left
		}
		if c.Left > best.Left {
			best = c
		}
	}
	return best, false, best.Left
}

// splitRoute decides where amount of split sale o goes back: to (or, when to
// is "", the card that can take it, else cash) and, for a card, the tender's
// order the service refunds. Beyond what the tenders can give back it says how
// much can go where.
func splitRoute(number string, left splitLeft, amount Paise, to RefundTo) (RefundTo, string, error) {
	card, fits, most := left.card(amount)
	if to == "" {
		switch {
		case fits && amount >= MinRefund:
			to = RefundToCard
		case amount <= left.Cash:
			to = RefundToCash
		default:
			to = RefundToCard // refused below, with what can go where
		}
	}
	switch to {
	case RefundToNote:
		return to, "", nil
	case RefundToCash:
		if amount <= left.Cash {
			return to, "", nil
		}
		rest := "or give a credit note"
		if most > 0 {
			rest = fmt.Sprintf("refund it to the card (up to %s) or give a credit note", most)
		}
		return "", "", wrapf(ErrNotRefundable, "Only %s of sale %s can go back in cash: that much was paid in cash and not given back yet. The return comes to %s: %s.",
			left.Cash, number, amount, rest)
	case RefundToCard:
		if len(left.Cards) == 0 {
			return "", "", wrapf(ErrNotRefundable, "Sale %s was paid with no card: give the money back in cash (up to %s) or as a credit note.", number, left.Cash)
		}
		if fits {
			return to, card.Order.ID, nil
		}
		rest := "give a credit note"
		if left.Cash > 0 {
			rest = fmt.Sprintf("give it in cash (up to %s) or as a credit note", left.Cash)
		}
		return "", "", wrapf(ErrNotRefundable, "Only %s of sale %s can go back to the card: that much was paid by card and not refunded yet. The return comes to %s: %s.",
			most, number, amount, rest)
	}
	return "", "", Errorf("Say where the money goes back: card, cash or note (not %q).", to)
}

// splitDestinations are where the money of split sale o can go back now.
func splitDestinations(left splitLeft) []RefundTo {
	var out []RefundTo
	for _, c := range left.Cards {
		if c.Left > 0 {
			out = append(out, RefundToCard)
			break
		}
	}
	if left.Cash > 0 {
		out = append(out, RefundToCash)
	}
	return append(out, RefundToNote)
}
