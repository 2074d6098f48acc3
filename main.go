// Command galla is the Galla point-of-sale terminal: with no sub-command it opens the
// terminal window; its sub-commands run the payment-service sandbox, headless
// checkouts, reconciliation, refunds, reports, day close, receipts, the catalog and
// staff (DESIGN.md section 6).
//
// main is the composition root: wire.go gathers what the process gives (its
// standard streams, its environment, the system keyring, the embedded
// FyneApp.toml) and internal/cli, the command line, opens the journal, picks the
// gateway, builds pos and hands it to ui or to a sub-command.
package main

import (
	"os"

	"galla/internal/cli"
)

func main() {
	os.Exit(cli.Main(processEnv(), os.Args[1:]))
}
