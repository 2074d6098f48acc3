package pos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
)

// Sales keeps a sale and its tenders: it opens a sale, adds and settles its
// tenders (card, UPI, cash, a credit note), settles the sale once covered, voids
// it giving each paid tender back, and lists the sales left open.
type Sales struct{ *engineCore }

// ErrNoteSpent reports a credit note with less left than asked of it.
var ErrNoteSpent = errors.New("the credit note has not enough left")

// startSale does what a sale opened without a payment service order does
// before its intent is journaled: the journal and the business day are checked,
// the lines copied and totalled, the order named, and its phones reserved
// store-wide (before any tender or note is touched). op names the operation in
// errors.
func (sl *Sales) startSale(ctx context.Context, sale Sale, op string) (id string, lines []Line, totals Totals, err error) {
	if len(sale.Lines) == 0 {
		return "", nil, Totals{}, fmt.Errorf("pos: %s: %w", op, ErrEmptyCart)
	}
	if err := sl.journalReady(ctx); err != nil {
		return "", nil, Totals{}, err
	}
	if err := sl.refuseWhileUnrecorded(); err != nil {
		return "", nil, Totals{}, err
	}
	if err := sl.dayOpen(ctx, sl.today()); err != nil {
		return "", nil, Totals{}, err
	}
	lines = make([]Line, len(sale.Lines))
	for i, l := range sale.Lines {
		lines[i] = l.clone()
	}
	totals = ComputeTotals(lines)
	if id, err = sl.newID(sl.cfg.Terminal); err != nil {
		return "", nil, Totals{}, err
	}
	if err := sl.store.reserveIMEIs(ctx, id, lines, sale.OverrideIMEIs); err != nil {
		return "", nil, Totals{}, err
	}
	return id, lines, totals, nil
}

// OpenSale journals a split-tender sale: its lines and amount, and no payment
// yet. No network is needed.
func (sl *Sales) OpenSale(ctx context.Context, sale Sale) (*Order, error) {
	id, lines, totals, err := sl.startSale(ctx, sale, "open sale") // its phones reserved under the sale, before any tender
	if err != nil {
		return nil, err
	}
	o := &Order{}
	in := &Intent{Tender: TenderSplit, Lines: lines, Totals: totals, Amount: totals.Total, IMEIs: allIMEIs(lines), Customer: sale.Customer, Buyer: sale.Buyer}
	if _, err := sl.commit(ctx, o, Event{Kind: EvOrderIntent, OrderID: id, Staff: sale.Staff, Intent: in}); err != nil {
		return nil, beforeMoney(err)
	}
	return o, nil
}

// SaleStatus reads a split sale and its tenders' orders.
func (sl *Sales) SaleStatus(ctx context.Context, id string) (*SaleStatus, error) {
	s, err := sl.order(ctx, id)
	if err != nil {
		return nil, err
	}
	st, err := sl.saleOf(ctx, s)
	if err != nil {
		return nil, err
	}
	if !st.split {
		return nil, fmt.Errorf("pos: sale %q: %w", id, ErrNotSplitSale)
	}
	return st, nil
}

// saleOf reads sale o and its tenders' orders from the journal (saleView).
func (sl *Sales) saleOf(ctx context.Context, o *Order) (*SaleStatus, error) {
	return saleView(o, func(id string) (*Order, error) { return sl.tenderOrder(ctx, id) })
}

// tenderOrder loads a tender's order, following a sale moved to a fresh order
// id after a lost create-order answer; nil when its intent was never journaled
// (the terminal stopped between tender.added and the intent: nothing was sent).
func (sl *Sales) tenderOrder(ctx context.Context, id string) (*Order, error) {
	for range 5 {
		o, err := sl.j.Order(ctx, id)
		if errors.Is(err, ErrOrderNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("pos: tender order %q: %w", id, err)
		}
		if o.State != StateAbandoned || o.MovedTo == "" {
			return o, nil
		}
		id = o.MovedTo
	}
	return nil, fmt.Errorf("pos: tender order %q: %w: moved too often", id, ErrBadEvent)
}

// tenderEvent checks that t may be added to sale st (open, its amount left
// to pay; amount 0 is all that is left) and returns it with its order's id
// and amount, and the tender.added event that adds it. Nothing is journaled:
// tender.added goes in the same commit as the tender's intent (openTender).
func (sl *Sales) tenderEvent(st *SaleStatus, t SaleTender, staff string) (SaleTender, Event, error) {
	amount := t.Amount
	if st.Sale.State != StateOpen {
		return SaleTender{}, Event{}, fmt.Errorf("pos: sale %q is %s: %w", st.Sale.ID, st.Sale.State, ErrSaleClosed)
	}
	if amount == 0 {
		amount = st.Due
	}
	if amount <= 0 || amount > st.Due {
		return SaleTender{}, Event{}, &TenderError{Amount: amount, Due: st.Due, Pending: st.Pending}
	}
	id, err := sl.newID(sl.cfg.Terminal)
	if err != nil {
		return SaleTender{}, Event{}, err
	}
	t.OrderID, t.Amount = id, amount
	return t, Event{Kind: EvTenderAdded, Staff: staff, Sale: &SaleEvent{Tender: &t}}, nil
}

// openTender adds tender t to sale st (tenderEvent) and opens its order
// (Payments.open, for a tender of the service up to create order): tender.added
// is journaled in the same commit as the tender's intent, after lead (the
// sale's own intent, for a sale opened with its tender), so a crash leaves the
// sale with its tender and the tender's intent, or neither. sale is the sale's
// order tender.added is applied to (st.Sale, or for a sale opened with its
// tender the order its intent in lead is applied to). The caller holds the
// sale's lock.
func (sl *Sales) openTender(ctx context.Context, sale *Order, st *SaleStatus, t SaleTender, staff string, plan *EMIPlan, opt PayOptions,
	imeis []UnitIMEI, lead ...change) (*Order, error) {
	t, added, err := sl.tenderEvent(st, t, staff)
	if err != nil {
		return nil, err
	}
	return sl.payments.open(ctx, Sale{Lines: st.Sale.Lines, Staff: staff, Customer: st.Sale.Customer}, t.Kind, plan, opt,
		part{Sale: st.Sale.ID, ID: t.OrderID, Amount: t.Amount, IMEIs: imeis, lead: append(lead, change{sale, added})})
}

// openWith opens sale with its one tender of kind, for all of it, and the
// tender's order (for a tender of the service, up to create order): the sale's
// intent, tender.added and the tender's intent are one commit, not three. It
// returns the sale's id once journaled ("" when nothing was) and the tender's
// order, locking the sale from its intent on; unlock releases it (nil when
// nothing was locked).
func (sl *Sales) openWith(ctx context.Context, sale Sale, kind TenderKind, plan *EMIPlan, opt PayOptions, imeis ...UnitIMEI) (saleID string, o *Order, unlock func(), err error) {
	if kind == TenderSplit || !kind.valid() {
		return "", nil, nil, fmt.Errorf("pos: open sale: %w: tender %s", ErrBadEvent, kind)
	}
	if !kind.local() && sl.gw == nil {
		return "", nil, nil, fmt.Errorf("pos: open sale: %w", ErrNoGateway)
	}
	id, lines, totals, err := sl.startSale(ctx, sale, "open sale") // its phones reserved under the sale, before any tender
	if err != nil {
		return "", nil, nil, err
	}
	in := &Intent{Tender: TenderSplit, Lines: lines, Totals: totals, Amount: totals.Total, IMEIs: allIMEIs(lines), Customer: sale.Customer, Buyer: sale.Buyer}
	intent := Event{Kind: EvOrderIntent, OrderID: id, Staff: sale.Staff, Intent: in}
	// The sale as its intent will leave it, to check its tender against; s,
	// below, is the order the intent is applied to once journaled.
	opened := &Order{}
	ev := intent
	ev.V, ev.Time, ev.Day = EventVersion, sl.now(), sl.today()
	if err := opened.Apply(ev); err != nil {
		return "", nil, nil, err
	}
	st, err := saleView(opened, nil) // no tender yet: none is loaded
	if err != nil {
		return "", nil, nil, err
	}
	if unlock, err = sl.lockSale(id); err != nil {
		return "", nil, nil, err
	}
	s := &Order{}
	o, err = sl.openTender(ctx, s, st, SaleTender{Kind: kind}, sale.Staff, plan, opt, imeis, change{s, intent})
	return s.ID, o, unlock, err
}

// holdSaleFor locks the split sale that tender order o pays part of and checks
// that o may take money again: the sale is open and o's amount is not more than
// is left to pay (o itself, FAILED, reserves nothing). It returns the sale's
// unlock; for an order of no split sale it does nothing.
func (sl *Sales) holdSaleFor(ctx context.Context, o *Order) (func(), error) {
	if o.Sale == "" {
		return func() {}, nil
	}
	unlock, err := sl.lockSale(o.Sale)
	if err != nil {
		return nil, err
	}
	st, err := sl.SaleStatus(ctx, o.Sale)
	if err == nil && st.Sale.State != StateOpen {
		err = wrapf(fmt.Errorf("pos: sale %q is %s: %w", o.Sale, st.Sale.State, ErrSaleClosed),
			"The sale %s is no longer open (%s); nothing more is taken for it.", o.Sale, saleStateWords(st.Sale.State))
	}
	if err == nil && o.Amount > st.Due {
		err = &TenderError{Amount: o.Amount, Due: st.Due, Pending: st.Pending}
	}
	if err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}

// SaleCash takes amount of a split sale in cash (0: all that is left), with
// tendered handed over (0: exactly amount); the change is tendered − amount. It
// completes the sale when that covers it.
func (sl *Sales) SaleCash(ctx context.Context, saleID string, amount, tendered Paise, staff string) (*Result, *SaleStatus, error) {
	return sl.saleLocal(ctx, saleID, TenderCash, amount, tendered, "", staff, sl.takeCash(tendered, staff))
}

// takeCash is the cash.received of a cash tender, tendered handed over (0:
// exactly its amount).
func (sl *Sales) takeCash(tendered Paise, staff string) func(*Order) (Event, bool, error) {
	return func(o *Order) (Event, bool, error) {
		if tendered == 0 {
			tendered = o.Amount
		}
		back, err := CashTender{Tendered: tendered}.Change(o.Amount)
		if err != nil {
			return Event{}, false, err
		}
		return Event{Kind: EvCashReceived, Staff: staff, Cash: &CashEvent{Tendered: tendered, Change: back}}, false, nil
	}
}

// SaleUPI records amount of a split sale paid by UPI to the shop's VPA (0: all
// that is left), as the cashier staff confirmed it arrived: journaled as
// confirmed by the cashier, never as verified.
func (sl *Sales) SaleUPI(ctx context.Context, saleID string, amount Paise, staff string) (*Result, *SaleStatus, error) {
	if staff == "" {
		return nil, nil, sentenceErr("Sign in before confirming a UPI payment: the journal names who confirmed it.")
	}
	return sl.saleLocal(ctx, saleID, TenderUPI, amount, 0, "", staff, func(o *Order) (Event, bool, error) {
		return Event{Kind: EvUPIConfirmed, Staff: staff}, false, nil
	})
}

// SaleNote redeems credit note noteNo for amount of a split sale (0: all that
// is left) in the credit-note ledger (Config.Notes); the result says what is
// left on the note (Result.NoteLeft).
func (sl *Sales) SaleNote(ctx context.Context, saleID, noteNo string, amount Paise, staff string) (*Result, *SaleStatus, error) {
	if sl.cfg.Notes == nil {
		return nil, nil, ErrNoNotes
	}
	if noteNo == "" {
		return nil, nil, sentenceErr("Type the credit note's number.")
	}
	left := Paise(-1)
	res, st, err := sl.saleLocal(ctx, saleID, TenderNote, amount, 0, noteNo, staff, func(o *Order) (Event, bool, error) {
		var err error
		if left, err = sl.cfg.Notes.Redeem(ctx, noteNo, o.Amount, o.ID); err != nil {
			// Not redeemed: the tender's order is closed and the sale still open.
			reason := "the credit note was refused: " + Sentence(err)
			if _, aerr := sl.commit(ctx, o, Event{Kind: EvOrderAbandoned, Reason: reason, Abandoned: &Abandoned{Reason: reason}}); aerr != nil {
				return Event{}, false, errors.Join(err, aerr)
			}
			return Event{}, false, err
		}
		return Event{Kind: EvTenderNoteRedeemed, Staff: staff, Sale: &SaleEvent{NoteNo: noteNo}}, true, nil
	})
	if res != nil {
		res.NoteLeft = left
	}
	return res, st, err
}

// saleLocal adds a local tender to a split sale: tender.added with the tender's
// order's intent, then what take says was received (moved: the note's value
// moved, so it is recorded), with the sale's completion when it covers the
// sale (journalTender). Cash tendered (0: exactly the amount) too short for the
// amount (0: all that is left) is refused before anything is journaled: a
// tender journaled and never taken would hold the sale's amount as in flight.
func (sl *Sales) saleLocal(ctx context.Context, saleID string, kind TenderKind, amount, tendered Paise, noteNo, staff string, take func(*Order) (Event, bool, error)) (*Result, *SaleStatus, error) {
	unlock, err := sl.lockSale(saleID)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	st, err := sl.SaleStatus(ctx, saleID)
	if err != nil {
		return nil, nil, err
	}
	if tendered != 0 {
		due := amount
		if due == 0 {
			due = st.Due
		}
		if _, err := (CashTender{Tendered: tendered}).Change(due); err != nil {
			return nil, nil, err
		}
	}
	o, err := sl.openTender(ctx, st.Sale, st, SaleTender{Kind: kind, Amount: amount, NoteNo: noteNo}, staff, nil, PayOptions{}, nil)
	if err != nil {
		return nil, nil, err
	}
	return sl.takeLocal(ctx, saleID, o, take)
}

// takeLocal journals what take says local tender o received, with its sale's
// completion when it covers the sale (journalTender), and returns the sale.
// The caller holds the sale's lock.
func (sl *Sales) takeLocal(ctx context.Context, saleID string, o *Order, take func(*Order) (Event, bool, error)) (*Result, *SaleStatus, error) {
	ev, moved, err := take(o)
	if err != nil {
		return nil, nil, err
	}
	if err := sl.journalTender(ctx, saleID, o, ev, moved); err != nil {
		return nil, nil, err
	}
	st, err := sl.settleSale(ctx, saleID)
	if err != nil {
		return nil, nil, err
	}
	return &Result{Status: ResultPaid, Order: o}, st, nil
}

// saleCashOpening opens sale and takes all of it in cash, tendered handed
// over (0: exactly its amount): the sale's intent, its tender and the
// tender's intent are one commit, the cash received and the sale's
// completion another.
func (sl *Sales) saleCashOpening(ctx context.Context, sale Sale, tendered Paise) (string, *Result, *SaleStatus, error) {
	if tendered != 0 {
		if _, err := (CashTender{Tendered: tendered}).Change(ComputeTotals(sale.Lines).Total); err != nil {
			return "", nil, nil, err // short: nothing is journaled
		}
	}
	id, o, unlock, err := sl.openWith(ctx, sale, TenderCash, nil, PayOptions{})
	if unlock != nil {
		defer unlock()
	}
	if err != nil {
		return id, nil, nil, err
	}
	res, st, err := sl.takeLocal(ctx, id, o, sl.takeCash(tendered, sale.Staff))
	return id, res, st, err
}

// journalTender journals ev of tender order o of sale saleID and, in the
// same commit, the sale's completion when ev leaves the sale covered with
// nothing in flight (completion): one commit where there were two, and no
// state in between for a crash to leave. moved says money moved with ev: it
// is recorded (record). A completion the state machine refuses is left to
// settleSale, ev journaled alone. The caller holds the sale's lock.
func (sl *Sales) journalTender(ctx context.Context, saleID string, o *Order, ev Event, moved bool) error {
	write := sl.commitAll
	if moved {
		write = sl.recordAll
	}
	if done, ok := sl.completion(ctx, saleID, o, ev); ok {
		_, err := write(ctx, change{o, ev}, done)
		if err == nil || errors.Is(err, errJournalWrite) {
			return err
		}
		sl.log.LogAttrs(ctx, slog.LevelWarn, "pos: sale not completed with its tender", slog.String("sale", saleID), slog.String("error", err.Error()))
	}
	_, err := write(ctx, change{o, ev})
	return err
}

// completion is the sale.completed of sale saleID when ev, journaled for its
// tender order o, makes o paid and leaves the sale covered with nothing in
// flight, as settleSale would find it once ev is journaled; false when it does
// not. A credit note of a tender closed unpaid is given back first, as
// settleSale does. The caller holds the sale's lock.
func (sl *Sales) completion(ctx context.Context, saleID string, o *Order, ev Event) (change, bool) {
	next := o.Clone()
	if ev.Time.IsZero() {
		ev.Time = sl.now()
	}
	if ev.OrderID == "" {
		ev.OrderID = o.ID
	}
	if next.Apply(ev) != nil || !next.State.Paid() {
		return change{}, false
	}
	sale, err := sl.j.Order(ctx, saleID)
	if err != nil || sale.State != StateOpen {
		return change{}, false
	}
	st, err := saleView(sale, func(id string) (*Order, error) {
		t, err := sl.tenderOrder(ctx, id)
		if t != nil && t.ID == o.ID {
			return next, nil
		}
		return t, err
	})
	if err != nil || !st.split {
		return change{}, false
	}
	sl.restoreNotes(ctx, st)
	if st.Pending > 0 || st.Paid < st.Sale.Amount {
		return change{}, false
	}
	return change{sale, completedEvent(st)}, true
}

// completedEvent is the sale.completed of sale st, covered by its paid
// tenders.
func completedEvent(st *SaleStatus) Event {
	ev := &SaleEvent{Verified: true}
	var paidBy []string
	for _, t := range st.Tenders {
		if t.Paid() {
			ev.Covered = append(ev.Covered, t.Order.ID)
			ev.Verified = ev.Verified && t.Verified
			paidBy = append(paidBy, tenderText(*t.Order))
		}
	}
	ev.PaidBy = strings.Join(paidBy, " + ")
	return Event{Kind: EvSaleCompleted, Sale: ev}
}

// OpenSaleTender adds a card, EMI or phone tender to a split sale (amount 0: all
// that is left) and opens its order at the payment service; the caller pays it
// (PayCard, PayEMI, or the phone page and Await) and then calls SettleSale.
//
// imeis are the serialised units' IMEIs a brand-EMI offer needs (the sale may
// have been journaled without them).
func (sl *Sales) OpenSaleTender(ctx context.Context, saleID string, kind TenderKind, amount Paise, plan *EMIPlan, staff string, opt PayOptions, imeis ...UnitIMEI) (*Order, error) {
	if kind.local() || kind == TenderSplit || !kind.valid() {
		return nil, fmt.Errorf("pos: open tender: %w: %s is not paid at the service", ErrBadEvent, kind)
	}
	if sl.gw == nil {
		return nil, fmt.Errorf("pos: open tender: %w", ErrNoGateway)
	}
	unlock, err := sl.lockSale(saleID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	st, err := sl.SaleStatus(ctx, saleID)
	if err != nil {
		return nil, err
	}
	return sl.openTender(ctx, st.Sale, st, SaleTender{Kind: kind, Amount: amount}, staff, plan, opt, imeis)
}

// OpenSaleTenderChecked adds a brand-EMI tender to a split sale and opens its
// order as OpenSaleTender does (tender.added, then the tender's order.intent,
// then create order), and, when the offer makes IMEIs mandatory, validates
// them with the service at once, before any card data is sent (the validation
// needs the order's token, contract section 5). A tender whose IMEIs are
// refused is closed (no payment was sent on it), so the sale's due amount is
// free again and its other tenders stay as they are.
func (sl *Sales) OpenSaleTenderChecked(ctx context.Context, saleID string, amount Paise, plan EMIPlan, staff string, opt PayOptions, imeis ...UnitIMEI) (*Order, error) {
	o, err := sl.OpenSaleTender(ctx, saleID, TenderEMI, amount, &plan, staff, opt, imeis...)
	if err != nil {
		return nil, err
	}
	return sl.payments.checkIMEIsFirst(ctx, o, plan, opt)
}

// SettleSale completes a split sale whose paid tenders cover it and none is in
// flight: sale.completed allocates its document number. It is safe to call at
// any time, and again after a restart: a sale already complete is left as it is.
func (sl *Sales) SettleSale(ctx context.Context, saleID string) (*SaleStatus, error) {
	unlock, err := sl.lockSale(saleID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return sl.settleSale(ctx, saleID)
}

func (sl *Sales) settleSale(ctx context.Context, saleID string) (*SaleStatus, error) {
	st, err := sl.SaleStatus(ctx, saleID)
	if err != nil {
		return nil, err
	}
	if st.Sale.State != StateOpen {
		return st, nil
	}
	sl.restoreNotes(ctx, st)
	if st.Pending > 0 || st.Paid < st.Sale.Amount {
		return st, nil
	}
	if _, err := sl.record(ctx, st.Sale, completedEvent(st)); err != nil {
		return nil, err
	}
	return sl.SaleStatus(ctx, saleID)
}

// restoreNotes gives back the credit note of each note tender of st whose
// order was closed unpaid (refused, or the terminal stopped before
// note.redeemed); Restore is idempotent, so a note never redeemed is left as it
// is.
func (sl *Sales) restoreNotes(ctx context.Context, st *SaleStatus) {
	for _, t := range st.Tenders {
		if t.Kind == TenderNote && t.Order != nil && t.State == StateAbandoned && sl.cfg.Notes != nil {
			if err := sl.cfg.Notes.Restore(ctx, t.NoteNo, t.Amount, t.Order.ID); err != nil {
				sl.log.LogAttrs(ctx, slog.LevelWarn, "pos: restore credit note", slog.String("order", t.Order.ID), slog.String("error", err.Error()))
			}
		}
	}
}

// HoldsNoMoney reports whether an open sale has nothing paid and no tender in
// flight: nothing of it is to give back, so it may be dropped (DropSale)
// without a manager, and the close of day drops it.
func (s *SaleStatus) HoldsNoMoney() bool {
	return s.Sale.State == StateOpen && s.Paid == 0 && s.Pending == 0
}

// ErrHoldsMoney refuses to drop a sale that has a tender paid or in flight: it
// is voided, by a manager's PIN, giving each paid tender back.
var ErrHoldsMoney = errors.New("the sale holds money")

// lockOpenSale locks sale saleID for act ("drop", "void") and returns it open,
// each tender not final checked once first (settlePendingTenders); unlock
// releases the sale. A sale no longer open is ErrSaleClosed.
func (sl *Sales) lockOpenSale(ctx context.Context, saleID, act string) (*SaleStatus, func(), error) {
	unlock, err := sl.lockSale(saleID)
	if err != nil {
		return nil, nil, err
	}
	st, err := sl.SaleStatus(ctx, saleID)
	if err == nil && st.Sale.State != StateOpen {
		err = fmt.Errorf("pos: %s %q is %s: %w", act, saleID, st.Sale.State, ErrSaleClosed)
	}
	if err == nil && st.Pending > 0 {
		st, err = sl.settlePendingTenders(ctx, st)
	}
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return st, unlock, nil
}

// DropSale closes open sale saleID that holds no money (HoldsNoMoney), for
// staff and with no manager's PIN: nothing is given back because nothing was
// taken. A tender not final is checked once first, as VoidSale does; a credit
// note tendered and refused is given back to its note. It is journaled as
// sale.voided marked dropped.
func (sl *Sales) DropSale(ctx context.Context, saleID, staff, reason string) (*SaleStatus, error) {
	if err := sl.journalReady(ctx); err != nil {
		return nil, err
	}
	st, unlock, err := sl.lockOpenSale(ctx, saleID, "drop")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if !st.HoldsNoMoney() {
		return nil, wrapf(ErrHoldsMoney, "Sale %s has %s paid or being checked: a manager voids it, giving each paid tender back.", saleID, st.Paid+st.Pending)
	}
	return sl.drop(ctx, st, staff, reason)
}

// drop journals the drop of sale st, which holds no money. The caller holds
// the sale's lock.
func (sl *Sales) drop(ctx context.Context, st *SaleStatus, staff, reason string) (*SaleStatus, error) {
	sl.restoreNotes(ctx, st)
	if reason == "" {
		reason = "nothing was paid: the sale was dropped"
	}
	if _, err := sl.commit(ctx, st.Sale, Event{Kind: EvSaleVoided, Staff: staff, Reason: reason, Sale: &SaleEvent{Dropped: true}}); err != nil {
		return nil, err
	}
	return sl.SaleStatus(ctx, st.Sale.ID)
}

// dropEmptySales drops every open sale that holds no money, for the close of
// day (Ledger.CloseDay), and returns their ids. A sale with a tender not final
// is left open: the close of day deals with payments still unknown.
func (sl *Sales) dropEmptySales(ctx context.Context, staff string) ([]string, error) {
	sales, err := sl.OpenSales(ctx)
	if err != nil {
		return nil, err
	}
	var dropped []string
	for _, s := range sales {
		unlock, err := sl.lockSale(s.ID)
		if err != nil {
			continue // being paid now
		}
		st, err := sl.SaleStatus(ctx, s.ID)
		if err == nil && st.HoldsNoMoney() {
			_, err = sl.drop(ctx, st, staff, "nothing was paid: dropped at the close of day")
			if err == nil {
				dropped = append(dropped, s.ID)
			}
		}
		unlock()
		if err != nil {
			return dropped, err
		}
	}
	return dropped, nil
}

// OpenSales lists the split sales still open (part paid, or not paid at all),
// oldest first: the counter shows them again after a restart, however long ago
// they were opened. They are the split sales the journal's events opened that
// are not paid or voided yet, kept as a snapshot (sales_book.go): a close of
// day after weeks without a Z report reads them, not the weeks' orders.
func (sl *Sales) OpenSales(ctx context.Context) ([]*Order, error) {
	out, err := sl.openBook.openSales(ctx, sl.j, func() ([]*Order, error) { return sl.openSalesByDays(ctx) })
	if errors.Is(err, ErrNoEventLog) {
		out, err = sl.openSalesByDays(ctx)
	}
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b *Order) int { return a.Opened.Compare(b.Opened) })
	return out, nil
}

// openSalesByDays finds the split sales still open by the days' orders: read
// back from the business day open now to the last Z report that lists the
// sales open at its close (Report.OpenAtClose), whose sales still open are
// taken as well; a journal whose Z reports do not list them (written before
// they did) is read back openSalesDays days. What OpenSales reads where no
// snapshot of them was sealed yet, or where the journal keeps none.
func (sl *Sales) openSalesByDays(ctx context.Context) ([]*Order, error) {
	var out []*Order
	seen := map[string]bool{}
	keep := func(o *Order) {
		if o.State == StateOpen && !seen[o.ID] { // only a split sale is ever OPEN
			seen[o.ID] = true
			out = append(out, o)
		}
	}
	today, err := time.ParseInLocation(DayLayout, sl.today(), sl.clock.Now().Location())
	if err != nil {
		today = sl.clock.Now()
	}
	for d := range maxOpenSalesDays {
		day := ToDay(today.AddDate(0, 0, -d))
		orders, err := sl.j.OrdersByDay(ctx, day)
		if err != nil {
			return nil, fmt.Errorf("pos: open sales: %w", err)
		}
		for _, o := range orders {
			keep(o)
		}
		listed, zed, ok, err := sl.openAtClose(ctx, day)
		if err != nil {
			return nil, fmt.Errorf("pos: open sales: %w", err)
		}
		if !ok {
			if zed && d >= openSalesDays {
				break // a Z report written before they were listed: no older list to follow
			}
			continue
		}
		for _, id := range listed {
			o, err := sl.j.Order(ctx, id)
			if err != nil {
				return nil, fmt.Errorf("pos: open sales: %w", err)
			}
			keep(o)
		}
		break
	}
	return out, nil
}

// openAtClose returns the sales the Z report of day listed as open at its
// close; zed is whether day has a Z report, ok whether it lists them.
func (sl *Sales) openAtClose(ctx context.Context, day string) (ids []string, zed, ok bool, err error) {
	dc, err := sl.j.DayClose(ctx, day)
	if err != nil || dc == nil {
		return nil, false, false, err
	}
	var r struct {
		OpenAtClose []string `json:"open_at_close"`
		OpenListed  bool     `json:"open_listed"`
	}
	if err := json.Unmarshal(dc.Report, &r); err != nil {
		return nil, true, false, fmt.Errorf("the Z report of %s: %w", day, err)
	}
	return r.OpenAtClose, true, r.OpenListed, nil
}

// settleOpenSales completes the open split sales whose tenders now cover them
// (the terminal stopped after the last tender was paid, before the sale was
// completed). Reconcile runs it after resolving the tenders.
func (sl *Sales) settleOpenSales(ctx context.Context) {
	sales, err := sl.OpenSales(ctx)
	if err != nil {
		sl.log.LogAttrs(ctx, slog.LevelWarn, "pos: open sales", slog.String("error", err.Error()))
		return
	}
	for _, s := range sales {
		if _, err := sl.SettleSale(ctx, s.ID); err != nil {
			sl.log.LogAttrs(ctx, slog.LevelWarn, "pos: settle sale", slog.String("sale", s.ID), slog.String("error", err.Error()))
		}
	}
}

// VoidSale voids an open split sale, authorised by a manager's PIN: every paid
// tender is refunded — card, EMI and phone through the payment service
// (Engine.Refunds.Refund), cash in cash, UPI back to the customer by the cashier, a
// credit note back to its note — each with its refund document, and then
// sale.voided is journaled. A tender still in flight refuses the void (check it
// first); a refund whose answer is not in leaves the sale open, to be voided
// again once it is settled (the refund is never sent twice).
func (sl *Sales) VoidSale(ctx context.Context, saleID, pin, reason string) (*SaleStatus, error) {
	if err := sl.journalReady(ctx); err != nil {
		return nil, err
	}
	mgr, err := sl.roster.AuthoriseManager(ctx, pin, sl.clock.Now())
	if err != nil {
		return nil, err
	}
	// A tender not final is checked once (lockOpenSale): one that sent nothing
	// is closed, one the service decided is settled; only a payment really in
	// flight (being paid now, or not decided at the service) stops the void.
	st, unlock, err := sl.lockOpenSale(ctx, saleID, "void")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if st.Pending > 0 {
		return nil, sentenceErr(fmt.Sprintf("A payment of %s on this sale is still being checked; use Check now, then void the sale.", st.Pending))
	}
	if reason == "" {
		reason = "sale voided"
	}
	for _, t := range st.Tenders {
		if !t.Paid() || t.Order.Refundable() <= 0 {
			continue
		}
		if t.Order.PendingRefund() != nil {
			return st, sentenceErr("A refund of this sale is still being checked; check it, then void the sale again.")
		}
		if !t.Kind.local() {
			res, err := sl.refunds.Refund(ctx, RefundRequest{OrderID: t.Order.ID, PIN: pin, Reason: reason})
			if err != nil {
				return nil, err
			}
			if res.Status != RefundDone {
				return sl.SaleStatus(ctx, saleID)
			}
			continue
		}
		noteNo := ""
		if t.Kind == TenderNote {
			noteNo = t.Order.NoteNo
		}
		if err := sl.giveBackLocal(ctx, t.Order, noteNo, mgr.ID, reason, false); err != nil {
			return nil, err
		}
	}
	if _, err := sl.commit(ctx, st.Sale, Event{Kind: EvSaleVoided, Staff: mgr.ID, Reason: reason}); err != nil {
		return nil, err
	}
	return sl.SaleStatus(ctx, saleID)
}

// settlePendingTenders tries once to make the pending tenders of sale st final
// before it is voided, and returns the sale as it is then. A tender whose order
// is being paid now (its lock is held) is left as it is. One whose create order
// was never answered is abandoned as the reconciler does (no payment is ever
// sent before order.created). A card or EMI tender created and never paid (no
// attempt journaled) is abandoned when a verified inquiry shows the service holds
// no payment on it: the first attempt is journaled with its answer, so only the
// service can tell whether one was sent before a stop. Any other is inquired as
// the reconciler would, and its verified answer applied. The caller holds the
// sale's lock.
func (sl *Sales) settlePendingTenders(ctx context.Context, st *SaleStatus) (*SaleStatus, error) {
	unrecorded := sl.held()
	for _, t := range st.Tenders {
		if !t.Pending() || slices.Contains(unrecorded, t.Order.ID) {
			continue
		}
		unlock, err := sl.lock(t.Order.ID)
		if err != nil {
			continue // being paid now
		}
		err = sl.settlePendingTender(ctx, t.Order.ID)
		unlock()
		if err != nil && ctx.Err() != nil {
			return nil, err
		}
		if err != nil {
			sl.log.LogAttrs(ctx, slog.LevelWarn, "pos: void: tender", slog.String("order", t.Order.ID), slog.String("error", err.Error()))
		}
	}
	return sl.SaleStatus(ctx, st.Sale.ID)
}

// settlePendingTender is one tender of settlePendingTenders. The caller holds
// the tender's order's lock.
func (sl *Sales) settlePendingTender(ctx context.Context, id string) error {
	o, err := sl.j.Order(ctx, id)
	if err != nil {
		return err
	}
	neverPaid := o.State == StateCreated && len(o.Attempts) == 0 && (o.Tender == TenderCard || o.Tender == TenderEMI)
	if !neverPaid {
		return sl.payments.reconcileOne(ctx, o)
	}
	if sl.gw == nil {
		return ErrNoGateway
	}
	q, err := sl.gw.InquireOrder(ctx, o.ServiceOrderID)
	if err != nil {
		return err
	}
	out := outcomeOf(q)
	if !q.Verified || o.AnswerMismatch(&out) != "" || !noPaymentApplied(&out) {
		return sl.payments.reconcileOne(ctx, o) // a payment may be on it: the reconciler's way
	}
	reason := "the sale was voided before this tender was paid; the payment service holds no payment on it"
	_, err = sl.commit(ctx, o, Event{Kind: EvOrderAbandoned, Reason: reason, Abandoned: &Abandoned{Reason: reason}})
	return err
}

// giveBackLocal gives back what is left of o, a tender taken at the counter
// (cash, UPI, a credit note), for a void of its sale or, cancel set, a
// cancellation of its invoice: a credit note's value goes back onto noteNo first
// (Restore is idempotent), then the refund's intent and at once its end are
// journaled. A void's refund gets the refund document's number; a
// cancellation's is marked Cancel, names the goods and issues no credit note.
func (sl *Sales) giveBackLocal(ctx context.Context, o *Order, noteNo, staff, reason string, cancel bool) error {
	if noteNo != "" {
		if sl.cfg.Notes == nil {
			return ErrNoNotes
		}
		if err := sl.cfg.Notes.Restore(ctx, noteNo, o.Refundable(), o.ID); err != nil {
			return err
		}
	}
	unlock, err := sl.lock(o.ID)
	if err != nil {
		return err
	}
	defer unlock()
	uid, err := sl.newID("R")
	if err != nil {
		return err
	}
	amount := o.Refundable()
	intent := &RefundEvent{UniqueTxnID: uid, Amount: amount, Reason: reason, Cancel: cancel}
	if cancel {
		intent.Items = refundItems(o, amount)
	}
	if _, err := sl.commit(ctx, o, Event{Kind: EvRefundIntent, Staff: staff, Refund: intent}); err != nil {
		return err
	}
	_, err = sl.commit(ctx, o, Event{Kind: EvRefundDone, Staff: staff, Refund: &RefundEvent{UniqueTxnID: uid, Amount: amount, Refunded: o.Refunded + amount, Cancel: cancel}})
	return err
}

// redeemNote journals note.redeemed on the issuing order, under its lock.
func (sl *Sales) redeemNote(ctx context.Context, issueID string, n NoteEvent) error {
	unlock, err := sl.lock(issueID)
	if err != nil {
		return err
	}
	defer unlock()
	issue, err := sl.order(ctx, issueID)
	if err != nil {
		return err
	}
	if ref := issue.RefundByID(n.Refund); ref != nil && slices.Contains(ref.RedeemedBy, n.SaleID) {
		return nil // redeemed for this sale already (a retry, or a sale finished after a crash)
	}
	if _, err := sl.commit(ctx, issue, Event{Kind: EvNoteRedeemed, Note: &n}); err != nil {
		if errors.Is(err, ErrNotRefundable) {
			return wrapf(ErrNoteSpent, "Credit note %s has not %s left; nothing was taken from it.", n.Number, n.Amount)
		}
		return err
	}
	return nil
}

// finishNoteTender finishes a credit-note tender whose order stopped between
// its intent and its payment (the terminal stopped while the note was being
// redeemed), for the reconciler, which holds o's lock: the note is redeemed for
// it in the credit-note ledger (at the store first when enrolled; once,
// whatever was journaled: the ledger is idempotent per tender) and the tender is
// paid; its sale is completed by settleOpenSales. A note that no longer covers
// it (or the store refusing it) closes the tender unpaid, its sale still open;
// the store not answering leaves it to be asked again. An older journal's sale
// paid wholly by a credit note (an order of one tender, its note named in its
// intent) is finished the same way and paid by note.tendered.
func (sl *Sales) finishNoteTender(ctx context.Context, o *Order) error {
	if sl.cfg.Notes == nil {
		return ErrNoNotes
	}
	number := ""
	if o.Sale != "" {
		unlock, err := sl.lockSale(o.Sale) // not while the cashier's call is still redeeming it
		if err != nil {
			return err
		}
		defer unlock()
		if fresh, err := sl.j.Order(ctx, o.ID); err != nil || fresh.State != StateIntent {
			return err // finished meanwhile
		}
		sale, err := sl.order(ctx, o.Sale)
		if err != nil {
			return err
		}
		for _, t := range sale.Tenders {
			if t.OrderID == o.ID {
				number = t.NoteNo
			}
		}
	} else {
		evs, err := sl.j.Events(ctx, o.ID)
		if err != nil {
			return err
		}
		if len(evs) > 0 && evs[0].Intent != nil {
			number = evs[0].Intent.Note
		}
	}
	if number == "" {
		return fmt.Errorf("pos: note tender %q: %w: no credit note named", o.ID, ErrBadEvent)
	}
	if _, err := sl.cfg.Notes.Redeem(ctx, number, o.Amount, o.ID); err != nil {
		if _, refused := errors.AsType[*StoreRefusal](err); !refused && !errors.Is(err, ErrNoteSpent) {
			return err // asked again at the next reconciliation
		}
		reason := "the credit note was refused: " + Sentence(err)
		_, aerr := sl.commit(ctx, o, Event{Kind: EvOrderAbandoned, Reason: reason, Abandoned: &Abandoned{Reason: reason}})
		return errors.Join(err, aerr)
	}
	if o.Sale == "" {
		_, err := sl.commit(ctx, o, Event{Kind: EvNoteTendered, Staff: o.Staff, Note: &NoteEvent{Number: number, Amount: o.Amount, SaleID: o.ID}})
		return err
	}
	_, err := sl.record(ctx, o, Event{Kind: EvTenderNoteRedeemed, Staff: o.Staff, Sale: &SaleEvent{NoteNo: number}})
	return err
}
