// Package pos is Galla's domain: money, the catalog, the cart and its GST, tenders,
// staff, the order state machine, checkout orchestration, reconciliation, refunds and
// day reports.
//
// pos imports no fyne, no bbolt and no net/http. It declares the small interfaces it
// needs (the journal, the payment gateway, the clock) and the composition root in
// package main wires their implementations in: pos/journal for the journal and
// *gateway.Client for the payment service.
package pos
