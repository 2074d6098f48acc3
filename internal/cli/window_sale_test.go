package cli

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/sandbox"
	"galla/pos"
	"galla/ui"
)

// counter is the terminal window on fyne's test driver over the real till: the
// journal, the pos engine and the embedded sandbox in a temporary data directory.
// Background results are queued instead of handed to fyne.Do and run on the test
// goroutine by drain, as a person at the counter would see them arrive. The test
// only presses keys and reads what the window shows.
type counter struct {
	t    *testing.T
	till *terminal
	u    *ui.UI
	c    fyne.Canvas

	mu    sync.Mutex
	queue []func()
}

// waitLimit bounds every wait for the till; a sale on the sandbox takes a second or two.
const waitLimit = 10 * time.Second

// newCounter opens the window on till.
func newCounter(t *testing.T, till *terminal) *counter {
	t.Helper()
	k := &counter{t: t, till: till}
	k.u = ui.New(test.NewTempApp(t), windowServices(till.Till), ui.Options{Do: k.enqueue, ReceiptDir: filepath.Join(till.c.dataDir, "receipts")})
	k.c = k.u.Window().Canvas()
	k.u.Window().Resize(fyne.NewSize(1366, 768))
	// Cleanups run last first: the window stops and its calls end before the till closes.
	t.Cleanup(func() {
		k.u.Close()
		k.settle()
	})
	return k
}

func (k *counter) enqueue(f func()) {
	k.mu.Lock()
	k.queue = append(k.queue, f)
	k.mu.Unlock()
}

// drain runs the queued UI work; it reports whether there was any.
func (k *counter) drain() bool {
	k.mu.Lock()
	q := k.queue
	k.queue = nil
	k.mu.Unlock()
	for _, f := range q {
		f()
	}
	return len(q) > 0
}

// settle drains the queue until no background call runs and nothing is queued.
func (k *counter) settle() {
	k.t.Helper()
	k.waitFor("the window to settle", func() bool {
		if k.u.Busy() {
			return false
		}
		k.mu.Lock()
		defer k.mu.Unlock()
		return len(k.queue) == 0
	})
}

// waitFor drains the queue until cond holds.
func (k *counter) waitFor(what string, cond func() bool) {
	k.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		k.drain()
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("timed out waiting for %s; the window shows:\n%s", what, strings.Join(k.texts(), " | "))
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// waitText waits until the window shows a text containing s.
func (k *counter) waitText(s string) {
	k.t.Helper()
	k.waitFor("“"+s+"” on the screen", func() bool { return k.shows(s) })
}

// typeText types s into whatever has the focus, as a keyboard or scanner would.
func (k *counter) typeText(s string) {
	k.t.Helper()
	f := k.c.Focused()
	require.NotNil(k.t, f, "nothing has the keyboard focus to type %q into", s)
	for _, r := range s {
		f.TypedRune(r)
	}
}

// press sends a key as the desktop driver does: to the focused widget, else to the
// window.
func (k *counter) press(key fyne.KeyName) {
	k.t.Helper()
	ev := &fyne.KeyEvent{Name: key}
	if f := k.c.Focused(); f != nil {
		f.TypedKey(ev)
		return
	}
	on := k.c.OnTypedKey()
	require.NotNil(k.t, on, "the window takes no keys")
	on(ev)
}

// ctrl sends Ctrl+key as the desktop driver does: to the focused widget when it
// takes shortcuts, else to the window's (the test canvas keeps none, so to the UI).
func (k *counter) ctrl(key fyne.KeyName) {
	k.t.Helper()
	sc := &desktop.CustomShortcut{KeyName: key, Modifier: fyne.KeyModifierControl}
	if f, ok := k.c.Focused().(fyne.Shortcutable); ok {
		f.TypedShortcut(sc)
		return
	}
	k.u.TypedShortcut(sc)
}

// enter types s and presses Enter.
func (k *counter) enter(s string) {
	k.t.Helper()
	k.typeText(s)
	k.press(fyne.KeyReturn)
}

// walk calls visit on every visible object of the window, the open dialogs last.
func (k *counter) walk(visit func(fyne.CanvasObject)) {
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		visit(o)
		switch x := o.(type) {
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(x).Objects() {
				walk(c)
			}
		}
	}
	walk(k.c.Content())
	for _, o := range k.c.Overlays().List() {
		walk(o)
	}
}

// texts are the texts the window shows, in tree order.
func (k *counter) texts() []string {
	var out []string
	k.walk(func(o fyne.CanvasObject) {
		if t, ok := o.(*canvas.Text); ok && strings.TrimSpace(t.Text) != "" {
			out = append(out, t.Text)
		}
	})
	return out
}

// screenText is every text on the screen in one string.
func (k *counter) screenText() string { return strings.Join(k.texts(), " ") }

// shows reports whether the screen shows s. A label that wraps is drawn as one text
// per line, broken between words or, for a long path, inside one; so spaces do not
// count.
// saleTender is the order of the one tender that paid sale id: the order the
// payment service knows (its merchant order id, the card, the EMI plan).
func saleTender(t *testing.T, till *terminal, id string) *pos.Order {
	t.Helper()
	sale, err := till.eng.Order(t.Context(), id)
	require.NoError(t, err)
	require.Len(t, sale.Tenders, 1, "a sale of one tender")
	o, err := till.eng.Order(t.Context(), sale.Tenders[0].OrderID)
	require.NoError(t, err)
	return o
}

func (k *counter) shows(s string) bool {
	return strings.Contains(noSpace(k.screenText()), noSpace(s))
}

func noSpace(s string) string { return strings.Join(strings.Fields(s), "") }

// result is the payment screen's big result word, or "".
func (k *counter) result() string {
	for _, t := range k.texts() {
		switch t {
		case "PAID", "FAILED", "UNKNOWN", "UNVERIFIED", "NOT PAID":
			return t
		}
	}
	return ""
}

// inDialog reports whether the focus is inside an open dialog.
func (k *counter) inDialog() bool {
	f, ok := k.c.Focused().(fyne.CanvasObject)
	if !ok || k.c.Overlays().Top() == nil {
		return false
	}
	found := false
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if found || o == nil || !o.Visible() {
			return
		}
		if o == f {
			found = true
			return
		}
		switch x := o.(type) {
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(x).Objects() {
				walk(c)
			}
		}
	}
	walk(k.c.Overlays().Top())
	return found
}

// receiptImage is the receipt preview's image resource, or nil.
func (k *counter) receiptImage() fyne.Resource {
	var res fyne.Resource
	k.walk(func(o fyne.CanvasObject) {
		if img, ok := o.(*canvas.Image); ok && img.Resource != nil && strings.HasPrefix(img.Resource.Name(), "receipt-") {
			res = img.Resource
		}
	})
	return res
}

// otp answers the sandbox's authentication step in the window with the OTP.
func (k *counter) otp() {
	k.t.Helper()
	k.waitFor("the OTP dialog with the focus", func() bool {
		return k.shows("Customer authentication (sandbox)") && k.inDialog()
	})
	k.enter("123456") // the sandbox's OTP, as the dialog says
	k.waitFor("the OTP dialog to close", func() bool { return !k.shows("Customer authentication (sandbox)") })
}

// signIn signs in with the PIN of the chosen (first) person.
func (k *counter) signIn(who, pin string) {
	k.t.Helper()
	k.waitText("PIN for " + who)
	k.enter(pin)
	// The sale screen replaces the sign-in screen, whose staff list names who as well.
	k.waitFor("signed in as "+who, func() bool { return k.shows(who+" (manager)") && !k.shows("PIN for "+who) })
	k.waitText("Scan a barcode")
}

// ledger is the sandbox's ledger entry of the merchant order id.
func ledger(t *testing.T, till *terminal, orderID string) sandbox.LedgerOrder {
	t.Helper()
	var found []sandbox.LedgerOrder
	for _, o := range till.ps.sandbox.Controls.Ledger() {
		if o.MerchantOrderID == orderID {
			found = append(found, o)
		}
	}
	require.Len(t, found, 1, "the sandbox has one order %s", orderID)
	return found[0]
}

// captures counts the captured payments in the whole sandbox.
func captures(till *terminal) int {
	n := 0
	for _, o := range till.ps.sandbox.Controls.Ledger() {
		n += o.CapturedPayments
	}
	return n
}

// noCardNumber checks that no event of the till's journal and no file in its data
// directory holds a card number.
func noCardNumber(t *testing.T, till *terminal, numbers ...string) {
	t.Helper()
	dir := till.c.dataDir
	// The journal's event bodies are stored compressed: read them back too.
	last, err := till.j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	for seq := uint64(1); seq <= last; seq++ {
		ev, err := till.j.Log.Event(t.Context(), seq)
		require.NoError(t, err)
		b, err := json.Marshal(ev)
		require.NoError(t, err)
		for _, n := range numbers {
			assert.NotContains(t, string(b), n, "event %d holds a card number", seq)
		}
	}
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, n := range numbers {
			assert.NotContains(t, string(b), n, "%s holds a card number", path)
		}
		return nil
	})
	require.NoError(t, err)
}

// TestKeyboardSale is the README's "Your first sale" on the real engine and the
// embedded sandbox, by keyboard alone: first manager, sign in, scan, EMI offers,
// HDFC no-cost 6 months, IMEI (validated on the order), card, the sandbox's OTP in the window, PAID, the
// receipt, and the journal and the sandbox agreeing on one capture.
func TestKeyboardSale(t *testing.T) {
	ctx := t.Context()
	till := newWindowTill(t)
	k := newCounter(t, till)

	// 1. A fresh data directory asks for the first manager, then the PIN.
	k.waitText("Welcome to Galla")
	k.enter("Asha")
	k.enter("432100")
	k.enter("432100")
	k.waitText("Asha is the manager. Sign in with the new PIN.")
	k.signIn("Asha", "432100")
	k.waitText("No unknown payments")
	assert.True(t, k.shows("SANDBOX"), "the status bar says SANDBOX")

	// 2. Sell: the scan field has the focus; "s24" and Enter puts the S24 in the cart.
	s24 := till.Shelf.Search("s24", 1)
	require.NotEmpty(t, s24, "the sample catalog has the S24")
	k.enter("s24")
	k.waitText("EMI from ₹")
	// The hint quotes what the customer pays on the no-cost plan with the lowest
	// instalment: ₹74,999.00 in six is 12,499.83 and a last of 12,499.85, ₹12,500
	// rounded up; not a bank's instalment with the interest the brand pays
	// (12,978.04 at ICICI's 13%).
	require.Equal(t, pos.Rupees(74999), s24[0].Price)
	assert.True(t, k.shows(s24[0].Name+": EMI from ₹12,500/month"), k.screenText())
	assert.True(t, k.shows(s24[0].Name), "the cart shows %s", s24[0].Name)
	assert.True(t, k.shows(s24[0].Price.String()), "the total is %s", s24[0].Price)
	assert.True(t, k.shows("1 item"))
	// A fresh terminal's shop has no GSTIN yet: it charges no GST, and the sale
	// screen says so instead of showing tax (pos.Registration).
	assert.True(t, k.shows("No GST charged: the seller is not registered"), k.screenText())
	assert.False(t, k.shows("CGST"), k.screenText())

	// 3. EMI offers for the item; "hdfc 6" filters to HDFC's 6-month plans, Enter picks.
	k.ctrl(fyne.KeyE)
	k.waitText("Sorted by total cost")
	k.typeText("hdfc 6")
	require.True(t, k.shows("1 offer"), "the filter leaves one offer: %s", k.screenText())
	require.True(t, k.shows("HDFC · Samsung · IMEI"), "the one offer is Samsung's on HDFC: %s", k.screenText())
	assert.True(t, k.shows("6 months"), k.screenText())
	assert.True(t, k.shows("no-cost ₹"), "the no-cost benefit is shown: %s", k.screenText())
	k.press(fyne.KeyReturn)

	// 4. The brand's offer takes the IMEI first: F5 creates the order and the
	// service validates the IMEI on it before the card is asked for.
	k.waitText("IMEI of each phone")
	imei := "352906110000017"
	k.typeText(imei[:10])
	assert.True(t, k.shows("10 of 15 digits"))
	k.typeText(imei[10:])
	assert.True(t, k.shows("✓ IMEI looks right"))
	k.press(fyne.KeyF5)
	k.waitText("EMI: card of HDFC")
	assert.True(t, k.shows("HDFC, 6 months at ₹12,499.83 a month"), k.screenText())
	assert.True(t, k.shows("No-cost"), k.screenText())

	// 5. The card, typed as on the card; the brand and Luhn check show as typed;
	// the scheme is validated and the order paid.
	k.typeText("4386 2800 0000 0004")
	assert.True(t, k.shows("VISA  ✓ number looks right"))
	k.press(fyne.KeyReturn)
	k.enter("12/30")
	k.enter("123")
	k.enter("Asha Rao")

	// 6. The sandbox's OTP step opens in the window; then the verified result.
	k.otp()
	k.waitFor("the result", func() bool { return k.result() != "" })
	require.Equal(t, "PAID", k.result(), k.screenText())
	assert.True(t, k.shows("verified by the payment service"), k.screenText())
	for _, step := range []string{"Order created", "Customer authenticating", "Verifying with the payment service", "Paid"} {
		assert.True(t, k.shows("✓ "+step), "step %q is ticked: %s", step, k.screenText())
	}
	assert.False(t, k.shows("4386280000000004"), "the card number is not on the screen")

	// 7. F5: the receipt preview, a PNG of the paid order; Ctrl+S saves it.
	k.press(fyne.KeyF5)
	k.waitFor("the receipt preview", func() bool { return k.receiptImage() != nil })
	res := k.receiptImage()
	_, err := png.Decode(bytes.NewReader(res.Content()))
	require.NoError(t, err, "the preview is a PNG")
	id := strings.TrimSuffix(strings.TrimPrefix(res.Name(), "receipt-"), ".png")
	require.NotEmpty(t, id)
	assert.True(t, k.shows("Order "+id))
	assert.True(t, k.shows("Receipt T1/"+pos.FinancialYear(time.Now())+"/000001"), "the first invoice of the terminal")
	k.ctrl(fyne.KeyS)
	saved := filepath.Join(till.c.dataDir, "receipts", "receipt-"+id+".png")
	k.waitText("Saved as " + saved)
	onDisk, err := os.ReadFile(saved)
	require.NoError(t, err)
	assert.Equal(t, res.Content(), onDisk)

	// The journal and the sandbox agree: one verified EMI sale, captured once.
	// The receipt is the sale's; its one tender is the EMI order the payment
	// service knows.
	sale, err := till.eng.Order(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, pos.StatePaid, sale.State)
	assert.True(t, sale.Verified, "PAID on a verified answer")
	assert.Equal(t, []string{imei}, sale.IMEIs)
	assert.Equal(t, "Asha", sale.Staff)
	assert.Equal(t, uint64(1), sale.DocNo)
	o := saleTender(t, till, id)
	assert.Equal(t, pos.StatePaid, o.State)
	assert.True(t, o.Verified, "PAID on a verified answer")
	assert.Equal(t, pos.TenderEMI, o.Tender)
	require.NotNil(t, o.EMI)
	assert.Equal(t, []string{imei}, o.IMEIs)
	assert.Equal(t, "0004", o.CardLast4)
	// The receipt's EMI figures reconcile: the price financed, the bank's
	// interest (6 × 13,015.18 − 74,999.00 at HDFC's 14%) less the brand's
	// discount, and the six instalments that add up to the price.
	doc, err := till.Documents.ReceiptDocument(ctx, id, -1)
	require.NoError(t, err)
	var text bytes.Buffer
	require.NoError(t, till.Documents.Render(&text, doc, "text"))
	rows := strings.Split(text.String(), "\n")
	for _, want := range []string{
		"  Amount financed                      74,999.00",
		"  Interest @14% p.a.                    3,092.08",
		"  Less discount                        -3,092.08",
		"  You pay in all                       74,999.00",
		"  Monthly instalment                   12,499.83",
		"    5 of 12,499.83 and a last of 12,499.85",
	} {
		assert.Contains(t, rows, want, text.String())
	}
	assert.NotContains(t, text.String(), "13,015.18", "the bank's instalment with interest is not what the customer pays")
	lo := ledger(t, till, o.ID)
	assert.Equal(t, 1, lo.CapturedPayments)
	assert.Equal(t, 1, captures(till), "the sandbox captured exactly once")
	assert.Equal(t, int64(o.Captured), lo.CapturedAmount)

	// Escape: the next customer, on an empty cart with the scan field focused.
	k.press(fyne.KeyEscape)
	k.waitText("Cart is empty")
	k.typeText("s24") // the scan field has the focus again
	assert.True(t, k.shows(s24[0].Name+"  ·  "+s24[0].SKU), "the matches show what was typed: %s", k.screenText())
	k.settle()
	noCardNumber(t, till, "4386280000000004")
}

// TestKeyboardSaleDeclinedStaysOpen: a card the issuer declines leaves the
// cart's sale open with its card tender FAILED, not the cart on the counter:
// Escape shows the sale with the failed tender, to try it again, take another
// tender or drop it; F4 drops it with no PIN, since nothing was paid.
func TestKeyboardSaleDeclinedStaysOpen(t *testing.T) {
	ctx := t.Context()
	till := newWindowTill(t)
	k := newCounter(t, till)
	k.firstManager()
	k.enter("ACC-CASE-S24")
	k.waitText("1 item")
	k.press(fyne.KeyF5) // card
	k.waitText("Card payment")
	k.enter("4000000000000002")
	k.enter("12/30")
	k.enter("123")
	k.enter("A Customer")
	k.otp()
	k.waitFor("the result", func() bool { return k.result() != "" })
	require.Equal(t, "FAILED", k.result(), k.screenText())
	open, err := till.Checkout.OpenSales(ctx)
	require.NoError(t, err)
	require.Len(t, open, 1, "the sale stays open")
	id := open[0].Sale.ID
	require.Len(t, open[0].Tenders, 1)
	assert.Equal(t, pos.StateFailed, open[0].Tenders[0].State)
	assert.True(t, k.shows("Escape shows sale "+id), k.screenText())

	k.press(fyne.KeyEscape)
	k.waitText("Split tender: sale " + id)
	k.waitText("The card tender of ₹1,499.00 failed")
	assert.True(t, k.shows("F3 tries it again"), k.screenText())

	k.press(fyne.KeyF4)
	k.waitText("Drop sale " + id)
	k.press(fyne.KeyReturn)
	k.waitText("Sale " + id + " dropped: nothing was paid on it.")
	assert.True(t, k.shows("Cart is empty"), "the cart went with the sale: %s", k.screenText())
	open, err = till.Checkout.OpenSales(ctx)
	require.NoError(t, err)
	assert.Empty(t, open)
	assert.Zero(t, captures(till))
	k.settle()
}

// TestKeyboardSaleDeclineThenRetry declines a card sale and takes it again on the
// same order (F6) with another card: FAILED with the issuer's reason, then PAID,
// and the sandbox holds one order with one capture.
func TestKeyboardSaleDeclineThenRetry(t *testing.T) {
	ctx := t.Context()
	till := newWindowTill(t)
	require.NoError(t, till.Crew.AddStaff(ctx, "Asha", ui.RoleManager, "432100"))
	k := newCounter(t, till)
	k.signIn("Asha", "432100")

	k.enter("s24")
	k.waitText("1 item")
	k.press(fyne.KeyF5) // card
	k.giveIMEI("35693803564380")
	k.waitText("Card payment")
	k.enter("4000000000000002")
	k.enter("12/30")
	k.enter("123")
	k.enter("A Customer")
	k.otp()
	k.waitFor("the result", func() bool { return k.result() != "" })
	require.Equal(t, "FAILED", k.result(), k.screenText())
	assert.True(t, k.shows("declined"), k.screenText())
	assert.True(t, k.shows("Try again on the same order with F6"), k.screenText())
	assert.Zero(t, captures(till))
	orders, err := till.Books.Orders(ctx, till.eng.Now())
	require.NoError(t, err)
	require.Len(t, orders, 1)
	// The journal's row is the sale, open with its card tender FAILED; the
	// screen names the tender's order, the one the payment service knows.
	sale := orders[0].OrderID
	id := saleTender(t, till, sale).ID
	assert.Equal(t, pos.StateFailed, orders[0].State, "the journal has the attempt FAILED")
	assert.True(t, k.shows("Order "+id), k.screenText())

	k.press(fyne.KeyF6)
	k.waitText("Another attempt on order " + id + ".")
	k.enter("4111111111111111")
	k.enter("12/30")
	k.enter("123")
	k.enter("A Customer")
	k.otp()
	k.waitFor("the result", func() bool { return k.result() != "" })
	require.Equal(t, "PAID", k.result(), k.screenText())
	assert.True(t, k.shows("Order "+id), "the retry paid order %s", id)

	o, err := till.eng.Order(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, pos.StatePaid, o.State)
	assert.True(t, o.Verified)
	assert.Len(t, o.Attempts, 2, "two attempts on one order")
	assert.Equal(t, "1111", o.CardLast4)
	lo := ledger(t, till, id)
	assert.Equal(t, 1, lo.CapturedPayments)
	assert.Len(t, lo.Payments, 2, "the declined payment and the captured one")
	assert.Equal(t, 1, captures(till), "the sandbox captured exactly once")
	orders, err = till.Books.Orders(ctx, till.eng.Now())
	require.NoError(t, err)
	require.Len(t, orders, 1, "the retry made no second order")
	assert.Equal(t, sale, orders[0].OrderID)
	assert.Equal(t, pos.StatePaid, orders[0].State, "the sale is paid by its tender")

	k.press(fyne.KeyEscape)
	k.waitText("Cart is empty")
	k.settle()
	noCardNumber(t, till, "4000000000000002", "4111111111111111")
}
