package pos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"galla/gateway/irp"
	"galla/pos/gstr"
	"galla/receipts"
)

// E-invoicing (CGST Rule 48(4)–(5)). A registered shop whose aggregate turnover of
// the previous financial year exceeds EInvoiceLimit registers every B2B tax
// invoice and every B2B credit note with the Invoice Registration Portal (IRP)
// before handing it over, and prints the IRN, the acknowledgement and the IRP's
// signed QR code on it. The call is journaled like a payment: irn.intent before
// generate IRN, then its outcome; the document number makes it idempotent (the
// IRP answers a second generate as a duplicate, and the IRN already issued is
// fetched), and an outcome that is not known (no answer) is inquired by the
// document's details before anything is sent again. While the IRP cannot be
// reached the sale stands, the document says IRN PENDING and is not final, and
// B2C selling goes on; it prints complete once registered. A void within 24 hours
// of the registration cancels the IRN; later it is refused with a sentence that
// offers a credit note. docs/irp-contract.md is the IRP's contract.

// EInvoiceLimit is the aggregate turnover above which a shop must e-invoice:
// ₹5 crore (Notification 10/2023-CT, from 1 August 2023).
const EInvoiceLimit = Paise(5_00_00_000_00)

// EInvoiceWindow is how far back the pending B2B documents are looked for: the
// IRP refuses documents older than 30 days from taxpayers of this size.
const EInvoiceWindow = 30

// StampTimeout bounds the registration a print waits for.
const StampTimeout = 10 * time.Second

// IRNCancelWindow is how long after its acknowledgement the IRP cancels an IRN.
const IRNCancelWindow = 24 * time.Hour

// EInvoicing reports whether the shop must register its B2B documents: it is
// registered, not under composition, and declared a turnover above the limit.
func (s Shop) EInvoicing() bool {
	return s.GSTIN != "" && !s.Composition && s.Turnover > EInvoiceLimit
}

// IRP is the Invoice Registration Portal as the till uses it; gateway/irp's
// Client implements it, against the live IRP or the embedded sandbox.
type IRP interface {
	// GSTIN is the taxpayer the portal registers documents of.
	GSTIN() string
	// Generate registers inv; irp.ErrDuplicate when it is registered already; an
	// error for which irp.Definite is false leaves the outcome unknown.
	Generate(ctx context.Context, inv irp.Invoice) (irp.Registration, error)
	// GetByDocument returns the registration of a document; irp.ErrNotFound when
	// there is none.
	GetByDocument(ctx context.Context, typ, no string, date time.Time) (irp.Registration, error)
	// Cancel cancels an IRN; irp.ErrCancelWindow after 24 hours.
	Cancel(ctx context.Context, irn, reason, remark string) (irp.Cancellation, error)
}

// The irn.* events: the e-invoice journal of a document (Data: an IRNEvent).
const (
	EvIRNIntent     EventKind = "irn.intent"     // generate IRN is about to be sent for a document
	EvIRNRegistered EventKind = "irn.registered" // the IRP's IRN, acknowledgement and signed QR code of a document
	EvIRNRefused    EventKind = "irn.refused"    // the IRP (or the INV-01's own check) refused the document: nothing registered
	EvIRNUnknown    EventKind = "irn.unknown"    // generate's answer was lost: inquire by document details before sending again
	EvIRNCancelled  EventKind = "irn.cancelled"  // the IRN cancelled, the document voided within 24 hours
)

// refusedBuild is the code of an irn.refused whose INV-01 could not be built.
const refusedBuild = "build"

// IRNEvent is the Data of the irn.* events.
type IRNEvent struct {
	Type    string `json:"type"`     // irp.TypeInvoice or irp.TypeCreditNote
	DocNo   string `json:"doc_no"`   // the document's number as printed
	DocDate string `json:"doc_date"` // DayLayout
	OrderID string `json:"order_id"` // the order that issued it
	IRN     string `json:"irn,omitempty"`
	AckNo   string `json:"ack_no,omitempty"`
	AckDate string `json:"ack_date,omitempty"` // irp.AckLayout, India time
	QR      string `json:"qr,omitempty"`       // the IRP's signed QR code (a JWT)
	// Via says how a registration was learnt: "generate", "inquiry" (after an
	// unknown outcome) or "duplicate" (the IRP had it already).
	Via     string `json:"via,omitempty"`
	Code    string `json:"code,omitempty"` // the IRP's error code of a refusal
	Message string `json:"message,omitempty"`
}

// IRNStatus is where a document's registration stands.
type IRNStatus string

// The registration statuses.
const (
	IRNPending    IRNStatus = "pending"    // not sent yet, or refused (the refusal says why)
	IRNUnknown    IRNStatus = "unknown"    // sent and no answer: inquired before it is sent again
	IRNRegistered IRNStatus = "registered" // the IRN is in
	IRNCancelled  IRNStatus = "cancelled"  // the IRN was cancelled
)

// IRNState is one document's registration as the journal holds it.
type IRNState struct {
	Type    string    `json:"type"`
	DocNo   string    `json:"doc_no"`
	DocDate string    `json:"doc_date"`
	OrderID string    `json:"order_id"`
	Status  IRNStatus `json:"status"`
	IRN     string    `json:"irn,omitempty"`
	AckNo   string    `json:"ack_no,omitempty"`
	AckDate time.Time `json:"ack_date,omitzero"`
	QR      string    `json:"-"`
	// Refusal is the IRP's words when it last refused the document.
	Refusal string `json:"refusal,omitempty"`
}

// Errors of e-invoicing, matched with errors.Is.
var (
	// ErrIRNPending reports a B2B document whose IRN is not in: it is kept and
	// printed IRN PENDING, not final, until registered.
	ErrIRNPending = errors.New("the IRN of the document is pending")
	// ErrIRNCancelWindow refuses voiding a document whose IRN was registered more
	// than 24 hours ago: a credit note is issued instead.
	ErrIRNCancelWindow = errors.New("the IRN can no longer be cancelled")
	// ErrNoIRP reports e-invoicing asked of a till without an IRP.
	ErrNoIRP = sentenceErr("This shop must e-invoice B2B documents, but no Invoice Registration Portal is set up; its credentials are kept in the keyring (galla einvoice).")
)

// EInvoices registers the counter's B2B documents with the IRP and keeps their
// registrations, derived from the journal's irn.* events.
type EInvoices struct {
	c    *core
	port IRP

	mu   sync.Mutex // serialises registrations and guards the state below
	seq  uint64
	docs map[string]*IRNState // by type and number
	mark snapMark             // where its snapshot was sealed (snapshot.go)
}

func irnKey(typ, no string) string { return typ + " " + no }

// catchUp reads the irn.* events appended since the last call. e.mu is held.
// The first call reads the journal's snapshot of the registrations
// (snapshot.go) and reads only the events after it; a call that leaves a
// snapshot due seals one.
func (e *EInvoices) catchUp(ctx context.Context) error {
	if e.docs == nil {
		e.docs = map[string]*IRNState{}
	}
	if !e.mark.loaded {
		var st irnState
		seq, err := loadSnapshot(ctx, e.c.j, snapIRN, &st)
		if err != nil {
			return err
		}
		if seq > 0 {
			for k, d := range st.Docs {
				d.IRNState.QR = d.QR
				e.docs[k] = &d.IRNState
			}
			e.seq, e.mark.seq, e.mark.at, e.mark.last = seq, seq, st.At, st.At
		}
		e.mark.loaded = true
	}
	err := eventsFrom(ctx, e.c.j, e.seq+1, func(ev Event) error {
		e.seq, e.mark.last = ev.Seq, ev.Time
		if !strings.HasPrefix(string(ev.Kind), "irn.") {
			return nil
		}
		var d IRNEvent
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			return fmt.Errorf("pos: event %d (%s): %w", ev.Seq, ev.Kind, err)
		}
		e.apply(ev.Kind, d)
		return nil
	})
	if err != nil {
		return err
	}
	sealSnapshot(ctx, e.c.j, snapIRN, &e.mark, e.seq, func() any { return e.snapshot() })
	return nil
}

// irnState is the registrations as their snapshot holds them.
type irnState struct {
	At   time.Time           `json:"at"` // the time of the snapshot's event
	Docs map[string]*irnSnap `json:"docs,omitempty"`
}

// irnSnap is one registration in the snapshot, with its QR code.
type irnSnap struct {
	IRNState
	QR string `json:"qr,omitempty"`
}

// snapshot is the registrations' snapshot. e.mu is held.
func (e *EInvoices) snapshot() irnState {
	st := irnState{At: e.mark.last, Docs: make(map[string]*irnSnap, len(e.docs))}
	for k, d := range e.docs {
		st.Docs[k] = &irnSnap{IRNState: *d, QR: d.QR}
	}
	return st
}

// apply takes one irn.* event into the state.
func (e *EInvoices) apply(kind EventKind, d IRNEvent) {
	k := irnKey(d.Type, d.DocNo)
	st := e.docs[k]
	if st == nil {
		st = &IRNState{Type: d.Type, DocNo: d.DocNo, DocDate: d.DocDate, OrderID: d.OrderID, Status: IRNPending}
		e.docs[k] = st
	}
	switch kind {
	case EvIRNIntent:
		st.Status = IRNUnknown // until its outcome: a crash here leaves it to inquire
	case EvIRNUnknown:
		st.Status = IRNUnknown
	case EvIRNRefused:
		st.Status, st.Refusal = IRNPending, strings.TrimSpace(d.Code+" "+d.Message)
		if d.Code == refusedBuild {
			st.Refusal = d.Message
		}
	case EvIRNRegistered:
		st.Status, st.IRN, st.AckNo, st.QR, st.Refusal = IRNRegistered, d.IRN, d.AckNo, d.QR, ""
		st.AckDate, _ = time.ParseInLocation(irp.AckLayout, d.AckDate, irp.IST)
	case EvIRNCancelled:
		st.Status = IRNCancelled
	}
}

// append journals one irn.* event at the till's time and applies it. e.mu is
// held.
func (e *EInvoices) append(ctx context.Context, kind EventKind, d IRNEvent) error {
	data, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("pos: %s: %w", kind, err)
	}
	if err := e.catchUp(ctx); err != nil {
		return err
	}
	if err := e.c.audit(ctx, Event{Kind: kind, Data: data}); err != nil {
		return err
	}
	return e.catchUp(ctx)
}

// docsOf are the documents of o that need an IRN: its B2B tax invoice and its
// B2B credit notes, not cancelled, each issued while the shop was e-invoicing
// (the shop as registered on the document's date, Shops.At: a document issued
// before the shop declared a turnover above the limit, or while it had no
// GSTIN or was under the composition scheme, is not registered).
func (e *EInvoices) docsOf(o Order, shops Shops) []gstr.Document {
	var out []gstr.Document
	for _, d := range GSTRDocumentsAt(o, shops, e.c.cfg.Terminal, e.c.eng.Now().Location(), nil) {
		if d.Cancelled || !d.Registered() || !taxed(d) || !shops.At(d.Date).EInvoicing() {
			continue
		}
		if d.Kind == gstr.Invoice || d.Kind == gstr.CreditNote {
			out = append(out, d)
		}
	}
	return out
}

// taxed reports whether any line of d carries GST: a credit note against a bill
// of supply carries none and is not e-invoiced.
func taxed(d gstr.Document) bool {
	for _, l := range d.Lines {
		if l.IGST != 0 || l.CGST != 0 || l.SGST != 0 {
			return true
		}
	}
	return false
}

func docType(d gstr.Document) string {
	if d.Kind == gstr.CreditNote {
		return irp.TypeCreditNote
	}
	return irp.TypeInvoice
}

// irpDocument is d as gateway/irp builds the INV-01 from it.
func irpDocument(d gstr.Document, o Order, shop Shop) irp.Document {
	var buyer Buyer
	if o.Buyer != nil {
		buyer = o.Buyer.Normal()
	}
	doc := irp.Document{
		Type: docType(d), Number: d.Number, Date: d.Date,
		Seller:        irp.Seller{GSTIN: shop.GSTIN, Name: shop.Name, Address: shop.Address, State: shop.State, Phone: shop.Phone},
		Buyer:         irp.Buyer{GSTIN: d.BuyerGSTIN, Name: firstNonEmpty(d.BuyerName, buyer.Name), Address: buyer.Address, State: firstNonEmpty(buyer.State, StateCode(d.BuyerGSTIN))},
		PlaceOfSupply: d.PlaceOfSupply,
		RoundOff:      int64(d.RoundOff),
	}
	if d.Kind == gstr.CreditNote {
		doc.OriginalNumber, doc.OriginalDate = d.OriginalNumber, d.OriginalDate
	}
	for _, l := range d.Lines {
		il := irp.Line{Description: l.Description, HSN: l.HSN, Unit: l.UQC, Qty: l.Qty, RateBP: int64(l.Rate),
			Taxable: int64(l.Taxable), IGST: int64(l.IGST), CGST: int64(l.CGST), SGST: int64(l.SGST), Cess: int64(l.Cess)}
		if l.Taxable != 0 && l.Cess != 0 { // the cess rate, from its amount: to a hundredth of a percent
			il.CessRateBP = int64(math.Round(float64(il.Cess) * 10000 / float64(il.Taxable)))
		}
		doc.Lines = append(doc.Lines, il)
	}
	return doc
}

// Register registers every document of the order orderID that needs an IRN and
// is not registered yet. It returns the documents' states; an error matching
// ErrIRNPending (with a sentence) when any stays pending.
func (e *EInvoices) Register(ctx context.Context, orderID string) ([]IRNState, error) {
	o, err := e.c.eng.Order(ctx, orderID)
	if err != nil {
		return nil, err
	}
	shops, err := LoadShops(ctx, e.c.j)
	if err != nil {
		return nil, err
	}
	docs := e.docsOf(*o, shops)
	if len(docs) == 0 {
		return nil, nil
	}
	if e.port == nil {
		return nil, ErrNoIRP
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.catchUp(ctx); err != nil {
		return nil, err
	}
	var out []IRNState
	var pending []string
	for _, d := range docs {
		st, err := e.registerLocked(ctx, d, *o, shops.At(d.Date))
		if err != nil {
			return out, err
		}
		out = append(out, st)
		if st.Status != IRNRegistered && st.Status != IRNCancelled {
			why := "the IRP cannot be reached"
			if st.Refusal != "" {
				why = "refused: " + st.Refusal
			}
			pending = append(pending, fmt.Sprintf("%s (%s)", d.Number, why))
		}
	}
	if len(pending) > 0 {
		return out, wrapf(ErrIRNPending, "IRN pending for %s. The sale is kept; the document is not final and prints IRN PENDING until registered (galla einvoice register).", strings.Join(pending, ", "))
	}
	return out, nil
}

// registerLocked registers one document: inquired first when an earlier call's
// outcome is unknown, sent only when the IRP has no record of it. shop is the
// shop as registered on the document's date, the INV-01's seller. e.mu is held.
func (e *EInvoices) registerLocked(ctx context.Context, d gstr.Document, o Order, shop Shop) (IRNState, error) {
	typ := docType(d)
	base := IRNEvent{Type: typ, DocNo: d.Number, DocDate: ToDay(d.Date), OrderID: o.ID}
	if st := e.docs[irnKey(typ, d.Number)]; st != nil {
		switch st.Status {
		case IRNRegistered, IRNCancelled:
			return *st, nil
		case IRNUnknown:
			absent, err := e.inquire(ctx, base, d.Date, "inquiry")
			if err != nil || !absent { // registered now, or still not known: never sent blindly
				return e.state(typ, d.Number), err
			}
		}
	}
	inv, err := irp.Build(irpDocument(d, o, shop))
	if err != nil {
		ev := base
		ev.Code, ev.Message = refusedBuild, strings.TrimPrefix(err.Error(), irp.ErrIncomplete.Error()+": ")
		if err := e.append(ctx, EvIRNRefused, ev); err != nil {
			return IRNState{}, err
		}
		return e.state(typ, d.Number), nil
	}
	if err := e.append(ctx, EvIRNIntent, base); err != nil {
		return IRNState{}, err
	}
	reg, err := e.port.Generate(ctx, inv)
	switch {
	case err == nil:
		if err := e.registered(ctx, base, reg, "generate"); err != nil {
			return IRNState{}, err
		}
	case errors.Is(err, irp.ErrDuplicate):
		if _, err := e.inquire(ctx, base, d.Date, "duplicate"); err != nil {
			return IRNState{}, err
		}
	case irp.Definite(err):
		var ie *irp.Error
		errors.As(err, &ie)
		ev := base
		ev.Code, ev.Message = ie.Code, ie.Message
		if err := e.append(ctx, EvIRNRefused, ev); err != nil {
			return IRNState{}, err
		}
	default:
		ev := base
		ev.Message = err.Error()
		if err := e.append(ctx, EvIRNUnknown, ev); err != nil {
			return IRNState{}, err
		}
		if _, err := e.inquire(ctx, base, d.Date, "inquiry"); err != nil {
			return IRNState{}, err
		}
	}
	return e.state(typ, d.Number), nil
}

// inquire asks the IRP for the document's registration and journals it when
// found. absent is true only when the IRP answered that it has none (the
// document may be sent); an IRP that cannot be reached leaves the outcome
// unknown. e.mu is held.
func (e *EInvoices) inquire(ctx context.Context, base IRNEvent, date time.Time, via string) (absent bool, err error) {
	reg, err := e.port.GetByDocument(ctx, base.Type, base.DocNo, date)
	switch {
	case err == nil:
		return false, e.registered(ctx, base, reg, via)
	case errors.Is(err, irp.ErrNotFound):
		return true, nil
	}
	if st := e.docs[irnKey(base.Type, base.DocNo)]; st == nil || st.Status != IRNUnknown {
		ev := base
		ev.Message = err.Error()
		return false, e.append(ctx, EvIRNUnknown, ev)
	}
	return false, nil
}

func (e *EInvoices) registered(ctx context.Context, base IRNEvent, reg irp.Registration, via string) error {
	ev := base
	ev.IRN, ev.AckNo, ev.AckDate, ev.QR, ev.Via = reg.Irn, reg.AckNo, reg.AckDt, reg.SignedQRCode, via
	if err := e.append(ctx, EvIRNRegistered, ev); err != nil {
		return err
	}
	if reg.Status == "CNL" {
		return e.append(ctx, EvIRNCancelled, ev)
	}
	return nil
}

func (e *EInvoices) state(typ, no string) IRNState {
	if st := e.docs[irnKey(typ, no)]; st != nil {
		return *st
	}
	return IRNState{Type: typ, DocNo: no, Status: IRNPending}
}

// Pending lists the B2B documents of the last EInvoiceWindow days whose IRN is not
// in, oldest first.
func (e *EInvoices) Pending(ctx context.Context) ([]IRNState, error) {
	shops, err := LoadShops(ctx, e.c.j)
	if err != nil {
		return nil, err
	}
	now := e.c.eng.Now()
	if !slices.ContainsFunc(shops.During(now.AddDate(0, 0, -EInvoiceWindow-1), now), Shop.EInvoicing) {
		return nil, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.catchUp(ctx); err != nil {
		return nil, err
	}
	var out []IRNState
	seen := map[string]bool{}
	today := e.c.eng.Now()
	for i := EInvoiceWindow; i >= 0; i-- {
		orders, err := e.c.j.OrdersByDay(ctx, ToDay(today.AddDate(0, 0, -i)))
		if err != nil {
			return nil, err
		}
		for _, o := range orders {
			if seen[o.ID] {
				continue
			}
			seen[o.ID] = true
			for _, d := range e.docsOf(*o, shops) {
				st := e.state(docType(d), d.Number)
				st.OrderID, st.DocDate = o.ID, ToDay(d.Date)
				if st.Status == IRNPending || st.Status == IRNUnknown {
					out = append(out, st)
				}
			}
		}
	}
	return out, nil
}

// RegisterPending registers every pending document (Pending); the till runs it at
// start and whenever the IRP may be back. It returns what stays pending.
func (e *EInvoices) RegisterPending(ctx context.Context) ([]IRNState, error) {
	pending, err := e.Pending(ctx)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var left []IRNState
	for _, p := range pending {
		if seen[p.OrderID] {
			continue
		}
		seen[p.OrderID] = true
		states, err := e.Register(ctx, p.OrderID)
		if err != nil && !errors.Is(err, ErrIRNPending) {
			return left, err
		}
		for _, st := range states {
			if st.Status == IRNPending || st.Status == IRNUnknown {
				left = append(left, st)
			}
		}
	}
	sort.SliceStable(left, func(i, j int) bool { return left[i].DocDate < left[j].DocDate })
	return left, nil
}

// Status is the registration of the document numbered no (as printed); ok is
// false when the journal has no irn.* event of it.
func (e *EInvoices) Status(ctx context.Context, no string) (IRNState, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.catchUp(ctx); err != nil {
		return IRNState{}, false, err
	}
	for _, typ := range []string{irp.TypeInvoice, irp.TypeCreditNote} {
		if st := e.docs[irnKey(typ, no)]; st != nil {
			return *st, true, nil
		}
	}
	return IRNState{}, false, nil
}

// CheckVoid refuses voiding o when its invoice's IRN was registered more than
// 24 hours ago: the IRP no longer cancels it, so the invoice stands and a credit
// note is issued instead.
func (e *EInvoices) CheckVoid(ctx context.Context, o *Order) error {
	if e == nil || o == nil {
		return nil
	}
	if shop, err := ShopAt(ctx, e.c.j, saleTime(*o)); err != nil || !shop.EInvoicing() {
		return err // the shop's e-invoicing when the invoice was issued decides
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.catchUp(ctx); err != nil {
		return err
	}
	st := e.docs[irnKey(irp.TypeInvoice, o.InvoiceNumber(e.c.cfg.Terminal))]
	if st == nil || st.Status != IRNRegistered {
		return nil
	}
	if e.c.eng.Now().Sub(st.AckDate) > IRNCancelWindow {
		return wrapf(ErrIRNCancelWindow, "Invoice %s was registered with the IRP on %s, more than 24 hours ago: its IRN can no longer be cancelled, so the invoice cannot be voided. Take the goods back with a credit note instead (galla return %s).",
			st.DocNo, st.AckDate.In(e.c.eng.Now().Location()).Format("02 Jan 2006 15:04"), st.DocNo)
	}
	return nil
}

// CancelVoided cancels the IRN of o's invoice once the sale is voided. The IRP's
// refusal after 24 hours matches ErrIRNCancelWindow; an IRP that cannot be
// reached leaves the IRN to cancel with "galla einvoice cancel".
func (e *EInvoices) CancelVoided(ctx context.Context, o *Order, reason string) error {
	if e == nil || o == nil {
		return nil
	}
	if shop, err := ShopAt(ctx, e.c.j, saleTime(*o)); err != nil || !shop.EInvoicing() {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.catchUp(ctx); err != nil {
		return err
	}
	st := e.docs[irnKey(irp.TypeInvoice, o.InvoiceNumber(e.c.cfg.Terminal))]
	if st == nil || st.Status != IRNRegistered {
		return nil
	}
	if e.port == nil {
		return ErrNoIRP
	}
	_, err := e.port.Cancel(ctx, st.IRN, irp.CancelOrder, firstNonEmpty(reason, "sale voided"))
	switch {
	case errors.Is(err, irp.ErrCancelWindow):
		return wrapf(ErrIRNCancelWindow, "The IRP no longer cancels the IRN of invoice %s (registered more than 24 hours ago); issue a credit note instead.", st.DocNo)
	case err != nil && !errors.Is(err, irp.ErrCancelled):
		return wrapf(ErrIRNPending, "The sale is voided, but the IRP could not cancel the IRN of invoice %s (%v); cancel it with \"galla einvoice cancel %s\" within 24 hours of its registration.", st.DocNo, err, st.DocNo)
	}
	return e.append(ctx, EvIRNCancelled, IRNEvent{Type: st.Type, DocNo: st.DocNo, DocDate: st.DocDate, OrderID: st.OrderID, IRN: st.IRN, Message: reason})
}

// stamp registers the document r prints, when it needs an IRN, and marks it:
// the IRN, acknowledgement and signed QR code when registered, IRN PENDING
// otherwise.
func (e *EInvoices) stamp(ctx context.Context, o *Order, r *receipts.Receipt) {
	if e == nil || o == nil {
		return
	}
	shops, err := LoadShops(ctx, e.c.j)
	if err != nil {
		return
	}
	var doc *gstr.Document
	for _, d := range e.docsOf(*o, shops) {
		if d.Number == r.Number {
			doc = &d
			break
		}
	}
	if doc == nil {
		return
	}
	if e.port != nil {
		// A pending IRN prints as pending: the IRP is given a few seconds, not
		// the counter's queue.
		rctx, cancel := context.WithTimeout(ctx, StampTimeout)
		_, _ = e.Register(rctx, o.ID)
		cancel()
	}
	e.mu.Lock()
	st := e.state(docType(*doc), doc.Number)
	e.mu.Unlock()
	if st.Status == IRNRegistered {
		*r = r.WithIRN(receipts.IRN{IRN: st.IRN, AckNo: st.AckNo, AckDate: st.AckDate.In(e.c.eng.Now().Location()), QR: st.QR})
		return
	}
	if st.Status != IRNCancelled {
		*r = r.WithIRNPending()
	}
}
