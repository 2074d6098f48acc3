package pos

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// MoveKind is what moved stock.
type MoveKind string

// The kinds of stock movement.
const (
	MoveReceived MoveKind = "received"   // a supplier's delivery
	MoveArrived  MoveKind = "arrived"    // a transfer from another counter or store
	MoveSold     MoveKind = "sold"       // a sale paid
	MoveReturned MoveKind = "returned"   // a return, or a sale's invoice cancelled
	MoveUnreturn MoveKind = "unreturned" // a return whose refund did not go through
	MoveDamaged  MoveKind = "damaged"    // a unit set aside as damaged
	MoveCounted  MoveKind = "counted"    // a count's variance applied
	MoveAdjusted MoveKind = "adjusted"   // any other adjustment
	MoveSent     MoveKind = "sent"       // a transfer to another counter or store
)

// StockMovement is one movement of stock: when, what kind, the item (and
// the unit, for a serialised one), the quantity on hand it adds (negative:
// takes away), the document it was made on (the supplier's invoice, the
// sale's invoice, the credit note, the transfer, or the adjustment's
// reason) and who made it.
type StockMovement struct {
	Seq      uint64    `json:"seq"`
	Time     time.Time `json:"time"`
	Kind     MoveKind  `json:"kind"`
	SKU      string    `json:"sku"`
	IMEI     string    `json:"imei,omitempty"`
	Qty      int64     `json:"qty"`
	Document string    `json:"document,omitempty"`
	Staff    string    `json:"staff,omitempty"`
}

// StockDayIndex is a journal that lists its stock events (MovesStock) by
// business day, derived in the transaction of each (pos/journal), so that the
// movements of some days read those days' events and orders only, however
// long the journal's history. A journal without it is read through from its
// first event.
type StockDayIndex interface {
	// StockEvents returns the stock events recorded on the days from to to
	// (DayLayout, both included), day by day, each day's in the journal's
	// order.
	StockEvents(ctx context.Context, from, to string) ([]Event, error)
	// StockBegan returns the time of the first delivery or adjustment, when
	// stock began; zero when none was recorded.
	StockBegan(ctx context.Context) (time.Time, error)
}

// MovesOfDay lists every stock movement journaled on business day day
// (DayLayout), in the journal's order.
func (s *Stock) MovesOfDay(ctx context.Context, day string) ([]StockMovement, error) {
	return s.MovesOfDays(ctx, day, day)
}

// MovesOfDays lists every stock movement journaled on the business days from
// to to (DayLayout, both included), in the journal's order.
func (s *Stock) MovesOfDays(ctx context.Context, from, to string) ([]StockMovement, error) {
	for _, d := range []string{from, to} {
		if _, err := time.Parse(DayLayout, d); err != nil {
			return nil, Errorf("The day %q is not a date; give it as YYYY-MM-DD.", d)
		}
	}
	if to < from {
		return nil, Errorf("The days run from %s to %s: give the first day first.", from, to)
	}
	return s.moves(ctx, from, to, func(ev Event) bool { return ev.Day >= from && ev.Day <= to })
}

// MovesOfShift lists every stock movement journaled while shift sh was open
// (to now while it is), in the journal's order.
func (s *Stock) MovesOfShift(ctx context.Context, sh *Shift) ([]StockMovement, error) {
	end := sh.Closed
	if sh.Open() {
		end = s.eng.Now()
	}
	// The business days the shift's time can fall on, a day either side
	// for the time zones of the clock and of the day.
	from, to := ToDay(sh.Opened.AddDate(0, 0, -1)), ToDay(end.AddDate(0, 0, 1))
	return s.moves(ctx, from, to, func(ev Event) bool {
		return !ev.Time.Before(sh.Opened) && (sh.Open() || !ev.Time.After(sh.Closed))
	})
}

// moves lists the movements of the events in, which fall on the business
// days from to to: the stock events as they record them, and each sale's and
// return's as the change of its order's stock effect (StockEffectOf) at each
// of its events, so a unit sold in the morning and returned in the afternoon
// is two rows. An order counts from when stock began, as the stock book
// counts it. A journal with a StockDayIndex is read for those days only;
// another is read through.
func (s *Stock) moves(ctx context.Context, from, to string, in func(Event) bool) ([]StockMovement, error) {
	var (
		out    []StockMovement
		since  time.Time // when stock began
		orders []string  // the orders with an event in the window, first seen first
		err    error
	)
	if ix, ok := s.j.(StockDayIndex); ok {
		since, orders, err = s.daysMoves(ctx, ix, from, to, in, &out)
	} else {
		since, orders, err = s.readMoves(ctx, in, &out)
	}
	if errors.Is(err, ErrNoEventLog) {
		return nil, nil // a journal without its events keeps no stock
	}
	if err != nil {
		return nil, err
	}
	for _, id := range orders {
		m, err := s.orderMoves(ctx, id, since, in)
		if err != nil {
			return nil, err
		}
		out = append(out, m...)
	}
	slices.SortStableFunc(out, func(a, b StockMovement) int {
		return cmp.Compare(a.Seq, b.Seq)
	})
	return out, nil
}

// daysMoves adds to *out the movements of the stock events of the days from
// to to that are in, from ix, and returns when stock began and the orders
// with an event on those days (from the journal's days, OrdersByDay). An
// order listed whose events in the window came before stock began moves
// nothing (orderMoves), as when the journal is read through.
func (s *Stock) daysMoves(ctx context.Context, ix StockDayIndex, from, to string, in func(Event) bool, out *[]StockMovement) (time.Time, []string, error) {
	since, err := ix.StockBegan(ctx)
	if err != nil {
		return since, nil, err
	}
	evs, err := ix.StockEvents(ctx, from, to)
	if err != nil {
		return since, nil, err
	}
	for _, ev := range evs {
		if !in(ev) {
			continue
		}
		m, err := stockEventMoves(ev)
		if err != nil {
			return since, nil, err
		}
		*out = append(*out, m...)
	}
	if since.IsZero() {
		return since, nil, nil
	}
	var orders []string
	seen := map[string]bool{}
	first, _ := time.Parse(DayLayout, from)
	for d := first; d.Format(DayLayout) <= to; d = d.AddDate(0, 0, 1) {
		os, err := s.j.OrdersByDay(ctx, d.Format(DayLayout))
		if err != nil {
			return since, nil, err
		}
		for _, o := range os {
			if !seen[o.ID] {
				seen[o.ID] = true
				orders = append(orders, o.ID)
			}
		}
	}
	return since, orders, nil
}

// readMoves reads the journal through from its first event: it adds to *out
// the movements of the stock events in, and returns when stock began and the
// orders with an event in (after stock began), first seen first.
func (s *Stock) readMoves(ctx context.Context, in func(Event) bool, out *[]StockMovement) (time.Time, []string, error) {
	var since time.Time
	var orders []string
	err := eventsFrom(ctx, s.j, 1, func(ev Event) error {
		switch ev.Kind {
		case EvStockReceived, EvStockAdjusted:
			if since.IsZero() {
				since = ev.Time
			}
		}
		if !in(ev) {
			return nil
		}
		if ev.Kind.IsOrderEvent() && ev.OrderID != "" && !since.IsZero() && !slices.Contains(orders, ev.OrderID) {
			orders = append(orders, ev.OrderID)
		}
		m, err := stockEventMoves(ev)
		*out = append(*out, m...)
		return err
	})
	return since, orders, err
}

// stockEventMoves is the movements a stock event records.
func stockEventMoves(ev Event) ([]StockMovement, error) {
	mv := func(kind MoveKind, sku, imei string, qty int64, doc string) StockMovement {
		return StockMovement{Seq: ev.Seq, Time: ev.Time, Kind: kind, SKU: sku, IMEI: imei, Qty: qty, Document: doc, Staff: ev.Staff}
	}
	bad := func(err error) error { return fmt.Errorf("pos: %s at %d: %w: %w", ev.Kind, ev.Seq, ErrBadEvent, err) }
	var out []StockMovement
	switch ev.Kind {
	case EvStockReceived:
		var d Delivery
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			return nil, bad(err)
		}
		kind, doc := MoveReceived, d.Supplier+" "+d.Invoice
		if d.From != "" {
			kind, doc = MoveArrived, "transfer "+d.Invoice
		}
		for _, l := range d.Lines {
			if len(l.Units) == 0 {
				out = append(out, mv(kind, l.SKU, "", int64(l.Qty), doc))
			}
			for _, u := range l.Units {
				out = append(out, mv(kind, l.SKU, u.IMEI, 1, doc))
			}
		}
	case EvStockAdjusted:
		var a StockAdjustment
		if err := json.Unmarshal(ev.Data, &a); err != nil {
			return nil, bad(err)
		}
		kind := MoveAdjusted
		if strings.HasPrefix(a.Reason, "count:") {
			kind = MoveCounted
		}
		for _, l := range a.Lines {
			out = append(out, mv(kind, l.SKU, "", l.Delta, a.Reason))
		}
		for _, u := range a.Units {
			k, qty := kind, int64(-1)
			switch {
			case u.To == UnitInStock:
				qty = 1
			case u.To == UnitDamaged && kind == MoveAdjusted:
				k = MoveDamaged
			}
			out = append(out, mv(k, u.SKU, u.IMEI, qty, a.Reason))
		}
	case EvStockSent:
		var t Transfer
		if err := json.Unmarshal(ev.Data, &t); err != nil {
			return nil, bad(err)
		}
		for _, l := range t.Lines {
			if len(l.Units) == 0 {
				out = append(out, mv(MoveSent, l.SKU, "", -int64(l.Qty), "transfer "+t.ID))
			}
			for _, u := range l.Units {
				out = append(out, mv(MoveSent, l.SKU, u.IMEI, -1, "transfer "+t.ID))
			}
		}
	}
	return out, nil
}

// orderMoves folds order id's events and reports, for each event in the
// window, how its stock effect changed: units out are sold, units back are
// returned. An order whose sale began before stock did moves nothing, as in
// the stock book.
func (s *Stock) orderMoves(ctx context.Context, id string, since time.Time, in func(Event) bool) ([]StockMovement, error) {
	evs, err := s.j.Events(ctx, id)
	if err != nil {
		return nil, err
	}
	if len(evs) == 0 || evs[0].Kind != EvOrderIntent || evs[0].Intent == nil || evs[0].Intent.Sale != "" || evs[0].Time.Before(since) {
		return nil, nil // a tender's order, or a sale before stock began
	}
	var out []StockMovement
	var txns []string // by move, the refund that brought it back
	o := &Order{}
	var was StockEffect
	for _, ev := range evs {
		if err := o.Apply(ev); err != nil {
			continue // a stale answer: the journal keeps it, the order does not move
		}
		now := StockEffectOf(o)
		if in(ev) {
			m := s.effectMoves(ev, o, was, now)
			out = append(out, m...)
			for range m {
				txn := ""
				if ev.Refund != nil {
					txn = ev.Refund.UniqueTxnID
				}
				txns = append(txns, txn)
			}
		}
		was = now
	}
	// A credit note is numbered once its refund is done, after the goods came
	// back: the rows name it as the order has it now.
	for i, txn := range txns {
		if txn == "" {
			continue
		}
		if k := slices.IndexFunc(o.Refunds, func(r Refund) bool { return r.UniqueTxnID == txn }); k >= 0 {
			if n := o.Refunds[k].Number(s.cfg.Terminal); n != "" {
				out[i].Document = "credit note " + n
			}
		}
	}
	return out, nil
}

// effectMoves is the movements of order o's stock effect going from was to
// now at event ev.
func (s *Stock) effectMoves(ev Event, o *Order, was, now StockEffect) []StockMovement {
	sale := o.InvoiceNumber(s.cfg.Terminal)
	back := "invoice " + sale // the document that brought goods back: the credit note, or the cancelled invoice
	if o.Cancelled != nil {
		back += " cancelled"
	}
	staff := ev.Staff
	if staff == "" {
		staff = o.Staff // a sale's payment: the cashier who took it
	}
	mv := func(kind MoveKind, sku, imei string, qty int64, doc string) StockMovement {
		return StockMovement{Seq: ev.Seq, Time: ev.Time, Kind: kind, SKU: sku, IMEI: imei, Qty: qty, Document: doc, Staff: staff}
	}
	var out []StockMovement
	skus := make([]string, 0, len(was.Out)+len(now.Out))
	for sku := range now.Out {
		skus = append(skus, sku)
	}
	for sku := range was.Out {
		if _, ok := now.Out[sku]; !ok {
			skus = append(skus, sku)
		}
	}
	slices.Sort(skus)
	for _, sku := range skus {
		switch d := now.Out[sku] - was.Out[sku]; {
		case d > 0 && o.Origin != nil:
			out = append(out, mv(MoveUnreturn, sku, "", -d, back))
		case d > 0:
			out = append(out, mv(MoveSold, sku, "", -d, "invoice "+sale))
		case d < 0:
			out = append(out, mv(MoveReturned, sku, "", -d, back))
		}
	}
	for _, m := range now.IMEIs {
		if !slices.Contains(was.IMEIs, m) {
			out = append(out, mv(MoveSold, skuOfIMEI(o, m), m, -1, "invoice "+sale))
		}
	}
	for _, m := range was.IMEIs {
		if !slices.Contains(now.IMEIs, m) {
			out = append(out, mv(MoveReturned, skuOfIMEI(o, m), m, 1, back))
		}
	}
	for _, m := range now.In {
		if !slices.Contains(was.In, m) {
			out = append(out, mv(MoveReturned, skuOfIMEI(o, m), m, 1, back))
		}
	}
	for _, m := range was.In {
		if !slices.Contains(now.In, m) {
			out = append(out, mv(MoveUnreturn, skuOfIMEI(o, m), m, -1, back))
		}
	}
	return out
}
