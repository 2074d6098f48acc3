package pos

// AllOrderStates returns every state of an order's state machine (DESIGN.md
// section 3), in its order, so that a reader outside pos (the store's SQL)
// can pick states by their rules (OrderState.Paid, OrderState.Final) rather
// than write them again. StatusCancelled is no state of an order and is not
// among them. It returns a new slice each time: no caller can change another's.
func AllOrderStates() []OrderState {
	return []OrderState{StateDraft, StateIntent, StateCreated, StatePaying, StateAuthenticating, StateUnknown,
		StateFailed, StatePaid, StatePartlyRefunded, StateRefunded, StateAbandoned, StateOpen, StateVoided, StateReturn}
}
