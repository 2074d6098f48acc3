package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"galla/pos"
)

// cmdShift is galla shift open --float PAISE | shift cash-in|cash-out|drop PAISE
// --reason TEXT | shift close --counted PAISE [--notes 500x4,100x3,...] | shift
// list [--day YYYY-MM-DD] | shift report [ID]. A manager's PIN comes on standard
// input (or GALLA_PIN) for all but list and report.
func cmdShift(c *cli, args []string) int {
	fs := c.flagSet("galla shift")
	float := fs.Int64("float", -1, "open: the counted opening float in paise")
	reason := fs.String("reason", "", "cash-in, cash-out, drop: why the cash moved")
	counted := fs.Int64("counted", -1, "close: the cash counted in the drawer, in paise")
	notes := fs.String("notes", "", "close: the count by denomination, e.g. 500x4,100x3,10x7")
	dayText := fs.String("day", "", "list: the business day, YYYY-MM-DD (default all)")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	usage := "Use " + commands()["shift"].usage + "."
	if len(rest) == 0 {
		return c.fail(exitBadInput, "%s", usage)
	}
	verb := rest[0]
	var amount pos.Paise
	var count pos.CashCount
	switch verb {
	case "open":
		if len(rest) != 1 || *float < 0 {
			return c.fail(exitBadInput, "Open a shift with the counted float: galla shift open --float PAISE (0 for an empty drawer).")
		}
	case "cash-in", "cash-out", "drop":
		if len(rest) != 2 {
			return c.fail(exitBadInput, "Give the amount in paise: galla shift %s PAISE --reason TEXT.", verb)
		}
		n, err := strconv.ParseInt(rest[1], 10, 64)
		if err != nil || n <= 0 {
			return c.fail(exitBadInput, "The amount %q is not a number of paise above zero; type it again (₹50 is 5000).", rest[1])
		}
		amount = pos.Paise(n)
		if strings.TrimSpace(*reason) == "" {
			return c.fail(exitBadInput, "Say why the cash moved with --reason TEXT.")
		}
	case "close":
		if len(rest) != 1 || (*counted < 0 && *notes == "") {
			return c.fail(exitBadInput, "Close the shift with the cash counted: galla shift close --counted PAISE [--notes 500x4,100x3,...].")
		}
		if *notes != "" {
			if count, err = pos.ParseCount(*notes); err != nil {
				return c.fail(exitBadInput, "%s", pos.Sentence(err))
			}
			if *counted >= 0 && count.Total() != pos.Paise(*counted) {
				return c.fail(exitBadInput, "The notes add up to %s but --counted says %s; count again.", count.Total(), pos.Paise(*counted))
			}
		} else {
			count.Paise = pos.Paise(*counted)
		}
	case "list", "report":
		if len(rest) > 2 || (verb == "list" && len(rest) > 1) {
			return c.fail(exitBadInput, "%s", usage)
		}
	default:
		return c.fail(exitBadInput, "%s", usage)
	}
	if *dayText != "" {
		if _, err := c.dayFlag(*dayText); err != nil {
			return c.fail(exitBadInput, "%v; type it again.", err)
		}
	}
	var pin string
	if verb != "list" && verb != "report" {
		if pin, err = c.managerPIN(bufio.NewReader(c.stdin)); err != nil {
			return c.fail(exitBadInput, "%v.", err)
		}
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx := context.Background()
	switch verb {
	case "list":
		list, err := t.Drawer.Shifts(ctx, *dayText)
		if err != nil {
			return c.fail(exitCannotWork, "%s", pos.Sentence(err))
		}
		for _, s := range list {
			state := "open"
			if !s.Open() {
				state = fmt.Sprintf("closed\tcounted %s\tvariance %s", s.Counted, s.Variance)
			}
			fmt.Fprintf(c.stdout, "%s\t%s\t%s\tfloat %s\t%s\n", s.ID, s.Day, s.Opened.Format("2006-01-02 15:04"), s.Float, state)
		}
		return exitOK
	case "report":
		id := ""
		if len(rest) == 2 {
			id = rest[1]
		}
		return c.shiftReport(ctx, t, id)
	}
	m, err := t.Crew.ManagerByPIN(ctx, pin)
	if err != nil {
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	switch verb {
	case "open":
		s, err := t.Drawer.OpenShift(ctx, m.ID, pos.Paise(*float))
		if err != nil {
			return c.fail(shiftCode(err), "%s", pos.Sentence(err))
		}
		fmt.Fprintf(c.stdout, "%s\topened\tfloat %s\n", s.ID, s.Float)
	case "cash-in", "cash-out", "drop":
		kind, _ := pos.ParseCashMove(verb)
		s, err := t.Drawer.MoveCash(ctx, m.ID, kind, amount, *reason)
		if err != nil {
			return c.fail(shiftCode(err), "%s", pos.Sentence(err))
		}
		fmt.Fprintf(c.stdout, "%s\t%s\t%s\n", s.ID, kind, amount)
	case "close":
		rep, err := t.Drawer.CloseShift(ctx, m.ID, count)
		if err != nil {
			return c.fail(shiftCode(err), "%s", pos.Sentence(err))
		}
		if err := rep.WriteText(c.stdout); err != nil {
			return c.fail(exitFailed, "The report cannot be written: %v.", err)
		}
	}
	return exitOK
}

// shiftCode is the exit code of a shift command's error: bad input for what the
// manager must correct, cannot-work when the journal failed.
func shiftCode(err error) int {
	for _, e := range []error{pos.ErrShiftOpen, pos.ErrNoShift, pos.ErrBadCashMove, pos.ErrBadCount} {
		if errors.Is(err, e) {
			return exitBadInput
		}
	}
	return exitCannotWork
}

// shiftReport writes the X report of shift id ("" the open or last one).
func (c *cli) shiftReport(ctx context.Context, t *terminal, id string) int {
	rep, err := t.Drawer.ShiftReport(ctx, id)
	if err != nil {
		code := exitCannotWork
		if errors.Is(err, pos.ErrShiftNotFound) {
			code = exitBadInput
		}
		return c.fail(code, "%s", pos.Sentence(err))
	}
	if err := rep.WriteText(c.stdout); err != nil {
		return c.fail(exitFailed, "The report cannot be written: %v.", err)
	}
	return exitOK
}
