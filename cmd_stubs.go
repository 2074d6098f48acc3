package main

// Commands whose issues have not landed yet. Each moves to its own cmd_*.go file
// when it is built, and its line here is removed.
var (
	cmdWindow    = notYet("The terminal window")
	cmdSandbox   = notYet("galla sandbox")
	cmdCheckout  = notYet("galla checkout")
	cmdReconcile = notYet("galla reconcile")
	cmdRefund    = notYet("galla refund")
	cmdReport    = notYet("galla report")
	cmdCloseDay  = notYet("galla close-day")
	cmdReceipt   = notYet("galla receipt")
	cmdCatalog   = notYet("galla catalog")
	cmdStaff     = notYet("galla staff")
)
