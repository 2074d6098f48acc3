package pos

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Transfer is goods sent from this counter to another counter or store of
// the chain: its id (terminal/TR/n), where to, and the lines with their
// units. The other end receives it as a delivery From this counter with the
// transfer's id as its invoice (Arrive), so that it is received once.
type Transfer struct {
	ID    string         `json:"id"`
	To    string         `json:"to"`
	Lines []DeliveryLine `json:"lines"`
}

// Send journals goods sent to another counter or store (to), on the
// authority of the manager whose PIN managerPIN is, as one stock.sent event:
// each serialised unit must be in stock here, and is in transit after; items
// not serialised leave what is on hand (below zero only if the book was). It
// returns the transfer with its id.
func (s *Stock) Send(ctx context.Context, to, items string, imeis []string, managerPIN string) (Transfer, error) {
	to = strings.TrimSpace(to)
	if to == "" {
		return Transfer{}, wrapf(ErrBadDelivery, "Name the counter or store the goods go to; nothing was recorded.")
	}
	m, err := s.crew.authorise(ctx, managerPIN)
	if err != nil {
		return Transfer{}, err
	}
	lines, err := ParseDelivery(items)
	if err != nil {
		return Transfer{}, err
	}
	cat, err := s.shelf.Catalog(ctx)
	if err != nil {
		return Transfer{}, err
	}
	if err := assignUnits(lines, ParseUnits(imeis), func(sku string) bool {
		p, ok := cat.Lookup(sku)
		return ok && p.Serialised
	}); err != nil {
		return Transfer{}, err
	}
	d, err := checkDelivery(Delivery{Supplier: s.cfg.Terminal, Invoice: "transfer", Date: s.eng.Today(), Lines: lines}, cat, s.eng.Now())
	if err != nil {
		return Transfer{}, err
	}
	b := &s.sb
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.catchUp(ctx, s.j); err != nil {
		return Transfer{}, err
	}
	for _, l := range d.Lines {
		for _, u := range l.Units {
			if err := b.onHand(u.IMEI, l.SKU); err != nil {
				return Transfer{}, s.explain(ctx, b, err)
			}
			if un := b.unit(u.IMEI); un != nil {
				u.IMEI = un.IMEI
			}
		}
	}
	t := Transfer{ID: fmt.Sprintf("%s/TR/%d", s.cfg.Terminal, b.st.Sent+1), To: to, Lines: d.Lines}
	raw, err := json.Marshal(t)
	if err != nil {
		return Transfer{}, err
	}
	ev := Event{V: EventVersion, Time: s.eng.Now(), Kind: EvStockSent, Day: s.eng.Today(), Staff: m.ID, Data: raw}
	if _, err := s.j.Append(context.WithoutCancel(ctx), ev); err != nil {
		return Transfer{}, fmt.Errorf("pos: journal %s: %w: %w", ev.Kind, errJournalWrite, err)
	}
	return t, b.catchUp(ctx, s.j)
}

// Arrive receives goods transferred from another counter or store (from,
// with the sender's transfer id) as a delivery, on a manager's authority:
// checked and journaled as Receive does, so a transfer is received once.
func (s *Stock) Arrive(ctx context.Context, from, id, items string, imeis []string, managerPIN string) (Delivery, error) {
	from, id = strings.TrimSpace(from), strings.TrimSpace(id)
	if from == "" || id == "" {
		return Delivery{}, wrapf(ErrBadDelivery, "Name the sender and the transfer's id; nothing was recorded.")
	}
	m, err := s.crew.authorise(ctx, managerPIN)
	if err != nil {
		return Delivery{}, err
	}
	lines, err := ParseDelivery(items)
	if err != nil {
		return Delivery{}, err
	}
	cat, err := s.shelf.Catalog(ctx)
	if err != nil {
		return Delivery{}, err
	}
	if err := assignUnits(lines, ParseUnits(imeis), func(sku string) bool {
		p, ok := cat.Lookup(sku)
		return ok && p.Serialised
	}); err != nil {
		return Delivery{}, err
	}
	return s.receive(ctx, Delivery{From: from, Supplier: "transfer from " + from, Invoice: id, Date: s.eng.Today(), Lines: lines}, m.ID)
}
