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
	"unicode"
)

// StockIndex is a journal that keeps, derived in the transaction of each
// stock event (pos/journal, schema 7), the stock events that named each IMEI
// (StockIMEIs), in the IMEI's record, and the delivery that received each
// supplier's invoice (ReceivedInvoice), so that the stock book keeps only what
// is on hand: a unit sold and returned is read back from its receipt, a unit's
// story from its own events, and an invoice received twice is refused by one
// lookup, however long the journal's history. A journal without it is read
// through from when stock began.
type StockIndex interface {
	// UnitStock returns the sequence numbers of the stock events that named
	// imei, oldest first; an error matching ErrNoStockIndex when this journal
	// keeps none (a file of an older schema opened read-only).
	UnitStock(ctx context.Context, imei string) ([]uint64, error)
	// InvoiceReceived returns the sequence number of the stock.received
	// event of the supplier's invoice (InvoiceKey), 0 when none received it;
	// an error matching ErrNoStockIndex when this journal keeps none.
	InvoiceReceived(ctx context.Context, supplier, invoice string) (uint64, error)
}

// ErrNoStockIndex is a StockIndex that keeps no records: the events are read.
var ErrNoStockIndex = errors.New("pos: the journal keeps no record of the stock events by IMEI and invoice")

// StockIMEIs lists the IMEIs stock event ev names, the same for the journal's
// records and the stock book: every IMEI (first and second) of the units a
// delivery or transfer received (stock.received) or sent (stock.sent), and the
// units an adjustment moved (stock.adjusted). Any other event, or one whose
// record does not decode, names none.
func StockIMEIs(ev Event) []string {
	var out []string
	add := func(imeis ...string) {
		for _, m := range imeis {
			if m != "" && !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	switch ev.Kind {
	case EvStockReceived, EvStockSent:
		var d struct {
			Lines []DeliveryLine `json:"lines"`
		}
		if json.Unmarshal(ev.Data, &d) != nil {
			return nil
		}
		for _, l := range d.Lines {
			for _, u := range l.Units {
				add(u.IMEI, u.IMEI2)
			}
		}
	case EvStockAdjusted:
		var a StockAdjustment
		if json.Unmarshal(ev.Data, &a) != nil {
			return nil
		}
		for _, m := range a.Units {
			add(m.IMEI)
		}
	}
	return out
}

// InvoiceKey is how a supplier's invoice is told from another, the one rule
// the window, the command line and the journal's index decide by: the
// supplier's name and the invoice number each in letters and digits only,
// case-folded (unicode.IsLetter, unicode.IsDigit), joined by a NUL byte. So
// "INV-77", "inv 77" and "INV/77" of "Acme Ltd." and "ACME LTD" are one
// invoice, and "INV-78" another.
func InvoiceKey(supplier, invoice string) string {
	return invoiceFold(supplier) + "\x00" + invoiceFold(invoice)
}

// invoiceFold keeps the letters and digits of s, each case-folded: the
// smallest rune it folds to (unicode.SimpleFold), in lower case.
func invoiceFold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			continue
		}
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b.WriteRune(unicode.ToLower(m))
	}
	return b.String()
}

// ReceivedInvoice returns the supplier and the invoice (or transfer) as the
// stock.received event ev received them, to be keyed by InvoiceKey; false for
// any other event, or one that names no invoice.
func ReceivedInvoice(ev Event) (supplier, invoice string, ok bool) {
	if ev.Kind != EvStockReceived {
		return "", "", false
	}
	var d Delivery
	if json.Unmarshal(ev.Data, &d) != nil || d.Supplier == "" || d.Invoice == "" {
		return "", "", false
	}
	return d.Supplier, d.Invoice, true
}

// errStopRead ends a walk of the events early.
var errStopRead = errors.New("pos: stop reading")

// readEvent reads the one event at seq.
func readEvent(ctx context.Context, j Journal, seq uint64) (Event, error) {
	if log, ok := j.(EventLog); ok {
		return log.Event(ctx, seq)
	}
	var out Event
	err := eventsFrom(ctx, j, seq, func(ev Event) error {
		out = ev
		return errStopRead
	})
	if err != nil && !errors.Is(err, errStopRead) {
		return Event{}, err
	}
	if out.Seq != seq {
		return Event{}, ErrNoEventLog
	}
	return out, nil
}

// stockSeqs returns the sequence numbers of the stock events before before
// that named imei, oldest first: the journal's record (StockIndex), or else
// the events read from when stock began.
func (b *stockBook) stockSeqs(ctx context.Context, j Journal, imei string, before uint64) ([]uint64, error) {
	if ix, ok := j.(StockIndex); ok {
		seqs, err := ix.UnitStock(ctx, imei)
		if err == nil {
			i, _ := slices.BinarySearch(seqs, before)
			return seqs[:i], nil
		}
		if !errors.Is(err, ErrNoStockIndex) {
			return nil, err
		}
	}
	var out []uint64
	err := eventsFrom(ctx, j, max(b.st.Began, 1), func(ev Event) error {
		if ev.Seq >= before {
			return errStopRead
		}
		if ev.Kind.MovesStock() && slices.Contains(StockIMEIs(ev), imei) {
			out = append(out, ev.Seq)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopRead) {
		return nil, err
	}
	return out, nil
}

// revive returns the unit with imei (either of its IMEIs) as the stock events
// before before left what it is, in state sold and not kept: its item, both
// IMEIs, cost, supplier, invoice and when it was received, from the last
// delivery or transfer that received it; for a unit never received, the first
// adjustment that named it (found at a count); nil when no stock event named
// it. It reads the IMEI's stock events newest first, one event each, to the
// last receipt: a unit sold leaves the book and comes back this way.
func (b *stockBook) revive(ctx context.Context, j Journal, imei string, before uint64) (*StockUnit, error) {
	seqs, err := b.stockSeqs(ctx, j, imei, before)
	if err != nil {
		return nil, err
	}
	var found *StockUnit
	for i := len(seqs) - 1; i >= 0; i-- {
		ev, err := readEvent(ctx, j, seqs[i])
		if err != nil {
			return nil, err
		}
		switch ev.Kind {
		case EvStockReceived:
			var d Delivery
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				return nil, wrapBad(ev, err)
			}
			for _, l := range d.Lines {
				for _, un := range l.Units {
					if un.IMEI == imei || un.IMEI2 == imei {
						return &StockUnit{IMEI: un.IMEI, IMEI2: un.IMEI2, SKU: l.SKU, State: UnitSold, Cost: l.Cost,
							Received: ev.Time, Supplier: d.Supplier, Invoice: d.Invoice}, nil
					}
				}
			}
		case EvStockAdjusted:
			var a StockAdjustment
			if err := json.Unmarshal(ev.Data, &a); err != nil {
				return nil, wrapBad(ev, err)
			}
			for _, m := range a.Units {
				if m.IMEI == imei && m.SKU != "" {
					found = &StockUnit{IMEI: imei, SKU: m.SKU, State: UnitSold, Received: ev.Time}
				}
			}
		}
	}
	return found, nil
}

// lookup returns the unit with imei as the book keeps it, or else as its
// receipt left it (revive); nil when stock never received it.
func (b *stockBook) lookup(ctx context.Context, j Journal, imei string) (*StockUnit, error) {
	if u := b.unit(imei); u != nil {
		return u, nil
	}
	return b.revive(ctx, j, imei, ^uint64(0))
}

// invoiceReceived returns the sequence number of the delivery that received
// the supplier's invoice (the first, where two spelt apart were received
// before InvoiceKey told them as one), 0 when none did: the journal's index
// (StockIndex), or else the deliveries read from when stock began.
func (b *stockBook) invoiceReceived(ctx context.Context, j Journal, supplier, invoice string) (uint64, error) {
	if ix, ok := j.(StockIndex); ok {
		seq, err := ix.InvoiceReceived(ctx, supplier, invoice)
		if !errors.Is(err, ErrNoStockIndex) {
			return seq, err
		}
	}
	if b.st.Since.IsZero() {
		return 0, nil
	}
	key := InvoiceKey(supplier, invoice)
	var seq uint64
	err := eventsFrom(ctx, j, max(b.st.Began, 1), func(ev Event) error {
		// The first delivery of the invoice is the one named, as the
		// journal's index keeps it.
		if sup, inv, ok := ReceivedInvoice(ev); ok && seq == 0 && InvoiceKey(sup, inv) == key {
			seq = ev.Seq
		}
		return nil
	})
	if errors.Is(err, ErrNoEventLog) {
		return 0, nil
	}
	return seq, err
}

// story returns the unit with imei (either of its IMEIs) with its history,
// told by a book that reads only its events when the journal keeps their
// records (StockIndex and IMEIIndex): the stock events that named either of
// its IMEIs and the events of the orders that carried them. Another journal
// is read through. since and began are when stock began (the book's), so
// that the unit's sales count as the book counts them.
func (s *Stock) story(ctx context.Context, imei string, since time.Time, began uint64) (*StockUnit, error) {
	sb := &stockBook{story: true, mark: snapMark{loaded: true}}
	evs, ok, err := s.unitEvents(ctx, imei)
	if err != nil {
		return nil, err
	}
	if !ok {
		if err := sb.catchUp(ctx, s.j); err != nil {
			return nil, err
		}
		return sb.unit(imei), nil
	}
	sb.st.Since, sb.st.Began = since, began
	for _, ev := range evs {
		if err := sb.apply(ctx, s.j, ev); err != nil {
			return nil, err
		}
	}
	return sb.unit(imei), nil
}

// unitEvents returns, in sequence, the events of the unit with imei: the
// stock events that named either of its IMEIs (their records, StockIndex) and
// the events of every order that carried either (IMEIIndex); false when the
// journal keeps no such records.
func (s *Stock) unitEvents(ctx context.Context, imei string) ([]Event, bool, error) {
	six, ok := s.j.(StockIndex)
	if !ok {
		return nil, false, nil
	}
	iix, ok := s.j.(IMEIIndex)
	if !ok {
		return nil, false, nil
	}
	var (
		evs    []Event
		seen   = map[uint64]bool{}
		imeis  = []string{imei}
		orders []string
	)
	add := func(ev Event) {
		if !seen[ev.Seq] {
			seen[ev.Seq] = true
			evs = append(evs, ev)
		}
	}
	for i := 0; i < len(imeis); i++ {
		seqs, err := six.UnitStock(ctx, imeis[i])
		if errors.Is(err, ErrNoStockIndex) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		for _, seq := range seqs {
			if seen[seq] {
				continue
			}
			ev, err := readEvent(ctx, s.j, seq)
			if err != nil {
				return nil, false, err
			}
			add(ev)
			if ev.Kind != EvStockReceived {
				continue
			}
			var d Delivery
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				return nil, false, wrapBad(ev, err)
			}
			for _, l := range d.Lines {
				for _, u := range l.Units {
					if u.IMEI == imeis[i] || u.IMEI2 == imeis[i] {
						for _, m := range []string{u.IMEI, u.IMEI2} {
							if m != "" && !slices.Contains(imeis, m) {
								imeis = append(imeis, m) // the unit's other IMEI
							}
						}
					}
				}
			}
		}
		r, err := iix.IMEI(ctx, imeis[i])
		if errors.Is(err, ErrNoIMEIIndex) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		for _, id := range append(slices.Clone(r.Orders), r.Freed) {
			if id != "" && !slices.Contains(orders, id) {
				orders = append(orders, id)
			}
		}
	}
	for _, id := range orders {
		oevs, err := s.j.Events(ctx, id)
		if err != nil {
			return nil, false, err
		}
		for _, ev := range oevs {
			add(ev)
		}
	}
	slices.SortFunc(evs, func(a, b Event) int {
		return cmp.Compare(a.Seq, b.Seq)
	})
	return evs, true, nil
}

// wrapBad is the error of a stock event whose record does not decode.
func wrapBad(ev Event, err error) error {
	return fmt.Errorf("pos: %s at %d: %w: %w", ev.Kind, ev.Seq, ErrBadEvent, err)
}

// explain names, in a refusal of a unit the book does not keep (sold, sent,
// written off) as never received, where the unit is: its story says. b.mu is
// held.
func (s *Stock) explain(ctx context.Context, b *stockBook, err error) error {
	var ne *NotInStockError
	if !errors.As(err, &ne) || ne.State != "" || ne.Of != "" {
		return err
	}
	u, serr := s.story(ctx, ne.IMEI, b.st.Since, b.st.Began)
	if serr != nil {
		return serr
	}
	if u == nil {
		return err
	}
	e := *ne
	if e.SKU != "" && !strings.EqualFold(u.SKU, e.SKU) {
		e.Of = u.SKU
	}
	e.State = u.State
	return &e
}
