package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"galla/pos"
	"galla/pos/gstr"
)

// cmdExport is galla export gstr1 --month YYYY-MM [--gstin GSTIN] [--out FILE]
// (the month's GSTR-1 JSON for the GST portal's offline tool, under the GSTIN
// in force then, or the one --gstin names when the shop's GSTIN changed in the
// period; --quarter YYYY-Qn [--iff-filed]
// the quarter's for a QRMP filer, --iff YYYY-MM the IFF of a quarter's first or
// second month) and galla export csv --from DAY
// [--to DAY] [--out FILE] (one row per line sold or returned, for the
// accountant). Without --out the export goes to standard output; with it, to
// FILE whole or not at all.
func cmdExport(c *cli, args []string) int {
	fs := c.flagSet("galla export")
	monthText := fs.String("month", "", "gstr1: the month, YYYY-MM")
	quarterText := fs.String("quarter", "", "gstr1: the quarter of a quarterly (QRMP) filer, YYYY-Qn (Q1 January–March)")
	iffText := fs.String("iff", "", "gstr1: the IFF (B2B invoices and credit notes) of a quarter's first or second month, YYYY-MM")
	iffFiled := fs.Bool("iff-filed", false, "gstr1 --quarter: the first two months' B2B documents went in their IFF; leave them out of b2b and cdnr")
	gstin := fs.String("gstin", "", "gstr1: the GSTIN to file for (default: the shop's GSTIN in the period; needed when it changed in the period)")
	fromText := fs.String("from", "", "csv: the first day, YYYY-MM-DD")
	toText := fs.String("to", "", "csv: the last day, YYYY-MM-DD (default today)")
	out := fs.String("out", "", "write the export to this file instead of standard output")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	usage := "Use " + commands()["export"].usage + "."
	if len(rest) != 1 {
		return c.fail(exitBadInput, "%s", usage)
	}
	var write func(ctx context.Context, t *terminal, w io.Writer) (string, error)
	switch rest[0] {
	case "gstr1":
		if *fromText != "" || *toText != "" {
			return c.fail(exitBadInput, "galla export gstr1 takes a --month, not --from or --to.")
		}
		given := 0
		for _, s := range []string{*monthText, *quarterText, *iffText} {
			if s != "" {
				given++
			}
		}
		if given != 1 {
			return c.fail(exitBadInput, "Give one period: --month YYYY-MM (for example --month %s), --quarter YYYY-Qn for a quarterly filer, or --iff YYYY-MM.", time.Now().Format("2006-01"))
		}
		if *iffFiled && *quarterText == "" {
			return c.fail(exitBadInput, "--iff-filed goes with --quarter.")
		}
		var build func(ctx context.Context, t *terminal) (*gstr.Return, error)
		var name string
		switch {
		case *quarterText != "":
			q, err := gstr.ParseQuarter(*quarterText)
			if err != nil {
				return c.fail(exitBadInput, "The quarter %q is not YYYY-Qn (Q1 January–March to Q4 October–December); type it again.", *quarterText)
			}
			name = "The GSTR-1 of " + q.String()
			build = func(ctx context.Context, t *terminal) (*gstr.Return, error) {
				return t.Documents.GSTR1Period(ctx, q, *gstin, *iffFiled)
			}
		default:
			text := *monthText + *iffText
			month, err := gstr.ParseMonth(text)
			if err != nil {
				return c.fail(exitBadInput, "The month %q is not YYYY-MM (a month from 01 to 12); type it again.", text)
			}
			name = "The GSTR-1 of " + month.String()
			build = func(ctx context.Context, t *terminal) (*gstr.Return, error) {
				return t.Documents.GSTR1Period(ctx, gstr.MonthPeriod(month), *gstin, false)
			}
			if *iffText != "" {
				name = "The IFF of " + month.String()
				build = func(ctx context.Context, t *terminal) (*gstr.Return, error) {
					return t.Documents.IFF(ctx, month, *gstin)
				}
			}
		}
		write = func(ctx context.Context, t *terminal, w io.Writer) (string, error) {
			r, err := build(ctx, t)
			if err != nil {
				return "", err
			}
			b, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				return "", fmt.Errorf("gstr1: %w", err)
			}
			_, err = w.Write(append(b, '\n'))
			if other := pos.OtherDocuments(r); other != "" {
				fmt.Fprintf(c.stderr, "galla: %s\n", other)
			}
			if short := pos.ShortHSN(r); short != "" {
				fmt.Fprintf(c.stderr, "galla: %s\n", short)
			}
			return fmt.Sprintf("%s for GSTIN %s", name, r.GSTIN), err
		}
	case "csv":
		if *monthText != "" || *quarterText != "" || *iffText != "" || *iffFiled || *gstin != "" {
			return c.fail(exitBadInput, "galla export csv takes --from and --to, not --month or --gstin: its rows name the GSTIN of each document.")
		}
		if *fromText == "" {
			return c.fail(exitBadInput, "Give the first day of the export with --from YYYY-MM-DD (and the last with --to).")
		}
		from, err := exportDay(*fromText)
		if err != nil {
			return c.fail(exitBadInput, "%v; type it again.", err)
		}
		to := time.Now()
		if *toText != "" {
			if to, err = exportDay(*toText); err != nil {
				return c.fail(exitBadInput, "%v; type it again.", err)
			}
		}
		if pos.ToDay(from) > pos.ToDay(to) {
			return c.fail(exitBadInput, "The first day (%s) is after the last day (%s); give --from before --to.", pos.ToDay(from), pos.ToDay(to))
		}
		write = func(ctx context.Context, t *terminal, w io.Writer) (string, error) {
			err := t.Documents.WriteLinesCSV(ctx, from, to, w)
			return fmt.Sprintf("The lines sold and returned from %s to %s", pos.ToDay(from), pos.ToDay(to)), err
		}
	default:
		return c.fail(exitBadInput, "%q is not an export; %s", rest[0], usage)
	}

	// The file is checked before the journal is read, and written whole or not
	// at all: a temporary file beside it, renamed over it once complete.
	var tmp *os.File
	if *out != "" {
		if fi, err := os.Stat(*out); err == nil && fi.IsDir() {
			return c.fail(exitBadInput, "%s is a folder; give --out a file name.", *out)
		}
		tmp, err = os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+".*")
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return c.fail(exitBadInput, "The export cannot be written to %s (%v); choose another --out.", *out, err)
		}
		defer func() {
			if tmp != nil {
				_ = tmp.Close()
				_ = os.Remove(tmp.Name())
			}
		}()
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	var b bytes.Buffer
	what, err := write(ctx, t, &b)
	if err != nil {
		var s pos.Sentencer
		if errors.As(err, &s) {
			return c.fail(exitBadInput, "%s", s.Sentence())
		}
		return c.fail(exitCannotWork, "The export could not be made (%v); nothing was written. Run \"galla journal verify\" and show this to the manager.", err)
	}
	if tmp == nil {
		if _, err := c.stdout.Write(b.Bytes()); err != nil {
			return c.fail(exitFailed, "The export could not be written to standard output (%v).", err)
		}
		return exitOK
	}
	if err := writeWhole(tmp, b.Bytes(), *out); err != nil {
		return c.fail(exitFailed, "The export could not be written to %s (%v); nothing in the journal changed: free some space or choose another --out, and export again.", *out, err)
	}
	tmp = nil
	fmt.Fprintf(c.stderr, "galla: %s is written to %s.\n", what, *out)
	return exitOK
}

// exportDay reads a day written YYYY-MM-DD, in local time.
func exportDay(s string) (time.Time, error) {
	d, err := time.ParseInLocation(pos.DayLayout, s, time.Local)
	if err != nil {
		return time.Time{}, fmt.Errorf("the day %q is not YYYY-MM-DD", s)
	}
	return d, nil
}

// writeWhole writes b to the temporary file f, syncs and closes it, and renames
// it to path; on an error f is left for the caller to remove.
func writeWhole(f *os.File, b []byte, path string) error {
	if _, err := f.Write(b); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Chmod(0o600); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
