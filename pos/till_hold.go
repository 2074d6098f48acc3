package pos

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// MaxHeld is how many bills may be held at once at a terminal: a counter that
// holds more has forgotten some.
const MaxHeld = 50

// HoldBill puts a cart aside (bill.held) with its lines, the IMEIs scanned for
// it and a note to find it by. The bill is journaled: a crash loses none.
func (t *Till) HoldBill(ctx context.Context, lines []CartLine, imeis []UnitIMEI, staff, note string) (HeldBill, error) {
	if len(lines) == 0 {
		return HeldBill{}, ErrEmptyCart
	}
	bill, err := t.Price(lines)
	if err != nil {
		return HeldBill{}, err
	}
	b, err := t.shiftBook(ctx)
	if err != nil {
		return HeldBill{}, err
	}
	defer b.mu.Unlock()
	if len(b.holds) >= MaxHeld {
		return HeldBill{}, Errorf("%d bills are held already; recall or discard one before holding another.", len(b.holds))
	}
	id, err := t.eng.newID("H")
	if err != nil {
		return HeldBill{}, err
	}
	h := HeldBill{ID: id, Lines: slices.Clone(lines), IMEIs: slices.Clone(imeis), Total: bill.Total,
		Note: strings.TrimSpace(note), Staff: staff, At: t.eng.Now()}
	for _, l := range lines {
		h.Items += l.Qty
	}
	if err := t.holdEvent(ctx, EvBillHeld, staff, h); err != nil {
		return HeldBill{}, err
	}
	return h, b.catchUp(ctx, t.j)
}

// HeldBills lists the bills held at this terminal, oldest first.
func (t *Till) HeldBills(ctx context.Context) ([]HeldBill, error) {
	b, err := t.shiftBook(ctx)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	out := make([]HeldBill, 0, len(b.holds))
	for _, h := range b.holds {
		out = append(out, *h)
	}
	return out, nil
}

// RecallBill takes held bill id back (bill.recalled) and returns it, its lines
// for the cart.
func (t *Till) RecallBill(ctx context.Context, id, staff string) (HeldBill, error) {
	return t.endHold(ctx, EvBillRecalled, id, staff)
}

// DiscardBill throws held bill id away (bill.discarded).
func (t *Till) DiscardBill(ctx context.Context, id, staff string) error {
	_, err := t.endHold(ctx, EvBillDiscarded, id, staff)
	return err
}

func (t *Till) endHold(ctx context.Context, kind EventKind, id, staff string) (HeldBill, error) {
	b, err := t.shiftBook(ctx)
	if err != nil {
		return HeldBill{}, err
	}
	defer b.mu.Unlock()
	i := slices.IndexFunc(b.holds, func(h *HeldBill) bool { return h.ID == id })
	if i < 0 {
		return HeldBill{}, wrapf(ErrHeldNotFound, "That bill is no longer held (recalled or discarded already).")
	}
	h := *b.holds[i]
	if err := t.holdEvent(ctx, kind, staff, HeldBill{ID: id}); err != nil {
		return HeldBill{}, err
	}
	return h, b.catchUp(ctx, t.j)
}

func (t *Till) holdEvent(ctx context.Context, kind EventKind, staff string, h HeldBill) error {
	data, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("pos: %s: %w", kind, err)
	}
	ev := Event{V: EventVersion, Time: t.eng.Now(), Kind: kind, Day: t.eng.Today(), Staff: staff, Data: data}
	if _, err := t.j.Append(context.WithoutCancel(ctx), ev); err != nil {
		return fmt.Errorf("pos: journal %s: %w: %w", kind, errJournalWrite, err)
	}
	return nil
}
