package pos

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInvoiceKey: a supplier's invoice is told from another by the letters
// and digits of its names, case-folded; case, spacing and punctuation do not
// count, a letter or digit does.
func TestInvoiceKey(t *testing.T) {
	tests := []struct {
		name        string
		a, b        [2]string
		sameInvoice bool
	}{
		{"case and hyphen", [2]string{"Acme", "INV-77"}, [2]string{"acme", "inv 77"}, true},
		{"slash", [2]string{"Acme", "INV-77"}, [2]string{"ACME", "INV/77"}, true},
		{"spaces and dots in the supplier", [2]string{"Acme Ltd.", "INV-77"}, [2]string{" acme  ltd", "inv.77"}, true},
		{"another number", [2]string{"Acme", "INV-77"}, [2]string{"Acme", "INV-78"}, false},
		{"another supplier", [2]string{"Acme", "INV-77"}, [2]string{"Apex", "INV-77"}, false},
		{"the supplier's name and the number stay apart", [2]string{"Acme 1", "77"}, [2]string{"Acme", "177"}, false},
		{"Unicode letters fold", [2]string{"Śrī Traders", "ÄB-7"}, [2]string{"śrī traders", "äb 7"}, true},
		{"Unicode digits count", [2]string{"Acme", "बिल-७७"}, [2]string{"Acme", "बिल ७८"}, false},
		{"Kelvin sign is a k", [2]string{"Acme", "\u212a-1"}, [2]string{"Acme", "k1"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := InvoiceKey(tt.a[0], tt.a[1]), InvoiceKey(tt.b[0], tt.b[1])
			if tt.sameInvoice {
				assert.Equal(t, a, b, "InvoiceKey(%q) and InvoiceKey(%q)", tt.a, tt.b)
			} else {
				assert.NotEqual(t, a, b, "InvoiceKey(%q) and InvoiceKey(%q)", tt.a, tt.b)
			}
		})
	}
	assert.Equal(t, "acmeltd\x00inv77", InvoiceKey("ACME Ltd.", "INV-77"))
}

// TestReceiveRefusesInvoiceSpeltOtherwise: the supplier's invoice INV-77
// received, "inv 77" and "INV/77" of the same supplier are that invoice,
// refused with a sentence naming how it was received, and journal nothing;
// INV-78 is another delivery.
func TestReceiveRefusesInvoiceSpeltOtherwise(t *testing.T) {
	r, tl, _ := stockRig(t)
	ctx := t.Context()
	_, err := tl.Stock.Receive(ctx, acmePhone(1, "INV-77"), managerPIN)
	require.NoError(t, err)
	for i, inv := range []string{"inv 77", "INV/77", "INV-77"} {
		before := len(r.j.allEvents())
		_, err := tl.Stock.Receive(ctx, acmePhone(10+i, inv), managerPIN)
		require.ErrorIs(t, err, ErrInvoiceReceived, inv)
		if inv == "INV-77" {
			assert.Contains(t, Sentence(err), "Invoice INV-77 of Acme was received already (journal event ", inv)
		} else {
			assert.Contains(t, Sentence(err), "Invoice "+inv+" of Acme was received already, written as invoice INV-77 of Acme on ", inv)
		}
		assert.Contains(t, Sentence(err), "nothing was recorded", inv)
		assert.Len(t, r.j.allEvents(), before, "%s: nothing journaled", inv)
	}
	_, err = tl.Stock.Receive(ctx, acmePhone(20, "INV-78"), managerPIN)
	require.NoError(t, err, "another invoice")
	n, imeis := onHand(t, tl, "PH-SAM-S24")
	assert.Equal(t, int64(2), n)
	assert.Equal(t, []string{testIMEI(1), testIMEI(20)}, imeis)
}

// TestReceiveNamesTheFirstOfInvoicesSpeltApart: a journal that holds INV-77
// and INV/77 of one supplier as two deliveries (received before InvoiceKey
// told them as one) refuses "inv 77" naming the first, as the journal's index
// keeps it; here the journal has no index, so the book reads the deliveries.
func TestReceiveNamesTheFirstOfInvoicesSpeltApart(t *testing.T) {
	r, tl, _ := stockRig(t)
	ctx := t.Context()
	_, err := tl.Stock.Receive(ctx, acmePhone(1, "INV-77"), managerPIN)
	require.NoError(t, err)
	var first Event
	for _, ev := range r.j.allEvents() {
		if _, inv, ok := ReceivedInvoice(ev); ok && inv == "INV-77" {
			first = ev
		}
	}
	require.NotZero(t, first.Seq, "the delivery of INV-77 journaled")
	// The same delivery again as another spelling, as an older Galla let it.
	again := first
	again.Seq, again.PrevHash, again.Hash = 0, "", ""
	again.Data = []byte(strings.Replace(string(first.Data), `"INV-77"`, `"INV/77"`, 1))
	_, err = r.j.Append(ctx, again)
	require.NoError(t, err)

	_, err = tl.Stock.Receive(ctx, acmePhone(2, "inv 77"), managerPIN)
	require.ErrorIs(t, err, ErrInvoiceReceived)
	assert.Contains(t, Sentence(err), "written as invoice INV-77 of Acme")
	assert.Contains(t, Sentence(err), fmt.Sprintf("(journal event %d)", first.Seq))
}

// acmePhone is a delivery from Acme, on the supplier's invoice, of one phone
// with the n-th test IMEI.
func acmePhone(n int, invoice string) Delivery {
	return Delivery{Supplier: "Acme", Invoice: invoice, Date: "2026-11-21", Lines: []DeliveryLine{
		{SKU: "PH-SAM-S24", Qty: 1, Cost: 2_000_000, Units: []Unit{{IMEI: testIMEI(n)}}}}}
}
