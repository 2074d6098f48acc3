package pos

import "context"

// imeiApproval is a manager's approval of a sale's phones that the store
// server could not be asked about (IMEIApprover), journaled as a
// staff.override (IMEIOverride) that names the cashier who asked. With pin,
// the manager whose PIN it is approves; with ask and no pin, the PIN is asked
// when needed (ask gets the store's error, then the refusal of a PIN that
// approves nothing, and is asked again), and an error of ask (the cashier
// declined) refuses the sale with the store's error: nothing was reserved,
// journaled or charged. A wrong PIN counts against the Crew's limit.
type imeiApproval struct {
	crew    *Crew
	pin     string
	ask     func(ctx context.Context, cause error) (pin string, err error)
	cashier string
}

// ApproveIMEIs approves the phones imeis of orderID, refused by cause.
func (a *imeiApproval) ApproveIMEIs(ctx context.Context, orderID string, imeis []string, cause error) error {
	if a.pin != "" {
		m, err := a.crew.authorise(ctx, a.pin)
		if err != nil {
			return err
		}
		return a.journal(ctx, m, orderID, imeis, cause)
	}
	why := cause
	for {
		pin, err := a.ask(ctx, why)
		if err != nil {
			return cause
		}
		m, err := a.crew.authorise(ctx, pin)
		if err != nil {
			why = err
			continue
		}
		return a.journal(ctx, m, orderID, imeis, cause)
	}
}

// journal journals manager m's override of the phones of orderID.
func (a *imeiApproval) journal(ctx context.Context, m *Staff, orderID string, imeis []string, cause error) error {
	extra := IMEIOverride(orderID, imeis, cause)
	if a.cashier != "" {
		extra["by"] = a.cashier
	}
	return a.crew.audit(ctx, Event{Kind: EvOverride, Staff: m.ID, Extra: extra})
}
