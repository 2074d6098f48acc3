package pos

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// ShiftReport is the X report of one shift: the drawer's cash and the sales of
// each cashier while it was open.
type ShiftReport struct {
	Shift       *Shift
	StaffName   string // who opened it
	CashSales   Paise  // cash taken for sales, change given back
	CashRefunds Paise  // cash paid back for refunds
	CashIn      Paise
	CashOut     Paise
	Drops       Paise
	// Expected is what the drawer should hold: float + sales − refunds + in −
	// out − drops. At close it is what was journaled then.
	Expected  Paise
	ByCashier []CashierTotal
}

// CashierTotal is one cashier's paid sales in a shift, by tender.
type CashierTotal struct {
	Staff    string // staff id
	Name     string
	Count    int
	Amount   Paise
	ByTender map[TenderKind]Paise
}

// less is p taken from the drawer, as the report shows it: with a minus sign,
// and none on nothing.
func less(p Paise) string {
	if p == 0 {
		return p.String()
	}
	return "-" + p.String()
}

// WriteText writes the shift report for the screen and the command line.
func (r *ShiftReport) WriteText(w io.Writer) error {
	s := r.Shift
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	state := "open"
	if !s.Open() {
		state = "closed " + s.Closed.Format("2006-01-02 15:04")
	}
	fmt.Fprintf(w, "SHIFT %s (%s)\nBusiness day %s, opened %s by %s\n\n", s.ID, state, s.Day, s.Opened.Format("2006-01-02 15:04"), r.StaffName)
	fmt.Fprintf(tw, "Opening float\t%s\t\n", s.Float)
	fmt.Fprintf(tw, "Cash sales\t%s\t\n", r.CashSales)
	fmt.Fprintf(tw, "Cash refunds\t%s\t\n", less(r.CashRefunds))
	fmt.Fprintf(tw, "Paid in\t%s\t\n", r.CashIn)
	fmt.Fprintf(tw, "Paid out\t%s\t\n", less(r.CashOut))
	fmt.Fprintf(tw, "Drops\t%s\t\n", less(r.Drops))
	fmt.Fprintf(tw, "Expected in drawer\t%s\t\n", r.Expected)
	if !s.Open() {
		fmt.Fprintf(tw, "Counted\t%s\t\n", s.Counted)
		fmt.Fprintf(tw, "Variance\t%s\t\n", s.Variance)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if s.Count != nil && len(s.Count.Pieces) > 0 {
		fmt.Fprintln(w, "\nCounted by denomination:")
		for _, d := range Denominations {
			if n := s.Count.Pieces[d]; n > 0 {
				fmt.Fprintf(w, "  ₹%d × %d = %s\n", d, n, Rupees(int64(d*n)))
			}
		}
		if s.Count.Paise > 0 {
			fmt.Fprintf(w, "  coins = %s\n", s.Count.Paise)
		}
	}
	if len(s.Moves) > 0 {
		fmt.Fprintln(w, "\nCash movements:")
		for _, m := range s.Moves {
			fmt.Fprintf(w, "  %s %-4s %s — %s\n", m.At.Format("15:04"), m.Kind, m.Amount, m.Reason)
		}
	}
	fmt.Fprintln(w, "\nSales by cashier:")
	if len(r.ByCashier) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, c := range r.ByCashier {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(c.ByTender)) {
			parts = append(parts, fmt.Sprintf("%s %s", k, c.ByTender[k]))
		}
		fmt.Fprintf(w, "  %s: %d sale(s), %s (%s)\n", c.Name, c.Count, c.Amount, strings.Join(parts, ", "))
	}
	return nil
}

func closedAt(s *Shift) string {
	if s.Open() {
		return ""
	}
	return s.Closed.Format("15:04")
}
