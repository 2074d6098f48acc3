package pos

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// IMEIs keeps the phones sold at the counter apart (DESIGN.md section 10): every
// serialised unit carries an IMEI that passes its check digit, none is sold
// twice while a sale holds it, a return frees it, and the journal screen finds
// the sales that carried one. It reads the core's book of IMEIs.
type IMEIs struct{ *core }

// The IMEI rules of the counter (DESIGN.md section 10), matched with errors.Is.
var (
	// ErrIMEISold refuses an IMEI already sold in a sale that was not returned.
	ErrIMEISold = errors.New("the IMEI is already sold")
)

// IMEISoldError names the sale an IMEI was sold in; it matches ErrIMEISold.
type IMEISoldError struct {
	IMEI      string
	OrderID   string
	ReceiptNo string    // the sale's document number, as printed without the terminal
	At        time.Time // when the sale began
	Pending   bool      // the sale's payment is not known yet
}

func (e *IMEISoldError) Error() string {
	return fmt.Sprintf("pos: IMEI %s: %v in %s", e.IMEI, ErrIMEISold, e.OrderID)
}

// Is makes an *IMEISoldError match ErrIMEISold.
func (e *IMEISoldError) Is(target error) bool { return target == ErrIMEISold }

// Sentence says which sale holds the IMEI and what to do. It names the sale by
// its receipt number and time (a sentence never shows long numbers; the journal
// screen's IMEI search shows the sale itself).
func (e *IMEISoldError) Sentence() string {
	when := e.At.Format("2 Jan 15:04")
	if e.Pending {
		return fmt.Sprintf("This IMEI is in the sale of %s, whose payment is not known yet; check that sale before selling this phone again.", when)
	}
	rec := ""
	if e.ReceiptNo != "" {
		rec = fmt.Sprintf(" (receipt %s)", e.ReceiptNo)
	}
	return fmt.Sprintf("This IMEI was already sold on %s%s and not returned; scan the IMEI of the phone in hand, or return that sale first.", when, rec)
}

// IMEIRecord is what the counter knows of one IMEI: the orders that carried
// it, oldest first, the order whose returned unit freed it last, and the
// stock events that named it (StockIMEIs: the delivery or transfer that
// received it, the adjustments and transfers sent since), oldest first.
// Whether a sale holds the IMEI now is decided from the orders' own states
// (holding); a unit sold is read back from its receipt through Stock
// (StockIndex).
type IMEIRecord struct {
	Orders []string `json:"orders,omitempty"`
	Freed  string   `json:"freed,omitempty"`
	Stock  []uint64 `json:"stock,omitempty"`
}

// IMEIIndex is a journal that keeps the IMEIRecord of every IMEI, derived in
// the transaction of each event that sells or frees a unit, so that a check
// reads one record however long the journal's history (pos/journal). A
// journal without it is read through the till's book of IMEIs, which reads
// every IMEI ever sold.
type IMEIIndex interface {
	// IMEI returns the record of imei, empty when no event named it; an
	// error matching ErrNoIMEIIndex when this journal keeps none (a file of
	// an older schema opened read-only).
	IMEI(ctx context.Context, imei string) (IMEIRecord, error)
}

// ErrNoIMEIIndex is an IMEIIndex that keeps no records: the book is read.
var ErrNoIMEIIndex = errors.New("pos: the journal keeps no record of IMEIs")

// IMEIEffect is what event ev does to the records of IMEIs, the same for the
// journal's index and the book: the IMEIs a sale's intent carries (on its
// lines and in the intent) each gain ev.OrderID among their orders, and the
// IMEIs a return carries (any event kind beginning "return.", with an order)
// are freed by it.
func IMEIEffect(ev Event) (sold, freed []string) {
	if ev.Kind == EvOrderIntent && ev.Intent != nil {
		sold = intentIMEIs(ev.Intent)
	}
	if strings.HasPrefix(string(ev.Kind), returnPrefix) && ev.OrderID != "" {
		freed = ev.IMEIs
	}
	return sold, freed
}

// Apply takes into r, the record of one IMEI, that ev sold it (sold) or
// freed it (freed), as IMEIEffect says, or named it as a stock event
// (stock), as StockIMEIs says.
func (r *IMEIRecord) Apply(ev Event, sold, freed, stock bool) {
	if sold && !slices.Contains(r.Orders, ev.OrderID) {
		r.Orders = append(r.Orders, ev.OrderID)
	}
	if freed {
		r.Freed = ev.OrderID
	}
	if stock && (len(r.Stock) == 0 || r.Stock[len(r.Stock)-1] < ev.Seq) {
		r.Stock = append(r.Stock, ev.Seq)
	}
}

// intentIMEIs lists every IMEI a sale carries, on its lines and in the intent.
func intentIMEIs(in *Intent) []string {
	var out []string
	for _, l := range in.Lines {
		for _, s := range l.IMEIs {
			if s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	for _, s := range in.IMEIs {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// applyIMEIs takes the IMEIs a sale carries, and those a return frees, into
// the book of IMEIs (IMEIEffect).
func (b *book) applyIMEIs(ev Event) {
	sold, freed := IMEIEffect(ev)
	for _, imei := range sold {
		if b.imeis == nil {
			b.imeis = map[string][]string{}
		}
		if !slices.Contains(b.imeis[imei], ev.OrderID) {
			b.imeis[imei] = append(b.imeis[imei], ev.OrderID)
		}
	}
	for _, imei := range freed {
		if b.freed == nil {
			b.freed = map[string]string{}
		}
		b.freed[imei] = ev.OrderID
	}
}

// ReturnIMEIs journals that the units with these IMEIs came back from order
// orderID (a return): each may be sold again. The returns flow calls it, or
// journals its own return.* event carrying the IMEIs.
func (im *IMEIs) ReturnIMEIs(ctx context.Context, orderID, staff string, imeis []string) error {
	if len(imeis) == 0 {
		return nil
	}
	ev := Event{V: EventVersion, Time: im.eng.Now(), Kind: EvReturnIMEIs, OrderID: orderID, Day: im.eng.Today(), Staff: staff, IMEIs: imeis}
	if _, err := im.j.Append(context.WithoutCancel(ctx), ev); err != nil {
		return fmt.Errorf("pos: journal %s: %w: %w", ev.Kind, errJournalWrite, err)
	}
	return nil
}

// record returns the record of imei: the journal's (IMEIIndex), one record
// whatever the history, or else the book's, caught up with the journal.
func (im *IMEIs) record(ctx context.Context, imei string) (IMEIRecord, error) {
	if ix, ok := im.j.(IMEIIndex); ok {
		r, err := ix.IMEI(ctx, imei)
		if !errors.Is(err, ErrNoIMEIIndex) {
			return r, err
		}
	}
	b := &im.ib
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.catchUp(ctx, im.j); err != nil {
		return IMEIRecord{}, err
	}
	return IMEIRecord{Orders: slices.Clone(b.imeis[imei]), Freed: b.freed[imei]}, nil
}

// holding reports the sale that holds imei now (sold and not returned, or its
// payment unknown), or nil, from the record of imei.
func (im *IMEIs) holding(ctx context.Context, r IMEIRecord, imei string) (*IMEISoldError, error) {
	ids := r.Orders
	for i := len(ids) - 1; i >= 0; i-- {
		o, err := im.j.Order(ctx, ids[i])
		if errors.Is(err, ErrOrderNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if o.Sale != "" {
			// A tender's order carries its sale's lines: the sale holds the
			// phone, by its own id and number, once complete; a tender paid or in
			// flight on a sale still open holds it for that sale.
			s, err := im.j.Order(ctx, o.Sale)
			switch {
			case err != nil && !errors.Is(err, ErrOrderNotFound):
				return nil, err
			case err == nil && s.State != StateOpen:
				continue // the sale itself is among ids and decides
			case err == nil && r.Freed != s.ID && (o.State.Paid() || o.Unresolved()):
				return &IMEISoldError{IMEI: imei, OrderID: s.ID, At: s.Opened, Pending: o.Unresolved()}, nil
			}
		}
		switch {
		case r.Freed == o.ID || o.State == StateRefunded || o.Cancelled != nil || o.Returns().returnedIMEI(imei):
			continue
		case o.Unresolved():
			return &IMEISoldError{IMEI: imei, OrderID: o.ID, At: o.Opened, Pending: true}, nil
		case o.State.Paid():
			return &IMEISoldError{IMEI: imei, OrderID: o.ID, At: o.Opened, ReceiptNo: o.NumberText()}, nil
		}
	}
	return nil, nil
}

// CheckSerials checks a cart before payment: every serialised unit has an IMEI
// that passes the check digit, none is given twice, none is held by another
// sale (sold and not returned, or its payment unknown), and once stock is kept
// each is a unit in stock of its line's item (ErrNotInStock; a manager may
// allow it, Stock.AllowIMEIs). The order being paid again (its own id) does
// not count against itself.
func (im *IMEIs) CheckSerials(ctx context.Context, lines []Line, self string) error {
	seen := map[string]bool{}
	for _, l := range lines {
		if !l.Serialised {
			continue
		}
		if n := l.MissingIMEIs(); n > 0 {
			return wrapf(ErrIMEIMissing, "%s needs the IMEI of %d more phone(s); scan or type each IMEI before payment.", l.Name, n)
		}
		for _, s := range l.IMEIs {
			if err := CheckIMEI(s); err != nil {
				return fmt.Errorf("pos: IMEI of %s: %w", l.SKU, err)
			}
			if seen[s] {
				return fmt.Errorf("pos: IMEI of %s: %w", l.SKU, ErrDuplicateIMEI)
			}
			seen[s] = true
		}
	}
	if len(seen) == 0 {
		return nil
	}
	if err := im.checkHeld(ctx, seen, self); err != nil || self != "" {
		return err
	}
	// Once stock is kept, each phone is a unit in stock (or one a manager
	// allowed); the order being paid again had its units checked when it was
	// opened.
	return im.stock.checkOnHand(ctx, lines)
}

// checkHeld refuses an IMEI of seen that another sale than self holds.
func (im *IMEIs) checkHeld(ctx context.Context, seen map[string]bool, self string) error {
	for s := range seen {
		r, err := im.record(ctx, s)
		if errors.Is(err, ErrNoEventLog) {
			return nil
		}
		if err != nil {
			return err
		}
		h, err := im.holding(ctx, r, s)
		if err != nil {
			return err
		}
		if h != nil && h.OrderID != self {
			return h
		}
	}
	return nil
}

// CheckIMEIFree checks one IMEI as it is scanned: its digits, that no sale
// holds it, and, once stock is kept, that it is a unit in stock (or one a
// manager allowed).
func (im *IMEIs) CheckIMEIFree(ctx context.Context, imei string) error {
	if err := CheckIMEI(imei); err != nil {
		return err
	}
	if err := im.checkHeld(ctx, map[string]bool{imei: true}, ""); err != nil {
		return err
	}
	return im.stock.checkUnit(ctx, imei)
}

// FindIMEI lists the sales that carried imei, newest first: the journal screen's
// search and "galla journal find".
func (im *IMEIs) FindIMEI(ctx context.Context, imei string) ([]OrderSummary, error) {
	if err := CheckIMEI(imei); err != nil {
		return nil, err
	}
	r, err := im.record(ctx, imei)
	if err != nil {
		return nil, err
	}
	ids := r.Orders
	out := make([]OrderSummary, 0, len(ids))
	for i := len(ids) - 1; i >= 0; i-- {
		o, err := im.j.Order(ctx, ids[i])
		if errors.Is(err, ErrOrderNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if o.Sale != "" {
			continue // a tender's order: its sale is listed
		}
		out = append(out, summaryOf(o, im.cfg.Terminal))
	}
	return out, nil
}
