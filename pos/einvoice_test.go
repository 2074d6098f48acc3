package pos

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/irp"
	irpsandbox "galla/gateway/irp/sandbox"
	"galla/receipts"
)

const (
	eShopGSTIN  = "27AAPFU0939F1ZV"
	eBuyerGSTIN = "27AAACR5055K1Z7"
)

// einvoiceRig is a till of a shop that declared ₹12.5 crore of turnover, its
// IRP the embedded sandbox on the rig's clock.
type einvoiceRig struct {
	*rig
	tl     *Till
	irp    *irpsandbox.Sandbox
	client *irp.Client
}

func newEInvoiceRig(t *testing.T, turnover Paise) *einvoiceRig {
	t.Helper()
	r := newRig(t)
	sb := irpsandbox.New(r.clock.Now)
	client, err := irp.New("https://irp.sandbox.invalid", irpsandbox.Credentials(eShopGSTIN),
		irp.WithHTTPClient(&http.Client{Transport: sb.Transport()}), irp.WithPublicKey(sb.PublicKey()), irp.WithEncryptionKey(sb.EncryptionKey()), irp.WithClock(r.clock.Now))
	require.NoError(t, err)
	tl, err := NewTill(t.Context(), TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t), IRP: client})
	require.NoError(t, err)
	shop := Shop{Name: "Galla Mobiles", Address: []string{"Shop 4, FC Road", "Pune 411004"}, State: "27", GSTIN: eShopGSTIN, Turnover: turnover}
	raw, err := json.Marshal(shop)
	require.NoError(t, err)
	_, err = r.j.Append(t.Context(), Event{V: EventVersion, Time: r.clock.Now(), Kind: EvSettingsChanged, Setting: &Setting{Key: SettingShop, Value: raw}})
	require.NoError(t, err)
	return &einvoiceRig{rig: r, tl: tl, irp: sb, client: client}
}

// crore is n crore rupees.
func crore(n float64) Paise { return Paise(n * 1e7 * 100) }

var b2bBuyer = &Buyer{Name: "Reliance Traders", Address: "12 MG Road, Pune", State: "27", GSTIN: eBuyerGSTIN}

// sell pays a phone case (₹1,499.00 at 18%) in cash, to buyer.
func (er *einvoiceRig) sell(t *testing.T, buyer *Buyer) (orderID, number string) {
	t.Helper()
	lines := []CartLine{{Product: Product{SKU: "ACC-CASE", Name: "Phone case", HSN: "3926", Price: 1499_00, GSTRate: Percent(18)}, Qty: 1}}
	out, err := er.tl.Checkout.Pay(t.Context(), PayRequest{Lines: lines, Tender: TenderCash, Cashier: "Meera", Buyer: buyer}, nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, out.State)
	return out.SaleID(), out.SaleOrder().Number("T1")
}

func (er *einvoiceRig) receiptText(t *testing.T, orderID string, refund int) (string, receipts.Receipt) {
	t.Helper()
	d, err := er.tl.Documents.ReceiptDocument(t.Context(), orderID, refund)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, receipts.Text(&b, d.Receipt, 48))
	return b.String(), d.Receipt
}

func (er *einvoiceRig) irnEvents(t *testing.T) []EventKind {
	t.Helper()
	var kinds []EventKind
	for _, ev := range er.j.allEvents() {
		if strings.HasPrefix(string(ev.Kind), "irn.") {
			kinds = append(kinds, ev.Kind)
		}
	}
	return kinds
}

// wantIRN is the IRN computed here, not by the program: SHA-256 of GSTIN, FY,
// type and number.
func wantIRN(typ, no string) string {
	sum := sha256.Sum256([]byte(eShopGSTIN + "2026-27" + typ + no))
	return hex.EncodeToString(sum[:])
}

func TestEInvoicingNeedsTurnoverAboveTheLimit(t *testing.T) {
	for _, tc := range []struct {
		shop Shop
		want bool
	}{
		{Shop{GSTIN: eShopGSTIN, Turnover: crore(12.5)}, true},
		{Shop{GSTIN: eShopGSTIN, Turnover: crore(5)}, false}, // "exceeds" ₹5 crore
		{Shop{GSTIN: eShopGSTIN, Turnover: crore(5) + 1}, true},
		{Shop{GSTIN: eShopGSTIN, Turnover: crore(12.5), Composition: true}, false},
		{Shop{Turnover: crore(12.5)}, false},
	} {
		if got := tc.shop.EInvoicing(); got != tc.want {
			t.Errorf("EInvoicing(%+v) = %v; want %v", tc.shop, got, tc.want)
		}
	}
}

// TestB2BInvoiceIsRegisteredAndPrinted: the B2B invoice is registered as it is
// printed, journaled intent-then-outcome, and prints the IRN, Ack No., Ack Date
// and the IRP's signed QR code; a B2C sale of the same shop is not registered.
func TestB2BInvoiceIsRegisteredAndPrinted(t *testing.T) {
	er := newEInvoiceRig(t, crore(12.5))
	id, number := er.sell(t, b2bBuyer)
	text, r := er.receiptText(t, id, -1)
	irn := wantIRN("INV", number)
	assert.Contains(t, text, "IRN "+irn[:32]+"\n", "the IRN after the word IRN")
	assert.Contains(t, text, irn[32:])
	assert.Contains(t, text, "Ack No. ")
	assert.Contains(t, text, "Ack Date 22-11-2026")
	assert.NotContains(t, text, "IRN PENDING")
	q, err := irp.VerifyQR(r.QR, er.irp.PublicKey())
	require.NoError(t, err, "the QR printed is the IRP's signed one")
	assert.Equal(t, irn, q.Irn)
	assert.Equal(t, eBuyerGSTIN, q.BuyerGstin)
	assert.Equal(t, irp.Amount(1499_00), q.TotInvVal)
	assert.Equal(t, []EventKind{EvIRNIntent, EvIRNRegistered}, er.irnEvents(t))

	// Printed again: nothing is sent again.
	_, _ = er.receiptText(t, id, -1)
	assert.Equal(t, 1, er.irp.Calls(irp.PathGenerate))

	b2c, _ := er.sell(t, nil)
	text, _ = er.receiptText(t, b2c, -1)
	assert.NotContains(t, text, "IRN")
	assert.Equal(t, 1, er.irp.Registered())

	st, ok, err := er.tl.EInvoices.Status(t.Context(), number)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, IRNRegistered, st.Status)
	assert.Equal(t, irn, st.IRN)
}

func TestSmallShopDoesNotEInvoice(t *testing.T) {
	er := newEInvoiceRig(t, crore(4.9))
	id, _ := er.sell(t, b2bBuyer)
	text, _ := er.receiptText(t, id, -1)
	assert.NotContains(t, text, "IRN")
	assert.Empty(t, er.irnEvents(t))
	assert.Zero(t, er.irp.Calls(irp.PathGenerate)+er.irp.Calls(irp.PathAuth))
}

// TestLostAnswerIsInquiredNotResent: generate's answer is lost after the IRP
// registered the invoice; the till journals the unknown outcome, inquires by
// document details and finds it: generate was sent once.
func TestLostAnswerIsInquiredNotResent(t *testing.T) {
	er := newEInvoiceRig(t, crore(12.5))
	id, number := er.sell(t, b2bBuyer)
	require.NoError(t, er.client.Authenticate(t.Context())) // its answer is not the one lost
	er.tl.EInvoices.port = lossy{IRP: er.client, sb: er.irp}
	states, err := er.tl.EInvoices.Register(t.Context(), id)
	require.ErrorIs(t, err, ErrIRNPending, "generate's answer lost, the inquiry's too: not known")
	require.Len(t, states, 1)
	assert.Equal(t, IRNUnknown, states[0].Status)
	assert.Equal(t, 1, er.irp.Registered(), "the IRP has it")

	er.tl.EInvoices.port = er.client
	text, _ := er.receiptText(t, id, -1)
	assert.Contains(t, text, "IRN "+wantIRN("INV", number)[:32], "printing registers it: inquired and found")
	assert.Equal(t, 1, er.irp.Calls(irp.PathGenerate), "never sent again")
	assert.Equal(t, []EventKind{EvIRNIntent, EvIRNUnknown, EvIRNRegistered}, er.irnEvents(t))
	evs := er.j.allEvents()
	var got IRNEvent
	require.NoError(t, json.Unmarshal(evs[len(evs)-1].Data, &got))
	assert.Equal(t, "inquiry", got.Via)
}

// lossy loses the answers of generate and of the inquiry right after it.
type lossy struct {
	IRP
	sb *irpsandbox.Sandbox
}

func (l lossy) Generate(ctx context.Context, inv irp.Invoice) (irp.Registration, error) {
	l.sb.LoseAnswers(2)
	return l.IRP.Generate(ctx, inv)
}

// TestDuplicateFetchesTheIRNAlreadyIssued: the IRP has the invoice already (an
// earlier install registered it); generate answers 2150 and the till fetches the
// IRN issued.
func TestDuplicateFetchesTheIRNAlreadyIssued(t *testing.T) {
	er := newEInvoiceRig(t, crore(12.5))
	id, number := er.sell(t, b2bBuyer)
	o, err := er.e.Order(t.Context(), id)
	require.NoError(t, err)
	shop, err := LoadShop(t.Context(), er.j)
	require.NoError(t, err)
	docs := er.tl.EInvoices.docsOf(*o, ShopsOf(shop))
	require.Len(t, docs, 1)
	inv, err := irp.Build(irpDocument(docs[0], *o, shop))
	require.NoError(t, err)
	other, err := irp.New("https://irp.sandbox.invalid", irpsandbox.Credentials(eShopGSTIN), irp.WithHTTPClient(&http.Client{Transport: er.irp.Transport()}), irp.WithEncryptionKey(er.irp.EncryptionKey()))
	require.NoError(t, err)
	first, err := other.Generate(t.Context(), inv)
	require.NoError(t, err)

	states, err := er.tl.EInvoices.Register(t.Context(), id)
	require.NoError(t, err)
	require.Len(t, states, 1)
	assert.Equal(t, IRNRegistered, states[0].Status)
	assert.Equal(t, first.Irn, states[0].IRN)
	assert.Equal(t, first.AckNo, states[0].AckNo)
	assert.Equal(t, wantIRN("INV", number), states[0].IRN)
	assert.Equal(t, 2, er.irp.Calls(irp.PathGenerate))
	assert.Equal(t, 1, er.irp.Registered())
	evs := er.j.allEvents()
	var got IRNEvent
	require.NoError(t, json.Unmarshal(evs[len(evs)-1].Data, &got))
	assert.Equal(t, "duplicate", got.Via)
}

// TestIRPDownKeepsTheSaleAndPrintsCompleteLater: with the IRP down the B2B sale
// is kept, its invoice says IRN PENDING, B2C selling goes on; once the IRP is
// back the pending invoice is registered (inquired first, then sent) and prints
// complete.
func TestIRPDownKeepsTheSaleAndPrintsCompleteLater(t *testing.T) {
	er := newEInvoiceRig(t, crore(12.5))
	er.irp.SetDown(true)
	id, number := er.sell(t, b2bBuyer)
	text, r := er.receiptText(t, id, -1)
	assert.Contains(t, text, "IRN PENDING")
	assert.NotContains(t, text, "IRN "+wantIRN("INV", number)[:8])
	assert.NotContains(t, text, "Ack No.")
	_, err := irp.VerifyQR(r.QR, er.irp.PublicKey())
	assert.Error(t, err, "no IRP QR code on a pending invoice")

	b2c, _ := er.sell(t, nil)
	text, _ = er.receiptText(t, b2c, -1)
	assert.NotContains(t, text, "IRN")

	_, err = er.tl.EInvoices.Register(t.Context(), id)
	require.ErrorIs(t, err, ErrIRNPending)
	assert.Contains(t, Sentence(err), "IRN pending for "+number)
	pending, err := er.tl.EInvoices.Pending(t.Context())
	require.NoError(t, err)
	require.Len(t, pending, 1)
	assert.Equal(t, number, pending[0].DocNo)

	er.irp.SetDown(false)
	left, err := er.tl.EInvoices.RegisterPending(t.Context())
	require.NoError(t, err)
	assert.Empty(t, left)
	assert.Equal(t, 1, er.irp.Calls(irp.PathByDoc), "inquired before it was sent")
	text, _ = er.receiptText(t, id, -1)
	assert.Contains(t, text, "IRN "+wantIRN("INV", number)[:32])
	assert.NotContains(t, text, "IRN PENDING")
	pending, err = er.tl.EInvoices.Pending(t.Context())
	require.NoError(t, err)
	assert.Empty(t, pending)
}

// TestVoidCancelsTheIRNWithin24Hours and refuses it after, offering a credit
// note.
func TestVoidCancelsTheIRNWithin24Hours(t *testing.T) {
	er := newEInvoiceRig(t, crore(12.5))
	id, number := er.sell(t, b2bBuyer)
	_, err := er.tl.EInvoices.Register(t.Context(), id)
	require.NoError(t, err)
	er.clock.Advance(2 * time.Hour)
	res, err := er.tl.Returns.CancelDocument(t.Context(), number, managerPIN, "customer left")
	require.NoError(t, err)
	assert.Equal(t, CancelDone, res.Status)
	reg, err := irpClient(t, er).GetByDocument(t.Context(), "INV", number, er.clock.Now())
	require.NoError(t, err)
	assert.Equal(t, "CNL", reg.Status, "the IRN is cancelled at the IRP")
	st, _, err := er.tl.EInvoices.Status(t.Context(), number)
	require.NoError(t, err)
	assert.Equal(t, IRNCancelled, st.Status)
}

func TestVoidAfter24HoursIsRefusedWithACreditNoteOffered(t *testing.T) {
	er := newEInvoiceRig(t, crore(12.5))
	id, number := er.sell(t, b2bBuyer)
	_, err := er.tl.EInvoices.Register(t.Context(), id)
	require.NoError(t, err)
	er.clock.Advance(24*time.Hour + time.Minute)
	_, err = er.tl.Returns.CancelDocument(t.Context(), number, managerPIN, "customer left")
	require.ErrorIs(t, err, ErrIRNCancelWindow)
	assert.Contains(t, Sentence(err), "more than 24 hours ago: its IRN can no longer be cancelled")
	assert.Contains(t, Sentence(err), "credit note instead (galla return "+number+")")
	o, err := er.e.Order(t.Context(), id)
	require.NoError(t, err)
	assert.Nil(t, o.Cancelled, "the invoice stands")
	assert.Zero(t, er.irp.Calls(irp.PathCancel))
	assert.Contains(t, er.tl.Returns.CanCancel(t.Context(), o), "credit note")

	// The IRP itself refuses too (its own clock), with its code.
	reg, err := irpClient(t, er).GetByDocument(t.Context(), "INV", number, er.clock.Now().Add(-25*time.Hour))
	require.NoError(t, err)
	_, err = irpClient(t, er).Cancel(t.Context(), reg.Irn, irp.CancelOrder, "late")
	assert.ErrorIs(t, err, irp.ErrCancelWindow)
}

// TestB2BCreditNoteIsRegistered: a return against a B2B invoice issues a
// credit note registered as CRN, citing the invoice.
func TestB2BCreditNoteIsRegistered(t *testing.T) {
	er := newEInvoiceRig(t, crore(12.5))
	id, number := er.sell(t, b2bBuyer)
	_, err := er.tl.EInvoices.Register(t.Context(), id)
	require.NoError(t, err)
	ret, err := er.tl.Returns.Return(t.Context(), ReturnRequest{Document: number, Items: []ReturnQty{{SKU: "ACC-CASE", Qty: 1}},
		To: RefundToCash, Reason: "faulty", PIN: managerPIN})
	require.NoError(t, err)
	d, err := er.tl.Returns.CreditNoteDocument(t.Context(), ret.CreditNote)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, receipts.Text(&b, d.Receipt, 48))
	assert.Contains(t, b.String(), "IRN "+wantIRN("CRN", ret.CreditNote)[:32])
	q, err := irp.VerifyQR(d.Receipt.QR, er.irp.PublicKey())
	require.NoError(t, err)
	assert.Equal(t, "CRN", q.DocTyp)
	assert.Equal(t, ret.CreditNote, q.DocNo)
	assert.Equal(t, 2, er.irp.Registered())
}

func irpClient(t *testing.T, er *einvoiceRig) *irp.Client {
	t.Helper()
	c, err := irp.New("https://irp.sandbox.invalid", irpsandbox.Credentials(eShopGSTIN),
		irp.WithHTTPClient(&http.Client{Transport: er.irp.Transport()}), irp.WithEncryptionKey(er.irp.EncryptionKey()), irp.WithClock(er.clock.Now))
	require.NoError(t, err)
	return c
}

// TestIncompleteDocumentStaysPendingWithTheReason: a shop address without a
// PIN code cannot make an INV-01; nothing is sent, the refusal is journaled and
// the document stays pending with the reason.
func TestIncompleteDocumentStaysPendingWithTheReason(t *testing.T) {
	er := newEInvoiceRig(t, crore(12.5))
	shop, err := LoadShop(t.Context(), er.j)
	require.NoError(t, err)
	shop.Address = []string{"Shop 4, FC Road", "Pune"}
	raw, err := json.Marshal(shop)
	require.NoError(t, err)
	_, err = er.j.Append(t.Context(), Event{V: EventVersion, Time: er.clock.Now(), Kind: EvSettingsChanged, Setting: &Setting{Key: SettingShop, Value: raw}})
	require.NoError(t, err)
	id, number := er.sell(t, b2bBuyer)
	_, err = er.tl.EInvoices.Register(t.Context(), id)
	require.ErrorIs(t, err, ErrIRNPending)
	assert.Contains(t, Sentence(err), "IRN pending for "+number+" (refused: the shop's address has no 6-digit PIN code)")
	assert.Zero(t, er.irp.Calls(irp.PathGenerate))
	assert.Equal(t, []EventKind{EvIRNRefused}, er.irnEvents(t))
}

// TestIRPWrongEncryptionKeyKeepsTheDocumentPending: a till whose IRP access
// holds a public key that is not the IRP's encryption key is refused at
// authentication; the B2B invoice stays IRN pending with the IRP's sentence,
// nothing is generated, and once the right key is held it is registered.
func TestIRPWrongEncryptionKeyKeepsTheDocumentPending(t *testing.T) {
	er := newEInvoiceRig(t, crore(12.5))
	wrong, err := irp.New("https://irp.sandbox.invalid", irpsandbox.Credentials(eShopGSTIN),
		irp.WithHTTPClient(&http.Client{Transport: er.irp.Transport()}), irp.WithEncryptionKey(er.irp.PublicKey()), irp.WithClock(er.clock.Now))
	require.NoError(t, err)
	er.tl.EInvoices.port = wrong
	id, number := er.sell(t, b2bBuyer)
	states, err := er.tl.EInvoices.Register(t.Context(), id)
	require.ErrorIs(t, err, ErrIRNPending)
	require.Len(t, states, 1)
	assert.Equal(t, IRNPending, states[0].Status)
	assert.Contains(t, Sentence(err), "IRN pending for "+number)
	assert.Contains(t, Sentence(err), "not encrypted with the IRP's public encryption key")
	assert.Equal(t, 0, er.irp.Calls(irp.PathGenerate))

	er.tl.EInvoices.port = er.client
	left, err := er.tl.EInvoices.RegisterPending(t.Context())
	require.NoError(t, err)
	assert.Empty(t, left)
	text, _ := er.receiptText(t, id, -1)
	assert.Contains(t, text, "IRN "+wantIRN("INV", number)[:32])
	assert.Equal(t, 1, er.irp.Calls(irp.PathGenerate))
}

// TestIRNAnswerThatDoesNotDecryptIsInquired: the IRP registers the invoice and
// its answer does not decrypt with the session key; the outcome is unknown, and
// printing inquires on a new session and prints the IRN without sending the
// invoice again.
func TestIRNAnswerThatDoesNotDecryptIsInquired(t *testing.T) {
	er := newEInvoiceRig(t, crore(12.5))
	require.NoError(t, er.client.Authenticate(t.Context()))
	id, number := er.sell(t, b2bBuyer)
	er.irp.GarbleAnswers(2) // generate's and the inquiry's right after it
	states, err := er.tl.EInvoices.Register(t.Context(), id)
	require.ErrorIs(t, err, ErrIRNPending)
	require.Len(t, states, 1)
	assert.Equal(t, IRNUnknown, states[0].Status)
	assert.Equal(t, 1, er.irp.Registered())

	text, _ := er.receiptText(t, id, -1)
	assert.Contains(t, text, "IRN "+wantIRN("INV", number)[:32])
	assert.Equal(t, 1, er.irp.Calls(irp.PathGenerate), "never sent again")
	assert.Equal(t, []EventKind{EvIRNIntent, EvIRNUnknown, EvIRNRegistered}, er.irnEvents(t))
}

// TestIRNTokenExpiryIsRenewed: the till's token expires over the day (six
// hours) and the IRP ends a session before its time; each later invoice is
// registered on a new token, and each generate is made once per refusal.
func TestIRNTokenExpiryIsRenewed(t *testing.T) {
	er := newEInvoiceRig(t, crore(12.5))
	first, _ := er.sell(t, b2bBuyer)
	_, err := er.tl.EInvoices.Register(t.Context(), first)
	require.NoError(t, err)
	assert.Equal(t, 1, er.irp.Calls(irp.PathAuth))

	er.clock.Advance(7 * time.Hour)
	second, _ := er.sell(t, b2bBuyer)
	_, err = er.tl.EInvoices.Register(t.Context(), second)
	require.NoError(t, err)
	assert.Equal(t, 2, er.irp.Calls(irp.PathAuth), "renewed before the call, the token being past its expiry")

	er.irp.ExpireTokens()
	third, _ := er.sell(t, b2bBuyer)
	_, err = er.tl.EInvoices.Register(t.Context(), third)
	require.NoError(t, err)
	assert.Equal(t, 3, er.irp.Calls(irp.PathAuth), "renewed once on the IRP's 1005")
	assert.Equal(t, 4, er.irp.Calls(irp.PathGenerate), "three invoices and the one call refused for its token")
	assert.Equal(t, 3, er.irp.Registered())
}
