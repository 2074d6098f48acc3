package journal

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// Stock lists the stock events (pos.EventKind.MovesStock: deliveries,
// adjustments, transfers sent) by business day (schema 6): the stock_days
// bucket keeps day ‖ 0x00 ‖ u64 seq of each, written in the event's own
// transaction (deriveStockDay), so that the stock moves of some days read
// those days' entries and events only, whatever the journal's length. The
// stock_invoices bucket (schema 7) keeps, under each supplier's invoice
// received (pos.InvoiceKey, schema 9), the u64 seq of its delivery, so that
// an invoice received twice is refused by one lookup.
type Stock struct{ *journalCore }

// StockEvents returns the stock events recorded on the days from to to
// (pos.DayLayout, both included), day by day, each day's in sequence. Each
// entry of the index is checked against the event it names, read from the
// hash-chained log: an entry naming an event of another day or kind was
// changed outside Galla, a *MismatchError. A journal of an older schema
// opened read-only, which has no index, is read through.
func (st *Stock) StockEvents(ctx context.Context, from, to string) ([]pos.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("journal: stock events: %w", err)
	}
	for _, d := range []string{from, to} {
		if err := checkDay(d); err != nil {
			return nil, fmt.Errorf("journal: stock events: %w", err)
		}
	}
	var out []pos.Event
	err := st.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketStockDays)
		if b == nil {
			return st.stockEventsRead(ctx, tx, from, to, &out)
		}
		events := tx.Bucket(bucketEvents)
		c := b.Cursor()
		for k, _ := c.Seek(dayPrefix(from)); k != nil; k, _ = c.Next() {
			if len(k) != len(time.DateOnly)+1+8 || k[len(time.DateOnly)] != sep {
				return st.refuse(string(bucketStockDays), printable(k), "the index entry's key is not one Galla writes: the index was changed outside Galla")
			}
			day := string(k[:len(time.DateOnly)])
			if day > to {
				break
			}
			seq := beU64(k[len(time.DateOnly)+1:])
			ev, err := st.rec.eventAt(events, seq)
			if err != nil {
				return err
			}
			if ev.Day != day || !ev.Kind.MovesStock() {
				return st.refuse(string(bucketStockDays), printable(k), fmt.Sprintf("the index lists event %d as a stock event of %s, but it is a %s of %q: the index was changed outside Galla", seq, day, ev.Kind, ev.Day))
			}
			out = append(out, ev)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("journal: stock events of %s to %s: %w", from, to, err)
	}
	return out, nil
}

// StockBegan returns the time of the first delivery or adjustment (when stock
// began), zero when none was recorded: the first of the index's entries that
// is one, nearly always its first.
func (st *Stock) StockBegan(ctx context.Context) (time.Time, error) {
	if err := ctx.Err(); err != nil {
		return time.Time{}, fmt.Errorf("journal: stock began: %w", err)
	}
	var began time.Time
	err := st.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketStockDays)
		if b == nil {
			var evs []pos.Event
			if err := st.stockEventsRead(ctx, tx, "0000-00-00", "9999-99-99", &evs); err != nil {
				return err
			}
			for _, ev := range evs {
				if ev.Kind != pos.EvStockSent {
					began = ev.Time
					break
				}
			}
			return nil
		}
		events := tx.Bucket(bucketEvents)
		c := b.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if len(k) < 8 {
				return st.refuse(string(bucketStockDays), printable(k), "the index entry's key is not one Galla writes: the index was changed outside Galla")
			}
			seq := beU64(k[len(k)-8:])
			ev, err := st.rec.eventAt(events, seq)
			if err != nil {
				return err
			}
			if !ev.Kind.MovesStock() || !bytes.HasPrefix(k, dayPrefix(ev.Day)) {
				return st.refuse(string(bucketStockDays), printable(k), fmt.Sprintf("the index lists event %d as a stock event, but it is a %s of %q: the index was changed outside Galla", seq, ev.Kind, ev.Day))
			}
			if ev.Kind != pos.EvStockSent {
				began = ev.Time
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("journal: stock began: %w", err)
	}
	return began, nil
}

// stockEventsRead appends to *out the stock events of the days from to to,
// read through from the first event: a journal of an older schema opened
// read-only.
func (st *Stock) stockEventsRead(ctx context.Context, tx *bolt.Tx, from, to string, out *[]pos.Event) error {
	c := tx.Bucket(bucketEvents).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		r, err := st.rec.decode(v)
		if err != nil {
			return st.corrupt(beU64(k), err.Error())
		}
		ev, err := r.event()
		if err != nil {
			return st.corrupt(beU64(k), err.Error())
		}
		if ev.Kind.MovesStock() && ev.Day >= from && ev.Day <= to {
			*out = append(*out, ev)
		}
	}
	return nil
}

// InvoiceReceived returns the stock.received event that received the
// supplier's invoice (pos.InvoiceKey), 0 when none did (pos.StockIndex): one
// Get of the index, keyed by pos.InvoiceKey itself (schema 9). The entry
// found is checked against the event it names, read from the hash-chained
// log: an entry naming an event that is not a delivery of its key was
// changed outside Galla, a *MismatchError. A journal opened read-only whose
// index is keyed otherwise (schema 8 or older) or missing (schema 6 or
// older) gives pos.ErrNoStockIndex: the book reads the deliveries through.
func (st *Stock) InvoiceReceived(ctx context.Context, supplier, invoice string) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("journal: invoice received: %w", err)
	}
	key := pos.InvoiceKey(supplier, invoice)
	var seq uint64
	err := st.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketStockInvoices)
		if b == nil || schemaOf(tx) < schemaInvoiceKeys {
			return pos.ErrNoStockIndex
		}
		v := b.Get([]byte(key))
		if v == nil {
			return nil
		}
		if len(v) != 8 {
			return st.refuse(string(bucketStockInvoices), printable([]byte(key)), "the entry is not a sequence number: the index was changed outside Galla")
		}
		ev, err := st.rec.eventAt(tx.Bucket(bucketEvents), beU64(v))
		if err != nil {
			return err
		}
		if sup, inv, ok := pos.ReceivedInvoice(ev); !ok || pos.InvoiceKey(sup, inv) != key {
			return st.refuse(string(bucketStockInvoices), printable([]byte(key)), fmt.Sprintf("the index names event %d, a %s, as the delivery of this invoice: the index was changed outside Galla", ev.Seq, ev.Kind))
		}
		seq = ev.Seq
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("journal: invoice %s of %s received: %w", invoice, supplier, err)
	}
	return seq, nil
}

// indexKey is the key schemas 7 and 8 gave a delivery of the supplier's
// invoice in the stock_invoices bucket: the names without regard to case or
// spacing, joined by a NUL byte. Schema 9 keys the bucket by pos.InvoiceKey
// (invoiceKeys moves the entries); a verify of a file of schema 7 or 8 (a
// backup) replays its index under this key (deriveIndexKey).
func indexKey(supplier, invoice string) string {
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	return norm(supplier) + "\x00" + norm(invoice)
}

// splitIndexKey returns the supplier and the invoice an indexKey k joins.
func splitIndexKey(k []byte) (supplier, invoice string) {
	supplier, invoice, _ = strings.Cut(string(k), "\x00")
	return supplier, invoice
}

// deriveIndexKey puts a delivery under its indexKey in b, as schemas 7 and 8
// derived stock_invoices: the last delivery of a key replaces the one
// before. It replays the index of a file of those schemas (a backup) as it
// was written.
func deriveIndexKey(b *bolt.Bucket, ev *pos.Event) error {
	sup, inv, ok := pos.ReceivedInvoice(*ev)
	if !ok {
		return nil
	}
	return b.Put([]byte(indexKey(sup, inv)), u64(ev.Seq))
}

// deriveStockDay lists a stock event under its business day and a delivery
// under its supplier's invoice (stock_invoices, keyed by pos.InvoiceKey since
// schema 9), inside tx: the same code for Append and for Rebuild's replay.
// The first delivery of an invoice keeps the entry: the till refuses a
// second one, and one recorded before the rule of pos.InvoiceKey (INV/77
// after INV-77) leaves the index naming the first, as invoiceKeys leaves
// the index it moves, so that the refusal names the delivery that received
// the invoice first. A journal without the buckets (a file of schema 5, or
// 6, replayed by VerifyFile as it was written) keeps none.
func deriveStockDay(tx *bolt.Tx, ev *pos.Event) error {
	if !ev.Kind.MovesStock() {
		return nil
	}
	if sup, inv, ok := pos.ReceivedInvoice(*ev); ok {
		if b := tx.Bucket(bucketStockInvoices); b != nil {
			if k := []byte(pos.InvoiceKey(sup, inv)); b.Get(k) == nil {
				if err := b.Put(k, u64(ev.Seq)); err != nil {
					return err
				}
			}
		}
	}
	if ev.Day == "" {
		return nil
	}
	b := tx.Bucket(bucketStockDays)
	if b == nil {
		return nil
	}
	if err := checkDay(ev.Day); err != nil {
		return fmt.Errorf("%w: %w", pos.ErrBadEvent, err)
	}
	b.FillPercent = ordersFill // keys ascend: day, then sequence
	return b.Put(dayKey(ev.Day, ev.Seq), nil)
}
