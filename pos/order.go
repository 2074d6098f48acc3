package pos

// OrderState is where an order stands in the state machine of DESIGN.md section 3.
// States only move forward; see CanMove.
type OrderState string

// The order states.
const (
	StateDraft          OrderState = "DRAFT"           // a cart, nothing journaled
	StateIntent         OrderState = "INTENT"          // journaled with a merchant_order_id; create order not yet answered
	StateCreated        OrderState = "CREATED"         // the service answered create order (service order id, token)
	StateAuthenticating OrderState = "AUTHENTICATING"  // a payment was accepted; the customer authenticates; polling
	StateUnknown        OrderState = "UNKNOWN"         // an answer was lost, unverified or ambiguous: inquire, never re-charge
	StateFailed         OrderState = "FAILED"          // a verified failure (a new attempt on the same order is allowed, up to 3)
	StatePaid           OrderState = "PAID"            // a verified CHARGED/CAPTURED matching the journal, or cash taken
	StatePartlyRefunded OrderState = "PARTLY_REFUNDED" // some of the paid amount refunded
	StateRefunded       OrderState = "REFUNDED"        // all of it refunded
	StateAbandoned      OrderState = "ABANDONED"       // create order's answer was lost before any payment; the sale moved to a fresh order
)

// Final reports whether no payment outcome is pending for an order in state s.
func (s OrderState) Final() bool {
	switch s {
	case StatePaid, StatePartlyRefunded, StateRefunded, StateFailed, StateAbandoned:
		return true
	}
	return false
}

// TenderKind is how a sale is paid.
type TenderKind string

// The tenders.
const (
	TenderCard  TenderKind = "card"  // seamless card payment
	TenderEMI   TenderKind = "emi"   // bank or brand EMI, seamless
	TenderCash  TenderKind = "cash"  // no network
	TenderPhone TenderKind = "phone" // hosted checkout on the customer's phone (iFrame mode)
)
