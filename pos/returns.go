package pos

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ReturnRequest is a return at the counter (issue 13 item 8): the invoice, the
// goods that come back (or, without goods, an amount: a price adjustment), where
// the money goes, why, and the manager's PIN that authorises it.
type ReturnRequest struct {
	Document string      // the invoice's number as printed ("T1/2627/000123") or the sale's merchant order id
	Items    []ReturnQty // the goods; none with Amount: a price adjustment
	Amount   Paise       // a price adjustment without goods
	To       RefundTo    // card, cash or note
	Reason   string
	PIN      string // a manager's PIN
}

// ReturnResult is how a return ended, with its credit note's number once done.
type ReturnResult struct {
	Status     RefundStatus // RefundDone, RefundFailed, or RefundPending (a card refund whose answer is not in)
	Order      *Order
	Refund     Refund
	CreditNote string // the credit note's number as printed; "" until the refund is done
	Manager    Staff
	Reason     string // RefundFailed, RefundPending: why, in plain words
}

// ReturnableLine is one line of a sale as the Returns screen shows it.
type ReturnableLine struct {
	SKU      string
	Name     string
	Sold     int
	Returned int   // units already returned
	Left     int   // units that can still come back
	Amount   Paise // the line's money, GST included
	IMEIs    []string
}

// SaleForReturn is a paid sale as the Returns screen shows it: its number, lines,
// what is left to refund, and where its money can go back.
type SaleForReturn struct {
	OrderID    string
	Number     string
	At         string // the invoice's date, 02 Jan 2006
	Tender     TenderKind
	Lines      []ReturnableLine
	Refundable Paise
	To         []RefundTo // the destinations this sale allows, the default first
}

// SearchDays is how many days back FindSale searches by IMEI, card or phone.
const SearchDays = 90

// saleMatches reports whether o sold IMEI q, was paid by a card ending q, or
// names mobile number q.
func saleMatches(o *Order, q string) bool {
	switch len(q) {
	case 15:
		if slices.Contains(o.IMEIs, q) {
			return true
		}
		for _, l := range o.Lines {
			if slices.Contains(l.IMEIs, q) {
				return true
			}
		}
	case 4:
		return o.CardLast4 == q
	case 10:
		return o.Customer != nil && o.Customer.Mobile == q
	}
	return false
}

// Returns takes money back at the counter: a return of goods or a price
// adjustment on a paid sale (of this counter, or of another counter through
// the store server), a refund of an order, the cancellation of today's
// invoice, and the credit notes a return issues (found, their balance, spent
// and given back). Every refund it makes passes the Crew's count of wrong
// manager PINs (pinCounted), and one that pays cash out of the drawer needs
// the Drawer's open shift.
type Returns struct{ *core }

// FindSale finds a paid sale by its document number as printed (the invoice
// series), by its merchant order id, or by searching the last SearchDays days
// for an IMEI (15 digits), a card's last four digits or a customer's mobile
// number (10 digits).
func (rt *Returns) FindSale(ctx context.Context, doc string) (*Order, error) {
	doc = strings.TrimSpace(doc)
	if doc == "" {
		return nil, Errorf("Type or scan the invoice number, or the order id, of the sale.")
	}
	if allDigits(doc) && (len(doc) == 4 || len(doc) == 10 || len(doc) == 15) {
		return rt.searchSale(ctx, doc)
	}
	id := doc
	if series, no, ok := ParseDocNumber(doc); ok {
		if err := rt.ownDocument(doc); err != nil {
			return nil, err
		}
		oid, refund, err := rt.j.FindDocument(ctx, series, no)
		switch {
		case errors.Is(err, ErrOrderNotFound):
			return nil, wrapf(ErrOrderNotFound, "No document %s was issued on this terminal; check the number on the invoice.", doc)
		case err != nil:
			return nil, err
		case refund != "":
			return nil, wrapf(ErrNotRefundable, "%s is a credit note, not an invoice: give the invoice's number.", doc)
		}
		id = oid
	}
	o, err := rt.eng.Order(ctx, id)
	if errors.Is(err, ErrOrderNotFound) {
		return nil, wrapf(ErrOrderNotFound, "No sale %s is in the journal; give the invoice number as printed (T1/2627/000123) or the order id.", doc)
	}
	if err == nil && o.Sale != "" {
		// A tender's id (what the payment service knows, printed with the
		// tender): the goods went with its sale, which is what comes back.
		return rt.eng.Order(ctx, o.Sale)
	}
	return o, err
}

// ReturnView finds a sale for the Returns screen by its invoice number or order
// id (typed or scanned from its QR code's order id).
func (rt *Returns) ReturnView(ctx context.Context, doc string) (*SaleForReturn, error) {
	o, err := rt.FindSale(ctx, doc)
	if err != nil {
		if inv, ok, serr := rt.storeInvoice(ctx, doc, err); ok {
			if serr != nil {
				return nil, serr
			}
			return rt.foreignReturnView(inv), nil
		}
		return nil, err
	}
	if !o.State.Paid() {
		return nil, wrapf(ErrNotRefundable, "Sale %s is %s, not paid: nothing of it can be returned.", o.ID, o.State)
	}
	sale, err := rt.eng.Sales.saleOf(ctx, o)
	if err != nil {
		return nil, err
	}
	v := &SaleForReturn{OrderID: o.ID, Number: o.Number(rt.cfg.Terminal), At: saleTime(*o).In(IST).Format("02 Jan 2006"),
		Tender: o.Tender}
	v.Refundable, v.To = sale.returnable()
	for i, l := range o.Lines {
		ret := o.Returns().Returned(i)
		v.Lines = append(v.Lines, ReturnableLine{SKU: l.SKU, Name: l.Name, Sold: l.Qty, Returned: ret, Left: l.Qty - ret,
			Amount: l.Amount(), IMEIs: slices.Clone(l.IMEIs)})
	}
	return v, nil
}

// searchSale finds the one paid sale of the last SearchDays days that sold the
// IMEI q, was paid by a card ending q, or names the mobile number q.
func (rt *Returns) searchSale(ctx context.Context, q string) (*Order, error) {
	var found []*Order
	day := rt.eng.Now()
	for i := 0; i < SearchDays && len(found) <= 5; i++ {
		orders, err := rt.j.OrdersByDay(ctx, ToDay(day.AddDate(0, 0, -i)))
		if err != nil {
			return nil, err
		}
		for _, o := range orders {
			if !o.State.Paid() || !saleMatches(o, q) {
				continue
			}
			if o.Sale != "" {
				// A tender carries the card and the sale's lines; the goods
				// went with its sale, which holds the invoice.
				sale, err := rt.eng.Order(ctx, o.Sale)
				if err != nil {
					return nil, err
				}
				o = sale
			}
			if !slices.ContainsFunc(found, func(f *Order) bool { return f.ID == o.ID }) {
				found = append(found, o)
			}
		}
	}
	switch len(found) {
	case 0:
		return nil, wrapf(ErrOrderNotFound, "No paid sale of the last %d days has IMEI, card or phone %s; type the invoice number.", SearchDays, q)
	case 1:
		return found[0], nil
	}
	var names []string
	for _, o := range found[:min(len(found), 5)] {
		names = append(names, o.Number(rt.cfg.Terminal)+" of "+saleTime(*o).In(IST).Format("02 Jan"))
	}
	return nil, Errorf("Several sales match %s: %s. Type the invoice number.", q, strings.Join(names, ", "))
}

// ownDocument refuses a document number that names another terminal: each
// terminal numbers its own documents, so the number means another sale here.
func (rt *Returns) ownDocument(doc string) error {
	term, rest, ok := strings.Cut(strings.TrimSpace(doc), "/")
	if !ok || !strings.Contains(rest, "/") || term == rt.cfg.Terminal {
		return nil
	}
	return wrapf(ErrOrderNotFound, "%s was issued by terminal %s, not this one (%s): take it back at %s.", doc, term, rt.cfg.Terminal, term)
}

// Return takes goods (or a price adjustment) back on a paid sale, authorised by a
// manager's PIN: the money goes to the card through the service, in cash from the
// drawer, or onto a credit note to spend. It is a refund of the sale's order with
// its items (journaled before any call), and issues a CREDIT NOTE when done. A
// card refund whose answer is lost stays pending and is inquired, never repeated.
//
// An invoice of another counter of the store, when this one is enrolled, is
// returned through the store server (returnAtStore).
func (rt *Returns) Return(ctx context.Context, r ReturnRequest) (*ReturnResult, error) {
	o, err := rt.FindSale(ctx, r.Document)
	if err != nil {
		if inv, ok, serr := rt.storeInvoice(ctx, r.Document, err); ok {
			if serr != nil {
				return nil, serr
			}
			return pinCounted(rt.crew, func() (*ReturnResult, error) { return rt.returnAtStore(ctx, r, inv) })
		}
		return nil, err
	}
	if !o.State.Paid() || o.State == StateRefunded {
		return nil, wrapf(ErrNotRefundable, "Sale %s is %s: nothing of it can be returned.", o.ID, o.State)
	}
	items, reason, err := returnItems(o, r)
	if err != nil {
		return nil, err
	}
	if err := CheckRefundTo(o, r.To); err != nil {
		return nil, err // said before the manager's PIN is asked
	}
	res, err := rt.RefundOrder(ctx, RefundRequest{OrderID: o.ID, PIN: r.PIN, Reason: reason, To: r.To, Items: items,
		reserveAt: o.Number(rt.cfg.Terminal)})
	if err != nil {
		return nil, err
	}
	out := &ReturnResult{Status: res.Status, Order: res.Order, Refund: res.Refund, Manager: res.Manager, Reason: res.Reason}
	if res.Status == RefundDone {
		out.CreditNote = res.Refund.Number(rt.cfg.Terminal)
	}
	return out, nil
}

// RefundOrder refunds all or part of a paid order on a manager's PIN (the engine's
// Refund), under the Crew's stop on wrong manager PINs. A refund that pays cash
// out of the drawer needs an open shift where the counter keeps shifts; one to a
// card or a credit note does not.
func (rt *Returns) RefundOrder(ctx context.Context, r RefundRequest) (*RefundResult, error) {
	return pinCounted(rt.crew, func() (*RefundResult, error) {
		if err := rt.crew.cashierRefund(ctx, &r); err != nil {
			return nil, err
		}
		r.drawer = rt.drawer // cash paid back leaves a counted drawer
		res, err := rt.eng.Refunds.Refund(ctx, r)
		if err != nil {
			rt.noteErr(err)
		}
		return res, err
	})
}

// Refund refunds amount of a paid order, authorised by a manager's PIN. A verified
// refund has Verified set; a refused one is an error; otherwise its outcome is
// still pending.
func (rt *Returns) Refund(ctx context.Context, orderID string, amount Paise, pin string) (PayOutcome, error) {
	res, err := rt.RefundOrder(ctx, RefundRequest{OrderID: orderID, Amount: amount, PIN: pin})
	if err != nil {
		return PayOutcome{}, err
	}
	out := PayOutcome{OrderID: orderID, Amount: amount, Reason: res.Reason, Order: res.Order}
	switch res.Status {
	case RefundDone:
		out.Verified = true
	case RefundFailed:
		return out, sentenceErr("The refund was refused: " + res.Reason)
	}
	if res.Order != nil {
		out.State = res.Order.State
	}
	return out, nil
}

// CreditNoteDocument is the document of a credit note named by its number as
// printed ("T1/C2627/00012"), ready to print or write like a receipt.
func (rt *Returns) CreditNoteDocument(ctx context.Context, number string) (*Document, error) {
	o, ref, err := rt.findNote(ctx, number)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, rf := range o.Refunds {
		if rf.Status == RefundDone {
			n++
		}
		if rf.UniqueTxnID == ref.UniqueTxnID {
			break
		}
	}
	return rt.docs.ReceiptDocument(ctx, o.ID, n)
}

// findNote finds the order and the done refund a credit note number was given to.
func (rt *Returns) findNote(ctx context.Context, number string) (*Order, Refund, error) {
	series, no, ok := ParseDocNumber(strings.TrimSpace(number))
	if !ok || !strings.HasPrefix(series, "C") {
		return nil, Refund{}, Errorf("%q is not a credit note number; it reads like T1/C2627/00012.", number)
	}
	if err := rt.ownDocument(number); err != nil {
		return nil, Refund{}, err
	}
	oid, uid, err := rt.j.FindDocument(ctx, series, no)
	if errors.Is(err, ErrOrderNotFound) || (err == nil && uid == "") {
		return nil, Refund{}, wrapf(ErrOrderNotFound, "No credit note %s was issued on this terminal; check its number.", number)
	}
	if err != nil {
		return nil, Refund{}, err
	}
	o, err := rt.eng.Order(ctx, oid)
	if err != nil {
		return nil, Refund{}, err
	}
	ref := o.RefundByID(uid)
	if ref == nil {
		return nil, Refund{}, fmt.Errorf("pos: credit note %s: %w: refund %s not in order %s", number, ErrBadEvent, uid, oid)
	}
	return o, *ref, nil
}

// NoteBalance returns what is left to spend on a credit note.
func (rt *Returns) NoteBalance(ctx context.Context, number string) (Paise, error) {
	o, ref, err := rt.findNote(ctx, number)
	if err != nil {
		return 0, err
	}
	if ref.To != RefundToNote {
		return 0, Errorf("Credit note %s was refunded to the %s, not issued to spend.", number, RefundDestination(o, ref.To))
	}
	return ref.NoteLeft(), nil
}

// RedeemNote spends amount of credit note number for the sale orderID, journaled
// on the order that issued the note before the sale completes: the tender code of
// a sale paid in several tenders calls it for its note part. Redeeming it again
// for the same sale changes nothing.
func (rt *Returns) RedeemNote(ctx context.Context, number string, amount Paise, orderID string) error {
	o, ref, err := rt.findNote(ctx, number)
	if err != nil {
		return err
	}
	return rt.eng.Sales.redeemNote(ctx, o.ID, NoteEvent{Number: number, IssueID: o.ID, Refund: ref.UniqueTxnID, Amount: amount, SaleID: orderID})
}

// checkNoteTender checks a credit note tendered before anything is journaled:
// a note of this counter must be one to spend with something left; another
// counter's note, when the store decides, must read like a note number.
func (rt *Returns) checkNoteTender(ctx context.Context, number string) error {
	if rt.eng.StoreDesk.decisions() != nil && rt.eng.StoreDesk.foreignNote(number) {
		return checkNoteNumber(number)
	}
	_, err := rt.NoteBalance(ctx, number)
	return err
}

// redeemTender is noteLedger.Redeem: a split sale's note tender, redeemed at the
// store first when enrolled, then on the issuing order when the note is this
// counter's. It returns what is left on the note: the store's word when
// enrolled, else this journal's.
func (rt *Returns) redeemTender(ctx context.Context, number string, amount Paise, ref string) (Paise, error) {
	d := rt.eng.StoreDesk.decisions()
	if d == nil {
		if err := rt.RedeemNote(ctx, number, amount, ref); err != nil {
			return 0, err
		}
		return rt.NoteBalance(ctx, number)
	}
	if rt.eng.StoreDesk.foreignNote(number) {
		if err := checkNoteNumber(number); err != nil {
			return 0, err
		}
		return rt.eng.StoreDesk.redeemAtStore(ctx, d, number, ref, amount)
	}
	_, note, err := rt.findNote(ctx, number)
	if err != nil {
		return 0, err // not a note of this counter: nothing asked
	}
	left, err := rt.eng.StoreDesk.redeemOwnAtStore(ctx, d, number, ref, amount, note.NoteLeft())
	if err != nil {
		return 0, err
	}
	if err := rt.RedeemNote(ctx, number, amount, ref); err != nil {
		return 0, rt.eng.StoreDesk.releaseAtStore(ctx, d, ref, err)
	}
	return left, nil
}

// restoreAtStore is the store's part of restoreTender: what the tender ref
// reserved of a note is given back. No answer refuses the restore (a void
// waits until the store is back).
func (rt *Returns) restoreAtStore(ctx context.Context, ref string) error {
	d := rt.eng.StoreDesk.decisions()
	if d == nil {
		return nil
	}
	return rt.eng.StoreDesk.releaseAtStore(ctx, d, ref, nil)
}

// storeInvoice asks the store for the sale doc names when this counter's
// journal has none (localErr): an invoice of another counter, or an order id
// not journaled here. ok is false when the store is not to be asked (no store,
// a search by IMEI, card or phone, or a number of this counter's own).
func (rt *Returns) storeInvoice(ctx context.Context, doc string, localErr error) (inv *StoreInvoice, ok bool, err error) {
	doc = strings.TrimSpace(doc)
	si := rt.eng.StoreDesk.decisions()
	if si == nil || !errors.Is(localErr, ErrOrderNotFound) || doc == "" {
		return nil, false, nil
	}
	if allDigits(doc) && (len(doc) == 4 || len(doc) == 10 || len(doc) == 15) {
		return nil, false, nil
	}
	if _, _, isDoc := ParseDocNumber(doc); isDoc {
		term, rest, cut := strings.Cut(doc, "/")
		if !cut || !strings.Contains(rest, "/") || term == rt.cfg.Terminal {
			return nil, false, nil // this counter's own number, not in its journal
		}
	}
	rctx, cancel := context.WithTimeout(ctx, storeDecisionWait)
	defer cancel()
	inv, err = si.Invoice(rctx, doc)
	if err != nil {
		return nil, true, err
	}
	if inv == nil || inv.Order == nil || !inv.Order.State.Paid() {
		return nil, true, wrapf(ErrNotRefundable, "Invoice %s is not a paid sale at the store: nothing of it can be returned.", doc)
	}
	return inv, true, nil
}

// returnAtStore takes goods back on inv, another counter's invoice: the
// destination and the drawer checked as for this counter's own invoices, the
// refunds' gate passed with the manager's PIN (Engine.refundGate; the caller
// counts a wrong one, pinCounted), then the store reserves the amount (before
// anything is journaled or paid out), then this counter journals the return
// order and its refund, numbered in its C series. A reservation whose refund
// never reached the journal is released.
func (rt *Returns) returnAtStore(ctx context.Context, r ReturnRequest, inv *StoreInvoice) (*ReturnResult, error) {
	e := rt.eng
	d := e.StoreDesk.decisions()
	if d == nil {
		return nil, ErrStoreOffline
	}
	o := inv.Order.Clone()
	left := storeLeft(o, inv)
	if left <= 0 {
		return nil, wrapf(ErrNotRefundable, "Invoice %s of counter %s is refunded in full already, here or at another counter: nothing of it can be returned.", inv.Number, inv.Terminal)
	}
	if len(r.Items) == 0 && r.Amount > left {
		return nil, wrapf(ErrNotRefundable, "At most %s of invoice %s is left to return, here or at another counter (not %s).", left, inv.Number, r.Amount)
	}
	items, reason, err := returnItems(o, r)
	if err != nil {
		return nil, err
	}
	amount := ItemsAmount(items)
	if amount > left {
		return nil, wrapf(ErrNotRefundable, "The goods come to %s but only %s of invoice %s is left to refund store-wide; return fewer, or make a price adjustment of at most %s.",
			amount, left, inv.Number, left)
	}
	to := r.To
	if dests := foreignDestinations(o); to == "" && len(dests) > 0 {
		to = dests[0]
	}
	if !slices.Contains(foreignDestinations(o), to) {
		return nil, foreignToSentence(inv, to)
	}
	if err := refundNeedsShift(ctx, rt.drawer, to); err != nil {
		return nil, err
	}
	mgr, err := e.Refunds.refundGate(ctx, r.PIN, false)
	if err != nil {
		return nil, err
	}
	id, err := rt.ec.newID(rt.cfg.Terminal)
	if err != nil {
		return nil, err
	}
	uid, err := rt.ec.newID("R")
	if err != nil {
		return nil, err
	}
	if _, err := reserveReturn(ctx, d, inv.Number, uid, amount, items); err != nil {
		return nil, err // nothing journaled, nothing paid out
	}
	release := func(cause error) error {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeDecisionWait)
		defer cancel()
		if err := d.Release(rctx, "", uid); err != nil {
			return errors.Join(cause, err)
		}
		return cause
	}
	tender := TenderNote // the return order is paid back the way its refund goes (RefundDestination)
	if to.MovesCash() {
		tender = TenderCash
	}
	var returned []ReturnItem
	for i := range o.Lines {
		if n := o.Returns().Returned(i); n > 0 {
			returned = append(returned, ReturnItem{Line: i, SKU: o.Lines[i].SKU, Qty: n, IMEIs: o.Returns().returnedIMEIs(i)})
		}
	}
	lines := make([]Line, len(o.Lines))
	for i, l := range o.Lines {
		lines[i] = l.clone()
	}
	in := &Intent{Tender: tender, Lines: lines, Totals: o.Totals, Amount: o.Amount, Customer: o.Customer, Buyer: o.Buyer,
		Origin: &Origin{Terminal: inv.Terminal, OrderID: o.ID, Number: inv.Number, Series: o.Series, PaidAt: o.PaidAt, PaidDay: o.PaidDay,
			Tender: o.Tender, Returnable: amount, Returned: returned}}
	unlock, err := rt.ec.lock(id)
	if err != nil {
		return nil, release(err)
	}
	defer unlock()
	ro := &Order{}
	if _, err := rt.ec.commit(ctx, ro, Event{Kind: EvOrderIntent, OrderID: id, Staff: mgr.ID, Intent: in}); err != nil {
		return nil, release(beforeMoney(err))
	}
	if _, err := rt.ec.commit(ctx, ro, Event{Kind: EvRefundIntent, Staff: mgr.ID,
		Refund: &RefundEvent{UniqueTxnID: uid, Amount: amount, Reason: reason, To: to, Items: items}}); err != nil {
		return nil, release(beforeMoney(err))
	}
	// The refund is journaled: from here it is settled (by the reconciler, if
	// this stops), never released.
	res, err := e.Refunds.settleRefund(ctx, ro, uid, false)
	if err != nil {
		return nil, err
	}
	out := &ReturnResult{Status: res.Status, Order: res.Order, Refund: res.Refund, Manager: *mgr, Reason: res.Reason}
	if res.Status == RefundDone {
		out.CreditNote = res.Refund.Number(rt.cfg.Terminal)
	}
	return out, nil
}

// storeLeft is what is left to return of o, another counter's invoice inv as
// its counter's events made it: what o holds refundable, what it was paid
// (PaidAmount, on its tenders for a split sale) capped by the store's word (its
// own refunds and what it says is left, counting returns at every counter).
func storeLeft(o *Order, inv *StoreInvoice) Paise {
	paid := o.PaidAmount()
	return o.Refundable() - (paid - min(paid, o.Refunded+inv.Returnable))
}

// foreignReturnView is the Returns screen's view of another counter's invoice.
func (rt *Returns) foreignReturnView(inv *StoreInvoice) *SaleForReturn {
	o := inv.Order.Clone()
	v := &SaleForReturn{OrderID: o.ID, Number: inv.Number, At: saleTime(*o).In(IST).Format("02 Jan 2006"),
		Tender: o.Tender, Refundable: max(storeLeft(o, inv), 0), To: foreignDestinations(o)}
	for i, l := range o.Lines {
		ret := o.Returns().Returned(i)
		v.Lines = append(v.Lines, ReturnableLine{SKU: l.SKU, Name: l.Name, Sold: l.Qty, Returned: ret, Left: l.Qty - ret,
			Amount: l.Amount(), IMEIs: slices.Clone(l.IMEIs)})
	}
	return v
}

// CancelDocument cancels the document named by its number as printed (or the
// sale's order id, or a tender's: FindSale finds its sale), on a manager's
// PIN, with the reason printed on it. A document that may not be cancelled is
// refused first (cancelRefused), before the drawer or the PIN is asked.
func (rt *Returns) CancelDocument(ctx context.Context, doc, pin, reason string) (*CancelResult, error) {
	if err := rt.crew.gate(); err != nil {
		return nil, err
	}
	o, err := rt.FindSale(ctx, doc)
	if err != nil {
		return nil, err
	}
	if err := rt.cancelRefused(ctx, o); err != nil {
		return nil, err
	}
	if err := rt.drawer.givingBackNeedsShift(ctx, o); err != nil {
		return nil, err
	}
	res, err := rt.eng.Refunds.cancelDocument(ctx, o.ID, pin, reason, rt.cfg.Terminal)
	if err == nil && res.Status == CancelDone {
		err = rt.einv.CancelVoided(ctx, o, reason)
	}
	if errors.Is(err, ErrWrongPIN) || err == nil {
		_ = rt.crew.counted(err)
	}
	if err != nil {
		rt.noteErr(err)
	}
	return res, err
}

// CanCancel says whether o's document may be cancelled today: "" when it may,
// else the sentence that says why not and what to do, the refusal the
// cancellation itself would give (cancelRefused). The journal screen asks it
// before offering "Cancel invoice".
func (rt *Returns) CanCancel(ctx context.Context, o *Order) string {
	if o == nil {
		return "Only a sale's invoice can be cancelled."
	}
	if err := rt.cancelRefused(ctx, o); err != nil {
		return Sentence(err)
	}
	return ""
}

// cancelRefused is why o's document may not be cancelled, nil when it may: an
// IRN registered too long ago to cancel (EInvoices.CheckVoid, which offers the
// credit note instead), then the cancellation's pre-check
// (Refunds.cancelRefusal: a credit note against it, not today's, ...).
func (rt *Returns) cancelRefused(ctx context.Context, o *Order) error {
	if err := rt.einv.CheckVoid(ctx, o); err != nil {
		return err
	}
	_, err := rt.eng.Refunds.cancelRefusal(ctx, o, rt.cfg.Terminal)
	return err
}

// CanCancelOrder is CanCancel of the order with this merchant order id.
func (rt *Returns) CanCancelOrder(ctx context.Context, orderID string) string {
	o, err := rt.eng.Order(ctx, orderID)
	if err != nil {
		return Sentence(err)
	}
	return rt.CanCancel(ctx, o)
}

// pinCounted runs refund, authorised by a manager's PIN, under cr's stop on wrong
// manager PINs (Crew.gate): refused while too many were wrong, a wrong PIN
// counted, a refund done clearing the count. Every refund and return of the
// till, of its own invoices or of another counter's, goes through it.
func pinCounted[R any](cr *Crew, refund func() (*R, error)) (*R, error) {
	if err := cr.gate(); err != nil {
		return nil, err
	}
	res, err := refund()
	if errors.Is(err, ErrWrongPIN) || err == nil {
		_ = cr.counted(err)
	}
	return res, err
}

// restoreTender is noteLedger.Restore: what the split sale's note tender ref
// took of credit note noteNo is given back, at the store first when enrolled
// (a void waits for it), then on the issuing order when the note is this
// counter's. A tender never redeemed, or given back already, changes nothing.
func (rt *Returns) restoreTender(ctx context.Context, noteNo string, amount Paise, ref string) error {
	if err := rt.restoreAtStore(ctx, ref); err != nil {
		return err // given back at the store first: a void waits for it
	}
	if rt.eng.StoreDesk.decisions() != nil && rt.eng.StoreDesk.foreignNote(noteNo) {
		return nil // another counter's note: the store's balance is its ledger
	}
	o, r, err := rt.findNote(ctx, noteNo)
	if err != nil {
		return err
	}
	e := rt.eng
	unlock, err := rt.ec.lock(o.ID)
	if err != nil {
		return err
	}
	defer unlock()
	issue, err := e.Order(ctx, o.ID)
	if err != nil {
		return err
	}
	if cur := issue.RefundByID(r.UniqueTxnID); cur == nil || !slices.Contains(cur.RedeemedBy, ref) {
		return nil // never redeemed for this tender, or given back already
	}
	_, err = rt.ec.commit(ctx, issue, Event{Kind: EvNoteRestored, Note: &NoteEvent{Number: noteNo, IssueID: o.ID, Refund: r.UniqueTxnID, Amount: amount, SaleID: ref}})
	return err
}
