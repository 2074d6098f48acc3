package pos

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// offlineStore is a store server that cannot be reached: every decision is
// ErrStoreOffline. It counts the reservations asked.
type offlineStore struct {
	mu       sync.Mutex
	reserved [][]string
}

func (s *offlineStore) ReserveIMEIs(_ context.Context, _ string, imeis []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reserved = append(s.reserved, imeis)
	return ErrStoreOffline
}

func (s *offlineStore) RedeemCreditNote(context.Context, string, string, Paise) (Paise, error) {
	return 0, ErrStoreOffline
}

func (s *offlineStore) ReserveReturn(context.Context, string, string, Paise) (Paise, error) {
	return 0, ErrStoreOffline
}

func (s *offlineStore) Release(context.Context, string, string) error { return ErrStoreOffline }

// ReserveReturnItems cannot be asked either.
func (s *offlineStore) ReserveReturnItems(context.Context, string, string, Paise, []ReturnItem) (Paise, error) {
	return 0, ErrStoreOffline
}

// Invoice cannot be asked either.
func (s *offlineStore) Invoice(context.Context, string) (*StoreInvoice, error) {
	return nil, ErrStoreOffline
}

// ReturnedElsewhere says the store never named an invoice of this counter
// returned at another counter.
func (s *offlineStore) ReturnedElsewhere(string) (ElsewhereReturn, bool, error) {
	return ElsewhereReturn{}, false, nil
}

// samsungIMEI is the sandbox's test IMEI of the Samsung brand.
func (r *rig) samsungIMEI(t *testing.T) string {
	t.Helper()
	for _, b := range r.td.Brands {
		if b.Brand == "SAMSUNG" {
			return b.TestIMEI
		}
	}
	t.Fatal("the sandbox has no Samsung test IMEI")
	return ""
}

// TestIMEIOverrideSplitSale: with the store server unreachable, a split sale
// of a phone is refused; a manager's PIN asked for by the counter opens it,
// after a cashier's PIN is refused and asked again, and the override is
// journaled naming the manager and the IMEI.
func TestIMEIOverrideSplitSale(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	_, err := r.e.Roster().WithIterations(MinPINIterations).AddStaff(ctx, "Ravi", RoleCashier, "1234")
	require.NoError(t, err)
	store := &offlineStore{}
	r.e.StoreDesk.SetDecisions(store)
	phone, ok := tl.Shelf.Lookup("PH-SAM-S24")
	require.True(t, ok)
	imei := r.samsungIMEI(t)
	req := PayRequest{Lines: []CartLine{{Product: phone, Qty: 1}}, IMEIs: []UnitIMEI{{ProductCode: phone.ProductCode, IMEI: imei}}, Cashier: "Ravi"}
	before := len(r.j.allEvents())

	_, err = tl.Checkout.OpenSale(ctx, req)
	require.ErrorIs(t, err, ErrStoreOffline, "no override: refused")
	assert.True(t, MayOverrideIMEI(err))

	var causes []error
	pins := []string{"1234", managerPIN} // a cashier's PIN first: approves nothing
	req.AskIMEIOverride = func(_ context.Context, cause error) (string, error) {
		causes = append(causes, cause)
		pin := pins[0]
		pins = pins[1:]
		return pin, nil
	}
	st, err := tl.Checkout.OpenSale(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, StateOpen, st.Sale.State)
	assert.Equal(t, []string{imei}, st.Sale.IMEIs)
	require.Len(t, causes, 2, "asked once, and again after the cashier's PIN")
	assert.ErrorIs(t, causes[0], ErrStoreOffline)
	assert.False(t, errors.Is(causes[1], ErrStoreOffline), "the second ask says why the PIN approved nothing: %v", causes[1])
	ov := eventsOf(t, r, EvOverride, before)
	require.Len(t, ov, 1)
	meera, err := tl.Crew.SignIn(ctx, "Meera", managerPIN)
	require.NoError(t, err)
	assert.Equal(t, meera.ID, ov[0].Staff)
	assert.Equal(t, "imei", ov[0].Extra["what"])
	assert.Equal(t, imei, ov[0].Extra["imei1"])
	assert.Equal(t, st.Sale.ID, ov[0].Extra["order_id"])
	assert.Equal(t, "Ravi", ov[0].Extra["by"])
	assert.Len(t, store.reserved, 2, "the store was asked each time")
}

// TestIMEIOverrideDeclined: a card sale of a phone with the store unreachable,
// whose override the cashier declines, is refused before anything is journaled
// or charged, and its card is wiped.
func TestIMEIOverrideDeclined(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	r.e.StoreDesk.SetDecisions(&offlineStore{})
	phone, ok := tl.Shelf.Lookup("PH-SAM-S24")
	require.True(t, ok)
	c := card("4111111111111111")
	before := len(r.j.allEvents())
	asked := 0
	_, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{{Product: phone, Qty: 1}}, IMEIs: []UnitIMEI{{ProductCode: phone.ProductCode, IMEI: r.samsungIMEI(t)}},
		Tender: TenderCard, Card: c, OTP: r.td.OTP,
		AskIMEIOverride: func(context.Context, error) (string, error) { asked++; return "", errors.New("declined") }}, nil)
	require.ErrorIs(t, err, ErrStoreOffline)
	assert.Equal(t, 1, asked)
	assert.Empty(t, eventsOf(t, r, EvOrderIntent, before), "nothing journaled")
	assert.Empty(t, r.sb.Controls.Ledger(), "nothing sent to the payment service")
	assert.Equal(t, "", c.Last4(), "the card is wiped")
}

// TestIMEIOverrideBrandEMIOrder: the brand-EMI order opened before the card
// (CheckEMIOrder) passes the store's reservation as any sale: refused when the
// store cannot be asked, opened with a manager's override, its IMEI validated.
func TestIMEIOverrideBrandEMIOrder(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	r.e.StoreDesk.SetDecisions(&offlineStore{})
	phone, ok := tl.Shelf.Lookup("PH-SAM-S24")
	require.True(t, ok)
	lines := []CartLine{{Product: phone, Qty: 1}}
	offers, err := tl.Checkout.EMIOffers(ctx, lines)
	require.NoError(t, err)
	var plan *EMIPlan
	for i := range offers {
		if offers[i].IMEIRequired && offers[i].Issuer == "HDFC" && offers[i].TenureMonths == 6 {
			plan = &offers[i]
		}
	}
	require.NotNil(t, plan, "HDFC gives Samsung's brand offer")
	req := PayRequest{Lines: lines, IMEIs: []UnitIMEI{{ProductCode: phone.ProductCode, IMEI: r.samsungIMEI(t)}}, Tender: TenderEMI, Offer: plan}
	_, err = tl.Checkout.CheckEMIOrder(ctx, req)
	require.ErrorIs(t, err, ErrStoreOffline)
	assert.Empty(t, r.sb.Controls.Ledger(), "no order created at the service")

	req.OverrideIMEIPIN = managerPIN
	id, err := tl.Checkout.CheckEMIOrder(ctx, req)
	require.NoError(t, err)
	o, err := r.e.Order(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, StateCreated, o.State)
	assert.True(t, o.IMEIsValidated, "the IMEI is validated before the card is asked for")
}
