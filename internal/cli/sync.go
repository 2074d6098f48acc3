package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"galla/internal/config"
	"galla/pos"
	"galla/pos/journal"
	"galla/store/api"
	"galla/store/link"
)

// syncEvery is how often the window sends the journal's new events to the
// store server, in the background.
const syncEvery = 15 * time.Second

// cmdEnrol is galla enrol STORE_URL CODE --fingerprint SHA256: the terminal
// joins a store server. It pins the server's certificate, keeps the credential
// in the keyring and the store's address in config.json; the terminal takes
// the id the code was made for.
func cmdEnrol(c *cli, args []string) int {
	fs := c.flagSet("galla enrol")
	fp := fs.String("fingerprint", "", "the SHA-256 fingerprint \"galla store init\" printed")
	rest, err := c.parse(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitBadInput
	}
	if len(rest) != 2 || *fp == "" {
		return c.fail(exitBadInput, "Use %s.", commands()["enrol"].usage)
	}
	pin, err := api.NormalizeFingerprint(*fp)
	if err != nil {
		return c.fail(exitBadInput, "%s.", err)
	}
	storeURL := strings.TrimRight(rest[0], "/")
	// The journal first: a counter enrolled before its first sale has one, so
	// that config.json is never there without it (which reads as a lost
	// journal), and a journal that cannot be opened is said before the code is
	// spent.
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	t.close()
	ctx, cancel := signalContext()
	defer cancel()
	resp, err := link.Enrol(ctx, storeURL, rest[1], pin, nil)
	var ae *api.Error
	switch {
	case errors.As(err, &ae):
		return c.fail(exitFailed, "The store server refused the enrolment: %s.", strings.TrimSuffix(ae.Message, "."))
	case errors.Is(err, link.ErrUnreachable):
		return c.fail(exitFailed, "The store server cannot be reached (%v): check the address and that \"galla store serve\" runs; the code stays valid.", err)
	case err != nil:
		return c.fail(exitFailed, "%s.", strings.TrimSuffix(err.Error(), "."))
	}
	sec := config.OpenSecrets(c.dataDir, c.keyring)
	cfg, err := config.Load(c.dataDir, func(string) string { return "" }, "", sec)
	if err != nil {
		return c.fail(exitCannotWork, "%v", err)
	}
	if err := sec.Set(config.SecretStoreCredential, resp.Credential); err != nil {
		return c.fail(exitCannotWork, "The terminal's credential cannot be kept (%v): check the system keyring, then ask for a new code.", err)
	}
	if err := keepStorePepper(sec, resp.StaffPepper); err != nil {
		return c.fail(exitCannotWork, "The store's PIN key cannot be kept (%v): check the system keyring, then ask for a new code.", err)
	}
	renamed := cfg.Terminal != resp.TerminalID
	cfg.Store = config.StoreServer{URL: storeURL, Fingerprint: pin, TerminalID: resp.TerminalID}
	cfg.Terminal = resp.TerminalID
	if err := config.Save(c.dataDir, cfg); err != nil {
		return c.fail(exitCannotWork, "The store's address cannot be written to %s (%v): check the folder, then ask for a new code.", filepath.Join(c.dataDir, configFile), err)
	}
	if err := link.RemoveState(filepath.Join(c.dataDir, link.StateFile)); err != nil {
		return c.fail(exitCannotWork, "The old record of what was sent cannot be removed (%v).", err)
	}
	fmt.Fprintf(c.stdout, "enrolled as terminal %s at %s\n", resp.TerminalID, storeURL)
	if renamed {
		fmt.Fprintf(c.stderr, "galla: this counter is named %s on its documents from now on.\n", resp.TerminalID)
	}
	fmt.Fprintf(c.stderr, "galla: the credential is kept in %s; the window sends the journal's events to the store, and \"galla sync\" does it now.\n", sec.Where())
	return exitOK
}

// storeLinkConfig is the link configuration of an enrolled terminal; ok is
// false when it is not enrolled.
func storeLinkConfig(c *cli, cfg config.Config, sec *config.Secrets) (link.Config, bool, error) {
	if cfg.Store.URL == "" {
		return link.Config{}, false, nil
	}
	cred, err := sec.Get(config.SecretStoreCredential)
	if err != nil {
		return link.Config{}, false, fmt.Errorf("the store credential cannot be read (%v); check the system keyring", err)
	}
	if cred == "" {
		return link.Config{}, false, fmt.Errorf("config.json names the store server %s, but the keyring holds no credential for it: enrol the terminal again (galla enrol)", cfg.Store.URL)
	}
	return link.Config{URL: cfg.Store.URL, Fingerprint: cfg.Store.Fingerprint, TerminalID: cfg.Store.TerminalID, Credential: cred,
		StatePath: filepath.Join(c.dataDir, link.StateFile)}, true, nil
}

// startStoreLink is the window's link to the store server: nil when the
// terminal is not enrolled. Its sync runs in a goroutine of its own, beside
// the counter's work, until stop; it starts once the journal's startup check
// (checked closed) has passed, and not at all on a damaged journal.
//
// Each round also pulls the store's master data and applies it on the till
// (till is read once checked has closed, after the till is made).
func startStoreLink(c *cli, cfg config.Config, sec *config.Secrets, j *journal.Journal, checked <-chan struct{}, till func() *pos.Till) (l *link.Link, stop func(), err error) {
	lc, ok, err := storeLinkConfig(c, cfg, sec)
	if err != nil || !ok {
		return nil, func() {}, err
	}
	if l, err = link.New(lc, j.Log); err != nil {
		return nil, func() {}, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-checked:
		case <-ctx.Done():
			return
		}
		if _, err := j.Log.Verified(); err != nil {
			return
		}
		tick := time.NewTicker(syncEvery)
		defer tick.Stop()
		pepperGiven := false
		for {
			_, _ = l.Sync(ctx)
			if t := till(); t != nil {
				// The store's staff pepper, asked for once if the keyring lacks it.
				if pep, err := ensureStorePepper(ctx, l, sec); err == nil && !pepperGiven {
					t.Crew.SetStorePepper(pep)
					pepperGiven = true
				}
				// A refusal is tried again next round; the counter keeps what it has.
				_, _, _ = l.SyncMaster(ctx, t.Shelf)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return l, func() { cancel(); <-done }, nil
}

// cmdSync is galla sync [--pending]: it says what the store server does not
// hold yet and sends it; --pending only says.
func cmdSync(c *cli, args []string) int {
	fs := c.flagSet("galla sync")
	only := fs.Bool("pending", false, "only say what is waiting to be sent")
	rest, err := c.parse(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitBadInput
	}
	if len(rest) != 0 {
		return c.fail(exitBadInput, "Use %s.", commands()["sync"].usage)
	}
	sec := config.OpenSecrets(c.dataDir, c.keyring)
	cfg, err := config.Load(c.dataDir, c.getenv, c.gatewayURL, sec)
	if err != nil {
		return c.fail(exitCannotWork, "%v", err)
	}
	lc, ok, err := storeLinkConfig(c, cfg, sec)
	if err != nil {
		return c.fail(exitCannotWork, "%s.", err)
	}
	if !ok {
		return c.fail(exitBadInput, "This terminal is not enrolled at a store server: run galla enrol STORE_URL CODE --fingerprint SHA256 first.")
	}
	key, err := journalKey(c, sec)
	if err != nil {
		return c.fail(exitCannotWork, "%v", err)
	}
	j, err := journal.Open(filepath.Join(c.dataDir, journalFile), journal.Options{ReadOnly: true, Create: journal.CreateNever, ChainKey: key})
	if errors.Is(err, journal.ErrAlreadyRunning) {
		return c.fail(exitCannotWork, "The terminal's window is open: it sends the events to the store itself, and its status bar shows how many wait.")
	}
	if err != nil {
		return c.failOpen(err)
	}
	open := true
	defer func() {
		if open {
			_ = j.Close()
		}
	}()
	l, err := link.New(lc, j.Log)
	if err != nil {
		return c.fail(exitCannotWork, "%v", err)
	}
	ctx, cancel := signalContext()
	defer cancel()
	last, waiting, err := l.Pending(ctx)
	if err != nil {
		return c.fail(exitCannotWork, "The journal cannot be read (%v).", err)
	}
	fmt.Fprintf(c.stdout, "store %s, terminal %s: %s waiting (the journal ends at event %d)\n", lc.URL, lc.TerminalID, events(waiting), last)
	if *only {
		return exitOK
	}
	res, err := l.Sync(ctx)
	var ae *api.Error
	switch {
	case errors.Is(err, link.ErrUnreachable):
		return c.fail(exitFailed, "The store server at %s cannot be reached: %s wait in the journal and go up at the next sync; the counter keeps selling.", lc.URL, events(res.Waiting))
	case errors.As(err, &ae) && (ae.Code == api.CodeFork || ae.Code == api.CodeBlocked):
		return c.fail(exitFailed, "%s. A manager must look at the store's alarms (galla store alarms) before this counter's events are taken; the counter keeps selling.", capital(strings.TrimSuffix(ae.Message, ".")))
	case errors.As(err, &ae):
		return c.fail(exitFailed, "The store server refused the events: %s. %s wait in the journal.", strings.TrimSuffix(ae.Message, "."), capital(events(res.Waiting)))
	case err != nil:
		return c.fail(exitFailed, "%s. %s wait in the journal.", strings.TrimSuffix(err.Error(), "."), capital(events(res.Waiting)))
	}
	fmt.Fprintf(c.stdout, "sent %s; the store holds events 1 to %d\n", events(uint64(res.Sent)), res.Held)
	open = false
	_ = j.Close() // the master data is journaled through the till
	if _, err := ensureStorePepper(ctx, l, sec); err != nil {
		// The store's staff cannot sign in here yet; the rest is applied.
		fmt.Fprintf(c.stderr, "galla: the store's PIN key could not be had (%v): the store's staff sign in here after the next sync.\n", err)
	}
	return c.pullMaster(ctx, l)
}

// pullMaster applies the master data the store published since the version the
// counter applied (pos.Shelf.ApplyMaster) and says what changed.
func (c *cli) pullMaster(ctx context.Context, l *link.Link) int {
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	v, kinds, err := l.SyncMaster(ctx, t.Shelf)
	var applied []string
	staff := 0
	for _, k := range kinds {
		if k == pos.MasterStaff {
			staff++
		} else {
			applied = append(applied, k)
		}
	}
	if staff > 0 {
		applied = append(applied, staffCount(staff))
	}
	var s pos.Sentencer
	switch {
	case errors.Is(err, link.ErrTillVersion):
		return c.fail(exitCannotWork, "The journal cannot be read (%v).", err)
	case errors.Is(err, link.ErrUnreachable):
		return c.fail(exitFailed, "The store server cannot be reached for its catalog and shop details; the counter keeps its own until the next sync.")
	case errors.As(err, &s):
		return c.fail(exitFailed, "The store's master data was not applied: %s", s.Sentence())
	case err != nil:
		return c.fail(exitFailed, "The store's master data was not applied (%v); the counter keeps its own until the next sync.", err)
	}
	if len(applied) == 0 {
		fmt.Fprintf(c.stdout, "the store's catalog and shop details are as applied (version %d)\n", v)
		return exitOK
	}
	fmt.Fprintf(c.stdout, "applied the store's %s (version %d)\n", strings.Join(applied, " and "), v)
	return exitOK
}

// events is "1 event" or "N events".
func events(n uint64) string {
	if n == 1 {
		return "1 event"
	}
	return fmt.Sprintf("%d events", n)
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
