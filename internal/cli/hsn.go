package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"galla/internal/atomicfile"
	"galla/pos"
	"galla/pos/hsn"
)

// hsnFileName is the HSN list the shop loaded, in the data directory.
const hsnFileName = "hsn.tsv"

// hsnFile keeps the HSN list the shop loaded (pos.HSNFiles) as one file,
// replaced whole (atomicfile).
type hsnFile struct{ path string }

func (f hsnFile) ReadHSN() ([]byte, error) { return os.ReadFile(f.path) }
func (f hsnFile) WriteHSN(b []byte) error  { return atomicfile.Write(f.path, b) }
func (f hsnFile) HSNPath() string          { return f.path }

// hsnFormOnlyLine is the line a catalog import says when some HSN codes were
// checked for their form only: no HSN list loaded, and the built-in master
// does not list them.
func hsnFormOnlyLine(codes []string) string {
	const most = 8
	list := strings.Join(codes, ", ")
	if len(codes) > most {
		list = fmt.Sprintf("%s and %d more", strings.Join(codes[:most], ", "), len(codes)-most)
	}
	what, them := "HSN codes "+list+" were", "them"
	if len(codes) == 1 {
		what, them = "HSN code "+list+" was", "it"
	}
	return fmt.Sprintf("The %s checked for form only: no HSN list is loaded, and Galla's own short list does not have %s. To check codes against the full list, save the GST portal's HSN directory as CSV and load it with galla hsn import FILE.", what, them)
}

// cmdHSN is galla hsn import FILE (the GST portal's HSN directory saved as
// CSV, on a manager's PIN once staff exist), and galla hsn: which HSN list
// the catalog imports and GSTR-1 use.
func cmdHSN(c *cli, args []string) int {
	fs := c.flagSet("galla hsn")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if !(len(rest) == 0 || (len(rest) == 2 && rest[0] == "import")) {
		return c.fail(exitBadInput, "Use %s.", commands()["hsn"].usage)
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	if len(rest) == 0 {
		return hsnStatus(c, ctx, t)
	}
	f, err := os.Open(rest[1])
	if err != nil {
		return c.fail(exitBadInput, "The file %s cannot be opened (%v); check its name.", rest[1], err)
	}
	defer f.Close()
	var pin string
	if has, err := t.Crew.HasStaff(ctx); err != nil {
		return c.fail(exitCannotWork, "%s", pos.Sentence(err))
	} else if has {
		if pin, err = c.managerPIN(bufio.NewReader(c.stdin)); err != nil {
			return c.fail(exitBadInput, "Loading the HSN list changes what catalogs may carry: %v.", err)
		}
	}
	list, err := t.Setup.ImportHSN(ctx, f, pin)
	switch {
	case errors.Is(err, pos.ErrWrongPIN), errors.Is(err, pos.ErrBadPIN), errors.Is(err, pos.ErrTooManyOverrides), errors.Is(err, pos.ErrBadHSNList):
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	case err != nil:
		return c.fail(exitFailed, "The HSN list cannot be loaded: %s", pos.Sentence(err))
	}
	fmt.Fprintf(c.stdout, "%d\t%s\t%s\n", list.Codes, list.SHA256, filepath.Join(c.dataDir, hsnFileName))
	fmt.Fprintf(c.stderr, "galla: the HSN list of %s is loaded: %d codes; catalog imports and GSTR-1 use it.\n", filepath.Base(rest[1]), list.Codes)
	return exitOK
}

// hsnStatus says which HSN list is in use.
func hsnStatus(c *cli, ctx context.Context, t *terminal) int {
	m, err := t.Setup.HSNMaster(ctx)
	if err != nil {
		return c.fail(exitCannotWork, "%s", pos.Sentence(err))
	}
	if m == nil {
		fmt.Fprintf(c.stdout, "no HSN list loaded: Galla's own short list of %d codes; other codes are checked for their form only (galla hsn import FILE loads the GST portal's HSN directory saved as CSV)\n", hsn.Builtin().Len())
		return exitOK
	}
	list, _, err := pos.LoadedHSN(ctx, t.j.Port())
	if err != nil {
		return c.fail(exitCannotWork, "%s", pos.Sentence(err))
	}
	fmt.Fprintf(c.stdout, "the HSN list loaded: %d codes, SHA-256 %s, %s\n", list.Codes, list.SHA256, filepath.Join(c.dataDir, hsnFileName))
	return exitOK
}
