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

// FindSale finds a paid sale by its document number as printed (the invoice
// series), by its merchant order id, or by searching the last SearchDays days
// for an IMEI (15 digits), a card's last four digits or a customer's mobile
// number (10 digits).
func (t *Till) FindSale(ctx context.Context, doc string) (*Order, error) {
	doc = strings.TrimSpace(doc)
	if doc == "" {
		return nil, Errorf("Type or scan the invoice number, or the order id, of the sale.")
	}
	if allDigits(doc) && (len(doc) == 4 || len(doc) == 10 || len(doc) == 15) {
		return t.searchSale(ctx, doc)
	}
	id := doc
	if series, no, ok := ParseDocNumber(doc); ok {
		if err := t.ownDocument(doc); err != nil {
			return nil, err
		}
		oid, refund, err := t.j.FindDocument(ctx, series, no)
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
	o, err := t.eng.Order(ctx, id)
	if errors.Is(err, ErrOrderNotFound) {
		return nil, wrapf(ErrOrderNotFound, "No sale %s is in the journal; give the invoice number as printed (T1/2627/000123) or the order id.", doc)
	}
	return o, err
}

// Return takes goods (or a price adjustment) back on a paid sale, authorised by a
// manager's PIN: the money goes to the card through the service, in cash from the
// drawer, or onto a credit note to spend. It is a refund of the sale's order with
// its items (journaled before any call), and issues a CREDIT NOTE when done. A
// card refund whose answer is lost stays pending and is inquired, never repeated.
//
// An invoice of another counter of the store, when this one is enrolled, is
// returned through the store server (returnAtStore).
func (t *Till) Return(ctx context.Context, r ReturnRequest) (*ReturnResult, error) {
	o, err := t.FindSale(ctx, r.Document)
	if err != nil {
		if inv, ok, serr := t.storeInvoice(ctx, r.Document, err); ok {
			if serr != nil {
				return nil, serr
			}
			return pinCounted(t, func() (*ReturnResult, error) { return t.returnAtStore(ctx, r, inv) })
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
	ctx = t.withOwnReturnReservation(ctx, o.Number(t.cfg.Terminal))
	res, err := t.RefundOrder(ctx, RefundRequest{OrderID: o.ID, PIN: r.PIN, Reason: reason, To: r.To, Items: items})
	if err != nil {
		return nil, err
	}
	out := &ReturnResult{Status: res.Status, Order: res.Order, Refund: res.Refund, Manager: res.Manager, Reason: res.Reason}
	if res.Status == RefundDone {
		out.CreditNote = res.Refund.Number(t.cfg.Terminal)
	}
	return out, nil
}

// refundNeedsShift refuses a refund to to that pays cash out of the drawer
// (RefundTo.MovesCash) while the counter keeps shifts and none is open: cash
// paid back leaves a counted drawer, like cash taken. A refund to a card or onto
// a credit note needs no shift.
func (t *Till) refundNeedsShift(ctx context.Context, to RefundTo) error {
	if !to.MovesCash() {
		return nil
	}
	return t.CashNeedsShift(ctx)
}

// pinCounted runs refund, authorised by a manager's PIN, under t's stop on wrong
// manager PINs (Till.gate): refused while too many were wrong, a wrong PIN
// counted, a refund done clearing the count. Every refund and return of the
// till, of its own invoices or of another counter's, goes through it.
func pinCounted[R any](t *Till, refund func() (*R, error)) (*R, error) {
	if err := t.gate(); err != nil {
		return nil, err
	}
	res, err := refund()
	if errors.Is(err, ErrWrongPIN) || err == nil {
		_ = t.counted(err)
	}
	return res, err
}

// CreditNoteDocument is the document of a credit note named by its number as
// printed ("T1/C2627/00012"), ready to print or write like a receipt.
func (t *Till) CreditNoteDocument(ctx context.Context, number string) (*Document, error) {
	o, ref, err := t.findNote(ctx, number)
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
	return t.ReceiptDocument(ctx, o.ID, n)
}

// findNote finds the order and the done refund a credit note number was given to.
func (t *Till) findNote(ctx context.Context, number string) (*Order, Refund, error) {
	series, no, ok := ParseDocNumber(strings.TrimSpace(number))
	if !ok || !strings.HasPrefix(series, "C") {
		return nil, Refund{}, Errorf("%q is not a credit note number; it reads like T1/C2627/00012.", number)
	}
	if err := t.ownDocument(number); err != nil {
		return nil, Refund{}, err
	}
	oid, uid, err := t.j.FindDocument(ctx, series, no)
	if errors.Is(err, ErrOrderNotFound) || (err == nil && uid == "") {
		return nil, Refund{}, wrapf(ErrOrderNotFound, "No credit note %s was issued on this terminal; check its number.", number)
	}
	if err != nil {
		return nil, Refund{}, err
	}
	o, err := t.eng.Order(ctx, oid)
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
func (t *Till) NoteBalance(ctx context.Context, number string) (Paise, error) {
	o, ref, err := t.findNote(ctx, number)
	if err != nil {
		return 0, err
	}
	if ref.To != RefundToNote {
		return 0, Errorf("Credit note %s was refunded to the %s, not issued to spend.", number, RefundDestination(o, ref.To))
	}
	return ref.NoteLeft(), nil
}

// PayByNote takes a sale paid wholly by a credit note to spend (tender
// "note:NUMBER"): the sale is journaled, the note's value is redeemed on it
// (journaled on the order that issued the note, before the sale completes), and
// the sale is paid and numbered. A sale above what is left on the note is
// refused; a smaller one leaves the rest on the note.
//
// When the terminal is enrolled in a store, the note is redeemed at the store
// server first (store_notes.go): a note of another counter is spent here when
// the store approves it, and a refusal or no answer abandons the sale with
// nothing taken.
func (t *Till) PayByNote(ctx context.Context, sale Sale, number string) (*Order, error) {
	o, _, err := t.PayByNoteLeft(ctx, sale, number)
	return o, err
}

// PayByNoteLeft is PayByNote that also returns what is left on the note
// afterwards (the store's word when enrolled, else this journal's).
func (t *Till) PayByNoteLeft(ctx context.Context, sale Sale, number string) (*Order, Paise, error) {
	if err := t.checkSale(ctx, sale.Lines, TenderNote); err != nil {
		return nil, 0, err // every phone carries its IMEI, sold once
	}
	printed := strings.TrimSpace(number)
	if t.eng.decisions() != nil && t.eng.foreignNote(number) {
		if err := checkNoteNumber(number); err != nil {
			return nil, 0, err // the store decides what is left on another counter's note
		}
	} else {
		_, ref, err := t.findNote(ctx, number)
		if err != nil {
			return nil, 0, err
		}
		total := ComputeTotals(sale.Lines).Total
		switch {
		case ref.To != RefundToNote:
			return nil, 0, Errorf("Credit note %s was refunded, not issued to spend.", number)
		case ref.NoteLeft() == 0:
			return nil, 0, wrapf(ErrNoteSpent, "Credit note %s is spent: nothing is left on it.", number)
		case total > ref.NoteLeft():
			return nil, 0, wrapf(ErrNoteSpent, "Credit note %s has %s left; the sale is %s. Take out items, or take the sale in another tender.", number, ref.NoteLeft(), total)
		}
		printed = ref.Number(t.cfg.Terminal)
	}
	left := Paise(-1)
	ctx = withNoteLeft(ctx, &left)
	o, err := t.eng.openNoteSale(ctx, sale, printed)
	if err != nil {
		return nil, 0, err
	}
	if err := t.eng.settleNote(ctx, o, true); err != nil {
		return o, 0, err
	}
	if left < 0 {
		if left, err = t.NoteBalance(ctx, printed); err != nil {
			return o, 0, err
		}
	}
	return o, left, nil
}

// RedeemNote spends amount of credit note number for the sale orderID, journaled
// on the order that issued the note before the sale completes: the tender code of
// a sale paid in several tenders calls it for its note part. Redeeming it again
// for the same sale changes nothing.
func (t *Till) RedeemNote(ctx context.Context, number string, amount Paise, orderID string) error {
	o, ref, err := t.findNote(ctx, number)
	if err != nil {
		return err
	}
	return t.eng.redeemNote(ctx, o.ID, NoteEvent{Number: number, IssueID: o.ID, Refund: ref.UniqueTxnID, Amount: amount, SaleID: orderID})
}

// ErrNoteSpent reports a credit note with less left than asked of it.
var ErrNoteSpent = errors.New("the credit note has not enough left")

// redeemNote journals note.redeemed on the issuing order, under its lock.
func (e *Engine) redeemNote(ctx context.Context, issueID string, n NoteEvent) error {
	unlock, err := e.lock(issueID)
	if err != nil {
		return err
	}
	defer unlock()
	issue, err := e.Order(ctx, issueID)
	if err != nil {
		return err
	}
	if ref := issue.RefundByID(n.Refund); ref != nil && slices.Contains(ref.RedeemedBy, n.SaleID) {
		return nil // redeemed for this sale already (a retry, or a sale finished after a crash)
	}
	if _, err := e.commit(ctx, issue, Event{Kind: EvNoteRedeemed, Note: &n}); err != nil {
		if errors.Is(err, ErrNotRefundable) {
			return wrapf(ErrNoteSpent, "Credit note %s has not %s left; nothing was taken from it.", n.Number, n.Amount)
		}
		return err
	}
	return nil
}

// openNoteSale journals the intent of a sale paid by credit note number.
func (e *Engine) openNoteSale(ctx context.Context, sale Sale, number string) (*Order, error) {
	id, lines, totals, err := e.startSale(ctx, sale, "open") // its phones reserved store-wide, before the note is touched
	if err != nil {
		return nil, err
	}
	o := &Order{}
	in := &Intent{Tender: TenderNote, Lines: lines, Totals: totals, Amount: totals.Total, IMEIs: allIMEIs(lines),
		Customer: sale.Customer, Note: number}
	if _, err := e.commit(ctx, o, Event{Kind: EvOrderIntent, OrderID: id, Staff: sale.Staff, Intent: in}); err != nil {
		return nil, beforeMoney(err)
	}
	return o, nil
}

// settleNoteSale finishes a sale paid by a credit note journaled at INTENT: the
// note is redeemed for it (unless it was already, before a crash), then the sale
// is paid. A note that no longer covers it abandons the sale: nothing was taken.
func (e *Engine) settleNoteSale(ctx context.Context, o *Order) error {
	evs, err := e.j.Events(ctx, o.ID)
	if err != nil {
		return err
	}
	number := ""
	if len(evs) > 0 && evs[0].Intent != nil {
		number = evs[0].Intent.Note
	}
	series, no, ok := ParseDocNumber(number)
	if !ok {
		return fmt.Errorf("pos: note sale %q: %w: no credit note named", o.ID, ErrBadEvent)
	}
	issueID, uid, err := e.j.FindDocument(ctx, series, no)
	if err != nil {
		return err
	}
	n := NoteEvent{Number: number, IssueID: issueID, Refund: uid, Amount: o.Amount, SaleID: o.ID}
	if err := e.redeemNote(ctx, issueID, n); err != nil {
		if errors.Is(err, ErrNoteSpent) {
			reason := "the credit note no longer covers the sale"
			_, aerr := e.commit(ctx, o, Event{Kind: EvOrderAbandoned, Reason: reason, Abandoned: &Abandoned{Reason: reason}})
			return errors.Join(err, aerr)
		}
		return err
	}
	_, err = e.commit(ctx, o, Event{Kind: EvNoteTendered, Staff: o.Staff, Note: &n})
	return err
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

// ReturnView finds a sale for the Returns screen by its invoice number or order
// id (typed or scanned from its QR code's order id).
func (t *Till) ReturnView(ctx context.Context, doc string) (*SaleForReturn, error) {
	o, err := t.FindSale(ctx, doc)
	if err != nil {
		if inv, ok, serr := t.storeInvoice(ctx, doc, err); ok {
			if serr != nil {
				return nil, serr
			}
			return t.foreignReturnView(inv), nil
		}
		return nil, err
	}
	if !o.State.Paid() {
		return nil, wrapf(ErrNotRefundable, "Sale %s is %s, not paid: nothing of it can be returned.", o.ID, o.State)
	}
	v := &SaleForReturn{OrderID: o.ID, Number: o.Number(t.cfg.Terminal), At: saleTime(*o).In(IST).Format("02 Jan 2006"),
		Tender: o.Tender, Refundable: o.Refundable(), To: ReturnDestinations(o)}
	if o.Tender == TenderSplit {
		left, err := t.eng.splitLeft(ctx, o)
		if err != nil {
			return nil, err
		}
		v.Refundable, v.To = left.Total, splitDestinations(left)
	}
	for i, l := range o.Lines {
		ret := o.Returned(i)
		v.Lines = append(v.Lines, ReturnableLine{SKU: l.SKU, Name: l.Name, Sold: l.Qty, Returned: ret, Left: l.Qty - ret,
			Amount: l.Amount(), IMEIs: slices.Clone(l.IMEIs)})
	}
	return v, nil
}

// SearchDays is how many days back FindSale searches by IMEI, card or phone.
const SearchDays = 90

// searchSale finds the one paid sale of the last SearchDays days that sold the
// IMEI q, was paid by a card ending q, or names the mobile number q.
func (t *Till) searchSale(ctx context.Context, q string) (*Order, error) {
	var found []*Order
	day := t.eng.clock.Now()
	for i := 0; i < SearchDays && len(found) <= 5; i++ {
		orders, err := t.j.OrdersByDay(ctx, ToDay(day.AddDate(0, 0, -i)))
		if err != nil {
			return nil, err
		}
		for _, o := range orders {
			if o.State.Paid() && saleMatches(o, q) && !slices.ContainsFunc(found, func(f *Order) bool { return f.ID == o.ID }) {
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
		names = append(names, o.Number(t.cfg.Terminal)+" of "+saleTime(*o).In(IST).Format("02 Jan"))
	}
	return nil, Errorf("Several sales match %s: %s. Type the invoice number.", q, strings.Join(names, ", "))
}

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

// ownDocument refuses a document number that names another terminal: each
// terminal numbers its own documents, so the number means another sale here.
func (t *Till) ownDocument(doc string) error {
	term, rest, ok := strings.Cut(strings.TrimSpace(doc), "/")
	if !ok || !strings.Contains(rest, "/") || term == t.cfg.Terminal {
		return nil
	}
	return wrapf(ErrOrderNotFound, "%s was issued by terminal %s, not this one (%s): take it back at %s.", doc, term, t.cfg.Terminal, term)
}

// tillNotes is the till's credit-note ledger as a split sale's note tender
// uses it (NoteRedeemer): a redemption journaled on the issuing order, keyed by
// the tender's order id, and given back when the tender is undone.
type tillNotes struct{ t *Till }

func (n tillNotes) Redeem(ctx context.Context, noteNo string, amount Paise, ref string) error {
	return n.t.redeemTender(ctx, noteNo, amount, ref)
}

func (n tillNotes) Restore(ctx context.Context, noteNo string, amount Paise, ref string) error {
	if err := n.t.restoreAtStore(ctx, ref); err != nil {
		return err // given back at the store first: a void waits for it
	}
	if n.t.eng.decisions() != nil && n.t.eng.foreignNote(noteNo) {
		return nil // another counter's note: the store's balance is its ledger
	}
	o, r, err := n.t.findNote(ctx, noteNo)
	if err != nil {
		return err
	}
	e := n.t.eng
	unlock, err := e.lock(o.ID)
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
	_, err = e.commit(ctx, issue, Event{Kind: EvNoteRestored, Note: &NoteEvent{Number: noteNo, IssueID: o.ID, Refund: r.UniqueTxnID, Amount: amount, SaleID: ref}})
	return err
}
