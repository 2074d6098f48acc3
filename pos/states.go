package pos

import "slices"

// journaledStates are the states an order's journal can leave it in, in the
// state machine's order: every state but DRAFT, a cart of which nothing was
// journaled. The sets below are read from it through OrderState.Paid and
// OrderState.Final, so that what a query selects (the store server's day
// report, its pages) is what pos means by them.
func journaledStates() []OrderState {
	return []OrderState{StateIntent, StateCreated, StatePaying, StateAuthenticating, StateUnknown, StateFailed,
		StatePaid, StatePartlyRefunded, StateRefunded, StateAbandoned, StateOpen, StateVoided, StateReturn}
}

// PaidStates are the states of a paid order (OrderState.Paid): PAID,
// PARTLY_REFUNDED and REFUNDED. A query takes them as a parameter
// (state = ANY($1)), never as literals of its own.
func PaidStates() []OrderState {
	return slices.DeleteFunc(journaledStates(), func(s OrderState) bool { return !s.Paid() })
}

// OpenStates are the states of a journaled order whose payment outcome is not
// final (OrderState.Final): INTENT, CREATED, PAYING, AUTHENTICATING and
// UNKNOWN. The reconciler inquires them; a day is not closed while one is left.
func OpenStates() []OrderState {
	return slices.DeleteFunc(journaledStates(), OrderState.Final)
}
