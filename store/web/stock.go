package web

import (
	"net/http"
	"strings"
	"time"

	"galla/pos"
	"galla/store"
)

// stockView is the Stock page: the serialised units on hand by counter and
// model with their value at cost and their age, the quantities on hand of
// the items not serialised, the units set aside, missing or in transit, and
// the transfers, those in transit first.
type stockView struct {
	OnHand    []stockGroup
	Qty       []store.StoreQty
	Aside     []store.StoreUnit // damaged, missing, in transit
	Transfers []store.StoreTransfer
	Units     int
	Cost      pos.Paise
	Query     string
}

// stockGroup is one counter's units of one model on hand.
type stockGroup struct {
	Terminal string
	SKU      string
	Units    []store.StoreUnit
	Cost     pos.Paise
	Oldest   int // days the oldest unit has been in stock
}

// stockPage serves GET /manager/stock[?q=SKU or IMEI digits].
func (p *Pages) stockPage(w http.ResponseWriter, r *http.Request, s session) {
	ctx := r.Context()
	units, err := p.db.Projections.StockUnits(ctx, false)
	if err != nil {
		p.fail(w, s, err)
		return
	}
	transfers, err := p.db.Projections.StockTransfers(ctx)
	if err != nil {
		p.fail(w, s, err)
		return
	}
	qty, err := p.db.Projections.StockQty(ctx)
	if err != nil {
		p.fail(w, s, err)
		return
	}
	v := stockView{Transfers: transfers, Query: strings.TrimSpace(r.URL.Query().Get("q"))}
	now := p.Now()
	q := strings.ToLower(v.Query)
	for _, x := range qty {
		if q == "" || strings.Contains(strings.ToLower(x.SKU), q) {
			v.Qty = append(v.Qty, x)
		}
	}
	for _, u := range units {
		if q != "" && !strings.Contains(strings.ToLower(u.SKU), q) && !strings.HasPrefix(u.IMEI, q) {
			continue
		}
		if u.State != string(pos.UnitInStock) {
			v.Aside = append(v.Aside, u)
			continue
		}
		n := len(v.OnHand)
		if n == 0 || v.OnHand[n-1].Terminal != u.Terminal || v.OnHand[n-1].SKU != u.SKU {
			v.OnHand = append(v.OnHand, stockGroup{Terminal: u.Terminal, SKU: u.SKU})
			n++
		}
		g := &v.OnHand[n-1]
		g.Units = append(g.Units, u)
		g.Cost += u.Cost
		if u.Received != nil {
			g.Oldest = max(g.Oldest, int(now.Sub(*u.Received)/(24*time.Hour)))
		}
		v.Units++
		v.Cost += u.Cost
	}
	p.render(w, http.StatusOK, "stock", view{Title: "Stock", Manager: s.Manager, CSRF: s.CSRF, Data: v})
}
