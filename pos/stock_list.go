package pos

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// StockStatus says whether stock is kept, and so enforced: from the first
// goods received on, a serialised unit is sold only from stock.
type StockStatus struct {
	Kept  bool
	Since time.Time // when the first goods were received
	Units int       // serialised units in stock
	SKUs  int       // items with a quantity on hand (negative included)
}

// Sentence says the status for Settings and galla stock.
func (st StockStatus) Sentence() string {
	if !st.Kept {
		return "Stock is not kept: no goods were received yet, so phones are sold with any valid IMEI. Stock starts with the first goods received."
	}
	return "Stock is kept and enforced since " + st.Since.Format("2 Jan 2006") + ": a phone is sold only with the IMEI of a unit in stock, unless a manager allows it."
}

// StockRow is one item of the stock list: its quantity on hand (negative
// when more were sold than received), its damaged units, and the value on
// hand at cost and at price.
type StockRow struct {
	SKU        string   `json:"sku"`
	Name       string   `json:"name"`
	Brand      string   `json:"brand,omitempty"`
	Serialised bool     `json:"serialised,omitempty"`
	OnHand     int64    `json:"on_hand"`
	Damaged    int      `json:"damaged,omitempty"`
	Cost       Paise    `json:"cost"`  // on hand at cost: each unit's cost, or the last cost received
	Value      Paise    `json:"value"` // on hand at the catalog's price
	IMEIs      []string `json:"imeis,omitempty"`
}

// Enforced reports whether stock is kept, and so enforced.
func (s *Stock) Enforced(ctx context.Context) (StockStatus, error) {
	b, err := s.book(ctx)
	if err != nil {
		return StockStatus{}, err
	}
	defer b.mu.Unlock()
	st := StockStatus{Kept: !b.st.Since.IsZero(), Since: b.st.Since}
	for _, imeis := range b.shelf {
		st.Units += len(imeis)
	}
	for _, n := range b.st.Qty {
		if n != 0 {
			st.SKUs++
		}
	}
	return st, nil
}

// book returns the stock book caught up with the journal, locked; the caller
// unlocks b.mu.
func (s *Stock) book(ctx context.Context) (*stockBook, error) {
	b := &s.sb
	b.mu.Lock()
	if err := b.catchUp(ctx, s.j); err != nil {
		b.mu.Unlock()
		return nil, err
	}
	return b, nil
}

// List lists the items with stock records whose SKU, name or brand holds
// query (every one for ""), or whose unit in stock has an IMEI beginning with
// query, SKU order, at most limit (0: all). units adds each serialised item's
// IMEIs in stock.
func (s *Stock) List(ctx context.Context, query string, limit int, units bool) ([]StockRow, error) {
	cat, err := s.shelf.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	b, err := s.book(ctx)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	q := strings.ToLower(strings.TrimSpace(query))
	skus := b.sortedSKUs()
	digits := len(q) >= 4 && allDigits(q)
	var out []StockRow
	for _, sku := range skus {
		match := q == "" || strings.Contains(b.key(cat, sku), q)
		var found []string
		if !match && digits {
			found = prefixed(b.shelf[sku], q, 0)
			match = len(found) > 0
		}
		if !match {
			continue
		}
		p, _ := cat.Lookup(sku)
		r := StockRow{SKU: sku, Name: p.Name, Brand: p.Brand, Serialised: p.Serialised, OnHand: b.st.Qty[sku], Damaged: b.damaged[sku]}
		if r.Name == "" {
			r.Name = sku // an item no longer in the catalog
		}
		if ims := b.shelf[sku]; len(ims) > 0 || p.Serialised {
			r.Serialised = true
			for _, m := range ims {
				r.Cost += b.st.Units[m].Cost
			}
			switch {
			case found != nil:
				r.IMEIs = found
			case units:
				r.IMEIs = slices.Clone(ims)
			}
		} else if r.OnHand > 0 {
			r.Cost = Paise(r.OnHand) * b.st.Cost[sku]
		}
		if r.OnHand > 0 {
			r.Value = Paise(r.OnHand) * p.Price
		}
		out = append(out, r)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// Offer is the IMEIs of sku's units in stock that begin with prefix, sorted,
// at most limit (0: all): what the IMEI field offers as typed.
func (s *Stock) Offer(ctx context.Context, sku, prefix string, limit int) ([]string, error) {
	b, err := s.book(ctx)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	if p, ok := s.shelf.Lookup(sku); ok {
		sku = p.SKU
	}
	return prefixed(b.shelf[sku], prefix, limit), nil
}

// prefixed returns the strings of sorted s that begin with prefix, at most
// limit (0: all), by binary search.
func prefixed(s []string, prefix string, limit int) []string {
	i, _ := slices.BinarySearch(s, prefix)
	var out []string
	for ; i < len(s) && strings.HasPrefix(s[i], prefix); i++ {
		out = append(out, s[i])
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}

// Unit returns the unit with imei (either of its IMEIs), or false when stock
// never knew it. A unit on hand is the book's; one sold, sent or written off,
// which the book no longer keeps, is told by its own events (story).
func (s *Stock) Unit(ctx context.Context, imei string) (StockUnit, bool, error) {
	b, err := s.book(ctx)
	if err != nil {
		return StockUnit{}, false, err
	}
	defer b.mu.Unlock()
	imei = strings.TrimSpace(imei)
	if u := b.unit(imei); u != nil {
		return *u, true, nil
	}
	u, err := s.story(ctx, imei, b.st.Since, b.st.Began)
	if err != nil || u == nil {
		return StockUnit{}, false, err
	}
	out := *u
	out.History = nil
	return out, true, nil
}

// checkOnHand refuses a unit of lines that is not in stock while stock is
// kept (ErrNotInStock), unless a manager allowed it; a unit received as
// another item is refused too. A terminal that keeps no stock checks nothing.
func (s *Stock) checkOnHand(ctx context.Context, lines []Line) error {
	b, err := s.book(ctx)
	if err != nil {
		return err
	}
	defer b.mu.Unlock()
	if b.st.Since.IsZero() {
		return nil
	}
	for _, l := range lines {
		if !l.Serialised {
			continue
		}
		for _, m := range l.IMEIs {
			if err := b.onHand(m, l.SKU); err != nil {
				return s.explain(ctx, b, err)
			}
		}
	}
	return nil
}

// onHand checks one unit scanned on a line of sku ("" any). b.mu is held.
func (b *stockBook) onHand(imei, sku string) error {
	if _, ok := b.st.Allowed[imei]; ok {
		return nil
	}
	u := b.unit(imei)
	switch {
	case u == nil:
		return &NotInStockError{IMEI: imei, SKU: sku}
	case sku != "" && !strings.EqualFold(u.SKU, sku):
		return &NotInStockError{IMEI: imei, SKU: sku, State: u.State, Of: u.SKU}
	case u.State != UnitInStock:
		return &NotInStockError{IMEI: imei, SKU: sku, State: u.State}
	}
	return nil
}

// Short lists, for a cart's lines, the items not serialised whose sale takes
// the quantity on hand below zero while stock is kept: the warning the
// manager sees. The sale goes on.
func (s *Stock) Short(ctx context.Context, lines []CartLine) ([]string, error) {
	b, err := s.book(ctx)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	if b.st.Since.IsZero() {
		return nil, nil
	}
	var out []string
	want := map[string]int64{}
	for _, l := range lines {
		if l.Product.Serialised {
			continue
		}
		want[l.Product.SKU] += int64(l.Qty) // an item on two lines counts once, in full
	}
	for _, l := range lines {
		sku := l.Product.SKU
		if l.Product.Serialised || slices.Contains(out, sku) {
			continue
		}
		if have := b.st.Qty[sku]; have < want[sku] {
			out = append(out, sku)
		}
	}
	return out, nil
}

// ShortWarning is the warning before a sale that takes the items short (as
// Short lists them) below the quantity on hand: the sale goes on, the stock
// list and the store's stock page show the quantity below zero. "" when none
// is short.
func ShortWarning(short []string) string {
	switch len(short) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("Stock: %s is not on hand in that quantity; the sale goes on and takes its stock below zero, which the manager sees in the stock list. Receive or count it.", short[0])
	}
	return fmt.Sprintf("Stock: %s are not on hand in those quantities; the sale goes on and takes their stock below zero, which the manager sees in the stock list. Receive or count them.", strings.Join(short, ", "))
}

// checkUnit checks one IMEI as it is scanned, of any item: in stock, or
// allowed, while stock is kept.
func (s *Stock) checkUnit(ctx context.Context, imei string) error {
	b, err := s.book(ctx)
	if err != nil {
		return err
	}
	defer b.mu.Unlock()
	if b.st.Since.IsZero() {
		return nil
	}
	return s.explain(ctx, b, b.onHand(imei, ""))
}
