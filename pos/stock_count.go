package pos

import (
	"context"
	"slices"
	"strings"
)

// UnitMissing is a unit the book had that a count did not find: gone from
// the shelf, written off by a manager with a reason.
const UnitMissing UnitState = "missing"

// StockCount is what a count of one item found on the shelf: the units
// scanned of a serialised item (by either IMEI), or the quantity counted of
// one that is not.
type StockCount struct {
	SKU     string
	Counted int64    // an item not serialised
	IMEIs   []string // a serialised item's units scanned
}

// Variance is a count against the book: the quantity on the book and
// counted, and for a serialised item the units the book has that were not
// scanned (Missing) and those scanned that the book does not have on the
// shelf (Found).
type Variance struct {
	SKU     string   `json:"sku"`
	Book    int64    `json:"book"`
	Counted int64    `json:"counted"`
	Missing []string `json:"missing,omitempty"`
	Found   []string `json:"found,omitempty"`
}

// None reports whether the count agrees with the book.
func (v Variance) None() bool {
	return v.Book == v.Counted && len(v.Missing) == 0 && len(v.Found) == 0
}

// Count compares a count of one item with the book; it records nothing.
func (s *Stock) Count(ctx context.Context, c StockCount) (Variance, error) {
	v, _, err := s.variance(ctx, c)
	return v, err
}

// ApplyCount adjusts the book to a count of one item on the authority of the
// manager whose PIN managerPIN is, with a reason, as one stock.adjusted
// event: the quantity of an item not serialised becomes the one counted; a
// serialised item's units not found become missing and those found come
// back in stock. It returns the variance applied; a count that agrees
// records nothing.
func (s *Stock) ApplyCount(ctx context.Context, c StockCount, reason, managerPIN string) (Variance, error) {
	m, err := s.crew.authorise(ctx, managerPIN)
	if err != nil {
		return Variance{}, err
	}
	v, p, err := s.variance(ctx, c)
	if err != nil || v.None() {
		return v, err
	}
	a := StockAdjustment{Reason: "count: " + strings.TrimSpace(reason)}
	if strings.TrimSpace(reason) == "" {
		return Variance{}, wrapf(ErrBadDelivery, "Say why the count differs from the book; nothing was recorded.")
	}
	if !p.Serialised {
		a.Lines = []StockMove{{SKU: p.SKU, Delta: v.Counted - v.Book}}
	}
	for _, x := range v.Missing {
		a.Units = append(a.Units, UnitMove{IMEI: x, To: UnitMissing})
	}
	for _, x := range v.Found {
		a.Units = append(a.Units, UnitMove{IMEI: x, SKU: p.SKU, To: UnitInStock})
	}
	return v, s.adjust(ctx, a, m.ID)
}

// variance counts c against the book.
func (s *Stock) variance(ctx context.Context, c StockCount) (Variance, Product, error) {
	cat, err := s.shelf.Catalog(ctx)
	if err != nil {
		return Variance{}, Product{}, err
	}
	p, ok := cat.Lookup(strings.TrimSpace(c.SKU))
	if !ok {
		return Variance{}, Product{}, wrapf(ErrBadDelivery, "%s is not in the catalog; check the item code.", c.SKU)
	}
	if c.Counted < 0 {
		return Variance{}, Product{}, wrapf(ErrBadDelivery, "The count of %s must be a number of units from 0.", p.SKU)
	}
	if p.Serialised && c.Counted != 0 {
		return Variance{}, Product{}, wrapf(ErrBadDelivery, "%s is serialised: count it by scanning each unit's IMEI.", p.SKU)
	}
	b, err := s.book(ctx)
	if err != nil {
		return Variance{}, Product{}, err
	}
	defer b.mu.Unlock()
	v := Variance{SKU: p.SKU, Book: b.st.Qty[p.SKU], Counted: c.Counted}
	if !p.Serialised {
		return v, p, nil
	}
	seen := map[string]bool{}
	for _, raw := range c.IMEIs {
		x := strings.TrimSpace(raw)
		if err := CheckIMEI(x); err != nil {
			return Variance{}, Product{}, wrapf(ErrBadDelivery, "The IMEI %q is wrong: %v; scan it again.", x, err)
		}
		u, err := b.lookup(ctx, s.j, x)
		if err != nil {
			return Variance{}, Product{}, err
		}
		if u != nil {
			if u.SKU != p.SKU {
				return Variance{}, Product{}, wrapf(ErrBadDelivery, "IMEI %s is a unit of %s, not of %s; count it with its item.", x, u.SKU, p.SKU)
			}
			x = u.IMEI
		}
		if seen[x] {
			continue // a box scanned twice counts once
		}
		seen[x] = true
		if u == nil || u.State != UnitInStock {
			v.Found = append(v.Found, x)
		}
	}
	v.Counted = int64(len(seen))
	for _, x := range b.shelf[p.SKU] {
		if !seen[x] {
			v.Missing = append(v.Missing, x)
		}
	}
	slices.Sort(v.Found)
	return v, p, nil
}
