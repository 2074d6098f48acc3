package ui

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"galla/pos"
)

// Stock is what the Stock screen and the IMEI field need of the till: whether
// stock is kept, the list searched as typed, goods received, the units on
// hand offered as an IMEI is typed, and a manager allowing a unit not in
// stock to be sold. pos.Stock implements it.
type Stock interface {
	Enforced(ctx context.Context) (pos.StockStatus, error)
	List(ctx context.Context, query string, limit int, units bool) ([]pos.StockRow, error)
	ReceiveItems(ctx context.Context, supplier, invoice, date, items string, imeis []string, managerPIN string) (pos.Delivery, error)
	Offer(ctx context.Context, sku, prefix string, limit int) ([]string, error)
	AllowIMEIs(ctx context.Context, imeis []string, managerPIN, by string) (pos.StaffMember, error)
	// Short lists the items not serialised the lines take below what is on
	// hand while stock is kept: a warning, not a refusal.
	Short(ctx context.Context, lines []pos.CartLine) ([]string, error)
}

// stockRows is how many items the Stock screen lists at once.
const stockRows = 50

// stockScreen is the stock on hand, searched as typed (a SKU, a name, a
// brand, or the first digits of an IMEI), and the form that receives a
// distributor's delivery. Its widgets are kept for tests.
type stockScreen struct {
	u        *UI
	root     fyne.CanvasObject
	status   *widget.Label
	search   *keyEntry
	list     *widget.Label // the items found, monospaced
	message  *widget.Label
	receiveA *action
	back     *action
	rows     []pos.StockRow
	asked    int // the search last asked; an older answer is dropped

	// The Receive form's fields, kept while it is open (and for tests).
	supplier, invoice, date, items, imeis, pin *keyEntry
}

func newStockScreen(u *UI) *stockScreen {
	s := &stockScreen{u: u}
	s.status = widget.NewLabel("")
	s.status.Wrapping = fyne.TextWrapWord
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	s.list = widget.NewLabel("")
	s.list.TextStyle = fyne.TextStyle{Monospace: true}
	s.search = newKeyEntry(u)
	s.search.SetPlaceHolder("Search stock: SKU, name, brand or IMEI digits")
	s.search.OnChanged = func(q string) { s.load(q) }
	s.receiveA = u.newAction("Receive goods", fyne.KeyF5, 0, s.askReceive)
	s.back = u.newAction("Back", fyne.KeyEscape, 0, func() { u.goTo(u.sale) })
	buttons := container.NewGridWithColumns(2, s.back.btn, s.receiveA.btn)
	s.root = container.NewPadded(container.NewBorder(container.NewVBox(heading("Stock"), s.status, s.search),
		container.NewVBox(s.message, buttons), nil, nil, container.NewVScroll(s.list)))
	return s
}

func (s *stockScreen) view() fyne.CanvasObject { return s.root }

func (s *stockScreen) actions() []*action { return []*action{s.receiveA, s.back} }

func (s *stockScreen) shown() { s.u.win.Canvas().Focus(s.search) }

// open shows the screen with the stock as it is now.
func (s *stockScreen) open() {
	s.message.SetText("")
	s.u.goTo(s)
	s.load(s.search.Text)
}

// load lists the items matching q, and says whether stock is enforced.
func (s *stockScreen) load(q string) {
	s.asked++
	asked := s.asked
	st := s.u.till.Stock
	s.u.async(func(ctx context.Context) func() {
		status, err := st.Enforced(ctx)
		var rows []pos.StockRow
		if err == nil {
			rows, err = st.List(ctx, q, stockRows, false)
		}
		return func() {
			if asked != s.asked {
				return // typed on since: a newer answer follows
			}
			if err != nil {
				s.message.SetText(sentence(err))
				return
			}
			s.status.SetText(status.Sentence())
			s.rows = rows
			s.list.SetText(stockText(rows, q))
		}
	})
}

// stockText is the list as the screen shows it: one item a line, its
// quantity on hand and, when the search named IMEI digits, the units found.
func stockText(rows []pos.StockRow, q string) string {
	if len(rows) == 0 {
		if strings.TrimSpace(q) == "" {
			return "Nothing in stock yet: receive goods with F5."
		}
		return fmt.Sprintf("No item in stock matches %q.", q)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s %-30s %8s  %s\n", "SKU", "Item", "On hand", "Value")
	for _, r := range rows {
		name := r.Name
		if len([]rune(name)) > 30 {
			name = string([]rune(name)[:29]) + "…"
		}
		fmt.Fprintf(&b, "%-22s %-30s %8d  %s", r.SKU, name, r.OnHand, r.Value)
		if r.OnHand < 0 {
			b.WriteString("  below zero: count the shelf")
		}
		if r.Damaged > 0 {
			fmt.Fprintf(&b, "  %d damaged", r.Damaged)
		}
		b.WriteString("\n")
		for _, m := range r.IMEIs {
			fmt.Fprintf(&b, "    IMEI %s\n", m)
		}
	}
	if len(rows) == stockRows {
		b.WriteString("… type more to narrow the list\n")
	}
	return b.String()
}

// askReceive opens the Receive form: the supplier, their invoice number and
// date, the items as SKU:QTY[@COST_PAISE], the boxes' IMEIs as scanned, and
// a manager's PIN. A refusal is said in the form with everything typed kept.
func (s *stockScreen) askReceive() {
	field := func(label, hint string) *keyEntry {
		e := newKeyEntry(s.u)
		e.label = label
		e.SetPlaceHolder(hint)
		return e
	}
	s.supplier = field("Supplier", "the distributor's name")
	s.invoice = field("Invoice no.", "their invoice number")
	s.date = field("Invoice date", "YYYY-MM-DD")
	s.date.SetText(s.u.now().Format(pos.DayLayout))
	s.items = field("Items", "SKU:QTY@COST_PAISE, ...")
	s.imeis = field("IMEIs", "scan each box; a second IMEI after /")
	s.pin = field("Manager PIN", "")
	s.pin.Password = true
	fields := []*keyEntry{s.supplier, s.invoice, s.date, s.items, s.imeis, s.pin}
	st := s.u.till.Stock
	s.u.dialogs.ask("Receive goods", "The supplier's delivery as on their invoice. Scan every phone's box in the order of the items; each IMEI is checked.",
		fields, func(p *prompt) {
			pin := s.pin.Text
			s.pin.SetText("")
			supplier, invoice, date, items := s.supplier.Text, s.invoice.Text, s.date.Text, s.items.Text
			imeis := strings.FieldsFunc(s.imeis.Text, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
			p.ok.Disable()
			s.u.asyncScreen(func(ctx context.Context) func() {
				d, err := st.ReceiveItems(ctx, supplier, invoice, date, items, imeis, pin)
				return func() {
					p.ok.Enable()
					if err != nil {
						p.say(sentence(err))
						return
					}
					p.close()
					s.message.SetText(fmt.Sprintf("Received %d units on %d lines: invoice %s of %s.", d.Units(), len(d.Lines), d.Invoice, d.Supplier))
					s.load(s.search.Text)
				}
			})
		})
}
