package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"galla/internal/config"
	"galla/pos"
	"galla/pos/journal"
)

// cmdJournal is galla journal verify | journal salvage DAMAGED_FILE [--backup FILE]
// --out NEW_FILE | journal restore BACKUP | journal seal-backups (DESIGN.md
// section 4). Salvage, restore and seal-backups are a manager's: they take a
// manager's PIN (GALLA_PIN or the first line of standard input), checked
// against the staff of the journal they put together, in place or seal the
// backups of, and the journal records who did it (journal.recovered,
// journal.backups_sealed).
func cmdJournal(c *cli, args []string) int {
	fs := c.flagSet("galla journal")
	backup := fs.String("backup", "", "salvage: a backup whose events are taken too")
	out := fs.String("out", "", "salvage: the new journal file to write")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	usage := "Use galla journal verify, galla journal salvage DAMAGED_FILE [--backup FILE] --out NEW_FILE, galla journal restore BACKUP, or galla journal seal-backups."
	if len(rest) == 0 {
		return c.fail(exitBadInput, "%s", usage)
	}
	ctx, cancel := signalContext()
	defer cancel()
	path := filepath.Join(c.dataDir, journalFile)
	key, err := journalKey(c, nil)
	if err != nil {
		return c.failOpen(err)
	}
	opts := journal.Options{ChainKey: key}
	if rest[0] == "find" {
		return journalFind(c, rest[1:])
	}
	switch {
	case rest[0] == "verify" && len(rest) == 1:
		rep, err := journal.VerifyFileWith(ctx, path, opts)
		if err != nil {
			return c.fail(journalCode(err), "%s", pos.Sentence(err))
		}
		fmt.Fprintf(c.stdout, "%s\t%d events\treceipt %d\tZ %d\tverified\n", rep.Path, rep.Events, rep.Numbers.Receipt, rep.Numbers.Z)
		return exitOK
	case rest[0] == "salvage" && len(rest) == 2:
		if *out == "" {
			return c.fail(exitBadInput, "Say where the salvaged journal goes with --out NEW_FILE (a file that does not exist yet).")
		}
		if opts.Authorise, err = c.journalManager(); err != nil {
			return c.fail(exitBadInput, "%v.", err)
		}
		rep, err := journal.SalvageWith(ctx, rest[1], *backup, *out, opts)
		if err != nil {
			return c.fail(journalCode(err), "%s", pos.Sentence(err))
		}
		fmt.Fprintf(c.stdout, "%s\t%d events recovered (%d from the damaged file, %d only from the backup)\treceipt %d\tZ %d\n",
			rep.Out, rep.Recovered, rep.FromDamaged, rep.FromBackup, rep.Numbers.Receipt, rep.Numbers.Z)
		for _, l := range rep.Lost {
			fmt.Fprintln(c.stdout, "lost\t"+l)
		}
		for _, o := range rep.Unresolved {
			fmt.Fprintln(c.stdout, "open\t"+o)
		}
		fmt.Fprintf(c.stderr, "galla: The salvaged journal is %s. Close Galla and put it in place with \"galla journal restore %s\" (a manager's PIN; the damaged %s is kept beside it), then run \"galla reconcile\" to ask the payment service about the %d open orders.\n",
			rep.Out, rep.Out, path, len(rep.Unresolved))
		return exitOK
	case rest[0] == "seal-backups" && len(rest) == 1:
		authorise, err := c.journalManager()
		if err != nil {
			return c.fail(exitBadInput, "%v.", err)
		}
		return c.sealBackups(ctx, authorise)
	case rest[0] == "restore" && len(rest) == 2:
		if opts.Authorise, err = c.journalManager(); err != nil {
			return c.fail(exitBadInput, "%v.", err)
		}
		if err := journal.RestoreWith(ctx, rest[1], path, opts); err != nil {
			return c.fail(journalCode(err), "%s", pos.Sentence(err))
		}
		fmt.Fprintf(c.stderr, "galla: %s is restored from %s; the file it replaced is kept beside it (%s.damaged-…). Sales after the backup are not in it: \"galla journal salvage\" brings them back from that file. Run \"galla reconcile\" next.\n",
			path, rest[1], journalFile)
		return exitOK
	}
	return c.fail(exitBadInput, "%s", usage)
}

// journalCode is the exit code of a journal command's error: bad input for a file
// named that is not there (or, for --out, is there already) and for a PIN that
// is no manager's, 5 for a journal that cannot be worked with.
func journalCode(err error) int {
	if (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrExist)) && !errors.Is(err, journal.ErrMissing) {
		return exitBadInput
	}
	for _, pin := range []error{pos.ErrWrongPIN, pos.ErrBadPIN, pos.ErrLocked, pos.ErrNoManager, pos.ErrNotManager} {
		if errors.Is(err, pin) {
			return exitBadInput
		}
	}
	return exitCannotWork
}

// journalManager reads a manager's PIN (GALLA_PIN or the first line of
// standard input) and returns the check journal.Options.Authorise runs: the
// PIN must be a manager's of the journal's staff, with this terminal's peppers;
// it names the manager ("001 Asha") for journal.recovered.
func (c *cli) journalManager() (func(ctx context.Context, staff pos.StaffStore) (string, error), error) {
	pin, err := c.managerPIN(bufio.NewReader(c.stdin))
	if err != nil {
		return nil, err
	}
	sec := config.OpenSecrets(c.dataDir, c.keyring)
	pepper, err := sec.Key(config.SecretPINPepper, 32)
	if err != nil {
		return nil, fmt.Errorf("the PIN key cannot be read or made (%v); check the system keyring", err)
	}
	storePep, err := storePepper(sec)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, staff pos.StaffStore) (string, error) {
		m, err := pos.NewRoster(staff).WithPepper(pepper).WithStorePepper(storePep).AuthoriseManager(ctx, pin, time.Now())
		if err != nil {
			return "", err
		}
		return m.ID + " " + m.Name, nil
	}, nil
}

// journalFind is galla journal find IMEI: the sales that carried the IMEI,
// newest first, one a line (order id, time, state, amount, receipt number).
func journalFind(c *cli, args []string) int {
	if len(args) != 1 {
		return c.fail(exitBadInput, "Give one IMEI: galla journal find IMEI.")
	}
	imei := strings.TrimSpace(args[0])
	if err := pos.CheckIMEI(imei); err != nil {
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	list, err := t.IMEIs.FindIMEI(context.Background(), imei)
	if err != nil {
		return c.fail(exitCannotWork, "%s", pos.Sentence(err))
	}
	if len(list) == 0 {
		return c.fail(exitFailed, "No sale in the journal carries this IMEI.")
	}
	for _, o := range list {
		fmt.Fprintf(c.stdout, "%s\t%s\t%s\t%s\treceipt %s\n", o.OrderID, o.At.Format("2006-01-02 15:04"), o.State, o.Amount, o.ReceiptNo)
	}
	return exitOK
}

// sealBackups is galla journal seal-backups: the backups made before the
// customers' details were sealed, which hold them in clear, are rewritten
// with them sealed (journal.Journal.SealBackups), on the authority of the
// manager whose PIN authorise checks, journaled naming them. Each sealed
// backup is named on standard output; one that does not verify is left as
// it was and named in the sentence.
func (c *cli) sealBackups(ctx context.Context, authorise func(ctx context.Context, staff pos.StaffStore) (string, error)) int {
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	who, err := authorise(ctx, t.j.Staff)
	if err != nil {
		return c.fail(journalCode(err), "%s", pos.Sentence(err))
	}
	id, name, _ := strings.Cut(who, " ")
	sealed, err := t.j.SealBackups(ctx, id)
	for _, n := range sealed {
		fmt.Fprintln(c.stdout, "sealed\t"+n)
	}
	if err != nil {
		return c.fail(exitCannotWork, "Not every backup could be sealed (%v); those named above are sealed, the others keep the customers' details in clear.", err)
	}
	if len(sealed) == 0 {
		fmt.Fprintln(c.stderr, "galla: no backup holds the customers' details in clear.")
		return exitOK
	}
	what := fmt.Sprintf("%d backups", len(sealed))
	if len(sealed) == 1 {
		what = "1 backup"
	}
	fmt.Fprintf(c.stderr, "galla: %s rewritten with the customers' details sealed, by %s, journaled.\n", what, name)
	return exitOK
}
