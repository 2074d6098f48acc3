// Package pos is Galla's domain: money, the catalog, the cart and its GST, tenders,
// staff, the order state machine, checkout orchestration, reconciliation, refunds and
// day reports.
//
// The core (core.go) is the state the counter's services share: the Engine (the
// order state machine and its journal), the till's configuration, the renderer and
// the printer, the book of the counter's records and the member signed in. One
// service per capability holds that core: Checkout (sales and their tenders),
// Pending (payments not final, reconciliation), IMEIs (each phone sold once),
// Returns (returns, refunds, cancellations, credit notes), Books (orders, X and Z,
// day close), Drawer (shifts and cash), Crew (staff, sign-in, approvals), Shelf
// (catalog, prices, held bills), Setup (settings, the shop), Customers (buyers) and
// Documents (receipts, report slips, printing, exports). A service reaches another
// capability through the core, never through the Till.
//
// Till is a thin facade, as go-github's Client holds its services: its named
// fields are the services (till.Drawer, till.Checkout, ...) and callers name the
// one they use (till.Drawer.OpenShift); its own methods are only the engine, the
// terminal's name, its clock and the status bar.
//
// The Engine under the till (engine.go) is built the same way: an unexported
// engineCore (engine_core.go: the journal, the payment service, the clock, the
// orders' locks, ids, the commit of an event, and the gate every money-moving call
// passes) shared by one part per capability, each in the file named after it:
// Payments (payments.go: one order's payment, EMI, reconcile), Sales (sales.go: a
// sale and its tenders, open sales, voids), Refunds (refunds.go: refunds and
// cancellations), StoreDesk (store_desk.go: the store's decisions on IMEIs,
// returns and credit notes) and Ledger (ledger.go: X and Z reports, day close,
// prints recorded). Engine's named fields are the parts (eng.Payments.PayCard);
// its own methods are only the journal, the roster, the clock, the business day,
// an order and the payments held unrecorded. A part reaches another through the
// core, never through the Engine; the till's services hold the engine and its
// core.
//
// pos imports no fyne, no bbolt, no net/http and no pgx, and nothing of ui or
// internal/* (scripts/depcheck.sh); of Galla's own packages it imports only
// gateway, receipts, assets and pos/gstr. It declares the small interfaces it
// needs (the journal, the payment gateway, the clock, the store link) and the
// composition root wires their implementations in: pos/journal for the journal,
// *gateway.Client for the payment service.
package pos
