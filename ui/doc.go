// Package ui holds Galla's Fyne screens. It talks only to pos; no business rule lives
// here.
//
// New builds the terminal window over its Services: one typed field per capability
// (Checkout, Pending, Returns, Drawer, Books, Staffer, Catalog, Customers, IMEIs,
// Documents, Admin and the status bar's Counter), each an interface declaring what
// the screens need from pos. main fills each field with the one pos service that
// implements it (the Counter with the pos.Till's own Status) and the tests with a
// fake; no screen asks a value at run time what it can do, and New refuses a
// Services with a field missing. Each screen is one struct
// that keeps its widgets for tests: sign-in, sale, EMI offers with IMEI entry, card
// entry, payment progress (with the sandbox's OTP step and the pay-on-phone QR code),
// cash, receipt, journal and settings, under an always visible status bar.
//
// Keyboard first: every action is a button that shows its key (F-keys, Escape, Ctrl
// combinations); the entries pass those keys on instead of swallowing them, so a
// whole sale is done without the mouse while the scan field keeps the focus. Calls
// to pos run off the UI goroutine and come back through fyne.Do.
//
// It imports pos and fyne only (scripts/depcheck.sh): never gateway, receipts or
// pos/journal.
package ui
