package pos

// GatewayHeld is the refusal of a tender of kind while the live payment
// service is not the one a manager approved on this counter
// (TillConfig.GatewayHold), nil when it may be taken. The command line and
// the window ask it before they ask for the card, so that no card number or
// CVV is typed for a sale that cannot be taken; Pay refuses the same.
func (co *Checkout) GatewayHeld(kind TenderKind) error { return co.gatewayHeld(kind) }
