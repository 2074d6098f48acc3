package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/sandbox"
	"galla/pos"
	"galla/store"
)

// The business day of issue 21's acceptance test: one store, two counters (T1
// and T2), shifts kept, every kind of sale and return, all through the command
// line; then the counters' X reports and the store's day report must agree
// tender by tender, and each shift's expected cash must be what the test
// counts from the commands' own answers.
//
// What goes into the drawer and what comes out of it is counted here, not
// taken from any report: a cash tender puts in what it paid (tendered less
// change), cash paid in and out move it, a refund whose money went back in
// cash (a return --to cash, a cancelled or voided sale's cash tender) takes it
// out. UPI is paid to the shop's VPA, into its bank account, never into the
// drawer: a UPI tender puts nothing in. Its money comes back in cash, though
// (pos.RefundDestination: what was taken at the counter goes back at the
// counter, and the split sale's cash limit counts UPI with cash), so a return
// of a UPI sale to cash takes it out of the drawer like any cash refund. The
// drawer can pay that because it is a refund of the day's takings, not of the
// drawer's own sales; a shop that wants UPI refunded to UPI gives a credit note
// or pays it from the bank. So the drawer is float + cash tenders + cash in −
// cash out − every refund paid in cash, UPI's included.

// drawer is one shift's cash as the test counts it from the commands' output.
type drawer struct {
	float, sales, in, out, refunds pos.Paise
}

func (d drawer) expected() pos.Paise { return d.float + d.sales + d.in - d.out - d.refunds }

// dayCounter is one counter of the day: its data directory and its drawer.
type dayCounter struct {
	id, dir string
	drawer  drawer
}

// dayScript runs the commands of one counter, failing the test on an exit code
// it did not expect.
type dayScript struct {
	t   *testing.T
	pin map[string]string
	fy  string
}

func (s dayScript) run(c *dayCounter, stdin string, want int, args ...string) string {
	s.t.Helper()
	code, out, errOut := tillRun(s.t, c.dir, stdin, s.pin, args...)
	require.Equal(s.t, want, code, "%s %v: %s %s", c.id, args, out, errOut)
	return out
}

// checkout sells, adding every cash tender paid to the counter's drawer.
func (s dayScript) checkout(c *dayCounter, card string, want int, args ...string) checkoutOutput {
	s.t.Helper()
	out := s.run(c, card, want, append([]string{"checkout", "--staff", "Meera", "--otp", "123456"}, args...)...)
	co := decodeCheckout(s.t, out)
	for _, tn := range co.Tenders {
		if tn.Kind == pos.TenderCash && tn.Status == "PAID" {
			c.drawer.sales += tn.Amount
		}
	}
	return co
}

// ret returns goods, taking a cash refund out of the drawer.
func (s dayScript) ret(c *dayCounter, doc string, args ...string) returnOutput {
	s.t.Helper()
	out := s.run(c, "", exitOK, append([]string{"return", doc}, args...)...)
	var r returnOutput
	require.NoError(s.t, json.Unmarshal([]byte(out), &r), out)
	require.Equal(s.t, "DONE", r.Status, out)
	if r.To == pos.RefundToCash {
		c.drawer.refunds += r.Amount
	}
	return r
}

// report is the counter's X report of the day (galla report --format json).
func (s dayScript) report(c *dayCounter) pos.Report {
	s.t.Helper()
	out := s.run(c, "", exitOK, "report", "--format", "json")
	var r pos.Report
	require.NoError(s.t, json.Unmarshal([]byte(out), &r), out)
	return r
}

// rupeesIn reads the amount after label (a regular expression) in a shift
// report's text: "₹2,348.00" or "-₹8.00".
func rupeesIn(t *testing.T, text, label string) pos.Paise {
	t.Helper()
	m := regexp.MustCompile(label + `\s+(-?)₹([0-9,]+\.[0-9]{2})`).FindStringSubmatch(text)
	require.NotNil(t, m, "%q in %s", label, text)
	p, err := pos.ParsePaise(m[2])
	require.NoError(t, err)
	if m[1] == "-" {
		p = -p
	}
	return p
}

// TestDayAtTwoCounters is issue 21's acceptance test: a business day at two
// counters of one store with every kind of sale and return, after which the
// counters' X reports and the store's day report agree tender by tender, and
// each shift's expected cash is its cash movements.
func TestDayAtTwoCounters(t *testing.T) {
	db := pg.Get(t).Database(t)
	dir := t.TempDir()
	code, out, errOut := tillRun(t, dir, "", nil, "store", "init", "--db", db, "--host", "till-server.local")
	require.Equal(t, exitOK, code, errOut)
	fp := strings.TrimSpace(out)
	addr, _ := serveStore(t, dir, db)
	s := dayScript{t: t, pin: map[string]string{"GALLA_PIN": "432100"}, fy: pos.FinancialYear(time.Now())}
	t1, t2 := &dayCounter{id: "T1", dir: t.TempDir()}, &dayCounter{id: "T2", dir: t.TempDir()}
	for _, c := range []*dayCounter{t1, t2} {
		code, out, errOut = tillRun(t, dir, "", nil, "store", "enrol-code", c.id, "--db", db)
		require.Equal(t, exitOK, code, errOut)
		s.run(c, "432100\n", exitOK, "staff", "add", "Meera", "--role", "manager")
		s.run(c, "", exitOK, "enrol", addr, strings.TrimSpace(out), "--fingerprint", fp, "--staff", "Meera")
	}
	d := openStoreDB(t, dir, db)
	defer d.Close()
	sync := func() {
		t.Helper()
		for _, c := range []*dayCounter{t1, t2} {
			s.run(c, "", exitOK, "sync")
		}
	}
	hdfc := strings.Replace(visaJSON, "4111 1111 1111 1111", "4386280000000004", 1)
	declined := strings.Replace(visaJSON, "4111 1111 1111 1111", "4000000000000002", 1)
	imei := func(n int) string { return sandbox.TestIMEI("35290611", n) }

	// Both counters open a shift with a counted float.
	t1.drawer.float, t2.drawer.float = 200000, 100000
	s.run(t1, "", exitOK, "shift", "open", "--float", "200000")
	s.run(t2, "", exitOK, "shift", "open", "--float", "100000")

	// T1: a cash sale of two cables (₹499, 18%) and a solar lantern (₹1,499,
	// 5%), ₹3,000 handed over.
	cashSale := s.checkout(t1, "", exitOK, "--items", "ACC-CBL-CC1M:2,MISC-LANTERN-SOLAR", "--pay", "cash", "--cash", "300000")
	require.Equal(t, pos.Paise(249700), cashSale.Amount)
	require.Equal(t, pos.Paise(50300), cashSale.Change)
	// A card sale, an EMI sale, and a split sale with a cash down payment.
	cardSale := s.checkout(t1, visaJSON, exitOK, "--items", "ACC-CASE-S24", "--pay", "card")
	s.checkout(t1, hdfc, exitOK, "--items", "PH-SAM-S24-256-BLK", "--imei", imei(2), "--pay", "emi", "--issuer", "HDFC", "--tenure", "6")
	down := s.checkout(t1, hdfc, exitOK, "--items", "PH-SAM-S24-256-GRY", "--imei", imei(3), "--pay", "cash:1000000,emi",
		"--issuer", "HDFC", "--tenure", "6", "--cash", "1000000")
	require.Len(t, down.Tenders, 2)
	require.Equal(t, "PAID", down.Status)
	// The lantern comes back onto a credit note (no cash moves), the case to
	// its card.
	note := s.ret(t1, cashSale.DocumentNo, "--items", "MISC-LANTERN-SOLAR", "--to", "note")
	require.Equal(t, "T1/C"+s.fy+"/00001", note.CreditNoteNo)
	s.ret(t1, cardSale.DocumentNo, "--items", "ACC-CASE-S24", "--to", "card")
	// A charger sold in cash whose invoice is cancelled: the customer left.
	cancelled := s.checkout(t1, "", exitOK, "--items", "ACC-CHG-SAM25W", "--pay", "cash")
	out = s.run(t1, "", exitOK, "void", cancelled.DocumentNo, "--reason", "customer left before delivery")
	var void voidOutput
	require.NoError(t, json.Unmarshal([]byte(out), &void), out)
	require.Equal(t, "CANCELLED", void.Status)
	for _, tn := range void.Tenders {
		if tn.Tender == pos.TenderCash {
			t1.drawer.refunds += tn.Amount
		}
	}
	// Cash paid in and out.
	s.run(t1, "", exitOK, "shift", "cash-in", "50000", "--reason", "change from the bank")
	t1.drawer.in += 50000
	s.run(t1, "", exitOK, "shift", "cash-out", "15000", "--reason", "courier")
	t1.drawer.out += 15000
	// An open sale: ₹500 down in cash, the card declined; it stays open.
	openT1 := s.checkout(t1, declined, exitFailed, "--items", "ACC-CHG-APL20W", "--pay", "cash:50000,card", "--cash", "50000")
	require.Equal(t, "FAILED", openT1.Status)
	require.Empty(t, openT1.InvoiceNo)

	// T1 syncs: its note and its invoices are known store-wide.
	s.run(t1, "", exitOK, "sync")

	// T2 spends T1's note on a charger (₹1,999), the rest in cash.
	spent := s.checkout(t2, "", exitOK, "--items", "ACC-CHG-OP80W", "--pay", "note:"+note.CreditNoteNo+":149900,cash")
	require.Equal(t, "PAID", spent.Status)
	// A sale paid by UPI and card, and its memory card returned in cash.
	upiSale := s.checkout(t2, visaJSON, exitOK, "--items", "ACC-SD-128,ACC-CHG-SAM25W", "--pay", "upi:100000,card")
	require.Equal(t, "PAID", upiSale.Status)
	s.ret(t2, upiSale.DocumentNo, "--items", "ACC-SD-128", "--to", "cash")
	// A cable of T1's cash sale returned at T2, in cash.
	cross := s.ret(t2, cashSale.DocumentNo, "--items", "ACC-CBL-CC1M:1", "--to", "cash")
	require.Equal(t, cashSale.DocumentNo, cross.InvoiceNo)
	require.Equal(t, "T2/C"+s.fy+"/00002", cross.CreditNoteNo)
	// An open sale: ₹400 down in cash, the card declined.
	openT2 := s.checkout(t2, declined, exitFailed, "--items", "ACC-CASE-IP15", "--pay", "cash:40000,card", "--cash", "40000")
	require.Empty(t, openT2.InvoiceNo)

	// Midday, with a sale open at each counter.
	sync()
	m1, m2 := s.report(t1), s.report(t2)
	agree(t, d, "midday", m1, m2)
	// Each counter's open sale is paid on apart, its cash in the drawer; the
	// shift (the counter's only one) sold what the day did.
	assert.Equal(t, pos.Paise(50000), m1.OpenPaid)
	assert.Equal(t, pos.Paise(40000), m2.OpenPaid)
	for _, x := range []struct {
		c *dayCounter
		r pos.Report
	}{{t1, m1}, {t2, m2}} {
		assert.Equal(t, x.c.drawer.sales-x.c.drawer.refunds, x.r.CashExpected, "midday %s: the X report's cash", x.c.id)
		out := s.run(x.c, "", exitOK, "report", "--shift", "current")
		assert.Equal(t, x.c.drawer.expected(), rupeesIn(t, out, "Expected in drawer"), "midday %s", x.c.id)
		assert.Equal(t, x.r.GrossSales, rupeesIn(t, out, "Meera:"+` [0-9]+ sale\(s\),`), "midday %s: the shift's sales are the day's", x.c.id)
	}

	// galla sales --open lists the two open sales; the one at T1 is finished
	// by card (galla pay), the one at T2 voided (galla void), its cash given
	// back from the drawer.
	for _, x := range []struct {
		c    *dayCounter
		sale checkoutOutput
		due  pos.Paise
	}{{t1, openT1, 140000}, {t2, openT2, 59900}} {
		out := s.run(x.c, "", exitOK, "sales", "--open", "--format", "json")
		var open []openSaleOutput
		require.NoError(t, json.Unmarshal([]byte(out), &open), out)
		require.Len(t, open, 1, x.c.id)
		assert.Equal(t, x.sale.MerchantOrderID, open[0].Sale, x.c.id)
		assert.Equal(t, x.due, open[0].Due, x.c.id)
	}
	finished := s.run(t1, visaJSON, exitOK, "pay", openT1.MerchantOrderID, "--staff", "Meera", "--pay", "card", "--otp", "123456")
	co := decodeCheckout(t, finished)
	require.Equal(t, "PAID", co.Status)
	require.Equal(t, "T1/"+s.fy+"/000006", co.InvoiceNo, "the invoice is numbered when the sale is complete")
	out = s.run(t2, "", exitOK, "void", openT2.MerchantOrderID, "--reason", "customer left")
	var voided voidOutput
	require.NoError(t, json.Unmarshal([]byte(out), &voided), out)
	require.Equal(t, "VOIDED", voided.Status)
	for _, tn := range voided.Tenders {
		if tn.Tender == pos.TenderCash {
			t2.drawer.refunds += tn.Amount
		}
	}

	// Both shifts close with the drawer counted as the test expects it.
	closed := map[string]string{}
	for _, c := range []*dayCounter{t1, t2} {
		want := c.drawer.expected()
		out := s.run(c, "", exitOK, "shift", "close", "--counted", itoa(uint64(want)))
		assert.Equal(t, want, rupeesIn(t, out, "Expected in drawer"), "%s: the shift's expected cash is its cash movements", c.id)
		assert.Zero(t, rupeesIn(t, out, "Variance"), c.id)
		assert.Equal(t, c.drawer.sales, rupeesIn(t, out, "Cash sales"), c.id)
		assert.Equal(t, c.drawer.refunds, -rupeesIn(t, out, "Cash refunds"), c.id)
		closed[c.id] = out
	}

	sync()
	r1, r2 := s.report(t1), s.report(t2)
	agree(t, d, "end of day", r1, r2)
	// The X report's cash is the drawer's less its float and the cash paid in
	// and out.
	for _, x := range []struct {
		c *dayCounter
		r pos.Report
	}{{t1, r1}, {t2, r2}} {
		assert.Equal(t, x.c.drawer.sales-x.c.drawer.refunds, x.r.CashExpected, x.c.id)
		assert.Empty(t, x.r.OpenSales, x.c.id)
		assert.Equal(t, x.r.GrossSales, rupeesIn(t, closed[x.c.id], "Meera:"+` [0-9]+ sale\(s\),`), "%s: the shift's sales are the day's", x.c.id)
	}
}

// agree checks the store's day report against each counter's X report, tender
// by tender, and the store's totals against their sum.
func agree(t *testing.T, d *store.DB, when string, reports ...pos.Report) {
	t.Helper()
	day := reports[0].Day
	rep, err := d.Reports.DayReport(t.Context(), day)
	require.NoError(t, err)
	require.Len(t, rep.Counters, len(reports), when)
	var all []store.CounterDay
	for i, r := range reports {
		c := rep.Counters[i]
		label := when + " " + c.Terminal
		var tax pos.Paise
		for _, g := range r.GST {
			tax += g.Tax
		}
		own := store.CounterDay{Terminal: c.Terminal, Sales: r.Sales, GST: r.GST, GrossSales: r.GrossSales, Refunds: r.Refunds,
			Refunded: r.Refunded, NetSales: r.NetSales, CashExpected: r.CashExpected, Tax: tax, Failed: r.Failed,
			Unknown: r.Unknown, Abandoned: r.Abandoned, Cancelled: r.Cancelled, OpenPaid: r.OpenPaid}
		assert.Equal(t, own.Sales, c.Sales, "%s: sales by tender", label)
		assert.Equal(t, own.Refunds, c.Refunds, "%s: refunds by destination", label)
		assert.Equal(t, own.GST, c.GST, "%s: GST by rate", label)
		assert.Equal(t, own, c, label)
		all = append(all, own)
	}
	assert.Equal(t, store.SumCounters(all), rep.Store, when+": the store")
}
