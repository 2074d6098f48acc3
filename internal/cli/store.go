package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"galla/store"
	"galla/store/web"
)

// cmdStore is galla store init|serve|enrol-code|alarms|unblock: the store server
// of a store with several counters (DESIGN.md section 11, docs/adr/0004).
func cmdStore(c *cli, args []string) int {
	if len(args) == 0 {
		return c.fail(exitBadInput, "Use %s.", commands()["store"].usage)
	}
	sub, args := args[0], args[1:]
	fs := c.flagSet("galla store " + sub)
	db := fs.String("db", c.getenv("GALLA_STORE_DB"), "the PostgreSQL database: postgres://USER:PASSWORD@HOST/DB (or GALLA_STORE_DB)")
	var listen, hosts *string
	switch sub {
	case "init":
		hosts = fs.String("host", "", "the names and addresses the counters reach the server by, comma-separated (the certificate lists them)")
	case "serve":
		listen = fs.String("listen", ":8443", "the address to serve HTTPS on")
	case "enrol-code", "alarms", "unblock":
	default:
		if run, ok := storePagesCommands[sub]; ok {
			return run(c, args)
		}
		return c.fail(exitBadInput, "%q is not a store command. Use %s.", sub, commands()["store"].usage)
	}
	rest, err := c.parse(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitBadInput
	}
	if *db == "" {
		return c.fail(exitBadInput, "Name the store's PostgreSQL database with --db postgres://USER:PASSWORD@HOST/DB (or GALLA_STORE_DB).")
	}
	ctx, cancel := signalContext()
	defer cancel()
	d, err := store.Open(ctx, *db, newStoreKeeper(c.dataDir, c.keyring))
	if err != nil {
		return storeFail(c, err)
	}
	defer d.Close()
	switch sub {
	case "init":
		return storeInit(c, ctx, d, *hosts, rest)
	case "serve":
		return storeServe(c, ctx, d, *listen, rest)
	case "enrol-code":
		return storeEnrolCode(c, ctx, d, rest)
	case "alarms":
		return storeAlarms(c, ctx, d, rest)
	default:
		return storeUnblock(c, ctx, d, rest)
	}
}

// storeFail says what went wrong with the store's database.
func storeFail(c *cli, err error) int {
	switch {
	case errors.Is(err, store.ErrUnavailable):
		return c.fail(exitCannotWork, "The store's database cannot be reached (%v): check that PostgreSQL runs and the --db address, user and password.", err)
	case errors.Is(err, store.ErrURL):
		return c.fail(exitBadInput, "%s.", strings.TrimPrefix(err.Error(), "store: "))
	case errors.Is(err, store.ErrSchema), errors.Is(err, store.ErrNoCertificate), errors.Is(err, store.ErrKeyMissing), errors.Is(err, store.ErrKeyWrong):
		return c.fail(exitCannotWork, "%s.", strings.TrimPrefix(err.Error(), "store: "))
	}
	return c.fail(exitFailed, "%v.", err)
}

func storeInit(c *cli, ctx context.Context, d *store.DB, hosts string, rest []string) int {
	if len(rest) != 0 {
		return c.fail(exitBadInput, "Use %s.", commands()["store"].usage)
	}
	applied, err := d.Migrate(ctx)
	if err != nil {
		return storeFail(c, err)
	}
	names := strings.Split(hosts, ",")
	if hosts == "" {
		names = localNames()
	}
	fp, created, err := d.Keys.InitCertificate(ctx, names)
	if err != nil {
		return storeFail(c, err)
	}
	fmt.Fprintln(c.stderr, storeKeyLine(d))
	if len(applied) > 0 {
		fmt.Fprintf(c.stderr, "galla: the store's schema is at version %d (applied now: %v).\n", store.SchemaVersion(), applied)
	} else {
		fmt.Fprintf(c.stderr, "galla: the store's schema was at version %d already.\n", store.SchemaVersion())
	}
	if created {
		fmt.Fprintln(c.stderr, "galla: made the store's certificate; enrol each counter with this fingerprint:")
	} else {
		fmt.Fprintln(c.stderr, "galla: the store's certificate was made before; its fingerprint:")
	}
	fmt.Fprintln(c.stdout, fp)
	return exitOK
}

// localNames are the host name and the addresses of this computer, for the
// certificate.
func localNames() []string {
	var out []string
	if h, err := os.Hostname(); err == nil {
		out = append(out, h)
	}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() && !ipn.IP.IsLinkLocalUnicast() {
				out = append(out, ipn.IP.String())
			}
		}
	}
	return out
}

func storeServe(c *cli, ctx context.Context, d *store.DB, listen string, rest []string) int {
	if len(rest) != 0 {
		return c.fail(exitBadInput, "Use %s.", commands()["store"].usage)
	}
	if err := d.CheckSchema(ctx); err != nil {
		return storeFail(c, err)
	}
	_, fp, err := d.Keys.TLSCertificate(ctx)
	if err != nil {
		return storeFail(c, err)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return c.fail(exitCannotWork, "The store server cannot listen on %s (%v): is another program using the port? Choose one with --listen.", listen, err)
	}
	log := slog.New(slog.NewTextHandler(c.stderr, nil))
	fmt.Fprintln(c.stderr, storeKeyLine(d))
	fmt.Fprintf(c.stdout, "serving https://%s (fingerprint %s)\n", ln.Addr(), fp)
	if err := store.NewServer(d, log, store.WithManagerPages(web.New(d, log))).Serve(ctx, ln); err != nil {
		return storeFail(c, err)
	}
	return exitOK
}

func storeEnrolCode(c *cli, ctx context.Context, d *store.DB, rest []string) int {
	if len(rest) != 1 {
		return c.fail(exitBadInput, "Name the terminal: galla store enrol-code TERMINAL_ID --db URL (for example T2).")
	}
	if err := d.CheckSchema(ctx); err != nil {
		return storeFail(c, err)
	}
	code, expires, err := d.Access.EnrolCode(ctx, rest[0])
	if errors.Is(err, store.ErrTerminalID) {
		return c.fail(exitBadInput, "%s.", strings.TrimPrefix(err.Error(), "store: "))
	}
	if err != nil {
		return storeFail(c, err)
	}
	fmt.Fprintln(c.stdout, code)
	fmt.Fprintf(c.stderr, "galla: the code enrols terminal %s once, until %s: on that counter run galla enrol https://THIS-SERVER:8443 %s --fingerprint FINGERPRINT\n",
		rest[0], expires.Local().Format("2 Jan 2006 15:04"), code)
	return exitOK
}

func storeAlarms(c *cli, ctx context.Context, d *store.DB, rest []string) int {
	if len(rest) != 0 {
		return c.fail(exitBadInput, "Use %s.", commands()["store"].usage)
	}
	if err := d.CheckSchema(ctx); err != nil {
		return storeFail(c, err)
	}
	alarms, err := d.Access.Alarms(ctx, true)
	if err != nil {
		return storeFail(c, err)
	}
	for _, a := range alarms {
		fmt.Fprintf(c.stdout, "%s\t%s\t%s\t%d\t%d\t%s\n", a.RaisedAt.Local().Format(time.DateTime), orDash(a.Terminal), a.Kind, a.Seq, a.Repeats, a.Detail)
	}
	if len(alarms) == 0 {
		fmt.Fprintln(c.stderr, "galla: no open alarms.")
	}
	return exitOK
}

// storeUnblock takes a blocked terminal's events again, on a store manager's
// PIN (GALLA_PIN or standard input), who is named as the one who looked.
func storeUnblock(c *cli, ctx context.Context, d *store.DB, rest []string) int {
	if len(rest) != 1 {
		return c.fail(exitBadInput, "Use galla store unblock TERMINAL_ID --db URL with a store manager's PIN (GALLA_PIN or standard input), once the terminal's alarms are looked at.")
	}
	if err := d.CheckSchema(ctx); err != nil {
		return storeFail(c, err)
	}
	by, code := signInStoreManager(c, ctx, d, bufio.NewReader(c.stdin))
	if code >= 0 {
		return code
	}
	if err := d.Access.Unblock(ctx, rest[0], by); err != nil {
		return storeFail(c, err)
	}
	fmt.Fprintf(c.stderr, "galla: terminal %s's events are taken again; its alarms are cleared by %s.\n", rest[0], by)
	return exitOK
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
