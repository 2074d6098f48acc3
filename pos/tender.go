package pos

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"galla/gateway"
)

// SaleTender is one tender of a split-tender sale (docs/adr/0005-split-tender.md):
// how much of the sale it pays and the order that holds its payment. Card, EMI
// and phone tenders are orders at the payment service with their own
// merchant_order_id; cash, UPI and credit-note tenders are journaled here only.
type SaleTender struct {
	OrderID string     `json:"order_id"` // the tender's own order (a moved order is followed through MovedTo)
	Kind    TenderKind `json:"kind"`
	Amount  Paise      `json:"amount"`
	NoteNo  string     `json:"note_no,omitempty"` // a credit-note tender: the note
}

// SaleEvent is the payload of the split-tender events.
type SaleEvent struct {
	Tender *SaleTender `json:"tender,omitempty"` // tender.added
	// Covered lists, in sale.completed, the tenders' orders that paid the sale.
	Covered []string `json:"covered,omitempty"`
	// Verified is, in sale.completed, whether every tender that paid it was
	// verified (by the service, or cash, or the credit-note ledger): false when a
	// UPI tender was confirmed by the cashier only.
	Verified bool `json:"verified,omitempty"`
	// NoteNo is, in tender.note_redeemed, the credit note redeemed.
	NoteNo string `json:"note_no,omitempty"`
}

// NoteRedeemer is the credit-note ledger as a split sale needs it: a credit note
// tendered is redeemed for an amount under a reference (the tender's order id),
// and given back when the tender is undone. Both are idempotent per reference: a
// second Redeem of the same reference is not a second redemption, and Restore of
// a reference never redeemed does nothing. Errors it returns are shown to the
// cashier as they are (Sentence), so a refusal should say what was wrong.
type NoteRedeemer interface {
	Redeem(ctx context.Context, noteNo string, amount Paise, ref string) error
	Restore(ctx context.Context, noteNo string, amount Paise, ref string) error
}

// valid reports whether k is a tender an order may be journaled with.
func (k TenderKind) valid() bool {
	switch k {
	case TenderCard, TenderEMI, TenderCash, TenderPhone, TenderUPI, TenderNote, TenderSplit:
		return true
	}
	return false
}

// local reports whether a tender of kind k is taken at the counter with no call
// to the payment service: cash, UPI to the shop's VPA, a credit note.
func (k TenderKind) local() bool {
	return k == TenderCash || k == TenderUPI || k == TenderNote
}

// applySale folds the split-tender events: tender.added, sale.completed and
// sale.voided on the sale; upi.confirmed and tender.note_redeemed on a tender's order.
func (o *Order) applySale(ev Event) error {
	se := ev.Sale
	switch ev.Kind {
	case EvTenderAdded:
		switch {
		case o.Tender != TenderSplit:
			return fmt.Errorf("%w: a tender added to a %s order", ErrBadEvent, o.Tender)
		case se == nil || se.Tender == nil || se.Tender.OrderID == "":
			return fmt.Errorf("%w: no tender", ErrBadEvent)
		case slices.ContainsFunc(o.Tenders, func(t SaleTender) bool { return t.OrderID == se.Tender.OrderID }):
			return ErrStaleEvent
		case o.State != StateOpen:
			return fmt.Errorf("%w: a tender added to a %s sale", ErrBadEvent, o.State)
		case !se.Tender.Kind.valid() || se.Tender.Kind == TenderSplit:
			return fmt.Errorf("%w: tender %q", ErrBadEvent, se.Tender.Kind)
		case se.Tender.Amount <= 0 || se.Tender.Amount > o.Amount:
			return fmt.Errorf("%w: tender amount %s of %s", ErrBadEvent, se.Tender.Amount, o.Amount)
		}
		o.Tenders = append(o.Tenders, *se.Tender)
		return nil
	case EvSaleCompleted:
		switch {
		case o.Tender != TenderSplit:
			return fmt.Errorf("%w: sale.completed on a %s order", ErrBadEvent, o.Tender)
		case o.State.Paid():
			return ErrStaleEvent
		case o.State != StateOpen:
			return fmt.Errorf("%w: a %s sale completed", ErrBadEvent, o.State)
		}
		o.PaidAt, o.PaidDay, o.ReceiptNo, o.Series, o.DocNo = ev.Time, ev.Day, ev.ReceiptNo, ev.Series, ev.DocNo
		o.Verified = se != nil && se.Verified
		return o.move(StatePaid)
	case EvSaleVoided:
		switch {
		case o.Tender != TenderSplit:
			return fmt.Errorf("%w: sale.voided on a %s order", ErrBadEvent, o.Tender)
		case o.State == StateVoided:
			return ErrStaleEvent
		case o.State != StateOpen:
			return fmt.Errorf("%w: a %s sale voided", ErrBadEvent, o.State)
		}
		o.Reason = ev.Reason
		return o.move(StateVoided)
	case EvUPIConfirmed, EvTenderNoteRedeemed:
		want := TenderUPI
		if ev.Kind == EvTenderNoteRedeemed {
			want = TenderNote
		}
		switch {
		case o.Tender != want:
			return fmt.Errorf("%w: %s on a %s order", ErrBadEvent, ev.Kind, o.Tender)
		case o.State.Paid():
			return ErrStaleEvent
		case o.State != StateIntent:
			return fmt.Errorf("%w: %s in state %s", ErrBadEvent, ev.Kind, o.State)
		case ev.Kind == EvTenderNoteRedeemed && (se == nil || se.NoteNo == ""):
			return fmt.Errorf("%w: no credit note", ErrBadEvent)
		}
		if ev.Kind == EvUPIConfirmed {
			// Confirmed by the cashier, not by the service: never Verified.
			o.ConfirmedBy = ev.Staff
		} else {
			o.NoteNo, o.Verified = se.NoteNo, true
		}
		o.Captured = o.Amount
		o.PaidAt, o.PaidDay = ev.Time, ev.Day
		o.ReceiptNo = ev.ReceiptNo
		return o.move(StatePaid)
	}
	return fmt.Errorf("%w: unknown kind", ErrBadEvent)
}

// partLines are the lines of a tender that pays amount of a sale of lines: the
// same products with the part not paid by it taken off the last lines first (as
// a discount), so their amounts add up to amount (the service checks that
// product amounts add up to the order amount) and the first lines — usually
// the phone that EMI or the card pays for — keep their price and IMEIs.
func partLines(lines []Line, amount Paise) []Line {
	out := make([]Line, 0, len(lines))
	for _, l := range lines {
		out = append(out, l.clone())
	}
	cut := ComputeTotals(out).Total - amount
	for i := len(out) - 1; i >= 0 && cut > 0; i-- {
		d := min(cut, out[i].Amount())
		out[i].Discount += d
		cut -= d
	}
	return slices.DeleteFunc(out, func(l Line) bool { return l.Amount() <= 0 })
}

// withIMEIs gives the serialised lines that have none the IMEIs of their product
// (by product code), one per unit, in the order given.
func withIMEIs(lines []Line, imeis []UnitIMEI) []Line {
	used := make([]bool, len(imeis))
	for i := range lines {
		l := &lines[i]
		if !l.Serialised || len(l.IMEIs) > 0 {
			continue
		}
		for j, m := range imeis {
			if !used[j] && m.ProductCode == l.ProductCode && len(l.IMEIs) < l.Qty {
				l.IMEIs = append(l.IMEIs, m.IMEI)
				used[j] = true
			}
		}
	}
	return lines
}

// OpenSale journals the cart as a split-tender sale, to be paid by several
// tenders (Pay with PayRequest.Sale). The discounts are checked as for any sale.
func (t *Till) OpenSale(ctx context.Context, lines []CartLine, imeis []UnitIMEI, cashier string) (*SaleStatus, error) {
	return t.OpenSaleFor(ctx, lines, imeis, cashier, nil)
}

// OpenSaleFor is OpenSale with the buyer the invoice names (nil: none); the
// buyer is checked as for a sale of one tender (CheckBuyer), before anything is
// journaled.
func (t *Till) OpenSaleFor(ctx context.Context, lines []CartLine, imeis []UnitIMEI, cashier string, buyer *Buyer) (*SaleStatus, error) {
	sale := Sale{Lines: SaleLines(lines, imeis), Staff: cashier}
	if err := t.checkDiscounts(sale.Lines); err != nil {
		return nil, err
	}
	// Every phone sold carries its IMEI, and no IMEI is sold twice (DESIGN.md
	// section 10), whatever pays for it.
	if err := t.checkSale(ctx, sale.Lines, TenderSplit); err != nil {
		return nil, err
	}
	if err := t.CheckBuyer(ctx, lines, buyer); err != nil {
		return nil, err
	}
	if buyer != nil {
		if b := buyer.Normal(); !b.IsZero() {
			sale.Buyer = &b
		}
	}
	o, err := t.eng.OpenSale(ctx, sale)
	if err != nil {
		t.noteErr(err)
		return nil, err
	}
	return &SaleStatus{Sale: o, Due: o.Amount}, nil
}

// SaleStatus reads a split sale and its tenders, completing it first when its
// tenders now cover it (a tender resolved by Check now, or paid again with
// galla pay).
func (t *Till) SaleStatus(ctx context.Context, id string) (*SaleStatus, error) {
	return t.eng.SettleSale(ctx, id)
}

// OpenSales lists the split sales left part paid, with their tenders, so the
// counter shows them again after a restart.
func (t *Till) OpenSales(ctx context.Context) ([]*SaleStatus, error) {
	sales, err := t.eng.OpenSales(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*SaleStatus, 0, len(sales))
	for _, s := range sales {
		st, err := t.eng.SaleStatus(ctx, s.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// VoidSale voids a split sale left part paid, authorised by a manager's PIN:
// each paid tender is refunded with its document (Engine.VoidSale).
func (t *Till) VoidSale(ctx context.Context, saleID, pin, reason string) (*SaleStatus, error) {
	st, err := t.eng.VoidSale(ctx, saleID, pin, reason)
	if err != nil {
		t.noteErr(err)
	}
	return st, err
}

// payTender is Pay for one tender of a split sale: the tender is journaled on
// the sale before its own order, paid as a whole sale of that tender would be,
// and the sale is completed once its tenders cover it.
func (t *Till) payTender(ctx context.Context, req PayRequest, card *gateway.Card, progress func(PayProgress)) (PayOutcome, error) {
	var (
		res *Result
		st  *SaleStatus
		err error
	)
	orderID, checks := "", 0
	defer func() {
		if orderID != "" {
			o, err := t.eng.Order(context.WithoutCancel(ctx), orderID)
			t.payReturned(orderID, err == nil && !o.Unresolved())
		}
	}()
	opt := t.payOptions(req, &orderID, &checks, progress)
	service := func(kind TenderKind, plan *EMIPlan) (*Order, error) {
		o, err := t.eng.OpenSaleTender(ctx, req.Sale, kind, req.Amount, plan, req.Cashier, opt, req.IMEIs...)
		if o != nil && o.ID != orderID {
			t.payReturned(orderID, true)
			orderID = o.ID
			t.paying(orderID)
		}
		return o, err
	}
	switch req.Tender {
	case TenderCash:
		if err := t.CashNeedsShift(ctx); err != nil {
			return PayOutcome{}, err // cash lands in a counted drawer, in a split sale too
		}
		res, st, err = t.eng.SaleCash(ctx, req.Sale, req.Amount, req.Tendered, req.Cashier)
	case TenderUPI:
		res, st, err = t.eng.SaleUPI(ctx, req.Sale, req.Amount, req.Cashier)
	case TenderNote:
		if req.NoteNo != "" && t.eng.cfg.Notes != nil {
			if err := t.checkNoteTender(ctx, req.NoteNo); err != nil {
				return PayOutcome{}, err // a number that is no credit note of ours (or, enrolled, no note at all): nothing journaled
			}
		}
		res, st, err = t.eng.SaleNote(ctx, req.Sale, req.NoteNo, req.Amount, req.Cashier)
	case TenderCard, TenderEMI:
		if card == nil {
			return PayOutcome{}, errNoCard
		}
		if err := card.Check(t.eng.Now()); err != nil {
			return PayOutcome{}, err
		}
		if req.Tender == TenderEMI && req.OrderID == "" {
			// A new tender: the offer is checked against the card before anything
			// is journaled, so a card that does not take it adds no tender. A
			// tender's order opened before the card (CheckEMIOrder) is paid as a
			// one-tender sale's is: the EMI payment call checks the scheme again,
			// and a refusal is journaled (payment.refused), so the tender is FAILED
			// at once and reserves nothing of the sale.
			if req.Offer == nil {
				return PayOutcome{}, sentenceErr("Choose an EMI offer and type the card again.")
			}
			amount := req.Amount
			if amount == 0 {
				cur, serr := t.eng.SaleStatus(ctx, req.Sale)
				if serr != nil {
					return PayOutcome{}, serr
				}
				amount = cur.Due
			}
			if err := t.eng.ValidateScheme(ctx, *req.Offer, amount, card); err != nil {
				t.noteErr(err)
				return PayOutcome{}, err
			}
		}
		var o *Order
		if req.OrderID != "" {
			o, err = t.tenderAgain(ctx, req)
			if o != nil {
				orderID = o.ID
				t.paying(orderID)
			}
		} else {
			o, err = service(req.Tender, req.Offer)
		}
		if err == nil {
			res, err = t.eng.pay(ctx, o.ID, card, opt)
			if err != nil && req.Tender == TenderEMI && req.OrderID == "" {
				// An order opened here and refused before payment is closed; one
				// opened before the card (CheckEMIOrder) stays for the card typed
				// again, and is closed when the cashier goes back.
				t.cancelUnpaid(ctx, o.ID, err)
			}
		}
	case TenderPhone:
		res, err = t.payOnPhone(ctx, func() (*Order, error) { return service(TenderPhone, nil) }, opt, progress)
	default:
		return PayOutcome{}, sentenceErr("Choose how the customer pays this part: cash, UPI, card, EMI, phone or a credit note.")
	}
	if err != nil {
		t.noteErr(err)
		return PayOutcome{}, err
	}
	if res.Order != nil && orderID == "" {
		orderID = res.Order.ID
	}
	if st == nil {
		if st, err = t.eng.SettleSale(ctx, req.Sale); err != nil {
			t.noteErr(err)
			return PayOutcome{}, err
		}
	}
	out := payOutcomeOf(res, t.cfg.Terminal)
	out.Sale = st
	if req.Tender == TenderCash {
		out.Drawer = t.drawer(ctx)
	}
	if st.Complete() {
		out.ReceiptNo = st.Sale.Number(t.cfg.Terminal)
	}
	return out, nil
}

// tenderAgain is the tender's order req.OrderID of the split sale, to be paid
// again on the same order after a verified failure, when its amount is still
// left to pay.
func (t *Till) tenderAgain(ctx context.Context, req PayRequest) (*Order, error) {
	st, err := t.eng.SaleStatus(ctx, req.Sale)
	if err != nil {
		return nil, err
	}
	for _, tv := range st.Tenders {
		if tv.Order == nil || tv.Order.ID != req.OrderID {
			continue
		}
		if tv.State == StateFailed && tv.Amount > st.Due {
			return nil, &TenderError{Amount: tv.Amount, Due: st.Due, Pending: st.Pending}
		}
		return tv.Order, nil
	}
	return nil, wrapf(ErrNotPayableAgain, "The order %s is not a tender of the sale %s; start the tender again.", req.OrderID, req.Sale)
}

// cancelUnpaid closes a tender's order that was refused before any payment was
// sent (the IMEIs, most often), so the sale's due amount is free again.
func (t *Till) cancelUnpaid(ctx context.Context, id string, cause error) {
	t.eng.closeUnpaid(ctx, id, "refused before payment: "+Sentence(cause))
}

// FindSaleOffer returns the EMI offer of issuer and tenure for amount of split
// sale saleID (0: all that is left), or a sentence listing the offers there are.
func (t *Till) FindSaleOffer(ctx context.Context, saleID string, amount Paise, issuer string, months int) (EMIPlan, error) {
	set, err := t.saleOffers(ctx, saleID, amount)
	if err != nil {
		return EMIPlan{}, err
	}
	plan, ok := set.Find(issuer, months, "")
	if !ok {
		return EMIPlan{}, Errorf("No %s offer of %d months exists for %s of this sale; the offers are: %s.", issuer, months, set.Amount, offerList(set))
	}
	return plan, nil
}

// SaleEMIOffers lists the EMI plans for amount of split sale saleID (0: all
// that is left), cheapest total cost first; none is an empty list.
func (t *Till) SaleEMIOffers(ctx context.Context, saleID string, amount Paise) ([]EMIPlan, error) {
	set, err := t.saleOffers(ctx, saleID, amount)
	if errors.Is(err, ErrNoEMIOffer) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []EMIPlan
	for _, is := range set.Issuers {
		out = append(out, is.Plans...)
	}
	SortOffers(out, ByTotalCost)
	return out, nil
}

func (t *Till) saleOffers(ctx context.Context, saleID string, amount Paise) (*OfferSet, error) {
	st, err := t.eng.SaleStatus(ctx, saleID)
	if err != nil {
		return nil, err
	}
	if amount == 0 {
		amount = st.Due
	}
	if amount <= 0 || amount > st.Due {
		return nil, &TenderError{Amount: amount, Due: st.Due, Pending: st.Pending}
	}
	return t.eng.EMIOffers(ctx, partLines(st.Sale.Lines, amount))
}
