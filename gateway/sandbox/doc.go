// Package sandbox is a faithful in-process implementation of the payment service
// (../shared/spec/service-contract.md) as an http.Handler. It is the embedded default
// of a fresh install, the service every test runs against, and, through
// "galla sandbox", a standalone server. Faults can be injected on purpose.
//
// New builds one with the default merchant (DefaultMerchantID, DefaultAccessCode,
// DefaultSecret). Serve it over a socket (httptest.NewServer, http.Server) or in
// process through Transport. Tests fix the clock and the identifiers with WithClock
// and WithIDs(Sequential()), so every answer is deterministic.
//
// What it serves:
//
//	POST /api/v1/order/create                       create order (signed with x-verify)
//	POST /api/v1/card/process/payment?token=        card payment (checkoutmode: SEAMLESS)
//	POST /api/v1/emi/process/payment?token=         EMI payment
//	POST /api/v1/emi/calculator                     EMI offers
//	POST /api/v1/emi/scheme/validation              does an offer apply to a card
//	POST /api/v1/emi/imei/validation?token=         IMEI check and block (brand EMI)
//	GET  /api/v1/inquiry/order/{id}[/payment/{id}]  status inquiry (Basic auth; signed answer)
//	POST /api/v1/refunds/payment/refund             refund (Basic auth and x-verify; signed answer)
//	GET|POST /acs/{payment_id}                      the authentication (OTP) step
//	GET  /checkout/v1/checkout.js                   the browser checkout object Checkout
//	GET  /checkout/v1/pay?orderToken=               the hosted payment page in its iframe
//	/admin/faults, /admin/ledger                    only with WithAdmin(true)
//
// Sandbox is a facade, as go-github's Client is: its parts share one unexported
// core (core.go: the clock, the ids, the merchants, the orders and payments under
// one lock, and the bookkeeping every payment passes through: settle, capture,
// authenticate, the rate limit), each part in the file named after it:
//
//	Controls         controls.go          faults to inject, the ledger, the admin endpoint (exported)
//	orderService     order_service.go     create order, card payment, ACS, inquiry, refund
//	emiService       emi_service.go       EMI calculator, scheme validation, EMI payment, IMEI check
//	checkoutService  checkout_service.go  checkout.js, the hosted page and its calls, the index page
//	stateLog         state_log.go         the state file: noting changes, save, load, close
//	                 archive.go           the state file's archive of old orders, and finding them
//	guard            guard.go             the Host check and the admin token
//
// Sandbox's own methods serve HTTP (ServeHTTP, Transport: route a request to its
// part, apply its fault, save the state before the answer) and Close the state
// file. The EMI offers themselves are in emi.go, the test cards in cards.go, the
// order model in orders.go.
//
// The Controls are what a test or an operator uses and the live service has not:
// sb.Controls.Inject makes an endpoint misbehave for its next calls (contract
// section 10); sb.Controls.Ledger tells what the service believes, so tests can
// check that no order was charged twice; sb.Controls.AdminToken is the token of
// the admin endpoint. TestData lists the test cards, EMI offers and IMEIs.
//
// State lives in memory unless WithStateFile names a file (the terminal uses
// sandbox.json in its data directory): New loads it, and every request that changes
// the state appends the orders it changed to it, one JSON line each, and syncs it
// before its answer is written (see state_log.go for the format); New compacts it when
// it has grown to more than twice its live state, and moves the orders that are a day
// old and final into an archive beside it (archive.go), read only when a request names
// one of them, so that New's time does not grow with the history. A last line cut off
// by a crash is dropped; a file damaged anywhere else stops New with one sentence and
// is never overwritten. Close releases the file and the archive.
//
// The sandbox never keeps a card number nor anything derived from one but its last
// four digits: a payment remembers those and the test card's outcome, in memory and
// in the state file. Its log holds method, path, status and duration only.
//
// It imports gateway (for the wire types and the signature) and no other package
// of Galla's: the terminal talks to it only over HTTP, as to the live service.
package sandbox
