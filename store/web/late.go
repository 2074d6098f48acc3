package web

import (
	"context"

	"galla/pos"
	"galla/store"
)

// Late is what reached the store for a day after its store Z was sealed:
// the events, and how the day's live totals (which count them) now differ
// from the sealed Z (which does not).
type Late struct {
	Events []store.LateEvent
	// The live totals less the sealed Z's.
	Gross, Refunded, Net, Tax, Cash pos.Paise
}

// Changed reports whether the live totals differ from the sealed Z's.
func (l *Late) Changed() bool {
	return l.Gross != 0 || l.Refunded != 0 || l.Net != 0 || l.Tax != 0 || l.Cash != 0
}

// late reads what came for day after its store Z z, against the live report
// rep; nil while the day is open or when nothing came late and the totals
// agree.
func late(ctx context.Context, db *store.DB, day string, z *store.StoreZ, rep *store.DayReport) (*Late, error) {
	if z == nil || rep == nil {
		return nil, nil
	}
	evs, err := db.Reports.LateEvents(ctx, day)
	if err != nil {
		return nil, err
	}
	live := rep.Store
	l := &Late{Events: evs, Gross: live.GrossSales - z.GrossSales, Refunded: live.Refunded - z.Refunded,
		Net: live.NetSales - z.NetSales, Tax: live.Tax - z.Tax, Cash: live.CashExpected - z.CashExpected}
	if len(evs) == 0 && !l.Changed() {
		return nil, nil
	}
	return l, nil
}

// eventWords says what an event kind is, for the list of late events.
var eventWords = map[pos.EventKind]string{
	pos.EvOrderIntent:    "a sale or order opened",
	pos.EvCashReceived:   "cash taken",
	pos.EvPaymentOutcome: "a payment's outcome",
	pos.EvRefundIntent:   "a refund started",
	pos.EvRefundDone:     "a refund done",
	pos.EvDayClosed:      "a Z report (day closed)",
	pos.EvOrderUnknown:   "a payment's answer lost",
	pos.EvOrderAbandoned: "an order abandoned",
	pos.EvSaleCompleted:  "a split sale completed",
	pos.EvTenderAdded:    "a tender added to a split sale",
}

// eventText is kind in words, with the kind itself.
func eventText(kind string) string {
	if w, ok := eventWords[pos.EventKind(kind)]; ok {
		return w + " (" + kind + ")"
	}
	return kind
}
