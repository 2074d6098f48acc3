package pos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Registration is how the shop is registered under GST. It is the one rule that
// decides what every document of the shop is and whether any of them states tax:
// the sale's document and its credit notes in every format, the X and Z reports'
// tax rows, the CSV of lines and GSTR-1 (docs/gst.md, "Which document").
//
//   - Unregistered (no GSTIN): the shop may not collect tax (CGST Act s.32(1)). Its
//     document is a RECEIPT with prices only, saying the seller is not registered.
//   - Composition: the shop pays tax on its turnover and may not collect it from
//     the buyer (s.10(4)). Its document is a BILL OF SUPPLY (Rule 49) with no tax
//     anywhere and the legend of Rule 5(1)(f) at its top; it may not supply goods
//     to another state (s.10(2)(c)).
//   - Regular: a TAX INVOICE (s.31, Rule 46), or a BILL OF SUPPLY for a sale of
//     exempt goods only (Rule 49).
type Registration uint8

// The registrations a shop can have.
const (
	Unregistered Registration = iota
	Composition
	Regular
)

// CompositionLegend is the sentence a composition shop prints at the top of its
// bill of supply, word for word (CGST Rule 5(1)(f)).
const CompositionLegend = "Composition taxable person, not eligible to collect tax on supplies"

// UnregisteredLegend is the line a shop without a GSTIN prints under the title of
// its documents: it is not a tax document and charges no tax (CGST Act s.32).
const UnregisteredLegend = "Seller not registered under GST; no tax charged"

// Registration is the shop's registration: Unregistered while its GSTIN is not
// set, else Composition or Regular.
func (s Shop) Registration() Registration {
	switch {
	case s.GSTIN == "":
		return Unregistered
	case s.Composition:
		return Composition
	}
	return Regular
}

// String names the registration as Settings and the docs do.
func (g Registration) String() string {
	switch g {
	case Unregistered:
		return "not registered"
	case Composition:
		return "composition scheme"
	}
	return "registered"
}

// ShowsTax reports whether the shop's documents, reports and exports state tax
// (a taxable value, a rate, GST, CGST/SGST/IGST, cess, an HSN summary of tax): a
// regular registration only.
func (g Registration) ShowsTax() bool { return g == Regular }

// Title is the title of the shop's sale documents: RECEIPT, BILL OF SUPPLY or
// TAX INVOICE. A regular shop's sale of exempt goods only is a BILL OF SUPPLY
// all the same (Shop.TitleFor).
func (g Registration) Title() string {
	switch g {
	case Unregistered:
		return "RECEIPT"
	case Composition:
		return "BILL OF SUPPLY"
	}
	return "TAX INVOICE"
}

// Legend is the line printed at the top of the shop's documents, under the title:
// CompositionLegend, UnregisteredLegend, or "" for a regular shop.
func (g Registration) Legend() string {
	switch g {
	case Unregistered:
		return UnregisteredLegend
	case Composition:
		return CompositionLegend
	}
	return ""
}

// ReverseCharge reports whether the shop's documents say "Reverse charge: No"
// (Rule 46(p)): a registered shop's do. Galla never sells under reverse charge.
func (g Registration) ReverseCharge() bool { return g != Unregistered }

// ErrInterstateComposition is matched (errors.Is) by the refusal of a composition
// shop's sale to another state.
var ErrInterstateComposition = errors.New("a composition shop may not supply goods to another state")

// ErrInterstateUnregistered is matched (errors.Is) by the refusal of a sale to
// another state by a shop not registered for GST.
var ErrInterstateUnregistered = errors.New("a shop not registered for GST may not supply goods to another state")

// CheckSupply refuses a supply the shop's registration does not allow, a sale
// whose place of supply is another state: by a composition shop (CGST Act
// s.10(2)(c)), or by a shop not registered (whoever supplies goods to another
// state must register, CGST Act s.24(i)). It is checked before anything is
// journaled or charged. A shop whose state is not set has no other state.
func (s Shop) CheckSupply(p Place) error {
	if !p.Interstate {
		return nil
	}
	var who, law string
	var kind error
	switch s.Registration() {
	case Composition:
		who, law, kind = "a shop under the composition scheme", "CGST Act s.10(2)(c)", ErrInterstateComposition
	case Unregistered:
		who, law, kind = "a shop not registered for GST", "CGST Act s.24(i): supplying goods to another state needs a GST registration", ErrInterstateUnregistered
	default:
		return nil
	}
	return sentenceWrap{
		sentence: fmt.Sprintf("This sale is supplied in %s, another state, and %s may not supply goods to another state (%s): hand the goods over at the counter or deliver them within %s, and leave out an address in another state; nothing has been charged.",
			stateName(p.State), who, law, stateName(s.State)),
		err: kind,
	}
}

// SettingRegistrations is the settings.changed key of the shop's registration
// history (RegistrationHistory), journaled with every change of what a document
// prints of the shop.
const SettingRegistrations = "shop.registrations"

// RegisteredShop is the shop's details as its documents printed them from From
// on: its name, address, phone, GSTIN, state, composition scheme and turnover
// (Rates, which no document prints, is left out).
type RegisteredShop struct {
	// From is when these details came into force; zero for the details set
	// before the history was kept, in force since an unknown date.
	From time.Time `json:"from"`
	Shop Shop      `json:"shop"`
}

// RegistrationHistory is every change of the shop's printed details, oldest
// first. A document is reprinted as it was issued: with the details in force at
// its date (ShopAt), so that a DUPLICATE of an invoice made before the shop took
// a GSTIN, left the composition scheme or moved state still says what the
// original said (CGST Rule 48: a copy is a copy of the document issued).
type RegistrationHistory []RegisteredShop

// At returns the details in force at t: those of the last change at or before
// t. ok is false when t is before the first change the history knows of.
func (h RegistrationHistory) At(t time.Time) (Shop, bool) {
	for i := len(h) - 1; i >= 0; i-- {
		if !h[i].From.After(t) {
			return h[i].Shop, true
		}
	}
	return Shop{}, false
}

// printedShop is what a document prints of s: s without its rate choice.
func printedShop(s Shop) Shop {
	s.Rates = nil
	return s
}

// samePrinted reports whether documents of a and b print the same shop.
func samePrinted(a, b Shop) bool {
	return a.Name == b.Name && slices.Equal(a.Address, b.Address) && a.GSTIN == b.GSTIN && a.Phone == b.Phone &&
		a.State == b.State && a.Composition == b.Composition && a.Turnover == b.Turnover
}

// LoadRegistrations reads the shop's registration history; empty when the
// shop's details never changed since it was first kept.
func LoadRegistrations(ctx context.Context, j Journal) (RegistrationHistory, error) {
	var h RegistrationHistory
	raw, err := j.Setting(ctx, SettingRegistrations)
	if err != nil || raw == nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, fmt.Errorf("pos: setting %q: %w", SettingRegistrations, err)
	}
	return h, nil
}

// Shops is the shop's details by date: today's and the registration history
// that says what they were before. A document, a report or an export of a past
// day takes the details in force when each document was issued (At): its
// registration (none, composition, regular), GSTIN, state and turnover.
type Shops struct {
	Today   Shop
	History RegistrationHistory
}

// ShopsOf is a shop whose details never changed: shop on every date.
func ShopsOf(shop Shop) Shops { return Shops{Today: shop} }

// LoadShops reads today's shop (LoadShop) and its registration history.
func LoadShops(ctx context.Context, j Journal) (Shops, error) {
	today, err := LoadShop(ctx, j)
	if err != nil {
		return Shops{Today: today}, err
	}
	h, err := LoadRegistrations(ctx, j)
	return Shops{Today: today, History: h}, err
}

// At is the shop as a document issued at t prints it: the details in force at
// t by the history, or today's when t is at or after its last change or there
// is no history (a journal whose shop never changed since the history began;
// docs/gst.md). The rate choice is always today's.
//
// Before the history's first entry the shop had no details: a first entry
// in force since an unknown date (From zero) covers every earlier t, so a
// dated first entry is the shop's first set-up (recordRegistration), and a
// document issued before it printed a shop with no name, no GSTIN and no
// registration. At gives that shop then (Unregistered: a RECEIPT with no tax),
// not the first entry's nor today's details, so that the document reprints
// as it was issued and no return or report counts tax it never stated.
func (s Shops) At(t time.Time) Shop {
	h := s.History
	if len(h) == 0 || t.IsZero() || !t.Before(h[len(h)-1].From) {
		// Since its last change the shop is as it is today: the history is
		// journaled before the shop, so today's details are right also when
		// the shop's own event did not follow.
		return s.Today
	}
	shop, ok := h.At(t)
	if !ok {
		shop = Shop{} // before the shop was first set up
	}
	shop.Rates = s.Today.Rates
	return shop
}

// StatesTax reports whether a document issued at t states tax: whether the
// shop was a regular registrant then (Registration.ShowsTax of At). It is the
// one rule that the X and Z reports' GST rows, GSTR-1 and the accountant's CSV
// follow, so that a sale made while the shop had no GSTIN or was under the
// composition scheme is in none of their tax figures, with or without a
// registration history.
func (s Shops) StatesTax(t time.Time) bool { return s.At(t).Registration().ShowsTax() }

// GSTINs is every GSTIN the shop has held, by its history and today's
// details, in the order it first held them.
func (s Shops) GSTINs() []string {
	var out []string
	for _, e := range append(slices.Clone(s.History), RegisteredShop{Shop: s.Today}) {
		if e.Shop.GSTIN != "" && !slices.Contains(out, e.Shop.GSTIN) {
			out = append(out, e.Shop.GSTIN)
		}
	}
	return out
}

// During is every set of details in force at some time from from to to (both
// included), oldest first: one shop when nothing changed between them. It
// decides for a span (a return's period, a report's day) under which
// registrations it falls, as At decides for each document.
//
// A history whose first change is dated began when the shop was first set up:
// before it the shop had no details, and no registration is known then (its
// documents printed none: At). A span that reaches past the set-up is the
// details from it on; a span wholly before it takes the earliest details the
// history knows, the nearest knowledge of the shop's registration then (a
// shop set up with the GSTIN it already held has a return for an earlier
// month, with none of the documents of that month, which stated no tax).
func (s Shops) During(from, to time.Time) []Shop {
	if len(s.History) > 0 && from.Before(s.History[0].From) {
		if s.History[0].From.After(to) {
			return []Shop{s.At(s.History[0].From)}
		}
		from = s.History[0].From
	}
	out := []Shop{s.At(from)}
	for _, e := range s.History {
		if e.From.After(from) && !e.From.After(to) {
			if next := s.At(e.From); !samePrinted(next, out[len(out)-1]) {
				out = append(out, next)
			}
		}
	}
	return out
}

// ShopAt is the shop as a document issued at t prints it (Shops.At).
func ShopAt(ctx context.Context, j Journal, t time.Time) (Shop, error) {
	s, err := LoadShops(ctx, j)
	if err != nil {
		return s.Today, err
	}
	return s.At(t), nil
}

// recordRegistration journals the registration history with next's details in
// force from now, when they differ from the last the history holds (or, with no
// history yet, from the shop's current details, which it keeps first as in
// force since an unknown date). It is called before the shop itself is
// journaled, by the manager of id by.
func (c *core) recordRegistration(ctx context.Context, by string, next Shop) error {
	h, err := LoadRegistrations(ctx, c.j)
	if err != nil {
		return err
	}
	if len(h) == 0 {
		cur, err := LoadShop(ctx, c.j)
		if err != nil {
			return err
		}
		// Any detail set before the history was kept (a phone or a state
		// alone too) is what the documents before this change printed.
		if !samePrinted(cur, Shop{}) {
			h = append(h, RegisteredShop{Shop: printedShop(cur)})
		}
	}
	if len(h) > 0 && samePrinted(h[len(h)-1].Shop, next) {
		return nil
	}
	h = append(h, RegisteredShop{From: c.eng.Now(), Shop: printedShop(next)})
	raw, err := json.Marshal(h)
	if err != nil {
		return err
	}
	return c.audit(ctx, Event{Kind: EvSettingsChanged, Staff: by, Setting: &Setting{Key: SettingRegistrations, Value: raw}})
}
