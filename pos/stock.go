package pos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Stock keeps what the counter has on its shelf (issue 26): goods received
// from a distributor's delivery, with every serialised unit's IMEI; what is on
// hand, derived from the journal's events (stock.received, stock.adjusted,
// the sales and their returns) like the book of IMEIs; and the rule that once
// stock is kept a phone is sold only from it. A terminal that never received
// goods keeps no stock and sells as before.
type Stock struct{ *core }

// The stock events. Each carries its record as Data, the manager or cashier
// in Staff and the business day in Day. New kinds need no schema version: a
// reader that does not know them ignores them.
const (
	// EvStockReceived is a distributor's delivery received into stock, with
	// every line's quantity and cost and every serialised unit's IMEIs
	// (Data: Delivery). One event per delivery: nothing of it is half
	// recorded.
	EvStockReceived EventKind = "stock.received"
	// EvStockAdjusted changes what is on hand outside a sale: a count's
	// variance approved by a manager, or a unit set aside as damaged or put
	// back (Data: StockAdjustment).
	EvStockAdjusted EventKind = "stock.adjusted"
	// EvStockSent is goods sent to another counter or store: out of stock
	// here, its units in transit until the other end receives them as a
	// delivery From this counter (Data: Transfer).
	EvStockSent EventKind = "stock.sent"
)

// MovesStock reports whether events of kind k are stock events that move
// stock by themselves (a delivery, an adjustment, a transfer sent), as
// opposed to a sale's or a return's, which move it through their order.
func (k EventKind) MovesStock() bool {
	return k == EvStockReceived || k == EvStockAdjusted || k == EvStockSent
}

// overrideStock is the "what" of a manager's override (EvOverride) that lets
// units not in stock be sold (AllowIMEIs); the store's pages list it with
// every other override.
const overrideStock = "stock"

// The stock rules, matched with errors.Is.
var (
	// ErrNotInStock refuses a serialised unit that is not on hand while stock
	// is kept; a manager may allow it (AllowIMEIs).
	ErrNotInStock = errors.New("the unit is not in stock")
	// ErrBadDelivery refuses a delivery that cannot be received as given;
	// nothing of it is recorded.
	ErrBadDelivery = errors.New("the delivery cannot be received")
	// ErrInvoiceReceived refuses a supplier's invoice received before.
	ErrInvoiceReceived = errors.New("the supplier's invoice was received already")
)

// Unit is one serialised unit as it comes in its box: its IMEI and, for a
// phone with two SIM slots, its second IMEI.
type Unit struct {
	IMEI  string `json:"imei"`
	IMEI2 string `json:"imei2,omitempty"`
}

// DeliveryLine is one line of a delivery: Qty units of SKU at Cost each
// (paise, before GST as the supplier's invoice states it; 0 when not given),
// and for a serialised item each unit's IMEIs.
type DeliveryLine struct {
	SKU   string `json:"sku"`
	Qty   int    `json:"qty"`
	Cost  Paise  `json:"cost,omitempty"`
	Units []Unit `json:"units,omitempty"`
}

// Delivery is goods received from a supplier on their invoice of a date
// (DayLayout).
type Delivery struct {
	// From is, for goods transferred from another counter or store, the
	// sender's name (Supplier says it too, Invoice is the transfer's id).
	From     string         `json:"from,omitempty"`
	Supplier string         `json:"supplier"`
	Invoice  string         `json:"invoice"`
	Date     string         `json:"date"`
	Lines    []DeliveryLine `json:"lines"`
}

// Units is how many units the delivery brings.
func (d Delivery) Units() int {
	n := 0
	for _, l := range d.Lines {
		n += l.Qty
	}
	return n
}

// UnitState is where a serialised unit is.
type UnitState string

// The states of a unit.
const (
	UnitInStock UnitState = "in_stock" // on the shelf, for sale
	UnitSold    UnitState = "sold"     // sold and not returned
	UnitDamaged UnitState = "damaged"  // set aside: not for sale
	// UnitInTransit is a unit sent to another counter or store, not yet
	// received there.
	UnitInTransit UnitState = "in_transit"
)

// StockAdjustment is what a stock.adjusted event changes: quantities of
// items not serialised (Delta, negative for units gone) and the state of
// serialised units, with why.
type StockAdjustment struct {
	Reason string      `json:"reason"`
	Lines  []StockMove `json:"lines,omitempty"`
	Units  []UnitMove  `json:"units,omitempty"`
}

// StockMove is a change of the quantity on hand of an item not serialised.
type StockMove struct {
	SKU   string `json:"sku"`
	Delta int64  `json:"delta"`
}

// UnitMove sets a serialised unit's state (in stock, damaged, or missing:
// sold is a sale's).
type UnitMove struct {
	IMEI string    `json:"imei"`
	SKU  string    `json:"sku,omitempty"` // a unit the journal does not know yet (found at a count)
	To   UnitState `json:"to"`
}

// NotInStockError names the unit refused and why; it matches ErrNotInStock.
type NotInStockError struct {
	IMEI  string
	SKU   string    // the line it was scanned on
	State UnitState // "" when the unit was never received
	Of    string    // the SKU the unit was received as, when it is another
}

func (e *NotInStockError) Error() string {
	return fmt.Sprintf("pos: IMEI %s of %s: %v", e.IMEI, e.SKU, ErrNotInStock)
}

// Is makes a *NotInStockError match ErrNotInStock.
func (e *NotInStockError) Is(target error) bool { return target == ErrNotInStock }

// Sentence says why the unit cannot be sold and what to do.
func (e *NotInStockError) Sentence() string {
	const ask = "; scan a unit on the shelf, or ask a manager to allow it."
	switch {
	case e.Of != "" && e.SKU != "":
		return fmt.Sprintf("IMEI %s is a unit of %s, not of %s%s", e.IMEI, e.Of, e.SKU, ask)
	case e.State == UnitSold:
		return fmt.Sprintf("IMEI %s is not in stock: it was sold and not returned%s", e.IMEI, ask)
	case e.State == UnitDamaged:
		return fmt.Sprintf("IMEI %s is set aside as damaged, not for sale%s", e.IMEI, ask)
	case e.State == UnitInTransit:
		return fmt.Sprintf("IMEI %s was sent to another counter and is not in stock here%s", e.IMEI, ask)
	case e.State == UnitMissing:
		return fmt.Sprintf("IMEI %s was written off as missing at a count%s", e.IMEI, ask)
	}
	return fmt.Sprintf("IMEI %s was never received into stock%s", e.IMEI, ask)
}

// MayOverrideStock reports whether a refusal may be overridden by a manager
// (AllowIMEIs): a unit not in stock may; an IMEI already sold may not.
func MayOverrideStock(err error) bool { return errors.Is(err, ErrNotInStock) }

// Receive receives a delivery into stock on the authority of the manager
// whose PIN managerPIN is, as one stock.received event. It checks everything
// first and records nothing when any of it is wrong: an unknown SKU, a
// quantity or cost that is not a number of units or paise, a serialised line
// without an IMEI for each unit, an IMEI whose check digit fails, one given
// twice or already in stock, or the supplier's invoice received before. It
// returns the delivery as journaled (SKUs as the catalog spells them).
func (s *Stock) Receive(ctx context.Context, d Delivery, managerPIN string) (Delivery, error) {
	m, err := s.crew.authorise(ctx, managerPIN)
	if err != nil {
		return Delivery{}, err
	}
	return s.receive(ctx, d, m.ID)
}

// receive checks d against the catalog and the stock and journals it as
// received by staff.
func (s *Stock) receive(ctx context.Context, d Delivery, staff string) (Delivery, error) {
	cat, err := s.shelf.Catalog(ctx)
	if err != nil {
		return Delivery{}, err
	}
	d, err = checkDelivery(d, cat, s.eng.Now())
	if err != nil {
		return Delivery{}, err
	}
	b := &s.sb
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.catchUp(ctx, s.j); err != nil {
		return Delivery{}, err
	}
	seq, err := b.invoiceReceived(ctx, s.j, d.Supplier, d.Invoice)
	if err != nil {
		return Delivery{}, err
	}
	if seq > 0 {
		return Delivery{}, invoiceRefusal(ctx, s.j, d, seq)
	}
	for li, l := range d.Lines {
		for ui, u := range l.Units {
			for _, imei := range []string{u.IMEI, u.IMEI2} {
				if imei == "" {
					continue
				}
				if un := b.unit(imei); un != nil && (un.State == UnitInStock || un.State == UnitDamaged) {
					return Delivery{}, wrapf(ErrBadDelivery, "IMEI %s (%s, box %d) is already in stock as %s (%s); nothing was recorded.",
						imei, l.SKU, boxNo(d, li, ui), un.SKU, stateText(un.State))
				}
			}
		}
	}
	raw, err := json.Marshal(d)
	if err != nil {
		return Delivery{}, err
	}
	ev := Event{V: EventVersion, Time: s.eng.Now(), Kind: EvStockReceived, Day: s.eng.Today(), Staff: staff, Data: raw}
	if _, err := s.j.Append(context.WithoutCancel(ctx), ev); err != nil {
		return Delivery{}, fmt.Errorf("pos: journal %s: %w: %w", ev.Kind, errJournalWrite, err)
	}
	return d, b.catchUp(ctx, s.j)
}

// invoiceRefusal refuses delivery d, whose supplier's invoice the delivery
// at seq received already (InvoiceKey), naming that one as it was written
// when it was spelt otherwise.
func invoiceRefusal(ctx context.Context, j Journal, d Delivery, seq uint64) error {
	ev, err := readEvent(ctx, j, seq)
	if err != nil {
		return err
	}
	if sup, inv, ok := ReceivedInvoice(ev); ok && (sup != d.Supplier || inv != d.Invoice) {
		on := ""
		if ev.Day != "" {
			on = " on " + ev.Day
		}
		return wrapf(ErrInvoiceReceived, "Invoice %s of %s was received already, written as invoice %s of %s%s (journal event %d); nothing was recorded.",
			d.Invoice, d.Supplier, inv, sup, on, seq)
	}
	return wrapf(ErrInvoiceReceived, "Invoice %s of %s was received already (journal event %d); nothing was recorded.", d.Invoice, d.Supplier, seq)
}

// boxNo is the place of unit ui of line li among the delivery's serialised
// units, from 1, as the boxes were scanned.
func boxNo(d Delivery, li, ui int) int {
	n := 0
	for i := range li {
		n += len(d.Lines[i].Units)
	}
	return n + ui + 1
}

func stateText(s UnitState) string {
	switch s {
	case UnitInStock:
		return "a unit on the shelf"
	case UnitDamaged:
		return "a damaged unit"
	case UnitInTransit:
		return "a unit in transit"
	}
	return string(s)
}

// checkDelivery checks d as given, before the stock is read: names, date,
// every line's SKU, quantity and cost, and every unit's IMEIs (check digits
// and repeats within the delivery).
func checkDelivery(d Delivery, cat *Catalog, now time.Time) (Delivery, error) {
	bad := func(format string, a ...any) (Delivery, error) {
		return Delivery{}, wrapf(ErrBadDelivery, format+"; nothing was recorded.", a...)
	}
	d.Supplier, d.Invoice = strings.TrimSpace(d.Supplier), strings.TrimSpace(d.Invoice)
	switch {
	case d.Supplier == "":
		return bad("Name the supplier the goods came from")
	case d.Invoice == "":
		return bad("Give the supplier's invoice number")
	case len(d.Supplier) > 100 || len(d.Invoice) > 40:
		return bad("The supplier's name or invoice number is too long")
	}
	day, err := time.ParseInLocation(DayLayout, d.Date, now.Location())
	if err != nil {
		return bad("The invoice date %q is not a date; give it as YYYY-MM-DD", d.Date)
	}
	if day.After(now) {
		return bad("The invoice date %s is in the future", d.Date)
	}
	if len(d.Lines) == 0 {
		return bad("The delivery has no items")
	}
	seen := map[string]int{}
	lines := make([]DeliveryLine, 0, len(d.Lines))
	box := 0
	for _, l := range d.Lines {
		p, ok := cat.Lookup(strings.TrimSpace(l.SKU))
		if !ok {
			return bad("%s is not in the catalog; import the catalog with it first, or check the item code", l.SKU)
		}
		if slices.ContainsFunc(lines, func(o DeliveryLine) bool { return o.SKU == p.SKU }) {
			return bad("%s is given on two lines; give its quantity once", p.SKU)
		}
		if l.Qty <= 0 || l.Qty > 10_000 {
			return bad("%s: the quantity must be a number of units from 1 to 10000 (not %d)", p.SKU, l.Qty)
		}
		if l.Cost < 0 || l.Cost > MaxPrice {
			return bad("%s: the cost must be a number of paise from 0 to %d", p.SKU, int64(MaxPrice))
		}
		nl := DeliveryLine{SKU: p.SKU, Qty: l.Qty, Cost: l.Cost}
		switch {
		case p.Serialised && len(l.Units) != l.Qty:
			return bad("%s is serialised: %d units need %d IMEIs, %d were given", p.SKU, l.Qty, l.Qty, len(l.Units))
		case !p.Serialised && len(l.Units) > 0:
			return bad("%s carries no IMEI; give IMEIs only for serialised items", p.SKU)
		}
		for _, u := range l.Units {
			box++
			u.IMEI, u.IMEI2 = strings.TrimSpace(u.IMEI), strings.TrimSpace(u.IMEI2)
			for _, imei := range []string{u.IMEI, u.IMEI2} {
				if imei == "" {
					continue
				}
				if err := CheckIMEI(imei); err != nil {
					return bad("The IMEI %q of box %d (%s) is wrong: %v; scan it again", imei, box, p.SKU, err)
				}
				if b, ok := seen[imei]; ok {
					return bad("IMEI %s is in box %d and in box %d; scan each box once", imei, b, box)
				}
				seen[imei] = box
			}
			if u.IMEI == "" {
				return bad("Box %d (%s) has no IMEI", box, p.SKU)
			}
			nl.Units = append(nl.Units, u)
		}
		lines = append(lines, nl)
	}
	d.Lines = lines
	return d, nil
}

// ParseDelivery reads the command line's items received,
// "SKU:QTY[@COST_PAISE],...". It checks the form only; Receive checks the
// rest.
func ParseDelivery(items string) ([]DeliveryLine, error) {
	var lines []DeliveryLine
	for _, it := range strings.Split(items, ",") {
		it = strings.TrimSpace(it)
		if it == "" {
			continue
		}
		sku, rest, ok := strings.Cut(it, ":")
		if !ok {
			return nil, wrapf(ErrBadDelivery, "%q needs a quantity: give it as SKU:QTY or SKU:QTY@COST_PAISE; nothing was recorded.", it)
		}
		qtyText, costText, hasCost := strings.Cut(rest, "@")
		qty, err := strconv.Atoi(strings.TrimSpace(qtyText))
		if err != nil {
			return nil, wrapf(ErrBadDelivery, "%q: the quantity %q is not a number of units; nothing was recorded.", it, qtyText)
		}
		l := DeliveryLine{SKU: strings.TrimSpace(sku), Qty: qty}
		if hasCost {
			c, err := strconv.ParseInt(strings.TrimSpace(costText), 10, 64)
			if err != nil {
				return nil, wrapf(ErrBadDelivery, "%q: the cost %q is not a number of paise; nothing was recorded.", it, costText)
			}
			l.Cost = Paise(c)
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return nil, wrapf(ErrBadDelivery, "Give the items received as SKU:QTY[@COST_PAISE],...; nothing was recorded.")
	}
	return lines, nil
}

// ParseUnits reads the units' IMEIs as scanned, a unit's second IMEI after a
// slash ("IMEI/IMEI2"); empty entries are skipped.
func ParseUnits(imeis []string) []Unit {
	var units []Unit
	for _, x := range imeis {
		x = strings.TrimSpace(x)
		if x == "" {
			continue
		}
		a, b, _ := strings.Cut(x, "/")
		units = append(units, Unit{IMEI: strings.TrimSpace(a), IMEI2: strings.TrimSpace(b)})
	}
	return units
}

// assignUnits gives each line, in order, as many of units as its quantity;
// serialised (when not nil) says which SKUs take units. Units left over are
// a wrong count.
func assignUnits(lines []DeliveryLine, units []Unit, serialised func(sku string) bool) error {
	for i := range lines {
		if len(units) == 0 {
			break
		}
		if serialised != nil && !serialised(lines[i].SKU) {
			continue
		}
		n := min(lines[i].Qty, len(units))
		lines[i].Units, units = append(lines[i].Units[:0], units[:n]...), units[n:]
	}
	if len(units) > 0 {
		return wrapf(ErrBadDelivery, "%d more IMEIs were given than the serialised units of the delivery; nothing was recorded.", len(units))
	}
	return nil
}

// ReceiveItems is Receive for the command line and the Receive form: the
// items as ParseDelivery reads them, the IMEIs handed to the serialised
// lines in order.
func (s *Stock) ReceiveItems(ctx context.Context, supplier, invoice, date, items string, imeis []string, managerPIN string) (Delivery, error) {
	lines, err := ParseDelivery(items)
	if err != nil {
		return Delivery{}, err
	}
	units := ParseUnits(imeis)
	cat, err := s.shelf.Catalog(ctx)
	if err != nil {
		return Delivery{}, err
	}
	if err := assignUnits(lines, units, func(sku string) bool {
		p, ok := cat.Lookup(sku)
		return ok && p.Serialised
	}); err != nil {
		return Delivery{}, err
	}
	return s.Receive(ctx, Delivery{Supplier: supplier, Invoice: invoice, Date: date, Lines: lines}, managerPIN)
}

// AllowIMEIs lets the units imeis be sold though they are not in stock, on
// the authority of the manager whose PIN managerPIN is, asked by the cashier
// (by). It is journaled as a staff.override ("what": "stock") that the
// store's pages list; the units are then sold as if on hand, once each: an
// allowance lapses when its unit is sold or received, or the business day is
// closed.
func (s *Stock) AllowIMEIs(ctx context.Context, imeis []string, managerPIN, by string) (StaffMember, error) {
	if len(imeis) == 0 {
		return StaffMember{}, Errorf("Name the IMEI a manager allows to be sold.")
	}
	for _, m := range imeis {
		if err := CheckIMEI(m); err != nil {
			return StaffMember{}, fmt.Errorf("pos: IMEI %q: %w", m, err)
		}
	}
	m, err := s.crew.authorise(ctx, managerPIN)
	if err != nil {
		return StaffMember{}, err
	}
	extra := map[string]string{"what": overrideStock}
	for i, x := range imeis {
		extra["imei"+strconv.Itoa(i+1)] = x
	}
	if by != "" {
		extra["by"] = by
	}
	if err := s.audit(ctx, Event{Kind: EvOverride, Staff: m.ID, Extra: extra}); err != nil {
		return StaffMember{}, fmt.Errorf("pos: journal %s: %w: %w", EvOverride, errJournalWrite, err)
	}
	return memberOf(*m), nil
}

// Adjust journals an adjustment of the stock (a count's variance, a unit
// damaged or found) on the authority of the manager whose PIN managerPIN is.
// A reason is required; a unit moved must be known, or name its SKU.
func (s *Stock) Adjust(ctx context.Context, a StockAdjustment, managerPIN string) error {
	m, err := s.crew.authorise(ctx, managerPIN)
	if err != nil {
		return err
	}
	return s.adjust(ctx, a, m.ID)
}

// SetAside sets the returned unit imei aside as damaged (the cashier's
// choice at a return), journaled as a stock.adjusted naming staff.
func (s *Stock) SetAside(ctx context.Context, imei, staff, reason string) error {
	if reason == "" {
		reason = "returned damaged"
	}
	return s.adjust(ctx, StockAdjustment{Reason: reason, Units: []UnitMove{{IMEI: imei, To: UnitDamaged}}}, staff)
}

func (s *Stock) adjust(ctx context.Context, a StockAdjustment, staff string) error {
	a.Reason = strings.TrimSpace(a.Reason)
	if a.Reason == "" {
		return wrapf(ErrBadDelivery, "Say why the stock is adjusted; nothing was recorded.")
	}
	if len(a.Lines) == 0 && len(a.Units) == 0 {
		return wrapf(ErrBadDelivery, "The adjustment changes nothing; nothing was recorded.")
	}
	cat, err := s.shelf.Catalog(ctx)
	if err != nil {
		return err
	}
	b := &s.sb
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.catchUp(ctx, s.j); err != nil {
		return err
	}
	for i, l := range a.Lines {
		p, ok := cat.Lookup(l.SKU)
		if !ok {
			return wrapf(ErrBadDelivery, "%s is not in the catalog; nothing was recorded.", l.SKU)
		}
		if p.Serialised {
			return wrapf(ErrBadDelivery, "%s is serialised: adjust its units by IMEI; nothing was recorded.", p.SKU)
		}
		a.Lines[i].SKU = p.SKU
	}
	for i, u := range a.Units {
		if err := CheckIMEI(u.IMEI); err != nil {
			return wrapf(ErrBadDelivery, "The IMEI %q is wrong: %v; nothing was recorded.", u.IMEI, err)
		}
		if u.To != UnitInStock && u.To != UnitDamaged && u.To != UnitMissing {
			return wrapf(ErrBadDelivery, "A unit goes back in stock, is damaged, or is missing (not %q); nothing was recorded.", u.To)
		}
		un, err := b.lookup(ctx, s.j, u.IMEI)
		if err != nil {
			return err
		}
		if un == nil {
			p, ok := cat.Lookup(u.SKU)
			if !ok || !p.Serialised {
				return wrapf(ErrBadDelivery, "IMEI %s was never received: name the serialised item it is a unit of; nothing was recorded.", u.IMEI)
			}
			a.Units[i].SKU = p.SKU
			continue
		}
		a.Units[i].IMEI, a.Units[i].SKU = un.IMEI, un.SKU
	}
	raw, err := json.Marshal(a)
	if err != nil {
		return err
	}
	ev := Event{V: EventVersion, Time: s.eng.Now(), Kind: EvStockAdjusted, Day: s.eng.Today(), Staff: staff, Data: raw}
	if _, err := s.j.Append(context.WithoutCancel(ctx), ev); err != nil {
		return fmt.Errorf("pos: journal %s: %w: %w", ev.Kind, errJournalWrite, err)
	}
	return b.catchUp(ctx, s.j)
}
