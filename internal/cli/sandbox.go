package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"galla/gateway/sandbox"
)

// cmdSandbox runs the payment-service sandbox on its own:
// galla sandbox [--listen ADDR] [--admin] [--state FILE] [--test-data].
func cmdSandbox(c *cli, args []string) int {
	fs := c.flagSet("sandbox")
	listen := fs.String("listen", "127.0.0.1:7070", "address to listen on")
	admin := fs.Bool("admin", false, "turn on the local fault-injection endpoint /admin/faults")
	state := fs.String("state", "", "keep the orders in FILE across runs (default: in memory only)")
	testData := fs.Bool("test-data", false, "print the test data (credentials, cards, EMI offers, IMEIs) as JSON and exit")
	fs.SetOutput(io.Discard)
	rest, err := c.parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(c.stderr, "usage: "+commands()["sandbox"].usage)
		return exitOK
	}
	if err != nil {
		return c.fail(exitBadInput, "sandbox: %v; usage: %s.", err, commands()["sandbox"].usage)
	}
	if len(rest) > 0 {
		return c.fail(exitBadInput, "sandbox takes no arguments, but got %q; usage: %s.", rest[0], commands()["sandbox"].usage)
	}
	if *testData {
		td := sandbox.TestData()
		td.BaseURL = "http://" + *listen
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(td); err != nil {
			return c.fail(exitFailed, "could not write the test data: %v.", err)
		}
		return exitOK
	}

	logger := slog.New(slog.NewTextHandler(c.stderr, nil))
	host, _, _ := net.SplitHostPort(*listen)
	opts := []sandbox.Option{sandbox.WithLogger(logger), sandbox.WithAdmin(*admin), sandbox.WithAllowedHosts(host)}
	if *state != "" {
		opts = append(opts, sandbox.WithStateFile(*state))
	}
	sb, err := sandbox.New(opts...)
	if err != nil {
		return c.fail(exitFailed, "could not start the sandbox: %v.", err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return c.fail(exitFailed, "could not listen on %s (%v); choose another address with --listen.", *listen, err)
	}
	srv := &http.Server{Handler: sb, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	adminNote := "off"
	if *admin {
		adminNote = "on at /admin/faults"
	}
	fmt.Fprintf(c.stderr, "galla sandbox listening on http://%s (merchant %s; admin %s); stop with Ctrl+C.\n",
		ln.Addr(), sandbox.DefaultMerchantID, adminNote)
	if *admin {
		fmt.Fprintf(c.stderr, "admin token: %s (send it as the header \"Authorization: Bearer TOKEN\")\n", sb.Controls.AdminToken())
	}
	select {
	case err := <-served:
		return c.fail(exitFailed, "the sandbox stopped: %v.", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		_ = srv.Close() // hung connections (the "hang" fault) are cut
	}
	_ = sb.Close()
	fmt.Fprintln(c.stderr, "galla sandbox stopped.")
	return exitOK
}
