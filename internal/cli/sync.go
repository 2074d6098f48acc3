package cli

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"net/url"
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

// cmdEnrol is galla enrol STORE_URL CODE --fingerprint SHA256 --staff NAME:
// the terminal joins a store server on a manager's authority (their PIN on
// standard input or in GALLA_PIN). It makes a key pair, keeps the private key
// in the keyring and sends the public key with the code; it pins the
// server's certificate and keeps the store's address in config.json; and it
// journals the act naming the manager, shown on every screen until a manager
// acknowledges it (galla enrol --acknowledge --staff NAME). The terminal takes
// the id the code was made for at its first enrolment only: a store that
// answers with another id later is refused, and nothing is renamed.
func cmdEnrol(c *cli, args []string) int {
	fs := c.flagSet("galla enrol")
	fp := fs.String("fingerprint", "", "the SHA-256 fingerprint \"galla store init\" printed")
	staff := fs.String("staff", "", "the manager who enrols the counter, with their PIN (GALLA_PIN, or the first line of standard input)")
	ack := fs.Bool("acknowledge", false, "acknowledge the journaled enrolment, as the manager --staff names")
	rest, err := c.parse(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitBadInput
	}
	if *ack {
		if len(rest) != 0 || *fp != "" {
			return c.fail(exitBadInput, "Use galla enrol --acknowledge --staff NAME, with the manager's PIN on standard input.")
		}
		return c.acknowledgeEnrolment(*staff)
	}
	if len(rest) != 2 || *fp == "" {
		return c.fail(exitBadInput, "Use %s.", commands()["enrol"].usage)
	}
	pin, err := api.NormalizeFingerprint(*fp)
	if err != nil {
		return c.fail(exitBadInput, "%s.", err)
	}
	storeURL := strings.TrimRight(rest[0], "/")
	if u, err := url.Parse(storeURL); err != nil || u.Scheme != "https" || u.Host == "" {
		return c.fail(exitFailed, "The store server's address %q must be https://HOST[:PORT].", storeURL)
	}
	if *staff == "" {
		return c.fail(exitBadInput, "Enrolling the counter at a store is a manager's act: give --staff NAME of a manager and their PIN (GALLA_PIN, or the first line of standard input).")
	}
	managerPIN, err := c.managerPIN(bufio.NewReader(c.stdin))
	if err != nil {
		return c.fail(exitBadInput, "%s.", upperFirst(err.Error()))
	}
	// The journal first: a counter enrolled before its first sale has one, so
	// that config.json is never there without it (which reads as a lost
	// journal), and a journal that cannot be opened, or a PIN that is not a
	// manager's, is said before the code is spent.
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	m, code := c.signInManager(ctx, t, *staff, managerPIN, "Enrolling the counter at a store")
	if code != exitOK {
		return code
	}
	was, err := link.ReadEnrolment(ctx, t.j.Shop)
	if err != nil {
		return c.fail(exitCannotWork, "%s.", upperFirst(err.Error()))
	}
	key, err := link.NewKey()
	if err != nil {
		return c.fail(exitCannotWork, "The counter's key cannot be made (%v).", err)
	}
	resp, err := link.Enrol(ctx, storeURL, rest[1], pin, key, nil)
	var ae *api.Error
	switch {
	case errors.As(err, &ae):
		return c.fail(exitFailed, "The store server refused the enrolment: %s.", strings.TrimSuffix(ae.Message, "."))
	case errors.Is(err, link.ErrUnreachable):
		return c.fail(exitFailed, "The store server cannot be reached (%v): check the address and that \"galla store serve\" runs; the code stays valid.", err)
	case err != nil:
		return c.fail(exitFailed, "%s.", strings.TrimSuffix(err.Error(), "."))
	}
	if was != nil && resp.TerminalID != was.TerminalID {
		return c.fail(exitFailed, "The store server at %s answered that this counter is terminal %s, but it is %s since its first enrolment (its documents carry %s): a store may not rename a counter. Nothing was changed; ask that store for a code made for %s.",
			storeURL, resp.TerminalID, was.TerminalID, was.TerminalID, was.TerminalID)
	}
	sec := config.OpenSecrets(c.dataDir, c.keyring)
	cfg, err := config.Load(c.dataDir, func(string) string { return "" }, "", sec)
	if err != nil {
		return c.fail(exitCannotWork, "%v", err)
	}
	// Journaled before anything is kept: an enrolment the journal does not
	// hold is not used.
	rec := link.Enrolment{URL: storeURL, Fingerprint: pin, TerminalID: resp.TerminalID,
		PublicKey: api.PublicKeyHex(key.Public().(ed25519.PublicKey)), Act: link.ActEnrol, By: m.Name, At: t.Now()}
	if was != nil {
		rec.Act = link.ActReEnrol
	}
	ev, err := rec.Event(m.ID, t.Now())
	if err == nil {
		_, err = t.j.Log.Append(ctx, ev)
	}
	if err != nil {
		return c.fail(exitCannotWork, "The enrolment cannot be journaled (%s): it is not used; ask for a new code once the journal is put right.", pos.Sentence(err))
	}
	if err := sec.SetStoreKey(key); err != nil {
		return c.fail(exitCannotWork, "The counter's key cannot be kept (%v): check the system keyring, then ask for a new code.", err)
	}
	if err := sec.Set(config.SecretStoreCredential, ""); err != nil { // a credential of an earlier version is void now
		return c.fail(exitCannotWork, "The counter's old credential cannot be removed (%v): check the system keyring.", err)
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
	fmt.Fprintf(c.stderr, "galla: enrolled by %s and journaled; the counter's key is kept in %s (the store holds only its public half); the window sends the journal's events to the store, and \"galla sync\" does it now.\n", m.Name, sec.Place())
	fmt.Fprintf(c.stderr, "galla: store: %s.\n", rec.Notice())
	return exitOK
}

// acknowledgeEnrolment journals that the manager staff has seen the
// counter's enrolment: the screens stop showing it.
func (c *cli) acknowledgeEnrolment(staff string) int {
	if staff == "" {
		return c.fail(exitBadInput, "Acknowledging the enrolment is a manager's act: give --staff NAME of a manager and their PIN (GALLA_PIN, or the first line of standard input).")
	}
	t, ctx, done, m, code := c.openForManager(staff, "Acknowledging the enrolment")
	if code != exitOK {
		return code
	}
	defer done()
	code, say := acknowledgeEnrolment(ctx, t, m)
	if code != exitOK {
		return c.fail(code, "%s", say)
	}
	fmt.Fprintln(c.stdout, say)
	return exitOK
}

// acknowledgeEnrolment journals the manager m's acknowledgement of the
// counter's enrolment (the command line's and the window's act) and returns
// the exit code and what to say: the failure's sentence, or the line done.
func acknowledgeEnrolment(ctx context.Context, t *terminal, m pos.StaffMember) (int, string) {
	rec, err := link.ReadEnrolment(ctx, t.j.Shop)
	switch {
	case err != nil:
		return exitCannotWork, upperFirst(err.Error()) + "."
	case rec == nil:
		return exitBadInput, "This counter's journal holds no enrolment at a store: there is nothing to acknowledge."
	case rec.AcknowledgedBy != "":
		return exitOK, fmt.Sprintf("the enrolment at %s as %s was acknowledged by %s already", rec.URL, rec.TerminalID, rec.AcknowledgedBy)
	}
	rec.AcknowledgedBy, rec.AcknowledgedAt = m.Name, t.Now()
	ev, err := rec.Event(m.ID, t.Now())
	if err == nil {
		ev.Extra["what"] = "store " + link.ActAcknowledged
		_, err = t.j.Log.Append(ctx, ev)
	}
	if err != nil {
		return exitCannotWork, "The acknowledgement cannot be journaled: " + pos.Sentence(err)
	}
	return exitOK, fmt.Sprintf("the enrolment at %s as %s (%s by %s) is acknowledged by %s", rec.URL, rec.TerminalID, rec.Act, rec.By, m.Name)
}

// signInManager signs name in with pin (journaled, as every sign-in) and
// refuses anyone but a manager: what is the act, for the sentence.
func (c *cli) signInManager(ctx context.Context, t *terminal, name, pin, what string) (pos.StaffMember, int) {
	m, err := t.Crew.SignIn(ctx, name, pin)
	if err != nil {
		return pos.StaffMember{}, c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	if !m.Manager() {
		return pos.StaffMember{}, c.fail(exitBadInput, "%s is not a manager: %s needs a manager's PIN.", m.Name, strings.ToLower(what[:1])+what[1:])
	}
	if m.MustChangePIN {
		return pos.StaffMember{}, c.fail(exitBadInput, "%s's PIN is shorter than a manager's must now be: sign in once in the window to set a new one, or ask another manager for galla staff reset-pin %s.", m.Name, m.Name)
	}
	return m, exitOK
}

// openForManager reads the PIN of manager staff, opens the till and signs
// them in for what, a manager's act. On exitOK the caller calls done, which
// closes the till; otherwise everything is closed and the failure said.
func (c *cli) openForManager(staff, what string) (t *terminal, ctx context.Context, done func(), m pos.StaffMember, code int) {
	pin, err := c.managerPIN(bufio.NewReader(c.stdin))
	if err != nil {
		return nil, nil, nil, m, c.fail(exitBadInput, "%s.", upperFirst(err.Error()))
	}
	if t, err = openTill(c); err != nil {
		return nil, nil, nil, m, c.failOpen(err)
	}
	ctx, cancel := signalContext()
	done = func() { cancel(); t.close() }
	if m, code = c.signInManager(ctx, t, staff, pin, what); code != exitOK {
		done()
		return nil, nil, nil, m, code
	}
	return t, ctx, done, m, exitOK
}

// storeLinkConfig is the link configuration of an enrolled terminal; ok is
// false when it is not enrolled. The link is held (it talks to no store)
// unless the counter's journal names the store config.json names as the one
// a manager accepted (link.Enrolment), and shows an enrolment no manager has
// acknowledged. A terminal enrolled before terminals had keys is given a key
// now, and its link moves it to the key at its first request. The link's
// state file is proven with a key of j's (journal.Journal.FileProofKey), and
// checked against the store answers j records.
func storeLinkConfig(ctx context.Context, c *cli, cfg config.Config, sec *config.Secrets, j *journal.Journal) (link.Config, bool, error) {
	if cfg.Store.URL == "" {
		return link.Config{}, false, nil
	}
	key, err := sec.StoreKey()
	if err != nil {
		return link.Config{}, false, fmt.Errorf("the counter's key at the store cannot be read (%v); check the system keyring", err)
	}
	cred, err := sec.Get(config.SecretStoreCredential)
	if err != nil {
		return link.Config{}, false, fmt.Errorf("the store credential cannot be read (%v); check the system keyring", err)
	}
	lc := link.Config{URL: cfg.Store.URL, Fingerprint: cfg.Store.Fingerprint, TerminalID: cfg.Store.TerminalID,
		StatePath: filepath.Join(c.dataDir, link.StateFile), ProofKey: j.FileProofKey(link.StateFile), Journal: link.Journaled(j.Shop, j.Log)}
	switch {
	case key == nil && cred == "":
		return link.Config{}, false, fmt.Errorf("config.json names the store server %s, but the keyring holds no key for it: enrol the terminal again (galla enrol)", cfg.Store.URL)
	case key == nil:
		// Kept before the store is told, so that a rotation whose answer is
		// lost is done again with the same key.
		if key, err = link.NewKey(); err == nil {
			err = sec.SetStoreKey(key)
		}
		if err != nil {
			return link.Config{}, false, fmt.Errorf("the counter's key at the store cannot be made and kept (%v); check the system keyring", err)
		}
	}
	lc.Key = key
	if cred != "" {
		lc.Credential = cred
		lc.Rotated = func() error { return sec.Set(config.SecretStoreCredential, "") }
	}
	rec, err := link.ReadEnrolment(ctx, j.Shop)
	switch {
	case err != nil:
		return link.Config{}, false, err
	case !rec.Accepts(cfg.Store.URL, cfg.Store.Fingerprint, cfg.Store.TerminalID):
		lc.Hold = "store " + cfg.Store.URL + " not accepted by a manager on this counter: accept it in Settings, or run galla sync --staff NAME"
	default:
		lc.Notice = rec.Notice()
	}
	return lc, true, nil
}

// startStoreLink is the window's link to the store server: nil when the
// terminal is not enrolled. Its sync runs in a goroutine of its own, beside
// the counter's work, until stop; it starts once the journal's startup check
// (checked closed) has passed, and not at all on a damaged journal.
//
// Each round also pulls the store's master data and applies it on the till
// (till is read once checked has closed, after the till is made). A store no
// manager accepted on this counter is held: nothing is sent to it, nothing of
// it applied, and its staff's PINs are not taken.
func startStoreLink(c *cli, cfg config.Config, sec *config.Secrets, j *journal.Journal, checked <-chan struct{}, till func() *pos.Till) (l *link.Link, stop func(), err error) {
	lc, ok, err := storeLinkConfig(context.Background(), c, cfg, sec, j)
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
			// A store no manager accepted waits until one does (Settings).
			for l.Hold() != "" {
				select {
				case <-ctx.Done():
					return
				case <-l.Accepted():
				}
			}
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

// acceptStore is galla sync's first contact with a store the counter's
// journal does not name as accepted (a counter enrolled by an earlier
// version, or config.json naming another store): the manager staff signs in,
// the store must answer as this terminal, and the acceptance is journaled
// naming the manager. The terminal code the journal fixed at the first
// enrolment is never changed here.
func (c *cli) acceptStore(cfg config.Config, sec *config.Secrets, staff string) int {
	if staff == "" {
		return c.fail(exitBadInput, "This counter's journal has not accepted the store %s: its first sync is a manager's act. Give --staff NAME of a manager and their PIN (GALLA_PIN, or the first line of standard input).", cfg.Store.URL)
	}
	t, ctx, done, m, code := c.openForManager(staff, "Accepting a store")
	if code != exitOK {
		return code
	}
	defer done()
	code, say := acceptStore(ctx, c, t, cfg, sec, m)
	if code != exitOK {
		return c.fail(code, "%s", say)
	}
	fmt.Fprintf(c.stderr, "galla: %s\n", say)
	return exitOK
}

// acceptStore asks the store config.json names how it holds this counter and,
// when it answers as this terminal, journals the manager m's acceptance (the
// command line's and the window's act). It returns the exit code and what to
// say: the failure's sentence, or the line done.
func acceptStore(ctx context.Context, c *cli, t *terminal, cfg config.Config, sec *config.Secrets, m pos.StaffMember) (int, string) {
	was, err := link.ReadEnrolment(ctx, t.j.Shop)
	if err != nil {
		return exitCannotWork, upperFirst(err.Error()) + "."
	}
	if was != nil && was.TerminalID != cfg.Store.TerminalID {
		return exitFailed, fmt.Sprintf("config.json names this counter terminal %s at the store %s, but it is %s since its first enrolment: a store may not rename a counter. Nothing was sent; enrol the counter again with a code made for %s.",
			cfg.Store.TerminalID, cfg.Store.URL, was.TerminalID, was.TerminalID)
	}
	lc, _, err := storeLinkConfig(ctx, c, cfg, sec, t.j)
	if err != nil {
		return exitCannotWork, err.Error() + "."
	}
	lc.Hold = ""
	l, err := link.New(lc, t.j.Log)
	if err != nil {
		return exitCannotWork, err.Error()
	}
	if _, err := l.Check(ctx); err != nil {
		var ae *api.Error
		switch {
		case errors.Is(err, link.ErrOtherTerminal):
			return exitFailed, capital(err.Error()) + "."
		case errors.Is(err, link.ErrUnreachable):
			return exitFailed, fmt.Sprintf("The store server at %s cannot be reached: it is not accepted yet; the counter keeps selling.", cfg.Store.URL)
		case errors.As(err, &ae):
			return exitFailed, "The store server refused the counter: " + strings.TrimSuffix(ae.Message, ".") + "."
		}
		return exitFailed, strings.TrimSuffix(err.Error(), ".") + "."
	}
	rec := link.Enrolment{URL: cfg.Store.URL, Fingerprint: cfg.Store.Fingerprint, TerminalID: cfg.Store.TerminalID,
		PublicKey: api.PublicKeyHex(lc.Key.Public().(ed25519.PublicKey)), Act: link.ActFirstContact, By: m.Name, At: t.Now()}
	ev, err := rec.Event(m.ID, t.Now())
	if err == nil {
		_, err = t.j.Log.Append(ctx, ev)
	}
	if err != nil {
		return exitCannotWork, "The store's acceptance cannot be journaled: " + pos.Sentence(err)
	}
	return exitOK, fmt.Sprintf("the store %s is accepted on this counter as terminal %s by %s, journaled.", cfg.Store.URL, cfg.Store.TerminalID, m.Name)
}

// cmdSync is galla sync [--pending] [--staff NAME]: it says what the store
// server does not hold yet and sends it; --pending only says. The first sync
// with a store the counter's journal has not accepted is a manager's act
// (acceptStore).
func cmdSync(c *cli, args []string) int {
	fs := c.flagSet("galla sync")
	only := fs.Bool("pending", false, "only say what is waiting to be sent")
	staff := fs.String("staff", "", "the first sync with a store: the manager who accepts it, with their PIN (GALLA_PIN, or the first line of standard input)")
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
	if cfg.Store.URL == "" {
		return c.fail(exitBadInput, "This terminal is not enrolled at a store server: run galla enrol STORE_URL CODE --fingerprint SHA256 --staff NAME first.")
	}
	key, err := journalKey(c, sec)
	if err != nil {
		return c.fail(exitCannotWork, "%v", err)
	}
	// A sync journals the store's answers it decides offline returns by
	// (link.SettingAnswer): the journal is open for writing, unless the
	// command only says what waits.
	j, err := journal.Open(filepath.Join(c.dataDir, journalFile), journal.Options{ReadOnly: *only, Create: journal.CreateNever, ChainKey: key})
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
	ctx, cancel := signalContext()
	defer cancel()
	lc, _, err := storeLinkConfig(ctx, c, cfg, sec, j)
	if err != nil {
		return c.fail(exitCannotWork, "%s.", err)
	}
	if lc.Hold != "" && !*only {
		// The first contact: a manager accepts the store, with the journal
		// open for writing; then the sync goes on as any other.
		open = false
		_ = j.Close()
		if code := c.acceptStore(cfg, sec, *staff); code != exitOK {
			return code
		}
		if j, err = journal.Open(filepath.Join(c.dataDir, journalFile), journal.Options{Create: journal.CreateNever, ChainKey: key}); err != nil {
			return c.failOpen(err)
		}
		open = true
		if lc, _, err = storeLinkConfig(ctx, c, cfg, sec, j); err != nil {
			return c.fail(exitCannotWork, "%s.", err)
		}
	}
	l, err := link.New(lc, j.Log)
	if err != nil {
		return c.fail(exitCannotWork, "%v", err)
	}
	last, waiting, err := l.Pending(ctx)
	if err != nil {
		return c.fail(exitCannotWork, "The journal cannot be read (%v).", err)
	}
	fmt.Fprintf(c.stdout, "store %s, terminal %s: %s waiting (the journal ends at event %d)\n", lc.URL, lc.TerminalID, events(waiting), last)
	if *only {
		// The counter's status line: a store not accepted, or an enrolment
		// no manager has acknowledged.
		switch {
		case lc.Hold != "":
			fmt.Fprintf(c.stderr, "galla: %s.\n", lc.Hold)
		case lc.Notice != "":
			fmt.Fprintf(c.stderr, "galla: store: %s.\n", lc.Notice)
		}
		return exitOK
	}
	res, err := l.Sync(ctx)
	var ae *api.Error
	switch {
	case errors.Is(err, link.ErrUnreachable):
		return c.fail(exitFailed, "The store server at %s cannot be reached: %s wait in the journal and go up at the next sync; the counter keeps selling.", lc.URL, events(res.Waiting))
	case errors.Is(err, link.ErrOtherTerminal):
		return c.fail(exitFailed, "%s. %s wait in the journal.", capital(err.Error()), capital(events(res.Waiting)))
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
