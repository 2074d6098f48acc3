// Package ui holds Galla's Fyne screens. It talks only to pos; no business rule lives
// here.
//
// New builds the terminal window for a Till, the small interfaces (Counter, Staffer,
// Catalog, Payer, Books, Admin) that declare what the screens need from pos; main
// wires the real engine behind them and the tests a fake. Each screen is one struct
// that keeps its widgets for tests: sign-in, sale, EMI offers with IMEI entry, card
// entry, payment progress (with the sandbox's OTP step and the pay-on-phone QR code),
// cash, receipt, journal and settings, under an always visible status bar.
//
// Keyboard first: every action is a button that shows its key (F-keys, Escape, Ctrl
// combinations); the entries pass those keys on instead of swallowing them, so a
// whole sale is done without the mouse while the scan field keeps the focus. Calls
// to pos run off the UI goroutine and come back through fyne.Do.
package ui
