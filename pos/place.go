package pos

// Place of supply of goods (IGST Act section 10), as it applies at a counter:
//
//   - goods handed over at the counter are supplied where they are handed over,
//     the shop's state (s.10(1)(a) and (c)): CGST + SGST;
//   - unless the buyer is unregistered and the invoice records the buyer's address
//     in another state (s.10(1)(ca)): the place is that state, IGST;
//   - or the shop delivers the goods to an address in another state (s.10(1)(a)):
//     the place is where the delivery ends, IGST.
//
// A registered buyer from another state who takes the goods at the counter is
// supplied in the shop's state: CGST + SGST, with the buyer's GSTIN printed.

// Place is where a supply takes place and whether it crosses a state border.
type Place struct {
	State      string // the GST state code of the place of supply
	Interstate bool   // the place is not the shop's state: IGST
	// Rule names the clause of IGST Act section 10 that decided it, for the
	// document and the accountant: "s.10(1)(a)", "s.10(1)(ca)".
	Rule string
}

// PlaceOfSupply decides where a sale by a shop in shopState to b takes place.
// shopState "" (a shop whose state is not set) makes every sale intra-state.
func PlaceOfSupply(shopState string, b Buyer) Place {
	p := Place{State: shopState, Rule: "s.10(1)(c)"}
	switch {
	case shopState == "":
	case b.ShipState != "" && b.ShipState != shopState:
		p = Place{State: b.ShipState, Interstate: true, Rule: "s.10(1)(a)"}
	case b.ShipState != "":
		p.Rule = "s.10(1)(a)"
	case !b.Registered() && b.Address != "" && b.State != "" && b.State != shopState:
		p = Place{State: b.State, Interstate: true, Rule: "s.10(1)(ca)"}
	}
	return p
}
