package cli

import (
	"bytes"
	"context"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/sandbox"
	"galla/internal/config"
	"galla/pos"
	"galla/receipts"
	"galla/ui"
)

// newWindowTill opens the window's till on a fresh data directory with the
// embedded sandbox.
func newWindowTill(t *testing.T) *terminal {
	t.Helper()
	c := &cli{dataDir: t.TempDir(), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	till, closeAll, err := openWindowTill(c)
	require.NoError(t, err)
	t.Cleanup(closeAll)
	return till
}

// manager signs in a manager of till, adding "Asha" (PIN 432100) when no manager
// exists, for the calls only a manager makes (the settings).
func manager(t *testing.T, till *terminal) ui.StaffMember {
	t.Helper()
	ctx := t.Context()
	staff, err := till.Crew.Staff(ctx)
	require.NoError(t, err)
	for _, s := range staff {
		if s.Manager() && s.Name == "Asha" {
			m, err := till.Crew.SignIn(ctx, "Asha", "432100")
			require.NoError(t, err)
			return m
		}
	}
	require.NoError(t, till.Crew.AddStaff(ctx, "Asha", ui.RoleManager, "432100"))
	m, err := till.Crew.SignIn(ctx, "Asha", "432100")
	require.NoError(t, err)
	return m
}

// TestWindowServicesWired: the window is given every service it uses; none is
// left for a screen to find missing at the counter.
func TestWindowServicesWired(t *testing.T) {
	assert.NoError(t, windowServices(newWindowTill(t).Till).Check())
}

// TestWindowTillSells checks the real engine behind the screens: staff, catalog,
// a card sale through the sandbox's OTP step, its receipt, and the journal.
func TestWindowTillSells(t *testing.T) {
	ctx := t.Context()
	till := newWindowTill(t)

	staff, err := till.Crew.Staff(ctx)
	require.NoError(t, err)
	require.Empty(t, staff, "a fresh journal has no staff")
	require.NoError(t, till.Crew.AddStaff(ctx, "Asha", ui.RoleManager, "432100"))
	m, err := till.Crew.SignIn(ctx, "Asha", "432100")
	require.NoError(t, err)
	assert.True(t, m.Manager())
	_, err = till.Crew.SignIn(ctx, "Asha", "0000")
	assert.ErrorIs(t, err, pos.ErrWrongPIN)

	p, ok := till.Shelf.Lookup("SAMSUNG-S24")
	if !ok {
		found := till.Shelf.Search("samsung", 1)
		require.NotEmpty(t, found, "the sample catalog has a Samsung phone")
		p = found[0]
	}
	lines := []ui.Line{{Product: p, Qty: 1}}
	bill, err := till.Shelf.Price(lines)
	require.NoError(t, err)
	assert.Equal(t, p.Price, bill.Total)
	// The GST is computed on the taxable value (GSTOn): within a paisa a line of
	// what the price contains, the rest the round-off.
	off := bill.Total - bill.Taxable - bill.CGST - bill.SGST
	assert.True(t, off >= -1 && off <= 1, "round-off %v of a one-line bill", off)
	assert.Equal(t, bill.CGST, bill.SGST)
	_, err = till.Shelf.Price([]ui.Line{{Product: p, Qty: 1, Discount: pos.Rupees(600)}})
	assert.Error(t, err, "a discount above the limit needs a manager")

	offers, err := till.Checkout.EMIOffers(ctx, lines)
	require.NoError(t, err)
	assert.NotEmpty(t, offers)

	var (
		mu    sync.Mutex
		steps []ui.Step
		otpID string
	)
	done := make(chan struct{})
	var out ui.Outcome
	go func() {
		defer close(done)
		card := till.Checkout.NewCard("4111111111111111", "12", "2031", "123", "A Customer")
		out, err = till.Checkout.Pay(ctx, ui.PayRequest{Lines: lines, IMEIs: phoneIMEIs(t, lines, "49015420323751"), Tender: pos.TenderCard, Card: card, Cashier: "Asha"}, func(pr ui.Progress) {
			mu.Lock()
			defer mu.Unlock()
			steps = append(steps, pr.Step)
			if pr.OTP {
				otpID = pr.OrderID
			}
		})
	}()
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return otpID != ""
	}, 10*time.Second, 5*time.Millisecond, "the sandbox asks for the OTP")
	mu.Lock()
	id := otpID
	mu.Unlock()
	require.NoError(t, till.Checkout.SubmitOTP(ctx, id, "123456"))
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the payment did not finish")
	}
	require.NoError(t, err)
	assert.Equal(t, pos.StatePaid, out.State, out.Reason)
	assert.True(t, out.Verified)
	assert.Equal(t, id, out.OrderID)
	assert.Contains(t, steps, ui.StepCreated)
	assert.Contains(t, steps, ui.StepAuthenticating)

	img, err := till.Documents.Receipt(ctx, out.SaleID())
	require.NoError(t, err)
	_, err = png.Decode(bytes.NewReader(img))
	require.NoError(t, err, "the receipt preview is a PNG")
	err = till.Documents.Print(ctx, out.SaleID(), false)
	require.Error(t, err, "no printer is set up")
	assert.Contains(t, pos.Sentence(err), "Settings")

	orders, err := till.Books.Orders(ctx, till.eng.Now())
	require.NoError(t, err)
	require.Len(t, orders, 1)
	assert.Equal(t, pos.StatePaid, orders[0].State)
	assert.Contains(t, orders[0].Detail, "1111")
	hist, err := till.Books.History(ctx, out.SaleID())
	require.NoError(t, err)
	assert.NotEmpty(t, hist)
	x, err := till.Books.XReport(ctx, till.eng.Now())
	require.NoError(t, err)
	assert.NotEmpty(t, x)
	var csv strings.Builder
	require.NoError(t, till.Books.ExportCSV(ctx, till.eng.Now(), &csv))
	assert.Contains(t, csv.String(), out.SaleID())
	got, err := till.Books.OrderFromQR(receipts.SignQR(testKey(t, till), receipts.QRPayload{MerchantOrderID: out.SaleID(), Amount: int64(out.Amount)}))
	require.NoError(t, err)
	assert.Equal(t, out.SaleID(), got)
	_, err = till.Books.OrderFromQR(out.SaleID())
	assert.Error(t, err, "an unsigned code is not a receipt")

	// settings: the shop and printer are journaled, the secret is never read back
	printed := filepath.Join(t.TempDir(), "printer.bin")
	require.NoError(t, till.Setup.SaveSettings(ctx, m, ui.Settings{ShopName: "Sharma Mobiles", Address: "MG Road, Pune", GSTIN: "27ABCDE1234F1Z0",
		PrinterProfile: "80mm", PrinterAddr: printed}, ""))
	set, err := till.Setup.Settings(ctx)
	require.NoError(t, err)
	assert.Equal(t, "Sharma Mobiles", set.ShopName)
	assert.Equal(t, "MG Road, Pune", set.Address)
	assert.Equal(t, printed, set.PrinterAddr)
	assert.False(t, set.Live)
	// The sale made before the shop was set up prints as it was issued (no
	// name); the next one carries the shop's name.
	require.NoError(t, till.Documents.Print(ctx, out.OrderID, false))
	job, err := os.ReadFile(printed)
	require.NoError(t, err)
	assert.NotContains(t, string(job), "Sharma Mobiles", "a document reprints as it was issued")
	next, err := till.Checkout.Pay(ctx, ui.PayRequest{Lines: []ui.Line{{Product: till.Shelf.Search("ACC-CBL-CC1M", 1)[0], Qty: 1}}, Tender: pos.TenderCash,
		Tendered: pos.Rupees(499), Cashier: "Asha"}, nil)
	require.NoError(t, err)
	require.NoError(t, till.Documents.Print(ctx, next.OrderID, false))
	job, err = os.ReadFile(printed)
	require.NoError(t, err)
	assert.Contains(t, string(job), "Sharma Mobiles")

	st := till.Status(ctx)
	assert.False(t, st.Live)
	assert.Zero(t, st.Unknown)

	// With the GSTIN set the sale is a tax invoice: from ₹50,000 taxable it names
	// the buyer (CGST Rule 46(e)).
	imeis := phoneIMEIs(t, lines, "49015420323752")
	_, err = till.Checkout.Pay(ctx, ui.PayRequest{Lines: lines, IMEIs: imeis, Tender: pos.TenderCash, Tendered: p.Price + pos.Rupees(1), Cashier: "Asha"}, nil)
	require.ErrorIs(t, err, pos.ErrBuyerNeeded)
	cash, err := till.Checkout.Pay(ctx, ui.PayRequest{Lines: lines, IMEIs: imeis, Tender: pos.TenderCash, Tendered: p.Price + pos.Rupees(1), Cashier: "Asha",
		Buyer: &pos.Buyer{Name: "R. Shah", Address: "MG Road, Pune", State: "27"}}, nil)
	require.NoError(t, err)
	assert.Equal(t, pos.StatePaid, cash.State)
	assert.Equal(t, pos.Rupees(1), cash.Change)
}

// TestWindowTillPayOnPhone checks that the checkout page for the customer's phone is
// served on loopback and that a sale left unpaid is not reported as paid.
func TestWindowTillPayOnPhone(t *testing.T) {
	till := newWindowTill(t)
	found := till.Shelf.Search("samsung", 1)
	require.NotEmpty(t, found)
	lines := []ui.Line{{Product: found[0], Qty: 1}}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	addr := make(chan string, 1)
	type result struct {
		out ui.Outcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := till.Checkout.Pay(ctx, ui.PayRequest{Lines: lines, IMEIs: phoneIMEIs(t, lines, "49015420323753"), Tender: pos.TenderPhone, Cashier: "Asha"}, func(p ui.Progress) {
			if p.CheckoutURL != "" {
				addr <- p.CheckoutURL
			}
		})
		done <- result{out, err}
	}()
	var page string
	select {
	case page = <-addr:
	case <-time.After(10 * time.Second):
		t.Fatal("no checkout page address")
	}
	require.True(t, strings.HasPrefix(page, "http://127.0.0.1:"), page)
	resp, err := http.Get(page)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, strings.ToLower(string(body)), "<html")

	cancel() // the customer walked away: the wait ends, nothing is paid
	select {
	case r := <-done:
		if r.err == nil {
			assert.NotEqual(t, pos.StatePaid, r.out.State)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not end with its context")
	}
}

// TestWindowTillCloseDayWritesBackup checks that closing the day from the window
// seals it and writes the journal's hot backup (DESIGN.md section 4), and says where.
func TestWindowTillCloseDayWritesBackup(t *testing.T) {
	ctx := t.Context()
	till := newWindowTill(t)
	require.NoError(t, till.Crew.AddStaff(ctx, "Asha", ui.RoleManager, "432100"))
	day := till.eng.Now()

	res, err := till.Books.CloseDay(ctx, pos.CloseDayRequest{Day: pos.ToDay(day), PIN: "432100"})
	require.NoError(t, err)
	text := till.Books.ZText(ctx, res)
	path := filepath.Join(till.c.dataDir, "backups", "journal-"+pos.ToDay(day)+".db")
	assert.Contains(t, text, "Z report no. 1")
	assert.Contains(t, text, "backup written to "+path)
	assert.Contains(t, text, "Backups kept: 1 file, ", "the keeping rule's line")
	require.NotNil(t, res.Checked, "the day's backup is checked")
	assert.NoError(t, <-res.Checked, "the day's backup checks out")
	st, err := os.Stat(path)
	require.NoError(t, err, "the backup file exists")
	assert.Positive(t, st.Size())

	_, err = till.Books.CloseDay(ctx, pos.CloseDayRequest{Day: pos.ToDay(day), PIN: "432100"})
	assert.ErrorIs(t, err, pos.ErrDayClosed, "a day closes once")
}

// TestWindowStartReconciles checks the restart rule: a payment whose answers could
// not be verified stays UNKNOWN, and the reconciliation the window starts when it
// opens settles it from the service's verified answer, with no new payment.
func TestWindowStartReconciles(t *testing.T) {
	ctx := t.Context()
	till := newWindowTill(t)
	require.NoError(t, till.Crew.AddStaff(ctx, "Asha", ui.RoleManager, "432100"))
	p := till.Shelf.Search("charger", 1)
	require.NotEmpty(t, p)
	lines := []ui.Line{{Product: p[0], Qty: 1}}

	sb := till.ps.sandbox
	sb.Controls.Inject(sandbox.EndpointInquireOrder, sandbox.Fault{Kind: sandbox.FaultBadSignature}, 1000)
	sb.Controls.Inject(sandbox.EndpointInquirePayment, sandbox.Fault{Kind: sandbox.FaultBadSignature}, 1000)
	payCtx, cancel := context.WithTimeout(ctx, 3*time.Second) // polling unverified answers stops here
	defer cancel()
	card := till.Checkout.NewCard("5555555555554444", "12", "2031", "123", "A Customer") // frictionless: captured at once
	out, err := till.Checkout.Pay(payCtx, ui.PayRequest{Lines: lines, Tender: pos.TenderCard, Card: card, Cashier: "Asha"}, func(ui.Progress) {})
	require.NoError(t, err)
	require.NotEqual(t, pos.StatePaid, out.State, "an unverified answer is never PAID")
	o, err := till.eng.Order(ctx, out.OrderID)
	require.NoError(t, err)
	require.True(t, o.Unresolved(), "the order waits for a verified answer")

	sb.Controls.ClearFaults()
	var msg bytes.Buffer
	select {
	case <-reconcileAfterCheck(ctx, till, &msg):
	case <-time.After(20 * time.Second):
		t.Fatal("the startup reconciliation did not finish")
	}
	assert.Empty(t, msg.String())
	o, err = till.eng.Order(ctx, out.OrderID)
	require.NoError(t, err)
	assert.Equal(t, pos.StatePaid, o.State, "settled from the verified answer")
	var captures int
	for _, lo := range sb.Controls.Ledger() {
		captures += lo.CapturedPayments
	}
	assert.Equal(t, 1, captures, "no second payment")
}

// openWindowTill opens the terminal as the window does (the journal's check in the
// background) and returns it with the function that closes it.
func openWindowTill(c *cli) (*terminal, func(), error) {
	t, err := openTerminal(c, true)
	if err != nil {
		return nil, nil, err
	}
	return t, t.close, nil
}

// testKey is the terminal's receipt QR key.
func testKey(t *testing.T, till *terminal) []byte {
	t.Helper()
	key, err := config.OpenSecrets(till.c.dataDir, till.c.keyring).QRKey()
	require.NoError(t, err)
	return key
}
