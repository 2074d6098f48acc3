package pos

import (
	"context"
	"encoding/json"
	"fmt"
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

// Report returns the report of day: the sealed Z report when the day is closed,
// else a fresh X report.
func (lg *Ledger) Report(ctx context.Context, day string) (*Report, error) {
	if _, err := time.Parse(DayLayout, day); err != nil {
		return nil, fmt.Errorf("pos: report: %w: day %q", ErrBadDay, day)
	}
	dc, err := lg.j.DayClose(ctx, day)
	if err != nil {
		return nil, fmt.Errorf("pos: report %s: %w", day, err)
	}
	if dc != nil {
		var r Report
		if err := json.Unmarshal(dc.Report, &r); err != nil {
			return nil, fmt.Errorf("pos: report %s: sealed Z report: %w", day, err)
		}
		if r.Orders == nil {
			if r.Orders, err = lg.sealedRows(ctx, day, dc.Seq); err != nil {
				return nil, fmt.Errorf("pos: report %s: %w", day, err)
			}
		}
		if err := lg.digest(ctx, &r); err != nil {
			return nil, err
		}
		return &r, nil
	}
	return lg.xReport(ctx, day)
}

// sealedRows rebuilds the rows of a Z report, which is sealed with its totals
// only (SealedReport): each order of the day as its events before the
// day.closed event at seq made it, so the rows are the ones the Z report was
// made from. With seq 0 (a journal that does not tell it) the orders are taken
// as they are now.
func (lg *Ledger) sealedRows(ctx context.Context, day string, seq uint64) ([]ReportRow, error) {
	orders, err := lg.j.OrdersByDay(ctx, day)
	if err != nil {
		return nil, err
	}
	for i, o := range orders {
		if seq == 0 || o.Seq < seq {
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
		orders[i] = then
	}
	rows := BuildReport(day, orders, time.Time{}).Orders
	if rows == nil {
		rows = []ReportRow{}
	}
	return rows, nil
}

func (lg *Ledger) xReport(ctx context.Context, day string) (*Report, error) {
	orders, err := lg.j.OrdersByDay(ctx, day)
	if err != nil {
		return nil, fmt.Errorf("pos: report %s: %w", day, err)
	}
	if orders, err = lg.withSaleOrders(ctx, orders); err != nil {
		return nil, fmt.Errorf("pos: report %s: %w", day, err)
	}
	shop, err := LoadShop(ctx, lg.j)
	if err != nil {
		return nil, fmt.Errorf("pos: report %s: %w", day, err)
	}
	return ShopReport(day, orders, lg.clock.Now(), shop), nil
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

// CloseDay takes the Z report of day, authorised by a manager's PIN: numbered,
// sealed in the journal, never redone. After it the journal refuses any event
// dated that day. A day closes once (ErrDayClosed) and never before it has begun.
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
	if err := lg.dayOpen(ctx, day); err != nil {
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
	if err := lg.dayOpen(ctx, day); err != nil {
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
	r, err := lg.xReport(ctx, day)
	if err != nil {
		return nil, err
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
		DayClose: &DayClose{Day: day, ZNo: r.ZNo, Report: raw}}
	if _, err := lg.j.Append(context.WithoutCancel(ctx), ev); err != nil {
		return nil, fmt.Errorf("pos: close day %s: %w", day, err)
	}
	if err := lg.digest(context.WithoutCancel(ctx), r); err != nil {
		lg.log.Error("the Z report's seal cannot be read", "day", day, "err", err)
	}
	return r, nil
}
