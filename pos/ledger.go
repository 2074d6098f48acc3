package pos

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Ledger keeps the engine's day: the X and Z reports, the day close, the digest
// of the journal checked at close, and the prints recorded on an order.
type Ledger struct{ *engineCore }

// RecordPrint journals that an order's receipt was printed (first print or a
// reprint), or that printing failed with printErr. The sale stands either way. With
// p.Refund set it is the receipt of that refund, counted apart from the sale's.
func (lg *Ledger) RecordPrint(ctx context.Context, orderID string, reprint bool, p PrintEvent, printErr error) error {
	o, err := lg.order(ctx, orderID)
	if err != nil {
		return err
	}
	printed := o.Printed
	if p.Refund != "" {
		ref := o.RefundByID(p.Refund)
		if ref == nil {
			return fmt.Errorf("pos: record print of %q: no refund %q: %w", orderID, p.Refund, ErrOrderNotFound)
		}
		printed = ref.Printed
	}
	ev := Event{Kind: EvReceiptPrinted, Print: &p}
	switch {
	case printErr != nil:
		p.Error = printErr.Error()
		ev.Kind, ev.Reason = EvPrintFailed, p.Error
	case reprint || printed:
		ev.Kind = EvReceiptReprinted
	}
	_, err = lg.commit(ctx, o, ev)
	return err
}

// digest fills r.Digest for a Z report when the journal tells it.
func (lg *Ledger) digest(ctx context.Context, r *Report) error {
	zd, ok := lg.j.(ZDigester)
	if !ok || r.ZNo == 0 {
		return nil
	}
	d, err := zd.ZDigest(ctx, r.ZNo)
	if err != nil {
		return fmt.Errorf("pos: report %s: digest: %w", r.Day, err)
	}
	r.Digest = d
	return nil
}

// Report returns the report of day: a fresh X report of the whole date while
// no Z report closed it, the sealed Z report when one Z closed it and nothing
// came after, else a fresh report of the whole date, every period summed (ADR
// 0010): what the accountant's CSV and GSTR-1 read.
func (lg *Ledger) Report(ctx context.Context, day string) (*Report, error) {
	if _, err := time.Parse(DayLayout, day); err != nil {
		return nil, fmt.Errorf("pos: report: %w: day %q", ErrBadDay, day)
	}
	dc, err := lg.j.DayClose(ctx, day)
	if err != nil {
		return nil, fmt.Errorf("pos: report %s: %w", day, err)
	}
	if dc == nil {
		return lg.xReport(ctx, day, 0)
	}
	orders, err := lg.j.OrdersByDay(ctx, day)
	if err != nil {
		return nil, fmt.Errorf("pos: report %s: %w", day, err)
	}
	after := dc.Seq != 0 && slices.ContainsFunc(orders, func(o *Order) bool { return o.Seq > dc.Seq })
	if dc.Period > 1 || after {
		r, err := lg.xReport(ctx, day, 0)
		if err != nil {
			return nil, err
		}
		r.Kind = "Day"
		return r, nil
	}
	return lg.sealed(ctx, dc)
}

// sealed is the Z report dc sealed, its rows rebuilt.
func (lg *Ledger) sealed(ctx context.Context, dc *DayClose) (*Report, error) {
	day := dc.Day
	var r Report
	if err := json.Unmarshal(dc.Report, &r); err != nil {
		return nil, fmt.Errorf("pos: report %s: sealed Z report: %w", day, err)
	}
	if r.Orders == nil {
		var err error
		if r.Orders, err = lg.sealedRows(ctx, day, dc.After, dc.Seq); err != nil {
			return nil, fmt.Errorf("pos: report %s: %w", day, err)
		}
	}
	if err := lg.digest(ctx, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// XReport is the X report of day's open period (ADR 0010): the sales after the
// date's last Z report, or the whole date while none closed it.
func (lg *Ledger) XReport(ctx context.Context, day string) (*Report, error) {
	if _, err := time.Parse(DayLayout, day); err != nil {
		return nil, fmt.Errorf("pos: report: %w: day %q", ErrBadDay, day)
	}
	dc, err := lg.j.DayClose(ctx, day)
	if err != nil {
		return nil, fmt.Errorf("pos: report %s: %w", day, err)
	}
	if dc == nil {
		return lg.xReport(ctx, day, 0)
	}
	r, err := lg.xReport(ctx, day, dc.Seq)
	if err != nil {
		return nil, err
	}
	r.Period = max(dc.Period, 1) + 1
	return r, nil
}

// NextPeriod is the period of day a Z report taken now closes, and the
// sequence of the date's last day.closed it follows (0 for the first). A date
// already closed takes another Z only when something was sold after its last
// one; else the refusal (ErrDayClosed) names that Z.
func (lg *Ledger) NextPeriod(ctx context.Context, day string) (period int, after uint64, err error) {
	dc, err := lg.j.DayClose(ctx, day)
	if err != nil {
		return 0, 0, fmt.Errorf("pos: day %s: %w", day, err)
	}
	if dc == nil {
		return 1, 0, nil
	}
	orders, err := lg.periodOrders(ctx, day, dc.Seq)
	if err != nil {
		return 0, 0, fmt.Errorf("pos: day %s: %w", day, err)
	}
	if dc.Seq == 0 || len(orders) == 0 {
		return 0, 0, wrapf(fmt.Errorf("pos: day %s (Z %d): %w", day, dc.ZNo, ErrDayClosed),
			"%s is closed (Z %d); nothing was sold after it.", DayWords(day), dc.ZNo)
	}
	return max(dc.Period, 1) + 1, dc.Seq, nil
}

// DayWords is day (DayLayout) as screens name it: "Thu 26 Nov 2026".
func DayWords(day string) string {
	d, err := time.Parse(DayLayout, day)
	if err != nil {
		return day
	}
	return d.Format("Mon 2 Jan 2006")
}

// periodOrders are day's orders of the period after the day.closed event at
// seq: the orders first journaled after it. With seq 0, every order of day.
func (lg *Ledger) periodOrders(ctx context.Context, day string, seq uint64) ([]*Order, error) {
	orders, err := lg.j.OrdersByDay(ctx, day)
	if err != nil || seq == 0 {
		return orders, err
	}
	out := orders[:0:0]
	for _, o := range orders {
		if o.Seq <= seq {
			continue // its last event is before the Z: so is its first
		}
		first, err := lg.firstSeq(ctx, o.ID)
		if err != nil {
			return nil, err
		}
		if first > seq {
			out = append(out, o)
		}
	}
	return out, nil
}

// firstSeq is the sequence of the first event of order id.
func (lg *Ledger) firstSeq(ctx context.Context, id string) (uint64, error) {
	evs, err := lg.j.Events(ctx, id)
	if err != nil || len(evs) == 0 {
		return 0, err
	}
	return evs[0].Seq, nil
}

// sealedRows rebuilds the rows of a Z report, which is sealed with its totals
// only (SealedReport): each order of the Z's period (first journaled after the
// sequence after, see periodOrders) as its events before the day.closed event
// at seq made it, so the rows are the ones the Z report was made from. With
// seq 0 (a journal that does not tell it) the orders are taken as they are now.
func (lg *Ledger) sealedRows(ctx context.Context, day string, after, seq uint64) ([]ReportRow, error) {
	orders, err := lg.periodOrders(ctx, day, after)
	if err != nil {
		return nil, err
	}
	kept := orders[:0:0]
	for _, o := range orders {
		if seq == 0 || o.Seq < seq {
			kept = append(kept, o)
			continue
		}
		evs, err := lg.j.Events(ctx, o.ID)
		if err != nil {
			return nil, err
		}
		then := new(Order)
		for _, ev := range evs {
			if ev.Seq >= seq {
				break
			}
			next := then.Clone()
			if err := next.Apply(ev); err != nil {
				continue // a stale event changed nothing then either
			}
			then = next
		}
		if then.ID == "" {
			continue // first journaled after the Z: the date's next period's
		}
		kept = append(kept, then)
	}
	// Each row's GST is its document's, as the Z report stated it: by the
	// shop's registration on the document's date (Shops.StatesTax).
	shops, err := LoadShops(ctx, lg.j)
	if err != nil {
		return nil, err
	}
	rows := ShopReportAt(day, kept, time.Time{}, shops).Orders
	if rows == nil {
		rows = []ReportRow{}
	}
	return rows, nil
}

// xReport is a fresh report of day's orders first journaled after the
// sequence after (periodOrders): the whole date with 0.
func (lg *Ledger) xReport(ctx context.Context, day string, after uint64) (*Report, error) {
	orders, err := lg.periodOrders(ctx, day, after)
	if err != nil {
		return nil, fmt.Errorf("pos: report %s: %w", day, err)
	}
	if orders, err = lg.withSaleOrders(ctx, orders); err != nil {
		return nil, fmt.Errorf("pos: report %s: %w", day, err)
	}
	shops, err := LoadShops(ctx, lg.j)
	if err != nil {
		return nil, fmt.Errorf("pos: report %s: %w", day, err)
	}
	return ShopReportAt(day, orders, lg.clock.Now(), shops), nil
}

// withSaleOrders adds to a day's orders the split sales and tenders that
// BuildReport needs to count them and that had no event that day: the sale of
// each tender (is it complete?) and the tenders of each sale (a sale completed
// that day counts its tenders paid before).
func (lg *Ledger) withSaleOrders(ctx context.Context, orders []*Order) ([]*Order, error) {
	have := map[string]bool{}
	for _, o := range orders {
		have[o.ID] = true
	}
	out := orders
	for _, o := range orders {
		for _, id := range SaleOrderIDs(o) {
			if have[id] {
				continue
			}
			more, err := lg.sales.tenderOrder(ctx, id)
			if err != nil {
				return nil, err
			}
			if more != nil && !have[more.ID] {
				have[id], have[more.ID] = true, true
				out = append(out, more)
			}
		}
	}
	return out, nil
}

// CloseDay takes the Z report of day's open period, authorised by a manager's
// PIN: numbered, sealed in the journal, never redone (ADR 0010). What is sold
// after it on the same date belongs to the date's next period, which a later Z
// closes; a period closes once, and only with a sale in it (NextPeriod,
// ErrDayClosed), and never before its day has begun.
func (lg *Ledger) CloseDay(ctx context.Context, day, pin string) (*Report, error) {
	if _, err := time.Parse(DayLayout, day); err != nil || day > lg.today() {
		return nil, fmt.Errorf("pos: close day: %w: %q", ErrBadDay, day)
	}
	if err := lg.journalReady(ctx); err != nil {
		return nil, err
	}
	mgr, err := lg.roster.AuthoriseManager(ctx, pin, lg.clock.Now())
	if err != nil {
		return nil, err
	}
	if _, _, err := lg.NextPeriod(ctx, day); err != nil {
		return nil, err
	}
	// A sale left open with nothing paid and nothing in flight holds no money:
	// it is dropped here, journaled, and named on the Z; nothing is given back.
	// (Before numMu: giving a refused credit note back may ask the store.)
	dropped, err := lg.sales.dropEmptySales(ctx, mgr.ID)
	if err != nil {
		return nil, fmt.Errorf("pos: close day: %w", err)
	}
	lg.numMu.Lock()
	defer lg.numMu.Unlock()
	period, after, err := lg.NextPeriod(ctx, day)
	if err != nil {
		return nil, err
	}
	if dc, ok := lg.j.(DayChecker); ok {
		// The day's derived records must be what its events make them
		// (DESIGN.md section 4): an edited order record would change the Z.
		if err := dc.CheckDay(ctx, day); err != nil {
			return nil, fmt.Errorf("pos: close day %s: %w", day, err)
		}
	}
	last, err := lg.j.LastZ(ctx)
	if err != nil {
		return nil, fmt.Errorf("pos: close day: %w", err)
	}
	r, err := lg.xReport(ctx, day, after)
	if err != nil {
		return nil, err
	}
	if period > 1 {
		r.Period = period
	}
	r.Kind, r.ZNo, r.ClosedBy, r.Dropped = "Z", last+1, mgr.Name, dropped
	open, err := lg.sales.OpenSales(ctx)
	if err != nil {
		return nil, err
	}
	r.OpenListed = true
	for _, o := range open {
		r.OpenAtClose = append(r.OpenAtClose, o.ID)
	}
	raw, err := SealedReport(r)
	if err != nil {
		return nil, fmt.Errorf("pos: close day: %w", err)
	}
	ev := Event{V: EventVersion, Time: lg.clock.Now(), Kind: EvDayClosed, Day: day, Staff: mgr.ID,
		DayClose: &DayClose{Day: day, ZNo: r.ZNo, Report: raw, After: after}}
	if period > 1 {
		ev.DayClose.Period = period
	}
	if _, err := lg.j.Append(context.WithoutCancel(ctx), ev); err != nil {
		return nil, fmt.Errorf("pos: close day %s: %w", day, err)
	}
	if err := lg.digest(context.WithoutCancel(ctx), r); err != nil {
		lg.log.Error("the Z report's seal cannot be read", "day", day, "err", err)
	}
	return r, nil
}
