package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// productFinder is the sale's scan field and the matches of what is typed: a
// scanner types the code and Enter; Up and Down move the highlight in the matches,
// or in the cart when nothing is typed.
type productFinder struct {
	s       *saleScreen
	scan    *keyEntry
	found   *widget.List
	results []Product
	hit     int // highlighted result
}

func newProductFinder(s *saleScreen) *productFinder {
	pf := &productFinder{s: s}
	pf.scan = newKeyEntry(s.u)
	pf.scan.SetPlaceHolder("Scan a barcode or type a name or code, then Enter")
	pf.scan.OnChanged = pf.search
	pf.scan.OnSubmitted = pf.submit
	pf.scan.onKey = pf.key

	pf.found = widget.NewList(
		func() int { return len(pf.results) },
		func() fyne.CanvasObject {
			return container.NewBorder(nil, nil, nil, widget.NewLabel("₹1,00,000.00"), widget.NewLabel("Product name"))
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			p := pf.results[i]
			c := o.(*fyne.Container)
			c.Objects[0].(*widget.Label).SetText(p.Name + "  ·  " + p.SKU)
			c.Objects[1].(*widget.Label).SetText(p.Price.String())
		})
	pf.found.OnSelected = func(i widget.ListItemID) {
		if i < len(pf.results) {
			pf.hit = i
		}
	}
	return pf
}

// key moves the highlight in the matches (when something is typed) or the cart.
func (pf *productFinder) key(k *fyne.KeyEvent) bool {
	d := 0
	switch k.Name {
	case fyne.KeyUp:
		d = -1
	case fyne.KeyDown:
		d = 1
	default:
		return false
	}
	if pf.scan.Text != "" && len(pf.results) > 0 {
		pf.hit = max(0, min(pf.hit+d, len(pf.results)-1))
		pf.found.Select(pf.hit)
		pf.found.ScrollTo(pf.hit)
	} else if len(pf.s.lines) > 0 {
		pf.s.selectLine(max(0, min(pf.s.sel+d, len(pf.s.lines)-1)))
	}
	pf.s.u.win.Canvas().Focus(pf.scan)
	return true
}

// search shows the matches of what is typed so far.
func (pf *productFinder) search(q string) {
	q = strings.TrimSpace(q)
	if q == "" {
		pf.results = nil
	} else {
		pf.results = pf.s.u.till.Catalog.Search(q, 20)
	}
	pf.hit = 0
	pf.found.UnselectAll()
	pf.found.Refresh()
	if len(pf.results) > 0 {
		pf.found.Select(0)
	}
}

// submit adds the scanned or chosen product: an exact code first (a scanner), else
// the highlighted match.
func (pf *productFinder) submit(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	p, ok := pf.s.u.till.Catalog.Lookup(text)
	if !ok && len(pf.results) > 0 && pf.hit < len(pf.results) {
		p, ok = pf.results[pf.hit], true
	}
	pf.scan.SetText("")
	if !ok {
		pf.s.message.SetText("Nothing in the catalog matches “" + text + "”. Check the code or search by name.")
		return
	}
	pf.s.message.SetText("")
	pf.s.add(p)
}
