package pos

import (
	"fmt"
	"strings"
)

// Open sales: a split sale that is neither complete nor voided stays open,
// on screen and in the journal (Checkout.OpenSales, also after a restart), until
// it is finished (Pay with PayRequest.Sale, the tenders added until they cover
// it) or voided (Checkout.VoidSale). These say where one stands, for the close of
// the day and the cashier.

// saleWords says in a few words where open sale st stands: "₹499.00 paid of
// ₹1,499.00 (cash ₹499.00), ₹1,000.00 due".
func saleWords(st *SaleStatus) string {
	var paid []string
	for _, t := range st.Tenders {
		if t.Paid() {
			paid = append(paid, fmt.Sprintf("%s %s", t.Kind, t.Amount))
		}
	}
	s := fmt.Sprintf("%s paid of %s", st.Paid, st.Sale.Amount)
	if len(paid) > 0 {
		s += " (" + strings.Join(paid, ", ") + ")"
	}
	if st.Pending > 0 {
		s += fmt.Sprintf(", %s being checked", st.Pending)
	}
	return s + fmt.Sprintf(", %s due", st.Due)
}

// openSalesNote is the sentence of a day close that names the sales still
// open, or "" when there is none.
func openSalesNote(open []*SaleStatus) string {
	if len(open) == 0 {
		return ""
	}
	var parts []string
	for _, st := range open {
		parts = append(parts, "sale "+st.Sale.ID+": "+saleWords(st))
	}
	return fmt.Sprintf(" %d sale(s) are still open, with no invoice yet; finish or void them: %s.", len(open), strings.Join(parts, "; "))
}
