package pos

import (
	"context"
	"fmt"

	"galla/gateway"
)

// The engine's tests take a sale paid by one tender on the sale path, as
// Checkout.Pay does for a sale naming no split: the sale is opened
// (Sales.OpenSale), its one tender opened and paid for the whole amount, and
// the sale settled once the tender is paid. The helpers return the tender's
// result as the engine's paying calls do; once the sale is complete its Order
// is the sale's (the document: its number, refunds, cancellation).

// sellCard opens sale and pays it wholly by card. It owns card.
func sellCard(ctx context.Context, e *Engine, sale Sale, card *gateway.Card, opt PayOptions) (*Result, error) {
	defer card.Zero()
	if err := card.Check(e.Now()); err != nil {
		return nil, fmt.Errorf("pos: checkout: %w", err)
	}
	o, err := openOneTender(ctx, e, sale, TenderCard, nil, opt)
	if err != nil {
		return nil, err
	}
	return settled(ctx, e, o.Sale)(e.Payments.PayCard(ctx, o.ID, card, opt))
}

// sellEMI checks plan against the card, opens sale and pays it wholly by EMI.
// It owns card.
func sellEMI(ctx context.Context, e *Engine, sale Sale, plan EMIPlan, card *gateway.Card, opt PayOptions) (*Result, error) {
	defer card.Zero()
	if err := card.Check(e.Now()); err != nil {
		return nil, fmt.Errorf("pos: checkout: %w", err)
	}
	if err := e.Payments.ValidateScheme(ctx, plan, ComputeTotals(sale.Lines).Total, card); err != nil {
		return nil, err
	}
	o, err := openOneTender(ctx, e, sale, TenderEMI, &plan, opt)
	if err != nil {
		return nil, err
	}
	res, err := e.Payments.PayEMI(ctx, o.ID, card, opt)
	if err != nil {
		e.Payments.closeUnpaid(ctx, o.ID, "refused before payment: "+Sentence(err))
	}
	return settled(ctx, e, o.Sale)(res, err)
}

// sellCash opens sale and takes it wholly in cash, tendered handed over (0:
// the exact amount).
func sellCash(ctx context.Context, e *Engine, sale Sale, tendered Paise) (*Result, error) {
	// As Checkout.Pay takes a new cash sale: the sale, its tender and the
	// tender's intent in one commit, the cash with the completion another.
	_, res, st, err := e.Sales.saleCashOpening(ctx, sale, tendered)
	if err == nil && st != nil && st.Complete() {
		res.Order = st.Sale
	}
	return res, err
}

// sellOnPhone opens sale and its one tender to be paid on the customer's
// phone: the tender's order, with its token; the caller awaits it
// (Payments.Await) and settles the sale (o.Sale).
func sellOnPhone(ctx context.Context, e *Engine, sale Sale, opt PayOptions) (*Order, error) {
	return openOneTender(ctx, e, sale, TenderPhone, nil, opt)
}

// openOneTender opens sale and its one tender of kind for the whole amount:
// the tender's order (for cash, taken in the till, the sale's).
func openOneTender(ctx context.Context, e *Engine, sale Sale, kind TenderKind, plan *EMIPlan, opt PayOptions) (*Order, error) {
	if kind == TenderCash {
		return e.Sales.OpenSale(ctx, sale)
	}
	// As Checkout.Pay opens a new sale: the sale, its tender and the tender's
	// intent in one commit.
	_, o, unlock, err := e.Sales.openWith(ctx, sale, kind, plan, opt, imeisOf(sale.Lines)...)
	if unlock != nil {
		unlock()
	}
	return o, err
}

// imeisOf is the IMEIs the lines carry, by product code.
func imeisOf(lines []Line) []UnitIMEI {
	var out []UnitIMEI
	for _, l := range lines {
		for _, imei := range l.IMEIs {
			out = append(out, UnitIMEI{ProductCode: l.ProductCode, IMEI: imei})
		}
	}
	return out
}

// settled settles sale saleID once its tender's payment returned paid.
func settled(ctx context.Context, e *Engine, saleID string) func(*Result, error) (*Result, error) {
	return func(res *Result, err error) (*Result, error) {
		if err == nil && res.Status == ResultPaid && saleID != "" {
			st, serr := e.Sales.SettleSale(ctx, saleID)
			if serr != nil {
				return res, serr
			}
			if st.Complete() {
				res.Order = st.Sale
			}
		}
		return res, err
	}
}
