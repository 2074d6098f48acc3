// Package cli is Galla's command line: with no sub-command it opens the terminal
// window; its sub-commands run the payment-service sandbox, headless checkouts, open sales,
// reconciliation, refunds, returns, voids, reports, day close, receipts, the
// catalog, staff, the shop's details, exports, the journal's tools, sync with the
// store server and the store server itself (DESIGN.md section 6).
//
// cli owns the command line's side of each command: parsing flags and positional
// arguments, reading standard input (cards, PINs), writing text or JSON to
// standard output, one sentence on standard error, and the exit code (exitOK ...
// exitCannotWork), with the crash guard around it. It decides no money rule: each
// command hands its input to one call of pos (or of store for the store server's
// commands) and prints what comes back. It opens the data directory's terminal
// (terminal.go: the journal, the payment service, pos, the store link) for the
// commands and the window alike.
//
// cli may import pos and its packages (pos/journal included: it opens the
// journal), gateway and gateway/sandbox, receipts, store, store/link, store/api,
// store/web, the other internal packages, assets, and ui with Fyne for the
// window (scripts/depcheck.sh). It never imports pgx itself: the store server's
// commands reach PostgreSQL through package store. Only package main imports cli.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"galla/internal/config"
	"galla/pos"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"
)

// Exit codes shared by every sub-command (DESIGN.md section 6).
const (
	exitOK       = 0
	exitFailed   = 1
	exitBadInput = 2
	exitUnknown  = 3
	// exitNotRecorded: money may have moved but the journal could not record it;
	// do not charge again (the sentence says what to do).
	exitNotRecorded = 4
	// exitCannotWork: the terminal cannot work here (already running, journal
	// damaged or missing, configuration unreadable, disk full before anything moved).
	exitCannotWork = 5
)

// cli carries what every sub-command needs: the global flags and the standard streams.
type cli struct {
	dataDir    string // --data: journal and config
	dataWhy    string // why dataDir is the one used (galla --version, Settings)
	gatewayURL string // --gateway: the live service's base URL; empty means the embedded sandbox
	stdin      io.Reader
	stdout     io.Writer
	stderr     io.Writer
	getenv     func(string) string
	// keyring keeps the secrets; nil keeps them in the data directory's 0600
	// file (the tests: they never touch the keyring of the machine they run on).
	// Only a keyring that was given and does not answer is told at every start
	// (keyringLine): nil is the file chosen, not a keyring missing.
	keyring config.Keyring
	// extra adds commands to commands(): the tests' way to make one crash.
	extra map[string]command
	// clock is the counter's clock; nil is the system's. The tests give one
	// of internal/testclock to sell on a chosen date.
	clock pos.Clock
	// changed is the first journal record a command found changed outside
	// Galla (journal.Journal.Changed): the command, failing, exits
	// exitCannotWork whichever path met it.
	changed error
}

// now is the time on the counter's clock.
func (c *cli) now() time.Time {
	if c.clock != nil {
		return c.clock.Now()
	}
	return time.Now()
}

// command is one sub-command: it parses its own arguments and returns an exit code.
type command struct {
	usage string
	run   func(c *cli, args []string) int
}

// commands lists the sub-commands; each lives in a file named after it (pay.go,
// return.go), the till's own (checkout, reconcile, refund, report, close-day,
// catalog, staff) in till.go.
func commands() map[string]command {
	return map[string]command{
		"sandbox":   {"galla sandbox [--listen ADDR] [--admin] [--state FILE] [--test-data]", cmdSandbox},
		"checkout":  {"galla checkout --items SKU[:QTY],... --pay card|emi|cash [--issuer NAME --tenure N] [--imei IMEI,...] [--otp CODE] [--cash PAISE] [--wait DURATION] [--customer-name NAME --customer-address ADDRESS --customer-state STATE] [--customer-phone MOBILE] [--customer-gstin GSTIN] [--deliver-state STATE]", cmdCheckout},
		"pay":       {"galla pay SALE_ID --pay TENDER[,TENDER...] [--issuer NAME --tenure N] [--cash PAISE] --staff MANAGER [--otp CODE] [--wait DURATION] (finish an open sale) | pay MERCHANT_ORDER_ID --staff MANAGER [--otp CODE] [--wait DURATION] (pay again an order whose card payment failed)", cmdPay},
		"sales":     {"galla sales --open [--format text|json]", cmdSales},
		"reconcile": {"galla reconcile", cmdReconcile},
		"refund":    {"galla refund MERCHANT_ORDER_ID [--amount PAISE]", cmdRefund},
		"return":    {"galla return DOCUMENT_NO [--items SKU:QTY,...] [--imei IMEI,...] [--damaged] [--amount PAISE] --to card|cash|note [--reason TEXT]", cmdReturn},
		"void":      {"galla void DOCUMENT_NO|SALE_ID --reason TEXT (cancel an invoice of today, or void an open sale)", cmdVoid},
		"report":    {"galla report [--day YYYY-MM-DD] [--format text|csv|json|escpos|png|pdf] [--out FILE] [--print] | report --shift ID|current", cmdReport},
		"close-day": {"galla close-day [--day YYYY-MM-DD] [--accept-unknown]", cmdCloseDay},
		"shift":     {"galla shift open --float PAISE | shift cash-in|cash-out|drop PAISE --reason TEXT | shift close --counted PAISE [--notes 500x4,...] | shift list [--day YYYY-MM-DD] | shift report [ID]", cmdShift},
		"receipt":   {"galla receipt MERCHANT_ORDER_ID|DOCUMENT_NO [--refund [N]] [--format text|escpos|png|pdf] [--out FILE] [--print]", cmdReceipt},
		"catalog":   {"galla catalog import FILE | galla catalog list [--format text|json]", cmdCatalog},
		"hsn":       {"galla hsn [import FILE] (the GST portal's HSN directory saved as CSV; a manager's PIN on standard input or in GALLA_PIN)", cmdHSN},
		"staff":     {"galla staff list | staff add NAME --role cashier|manager | staff disable|enable|reset-pin|unlock NAME | staff limits NAME --discount PAISE --refund PAISE|--shop", cmdStaff},
		"shop":      {"galla shop set --name N --address A --state CODE [--gstin GSTIN] [--composition] [--rates SCHEDULE] [--turnover CRORE]", cmdShop},
		"export":    {"galla export gstr1 --month YYYY-MM | --quarter YYYY-Qn [--iff-filed] | --iff YYYY-MM [--gstin GSTIN] [--out FILE] | export csv --from DAY [--to DAY] [--out FILE]", cmdExport},
		"journal":   {"galla journal verify | journal salvage DAMAGED_FILE [--backup FILE] --out NEW_FILE | journal restore BACKUP | journal seal-backups (a manager's PIN) | journal find IMEI", cmdJournal},
		"store":     {"galla store init --db URL [--host NAMES] | store serve --db URL [--listen ADDR] | store enrol-code TERMINAL_ID --db URL | store alarms --db URL | store unblock TERMINAL_ID --db URL (a store manager's PIN) | " + storePagesUsage[len("galla "):], cmdStore},
		"enrol":     {"galla enrol STORE_URL CODE --fingerprint SHA256 --staff MANAGER | enrol --acknowledge --staff MANAGER (a manager's PIN on standard input or in GALLA_PIN)", cmdEnrol},
		"gateway":   {"galla gateway [approve --staff MANAGER] (the live payment service and whether a manager approved it on this counter; approve takes a manager's PIN on standard input or in GALLA_PIN)", cmdGateway},
		"einvoice":  {"galla einvoice pending | einvoice register [DOCUMENT_NO] | einvoice status DOCUMENT_NO | einvoice credentials (the live IRP's access as JSON on standard input, kept in the keyring)", cmdEInvoice},
		"stock":     {stockUsage, cmdStock},
		"sync":      {"galla sync [--pending] [--staff MANAGER] (a manager accepts a store at its first sync)", cmdSync},
	}
}

// Env is what the process hands the command line: its standard streams, its
// environment, the keyring that keeps the secrets and FyneApp.toml, the one
// source of Galla's version (embedded by package main).
type Env struct {
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Getenv  func(string) string
	Keyring config.Keyring
	FyneApp []byte
}

// Main runs the command line of args (os.Args[1:]) and returns the exit code. It
// is called once per process: it keeps the process from leaving core files.
func Main(env Env, args []string) int {
	fyneApp = env.FyneApp
	c := &cli{stdin: env.Stdin, stdout: env.Stdout, stderr: env.Stderr, getenv: env.Getenv, keyring: env.Keyring}
	_ = noCoreDumps() // best effort: a limit the system refuses leaves the default
	return c.guarded(args)
}

// guarded is main with a guard against a crash of the command's own goroutine: no
// stack trace reaches the user; it goes into a crash report (DESIGN.md section 6).
func (c *cli) guarded(args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			code = c.crashed(r, debug.Stack())
		}
	}()
	return c.main(args)
}

// crashed writes the crash report of r into the data directory (or the temporary
// directory when that cannot be written) and says where, in one sentence.
func (c *cli) crashed(r any, stack []byte) int {
	report := fmt.Sprintf("Galla crash report\ntime: %s\nargs: %s\npanic: %v\n\n%s",
		time.Now().Format(time.RFC3339), strings.Join(os.Args, " "), r, stack)
	report = maskDigits(report)
	name := "crash-" + time.Now().Format("20060102-150405") + ".txt"
	path := filepath.Join(c.dataDir, name)
	if c.dataDir == "" || os.WriteFile(path, []byte(report), 0o600) != nil {
		path = filepath.Join(os.TempDir(), "galla-"+name)
		if os.WriteFile(path, []byte(report), 0o600) != nil {
			path = "(it could not be written)"
		}
	}
	return c.fail(exitCannotWork, "Galla stopped on an internal error and did nothing more; if a payment was being taken, do not charge again: run \"galla reconcile\". The crash report (no card data) is %s.", path)
}

// longDigits is a run of digits as long as a card number.
var longDigits = regexp.MustCompile(`[0-9]{12,19}`)

// maskDigits hides every run of digits as long as a card number but its last four.
func maskDigits(s string) string {
	return longDigits.ReplaceAllStringFunc(s, func(d string) string {
		return strings.Repeat("•", len(d)-4) + d[len(d)-4:]
	})
}

// main parses the global flags and runs the sub-command (or the window).
func (c *cli) main(args []string) int {
	fs := c.flagSet("galla")
	fs.Usage = func() { c.usage() }
	showVersion := fs.Bool("version", false, "print the version, the data directory and the journal schema")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitBadInput
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "data" {
			c.dataWhy = "set by --data"
		}
	})
	rest := fs.Args()
	if *showVersion {
		return printVersion(c, c.dataWhy)
	}
	if len(rest) == 0 {
		return cmdWindow(c, nil)
	}
	name := rest[0]
	if name == "help" {
		c.usage()
		return exitOK
	}
	cmd, ok := commands()[name]
	if x, found := c.extra[name]; found {
		cmd, ok = x, true
	}
	if !ok {
		fmt.Fprintf(c.stderr, "galla: %q is not a command; run \"galla help\" to see the commands.\n", name)
		return exitBadInput
	}
	code := cmd.run(c, rest[1:])
	if code != exitOK && c.changed != nil {
		return exitCannotWork
	}
	return code
}

// flagSet returns a flag set that also accepts the global flags, so that
// "galla --data D report" and "galla report --data D" mean the same.
func (c *cli) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	if c.dataDir == "" {
		d := chooseDataDir(runtime.GOOS, c.getenv)
		c.dataDir, c.dataWhy = d.dir, d.why
	}
	fs.StringVar(&c.dataDir, "data", c.dataDir, "data directory: journal and config")
	fs.StringVar(&c.gatewayURL, "gateway", c.gatewayURL, "the live payment service's base URL (default: the embedded sandbox)")
	return fs
}

// parse parses a sub-command's flags, allowing flags after positional arguments
// ("galla refund ORDER --amount 100"). It returns the positional arguments.
func (c *cli) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func (c *cli) usage() {
	fmt.Fprintln(c.stderr, "usage: galla [--data DIR] [--gateway URL] [--version] [command]")
	fmt.Fprintln(c.stderr, "  galla                 the terminal window")
	for _, n := range sortedKeys(commands()) {
		fmt.Fprintln(c.stderr, "  "+commands()[n].usage)
	}
}

func sortedKeys(m map[string]command) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// fail prints one plain sentence to standard error and returns the exit code.
func (c *cli) fail(code int, format string, a ...any) int {
	msg := strings.TrimSpace(fmt.Sprintf(format, a...))
	fmt.Fprintln(c.stderr, "galla: "+msg)
	return code
}
