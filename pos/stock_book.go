package pos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// snapStock is the name of the stock book's snapshot. It names the state's
// form: a snapshot of an older form (with the sales since stock began and the
// units' histories, without Began, or with every unit ever received and every
// invoice received) is not read, the book is made again from the events.
const snapStock = "pos.stock.4"

// StockUnit is a serialised unit the stock book knows: received, sold, or
// set aside. The book keeps the units on hand (in stock or set aside); a unit
// sold, sent or written off leaves it, and is read back from its receipt when
// it comes back (revive) or is asked for (Stock.Unit).
type StockUnit struct {
	IMEI     string    `json:"imei"`
	IMEI2    string    `json:"imei2,omitempty"`
	SKU      string    `json:"sku"`
	State    UnitState `json:"state"`
	Cost     Paise     `json:"cost,omitempty"`
	Received time.Time `json:"received,omitzero"` // when it came into stock
	Supplier string    `json:"supplier,omitempty"`
	Invoice  string    `json:"invoice,omitempty"`
	Order    string    `json:"order,omitempty"` // the sale it was last sold in
	// History is what happened to the unit, oldest first: its IMEI's story.
	// Only Stock.History tells it (it reads the events again); the stock
	// book and its snapshot keep none, so that they do not grow with sales.
	History []UnitEvent `json:"history,omitempty"`
}

// UnitEvent is one step of a unit's history: when, at which journal event,
// and what, in words.
type UnitEvent struct {
	Seq  uint64    `json:"seq"`
	Time time.Time `json:"time"`
	What string    `json:"what"`
}

// note adds a step to u's history when the book tells the units' stories
// (story).
func (b *stockBook) note(u *StockUnit, ev Event, format string, a ...any) {
	if b.story {
		u.History = append(u.History, UnitEvent{Seq: ev.Seq, Time: ev.Time, What: fmt.Sprintf(format, a...)})
	}
}

// StockEffect is what one order of a counter takes out of the counter's
// stock (or brings into it): units of items not serialised by SKU (negative:
// brought back), the IMEIs of the serialised units sold, and those a return
// of another counter's invoice brought here. The stock book applies, at each
// event of an order, how the effect of the order folded to that event
// changed; the store's projection keeps, per order, the effect it last
// applied.
type StockEffect struct {
	Out   map[string]int64 `json:"out,omitempty"`
	IMEIs []string         `json:"imeis,omitempty"`
	In    []string         `json:"in,omitempty"`
}

// stockState is the stock book as its snapshot holds it.
type stockState struct {
	At time.Time `json:"at"` // the time of the snapshot's event
	// Since is when the first goods were received: from then on stock is
	// kept and enforced; zero before. Began is the sequence of that event:
	// the sales whose intent came after it count.
	Since time.Time        `json:"since,omitzero"`
	Began uint64           `json:"began,omitempty"`
	Qty   map[string]int64 `json:"qty,omitempty"`  // on hand by SKU; a serialised SKU's units in stock
	Cost  map[string]Paise `json:"cost,omitempty"` // the last cost received of an item not serialised
	// Units is the units on hand (kept): in stock or set aside as damaged.
	Units map[string]*StockUnit `json:"units,omitempty"`
	Alias map[string]string     `json:"alias,omitempty"` // a unit's second IMEI → its first, of the units kept
	// Allowed is, by IMEI, the manager who allowed selling it out of stock:
	// until it is sold or received, or the business day is closed.
	Allowed map[string]string `json:"allowed,omitempty"`
	Sent    int               `json:"sent,omitempty"` // the transfers sent, numbering the next
	// Sold is, by SKU, when a unit of it was last sold (the slow movers).
	Sold map[string]time.Time `json:"sold,omitempty"`
	// First is, by SKU of an item not serialised, when what is on hand began:
	// the delivery that brought it up from nothing.
	First map[string]time.Time `json:"first,omitempty"`
}

// stockBook is the stock derived from the journal's events, caught up as the
// IMEI book is (shift.go): its snapshot and the events since. Besides the
// state it keeps, per SKU, the IMEIs of the units in stock sorted, for the
// offer as typed.
type stockBook struct {
	mu   sync.Mutex
	seq  uint64
	mark snapMark
	st   stockState
	// shelf is the sorted IMEIs of the units in stock, by SKU; made from st.
	shelf map[string][]string
	// skus is the SKUs of st.Qty sorted, made again when one is added.
	skus []string
	// damaged counts the damaged units by SKU; made from st.
	damaged map[string]int
	// keys is, by SKU, what the list's search matches (SKU, name and brand in
	// lower case) for the catalog keysOf; made as asked.
	keys   map[string]string
	keysOf *Catalog
	// orders is, by order id, the order folded to the last event the book
	// applied (nil: an order the stock does not count, a tender's or one
	// begun before stock), so that the next event of a sale is one step. It is
	// a cache, not kept in the snapshot: an order missing from it is folded
	// again from its own events (foldOrder).
	orders map[string]*Order
	// story is set in a book made to tell the units' histories (note).
	story bool
}

// maxFolded is how many orders the book keeps folded before it forgets them
// all; an order forgotten is folded again from its events when one comes.
const maxFolded = 4096

// key returns what the list's search matches of sku in cat. b.mu is held.
func (b *stockBook) key(cat *Catalog, sku string) string {
	if b.keysOf != cat {
		b.keys, b.keysOf = map[string]string{}, cat
	}
	k, ok := b.keys[sku]
	if !ok {
		p, _ := cat.Lookup(sku)
		k = strings.ToLower(sku + "\x00" + p.Name + "\x00" + p.Brand)
		b.keys[sku] = k
	}
	return k
}

// sortedSKUs returns the SKUs with stock records, sorted. b.mu is held.
func (b *stockBook) sortedSKUs() []string {
	if len(b.skus) != len(b.st.Qty) {
		b.skus = b.skus[:0]
		for sku := range b.st.Qty {
			b.skus = append(b.skus, sku)
		}
		slices.Sort(b.skus)
	}
	return b.skus
}

// catchUp applies the events appended since the last call. b.mu is held.
func (b *stockBook) catchUp(ctx context.Context, j Journal) error {
	if !b.mark.loaded {
		var st stockState
		seq, err := loadSnapshot(ctx, j, snapStock, &st)
		if err != nil {
			return err
		}
		if seq > 0 {
			b.st = st
			b.seq, b.mark.seq, b.mark.at, b.mark.last = seq, seq, st.At, st.At
		}
		b.reindex()
		b.mark.loaded = true
	}
	err := eventsFrom(ctx, j, b.seq+1, func(ev Event) error {
		if ev.Seq != b.seq+1 {
			return fmt.Errorf("pos: event %d after %d: %w", ev.Seq, b.seq, ErrBadEvent)
		}
		if err := b.apply(ctx, j, ev); err != nil {
			return err
		}
		b.seq, b.mark.last = ev.Seq, ev.Time
		return nil
	})
	if errors.Is(err, ErrNoEventLog) {
		return nil // a journal without its events keeps no stock
	}
	if err != nil {
		return err
	}
	if b.story {
		return nil // a book telling the units' stories read every event: it seals nothing
	}
	sealSnapshot(ctx, j, snapStock, &b.mark, b.seq, func() any {
		st := b.st
		st.At = b.mark.last
		return st
	})
	return nil
}

// reindex makes the sorted shelf from the units.
func (b *stockBook) reindex() {
	b.shelf, b.damaged, b.skus = map[string][]string{}, map[string]int{}, nil
	for _, u := range b.st.Units {
		switch u.State {
		case UnitInStock:
			b.shelf[u.SKU] = append(b.shelf[u.SKU], u.IMEI)
		case UnitDamaged:
			b.damaged[u.SKU]++
		}
	}
	for _, s := range b.shelf {
		slices.Sort(s)
	}
}

// kept reports whether the book keeps a unit in state s: on hand, in stock or
// set aside. A unit sold, sent or written off leaves the book (settle).
func kept(s UnitState) bool { return s == UnitInStock || s == UnitDamaged }

// put keeps u in the book under its first IMEI, its second as an alias.
func (b *stockBook) put(u *StockUnit) {
	b.st.Units[u.IMEI] = u
	if u.IMEI2 != "" {
		b.st.Alias[u.IMEI2] = u.IMEI
	}
}

// settle takes u out of the book when it is no longer on hand, so that the
// book and its snapshot hold what is on hand, not every unit ever received;
// a book telling the units' stories keeps every unit.
func (b *stockBook) settle(u *StockUnit) {
	if b.story || kept(u.State) {
		return
	}
	if b.st.Units[u.IMEI] == u {
		delete(b.st.Units, u.IMEI)
	}
	if u.IMEI2 != "" && b.st.Alias[u.IMEI2] == u.IMEI {
		delete(b.st.Alias, u.IMEI2)
	}
}

// unit returns the unit with imei as either of its IMEIs, or nil.
func (b *stockBook) unit(imei string) *StockUnit {
	if u := b.st.Units[imei]; u != nil {
		return u
	}
	if first, ok := b.st.Alias[imei]; ok {
		return b.st.Units[first]
	}
	return nil
}

// setState moves u to state to, keeping the quantities and the shelf.
func (b *stockBook) setState(u *StockUnit, to UnitState) {
	if u.State == to {
		return
	}
	if u.State == UnitInStock {
		b.st.Qty[u.SKU]--
		s := b.shelf[u.SKU]
		if i, ok := slices.BinarySearch(s, u.IMEI); ok {
			b.shelf[u.SKU] = slices.Delete(s, i, i+1)
		}
	}
	if u.State == UnitDamaged {
		b.damaged[u.SKU]--
	}
	if to == UnitDamaged {
		b.damaged[u.SKU]++
	}
	if to == UnitInStock {
		b.st.Qty[u.SKU]++
		s := b.shelf[u.SKU]
		if i, ok := slices.BinarySearch(s, u.IMEI); !ok {
			b.shelf[u.SKU] = slices.Insert(s, i, u.IMEI)
		}
	}
	u.State = to
}

// init makes the maps of a book that has none.
func (b *stockBook) init() {
	if b.st.Qty == nil {
		b.st.Qty = map[string]int64{}
	}
	if b.st.Cost == nil {
		b.st.Cost = map[string]Paise{}
	}
	if b.st.Units == nil {
		b.st.Units = map[string]*StockUnit{}
	}
	if b.st.Alias == nil {
		b.st.Alias = map[string]string{}
	}
	if b.st.Allowed == nil {
		b.st.Allowed = map[string]string{}
	}
	if b.orders == nil {
		b.orders = map[string]*Order{}
	}
	if b.st.Sold == nil {
		b.st.Sold = map[string]time.Time{}
	}
	if b.st.First == nil {
		b.st.First = map[string]time.Time{}
	}
	if b.shelf == nil {
		b.shelf = map[string][]string{}
	}
	if b.damaged == nil {
		b.damaged = map[string]int{}
	}
}

// apply takes one event into the stock book. An event it cannot read is
// damage (the journal checked it when it was appended).
func (b *stockBook) apply(ctx context.Context, j Journal, ev Event) error {
	b.init()
	switch {
	case ev.Kind == EvStockReceived:
		var d Delivery
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			return fmt.Errorf("pos: %s at %d: %w: %w", ev.Kind, ev.Seq, ErrBadEvent, err)
		}
		b.applyDelivery(ev, d)
	case ev.Kind == EvStockAdjusted:
		var a StockAdjustment
		if err := json.Unmarshal(ev.Data, &a); err != nil {
			return fmt.Errorf("pos: %s at %d: %w: %w", ev.Kind, ev.Seq, ErrBadEvent, err)
		}
		return b.applyAdjustment(ctx, j, ev, a)
	case ev.Kind == EvStockSent:
		var t Transfer
		if err := json.Unmarshal(ev.Data, &t); err != nil {
			return fmt.Errorf("pos: %s at %d: %w: %w", ev.Kind, ev.Seq, ErrBadEvent, err)
		}
		b.applySent(ev, t)
	case ev.Kind == EvOverride && ev.Extra["what"] == overrideStock:
		for k, v := range ev.Extra {
			if strings.HasPrefix(k, "imei") {
				b.st.Allowed[v] = ev.Staff
			}
		}
	case ev.Kind == EvDayClosed:
		clear(b.st.Allowed) // an allowance is for the sale in hand, not kept past its day
	case ev.Kind.IsOrderEvent() && !b.st.Since.IsZero():
		return b.applyOrder(ctx, j, ev)
	}
	return nil
}

func (b *stockBook) applyDelivery(ev Event, d Delivery) {
	if b.st.Since.IsZero() {
		b.st.Since, b.st.Began = ev.Time, ev.Seq
	}
	for _, l := range d.Lines {
		if len(l.Units) == 0 {
			if b.st.Qty[l.SKU] <= 0 {
				b.st.First[l.SKU] = ev.Time
			}
			b.st.Qty[l.SKU] += int64(l.Qty)
			if l.Cost > 0 {
				b.st.Cost[l.SKU] = l.Cost
			}
			continue
		}
		for _, un := range l.Units {
			u := b.unit(un.IMEI)
			if u != nil && u.IMEI != un.IMEI {
				u = nil // received again with its IMEIs the other way round: a new record
			}
			if u == nil {
				u = &StockUnit{IMEI: un.IMEI, State: UnitSold} // moved into stock below
			}
			if u.State == UnitInStock {
				b.setState(u, UnitSold) // not expected: Receive refuses a unit in stock
			}
			u.SKU, u.IMEI2, u.Cost, u.Received, u.Supplier, u.Invoice, u.Order = l.SKU, un.IMEI2, l.Cost, ev.Time, d.Supplier, d.Invoice, ""
			b.put(u)
			delete(b.st.Allowed, un.IMEI)
			delete(b.st.Allowed, un.IMEI2)
			b.setState(u, UnitInStock)
			if d.From != "" {
				b.note(u, ev, "received from %s on transfer %s as %s", d.From, d.Invoice, l.SKU)
			} else {
				b.note(u, ev, "received from %s on invoice %s of %s as %s", d.Supplier, d.Invoice, d.Date, l.SKU)
			}
		}
	}
}

// applyAdjustment applies a count's variance or units set aside, found or
// written off. A unit the book no longer keeps (sold, sent, written off) is
// read back from its receipt (revive); one never received is known from here
// on, by the SKU the adjustment names.
func (b *stockBook) applyAdjustment(ctx context.Context, j Journal, ev Event, a StockAdjustment) error {
	for _, l := range a.Lines {
		b.st.Qty[l.SKU] += l.Delta
	}
	for _, m := range a.Units {
		u := b.unit(m.IMEI)
		if u == nil {
			var err error
			if u, err = b.revive(ctx, j, m.IMEI, ev.Seq); err != nil {
				return err
			}
			if u == nil {
				u = &StockUnit{IMEI: m.IMEI, SKU: m.SKU, State: UnitSold, Received: ev.Time}
			}
			b.put(u)
		}
		b.setState(u, m.To)
		b.note(u, ev, "%s: %s", stateWord(m.To), a.Reason)
		b.settle(u)
	}
	if b.st.Since.IsZero() && len(a.Lines)+len(a.Units) > 0 {
		b.st.Since, b.st.Began = ev.Time, ev.Seq // a count of the shelf starts stock as a delivery does
	}
	return nil
}

// applyOrder brings what a sale took out of stock to what its order says at
// ev: the units of its lines once paid, less those returned, none once its
// document is cancelled. It applies how the effect of the order folded to the
// event before ev (was) changed with ev (want), so the stock reached is the
// same whatever event the book was caught up from, and the book keeps no sale
// once it is applied: the order folded is a cache (b.orders).
func (b *stockBook) applyOrder(ctx context.Context, j Journal, ev Event) error {
	prev, known := b.orders[ev.OrderID]
	if !known {
		var err error
		if prev, err = b.foldOrder(ctx, j, ev); err != nil {
			return err
		}
		if len(b.orders) >= maxFolded {
			clear(b.orders)
		}
		b.orders[ev.OrderID] = prev
	}
	if prev == nil {
		return nil // a tender's order (its sale holds the lines), or a sale before stock
	}
	o := prev.Clone()
	if err := o.Apply(ev); err != nil {
		return nil // a stale answer: the journal keeps it, the order does not move
	}
	b.orders[ev.OrderID] = o
	was := StockEffectOf(prev)
	applied := &was
	want := StockEffectOf(o)
	for sku, n := range want.Out {
		if n > applied.Out[sku] {
			b.st.Sold[sku] = ev.Time
		}
		b.st.Qty[sku] -= n - applied.Out[sku]
	}
	for sku, n := range applied.Out {
		if _, ok := want.Out[sku]; !ok {
			b.st.Qty[sku] += n
		}
	}
	for _, imei := range applied.IMEIs {
		if slices.Contains(want.IMEIs, imei) {
			continue
		}
		// Sold, the unit may have left the book: it is read back from its
		// receipt, or it was sold as a manager allowed, never received. The
		// sale that held it is this one (no other sale can take an IMEI a
		// sale holds).
		u, back, err := b.unitOrRevive(ctx, j, imei, ev.Seq, o, time.Time{})
		if err != nil {
			return err
		}
		if back {
			u.Order = o.ID
		}
		if u.State == UnitSold && u.Order == o.ID {
			b.setState(u, UnitInStock)
			u.Order = ""
			b.note(u, ev, "back in stock from sale %s (returned, or its invoice cancelled)", o.ID)
		}
		b.settle(u)
	}
	for _, imei := range want.IMEIs {
		if slices.Contains(applied.IMEIs, imei) {
			continue
		}
		u := b.unit(imei)
		if u == nil {
			u = &StockUnit{IMEI: imei, SKU: skuOfIMEI(o, imei), State: UnitSold}
			b.put(u)
		}
		b.setState(u, UnitSold)
		u.Order = o.ID
		b.note(u, ev, "sold in sale %s", o.ID)
		b.st.Sold[u.SKU] = ev.Time
		delete(b.st.Allowed, imei) // an allowance sells the unit once
		b.settle(u)
	}
	for _, imei := range applied.In {
		if !slices.Contains(want.In, imei) {
			if u := b.unit(imei); u != nil && u.State == UnitInStock {
				b.setState(u, UnitSold)
				b.note(u, ev, "out of stock again: return order %s (of invoice %s) did not go through", o.ID, o.InvoiceNumber(""))
				b.settle(u)
			}
		}
	}
	for _, imei := range want.In {
		if slices.Contains(applied.In, imei) {
			continue
		}
		// Received here before and sent or sold since, it is read back from
		// its receipt; else it is known from here on.
		u, _, err := b.unitOrRevive(ctx, j, imei, ev.Seq, o, ev.Time)
		if err != nil {
			return err
		}
		b.setState(u, UnitInStock)
		u.Order = ""
		b.note(u, ev, "returned here on invoice %s of counter %s (return order %s)", o.Origin.Number, o.Origin.Terminal, o.ID)
	}
	if o.State == StateFailed || o.State == StateAbandoned || o.State == StateVoided {
		delete(b.orders, o.ID) // never sold: nothing more can come of it
	}
	return nil
}

// unitOrRevive returns the unit with imei as the book keeps it; else, put
// back in the book, the unit as the stock events before seq left it (revive),
// or, when no stock event named it, a unit of o's line that holds imei, in
// state sold, received at received (zero when unknown). back is true when the
// unit was not in the book.
func (b *stockBook) unitOrRevive(ctx context.Context, j Journal, imei string, seq uint64, o *Order, received time.Time) (u *StockUnit, back bool, err error) {
	if u := b.unit(imei); u != nil {
		return u, false, nil
	}
	if u, err = b.revive(ctx, j, imei, seq); err != nil {
		return nil, false, err
	}
	if u == nil {
		u = &StockUnit{IMEI: imei, SKU: skuOfIMEI(o, imei), State: UnitSold, Received: received}
	}
	b.put(u)
	return u, true, nil
}

// foldOrder returns the order of ev folded from its events before ev, or nil
// when the stock does not count it: a tender's order (its sale holds the
// lines), or one whose sale began before stock did (Began). An order whose
// first event is ev is empty.
func (b *stockBook) foldOrder(ctx context.Context, j Journal, ev Event) (*Order, error) {
	if ev.Kind == EvOrderIntent {
		if ev.Intent == nil || ev.Intent.Sale != "" || ev.Seq < b.st.Began {
			return nil, nil
		}
		return &Order{}, nil
	}
	evs, err := j.Events(ctx, ev.OrderID)
	if err != nil {
		return nil, err
	}
	if len(evs) == 0 || evs[0].Kind != EvOrderIntent || evs[0].Intent == nil || evs[0].Intent.Sale != "" || evs[0].Seq < b.st.Began {
		return nil, nil
	}
	o := &Order{}
	for _, e := range evs {
		if e.Seq >= ev.Seq {
			break
		}
		_ = o.Apply(e) // a stale answer moves nothing, as when it was applied
	}
	return o, nil
}

// StockEffectOf is what order o takes out of its counter's stock now: a
// sale, the units of its lines once paid, less those returned, none once its
// document is cancelled; a return order of another counter's invoice
// (Origin), the goods its refunds that did not fail bring back here; any
// other order (a split sale's tender), nothing.
func StockEffectOf(o *Order) StockEffect {
	var e StockEffect
	if o.Origin != nil && o.Sale == "" {
		return returnEffect(o)
	}
	if !o.State.Paid() || o.Cancelled != nil || o.Sale != "" {
		return e
	}
	for i, l := range o.Lines {
		if l.Serialised && len(l.IMEIs) > 0 {
			back := o.Returns().returnedIMEIs(i)
			for _, m := range l.IMEIs {
				if m != "" && !slices.Contains(back, m) {
					e.IMEIs = append(e.IMEIs, m)
				}
			}
			continue
		}
		if n := int64(l.Qty - o.Returns().Returned(i)); n > 0 {
			if e.Out == nil {
				e.Out = map[string]int64{}
			}
			e.Out[l.SKU] += n
		}
	}
	return e
}

// returnEffect is what return order o brings back into stock: the goods of
// its own refunds (not those Origin says were returned before, elsewhere).
func returnEffect(o *Order) StockEffect {
	var e StockEffect
	for _, r := range o.Refunds {
		if r.Status == RefundFailed {
			continue
		}
		for _, it := range r.Items {
			if it.Line < 0 || it.Line >= len(o.Lines) || it.Qty <= 0 {
				continue // a price adjustment brings nothing back
			}
			if l := o.Lines[it.Line]; l.Serialised && len(l.IMEIs) > 0 {
				for _, m := range it.IMEIs {
					if m != "" && !slices.Contains(e.In, m) {
						e.In = append(e.In, m)
					}
				}
				continue
			}
			if e.Out == nil {
				e.Out = map[string]int64{}
			}
			e.Out[it.SKU] -= int64(it.Qty)
		}
	}
	return e
}

// skuOfIMEI is the SKU of the line of o that carries imei.
func skuOfIMEI(o *Order, imei string) string {
	for _, l := range o.Lines {
		if slices.Contains(l.IMEIs, imei) {
			return l.SKU
		}
	}
	return ""
}

// applySent takes a transfer's goods out of stock: its units are in transit.
func (b *stockBook) applySent(ev Event, t Transfer) {
	b.st.Sent++
	for _, l := range t.Lines {
		if len(l.Units) == 0 {
			b.st.Qty[l.SKU] -= int64(l.Qty)
			continue
		}
		for _, un := range l.Units {
			if u := b.unit(un.IMEI); u != nil {
				b.setState(u, UnitInTransit)
				b.note(u, ev, "sent to %s on transfer %s", t.To, t.ID)
				b.settle(u)
			}
		}
	}
}

// stateWord is a unit state in a history's words.
func stateWord(s UnitState) string {
	switch s {
	case UnitInStock:
		return "back in stock"
	case UnitDamaged:
		return "set aside as damaged"
	case UnitMissing:
		return "written off as missing"
	}
	return string(s)
}
