package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"galla/pos"
	"galla/pos/gstr"
	"galla/store"
	"galla/store/web"
)

// storePagesUsage is the usage of the store commands of this file.
const storePagesUsage = "galla store rebuild --db URL | store manager add NAME --db URL (PIN on stdin) | store manager disable|enable NAME --db URL | store z --day YYYY-MM-DD --db URL (a store manager's PIN in GALLA_PIN or on stdin) | store catalog import FILE [--replace] --db URL (a store manager's PIN) | store shop set --name N --address A --state CODE [--gstin GSTIN] [--composition] [--rates SCHEDULE] [--turnover CRORE] --db URL (a store manager's PIN) | store export gstr1|csv --month YYYY-MM [--gstin GSTIN] --db URL [--out FILE] | " + storeStaffUsage

// storePagesCommands are the "galla store" sub-commands of the projections,
// the manager's pages and the store's day; cmdStore hands them on.
var storePagesCommands = map[string]func(c *cli, args []string) int{
	"rebuild": cmdStoreRebuild,
	"manager": cmdStoreManager,
	"z":       cmdStoreZ,
	"catalog": cmdStoreCatalog,
	"shop":    cmdStoreShop,
	"export":  cmdStoreExport,
	"staff":   cmdStoreStaff,
}

// cmdStoreExport is galla store export gstr1|csv --month YYYY-MM [--out FILE]:
// the store's GSTR-1 of a month (every counter's documents under the store's
// GSTIN), or one row per line every counter sold or returned in it.
func cmdStoreExport(c *cli, args []string) int {
	var monthText, out, gstin *string
	ctx, done, d, rest, code := openStore(c, "export", args, func(fs *flag.FlagSet) {
		monthText = fs.String("month", "", "the month, YYYY-MM")
		out = fs.String("out", "", "write the export to this file instead of standard output")
		gstin = fs.String("gstin", "", "gstr1: the GSTIN whose return it is (default: the published shop's; an earlier one after a new registration)")
	})
	if code >= 0 {
		return code
	}
	defer done()
	if len(rest) != 1 || (rest[0] != "gstr1" && rest[0] != "csv") {
		return c.fail(exitBadInput, "Use galla store export gstr1|csv --month YYYY-MM [--gstin GSTIN] --db URL [--out FILE].")
	}
	if rest[0] == "csv" && *gstin != "" {
		return c.fail(exitBadInput, "The lines CSV names each document's GSTIN on its row; --gstin is for gstr1.")
	}
	if *monthText == "" {
		return c.fail(exitBadInput, "Give the month with --month YYYY-MM, for example --month %s.", time.Now().Format("2006-01"))
	}
	month, err := gstr.ParseMonth(*monthText)
	if err != nil {
		return c.fail(exitBadInput, "The month %q is not YYYY-MM (a month from 01 to 12); type it again.", *monthText)
	}
	var tmp *os.File
	if *out != "" {
		if fi, err := os.Stat(*out); err == nil && fi.IsDir() {
			return c.fail(exitBadInput, "%s is a folder; give --out a file name.", *out)
		}
		if tmp, err = os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+".*"); err != nil {
			return c.fail(exitBadInput, "The export cannot be written to %s (%v); choose another --out.", *out, err)
		}
		defer func() {
			if tmp != nil {
				_ = tmp.Close()
				_ = os.Remove(tmp.Name())
			}
		}()
	}
	var b bytes.Buffer
	what := fmt.Sprintf("The lines every counter sold and returned in %s", month)
	if rest[0] == "gstr1" {
		r, err := d.Reports.GSTR1Of(ctx, month, time.Local, *gstin)
		if errors.Is(err, store.ErrNoGSTIN) || errors.Is(err, store.ErrComposition) || errors.Is(err, store.ErrGSTINNotHeld) {
			return c.fail(exitBadInput, "%s.", strings.ToUpper(err.Error()[:1])+err.Error()[1:])
		}
		if err != nil {
			return storeFail(c, err)
		}
		j, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return storeFail(c, err)
		}
		b.Write(append(j, '\n'))
		what = fmt.Sprintf("The store's GSTR-1 of %s for GSTIN %s", month, r.GSTIN)
	} else if err := d.Reports.WriteMonthCSV(ctx, month, time.Local, &b); err != nil {
		return storeFail(c, err)
	}
	if tmp == nil {
		if _, err := c.stdout.Write(b.Bytes()); err != nil {
			return c.fail(exitFailed, "The export could not be written to standard output (%v).", err)
		}
		return exitOK
	}
	if err := writeWhole(tmp, b.Bytes(), *out); err != nil {
		return c.fail(exitFailed, "The export could not be written to %s (%v); nothing in the store changed: free some space or choose another --out, and export again.", *out, err)
	}
	tmp = nil
	fmt.Fprintf(c.stderr, "galla: %s is written to %s.\n", what, *out)
	return exitOK
}

// openStore parses the --db flag (and extra flags) and opens the database
// at the program's schema.
func openStore(c *cli, name string, args []string, extra func(fs *flag.FlagSet)) (context.Context, func(), *store.DB, []string, int) {
	fs := c.flagSet("galla store " + name)
	db := fs.String("db", c.getenv("GALLA_STORE_DB"), "the PostgreSQL database: postgres://USER:PASSWORD@HOST/DB (or GALLA_STORE_DB)")
	if extra != nil {
		extra(fs)
	}
	rest, err := c.parse(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, nil, nil, exitOK
		}
		return nil, nil, nil, nil, exitBadInput
	}
	if *db == "" {
		return nil, nil, nil, nil, c.fail(exitBadInput, "Name the store's PostgreSQL database with --db postgres://USER:PASSWORD@HOST/DB (or GALLA_STORE_DB).")
	}
	ctx, cancel := signalContext()
	d, err := store.Open(ctx, *db, newStoreKeeper(c.dataDir, c.keyring))
	if err == nil {
		err = d.CheckSchema(ctx)
		if err != nil {
			d.Close()
		}
	}
	if err != nil {
		cancel()
		return nil, nil, nil, nil, storeFail(c, err)
	}
	return ctx, func() { d.Close(); cancel() }, d, rest, -1
}

func cmdStoreRebuild(c *cli, args []string) int {
	ctx, done, d, rest, code := openStore(c, "rebuild", args, nil)
	if code >= 0 {
		return code
	}
	defer done()
	if len(rest) != 0 {
		return c.fail(exitBadInput, "Use %s.", storePagesUsage)
	}
	st, err := d.Projections.Rebuild(ctx)
	if err != nil {
		return storeFail(c, err)
	}
	fmt.Fprintf(c.stdout, "Rebuilt the store's projections from %d events of %d counters: %d orders.\n", st.Events, st.Terminals, st.Orders)
	return exitOK
}

// cmdStoreManager is galla store manager add|disable|enable NAME: the
// managers of the pages, whose PIN the store's commands take. Whoever runs it
// holds the database's address and password, as for galla store init: it is
// how the first manager is made, and how a forgotten PIN is set again.
func cmdStoreManager(c *cli, args []string) int {
	if len(args) == 0 || (args[0] != "add" && args[0] != "disable" && args[0] != "enable") {
		return c.fail(exitBadInput, "Use %s.", storePagesUsage)
	}
	verb := args[0]
	ctx, done, d, rest, code := openStore(c, "manager "+verb, args[1:], nil)
	if code >= 0 {
		return code
	}
	defer done()
	if len(rest) != 1 {
		return c.fail(exitBadInput, "Name one manager: galla store manager %s NAME --db URL.", verb)
	}
	name := rest[0]
	if verb != "add" {
		err := web.SetManagerDisabled(ctx, d, name, verb == "disable")
		switch {
		case errors.Is(err, web.ErrNoSuchManager), errors.Is(err, web.ErrLastManager):
			return c.fail(exitBadInput, "%s: nothing was changed.", capital(errors.Unwrap(err).Error()))
		case err != nil:
			return storeFail(c, err)
		case verb == "disable":
			fmt.Fprintf(c.stdout, "Manager %s is disabled: their sessions have ended, and neither the pages nor the store's commands take their PIN.\n", strings.TrimSpace(name))
		default:
			fmt.Fprintf(c.stdout, "Manager %s is enabled again.\n", strings.TrimSpace(name))
		}
		return exitOK
	}
	in := bufio.NewScanner(c.stdin)
	var lines []string
	for len(lines) < 2 && in.Scan() {
		lines = append(lines, strings.TrimSpace(in.Text()))
	}
	switch {
	case len(lines) == 0 || lines[0] == "":
		return c.fail(exitBadInput, "Type the manager's PIN (6 to 8 digits) on the standard input, on a line of its own, twice to confirm.")
	case len(lines) == 2 && lines[1] != lines[0]:
		return c.fail(exitBadInput, "The two PINs differ: nothing was changed; type the same PIN twice.")
	}
	created, err := web.AddManager(ctx, d, name, lines[0])
	switch {
	case errors.Is(err, web.ErrBadName), errors.Is(err, web.ErrBadPIN):
		return c.fail(exitBadInput, "%s: nothing was changed.", strings.ToUpper(err.Error()[:1])+err.Error()[1:])
	case err != nil:
		return storeFail(c, err)
	case created:
		fmt.Fprintf(c.stdout, "Manager %s can sign in to the manager's pages (https://SERVER/manager/).\n", strings.TrimSpace(name))
	default:
		fmt.Fprintf(c.stdout, "Manager %s has a new PIN; their sessions have ended.\n", strings.TrimSpace(name))
	}
	return exitOK
}

// signInStoreManager reads the PIN of a store manager (a manager of the pages) from
// GALLA_PIN or the first line of in, and returns that manager's name: a store
// command is done on a manager's authority, named by their PIN, never by a
// name typed. Wrong PINs count as at the sign-in page, against the command
// line. When it fails it has said why, and code is the exit code (else -1).
func signInStoreManager(c *cli, ctx context.Context, d *store.DB, in *bufio.Reader) (name string, code int) {
	pin, err := c.managerPIN(in)
	if err != nil || pin == "" {
		return "", c.fail(exitBadInput, "A store manager's PIN is needed (a manager of the store's pages): give it in GALLA_PIN or on the first line of standard input. Nothing was changed.")
	}
	name, err = web.ManagerByPIN(ctx, d, web.SourceCommandLine, pin, time.Now())
	var locked *web.SourceLockedError
	switch {
	case err == nil:
		return name, -1
	case errors.Is(err, web.ErrNoManager):
		return "", c.fail(exitBadInput, "The store has no manager yet: add one with galla store manager add NAME --db URL (the PIN on standard input), then run this again. Nothing was changed.")
	case errors.Is(err, web.ErrBadPIN):
		return "", c.fail(exitBadInput, "%s Nothing was changed.", pos.Sentence(err))
	case errors.Is(err, web.ErrSignIn):
		return "", c.fail(exitBadInput, "That PIN is no store manager's: nothing was changed. After %d wrong PINs in a row the store's commands take none for %d minutes.",
			pos.MaxPINAttempts, int(pos.LockDuration/time.Minute))
	case errors.As(err, &locked):
		return "", c.fail(exitBadInput, "Too many wrong store manager's PINs: the store's commands take none until %s. Nothing was changed.", locked.Until.Local().Format("15:04"))
	}
	return "", storeFail(c, err)
}

func cmdStoreZ(c *cli, args []string) int {
	var day *string
	ctx, done, d, rest, code := openStore(c, "z", args, func(fs *flag.FlagSet) {
		day = fs.String("day", "", "the day to close, YYYY-MM-DD")
	})
	if code >= 0 {
		return code
	}
	defer done()
	if len(rest) != 0 || *day == "" {
		return c.fail(exitBadInput, "Name the day: galla store z --day YYYY-MM-DD --db URL, with a store manager's PIN in GALLA_PIN or on standard input.")
	}
	by, code := signInStoreManager(c, ctx, d, bufio.NewReader(c.stdin))
	if code >= 0 {
		return code
	}
	z, err := d.Reports.CloseStoreDay(ctx, *day, by)
	if errors.Is(err, store.ErrStoreZRefused) {
		return c.fail(exitFailed, "The store's day was not closed: %s.", err)
	}
	if err != nil {
		return storeFail(c, err)
	}
	counters := map[string]bool{} // a counter may have more than one Z of the date (ADR 0010)
	for _, t := range z.Counters {
		counters[t.Terminal] = true
	}
	fmt.Fprintf(c.stdout, "Store Z of %s, closed by %s: the sum of %d counters' Z reports.\n", z.Day, z.ClosedBy, len(counters))
	for _, t := range z.Counters {
		fmt.Fprintf(c.stdout, "  %-8s Z %-4d gross %14s  refunds %12s  net %14s  GST %12s  cash %12s\n", t.Terminal, t.ZNo,
			t.GrossSales, t.Refunded, t.NetSales, t.Tax, t.CashExpected)
	}
	fmt.Fprintf(c.stdout, "  %-8s        gross %14s  refunds %12s  net %14s  GST %12s  cash %12s\n", "store",
		z.GrossSales, z.Refunded, z.NetSales, z.Tax, pos.Paise(z.CashExpected))
	return exitOK
}

func cmdStoreCatalog(c *cli, args []string) int {
	if len(args) == 0 || args[0] != "import" {
		return c.fail(exitBadInput, "Use %s.", storePagesUsage)
	}
	var replace *bool
	ctx, done, d, rest, code := openStore(c, "catalog import", args[1:], func(fs *flag.FlagSet) {
		replace = fs.Bool("replace", false, "the file is the whole catalog: the products it lacks are removed from every counter")
	})
	if code >= 0 {
		return code
	}
	defer done()
	if len(rest) != 1 {
		return c.fail(exitBadInput, "Name the file: galla store catalog import FILE [--replace] --db URL, with a store manager's PIN in GALLA_PIN or on standard input.")
	}
	by, code := signInStoreManager(c, ctx, d, bufio.NewReader(c.stdin))
	if code >= 0 {
		return code
	}
	f, err := os.Open(rest[0])
	if err != nil {
		return c.fail(exitBadInput, "The catalog file cannot be read (%v): check its name.", err)
	}
	defer f.Close()
	publish := d.Master.PublishCatalog
	if *replace {
		publish = d.Master.ReplaceCatalog
	}
	v, n, err := publish(ctx, f, strings.EqualFold(filepath.Ext(rest[0]), ".json"), by)
	var rm *store.CatalogRemovalError
	switch {
	case errors.Is(err, pos.ErrBadCatalog):
		return c.fail(exitBadInput, "The catalog was not published; the counters keep the one they have. %s", pos.Sentence(err))
	case errors.As(err, &rm):
		return c.fail(exitBadInput, "The catalog was not published; the counters keep the one they have: %s. To add or change products, put every product in the file; to publish the file as the whole catalog, removing those %d, import it again with --replace.",
			err, len(rm.Removed))
	case err != nil:
		return storeFail(c, err)
	}
	fmt.Fprintf(c.stdout, "Published the store's catalog of %d products as version %d: every counter receives it at its next sync.\n", n, v)
	return exitOK
}
