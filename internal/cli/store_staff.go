package cli

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"galla/pos"
	"galla/store"
)

// storeStaffUsage is the usage of galla store staff.
const storeStaffUsage = "store staff list --db URL | store staff add NAME --role cashier|manager [--discount PAISE --refund PAISE] --db URL (a store manager's PIN in GALLA_PIN or on stdin, then the new PIN twice) | store staff disable|enable NAME --db URL (a store manager's PIN) | store staff reset-pin NAME --db URL (a store manager's PIN, then the new PIN twice)"

// cmdStoreStaff is galla store staff list|add|disable|enable|reset-pin: the
// store's staff, who sign in at every counter once it has synced (ADR 0007).
// A PIN follows pos's rules (4 to 8 digits, a manager's 6 to 8), typed twice
// on standard input. Every change is made on a store manager's authority:
// their PIN (GALLA_PIN, or the first line of standard input) names them.
func cmdStoreStaff(c *cli, args []string) int {
	usage := "Use galla " + storeStaffUsage + "."
	if len(args) == 0 {
		return c.fail(exitBadInput, "%s", usage)
	}
	verb := args[0]
	switch verb {
	case "list", "add", "disable", "enable", "reset-pin":
	default:
		return c.fail(exitBadInput, "%q is not a store staff command. %s", verb, usage)
	}
	var roleText *string
	var discount, refund *int64
	ctx, done, d, rest, code := openStore(c, "staff "+verb, args[1:], func(fs *flag.FlagSet) {
		if verb == "add" {
			roleText = fs.String("role", "", "cashier or manager")
			discount = fs.Int64("discount", -1, "a cashier's own limit: the largest line discount they give alone, in paise")
			refund = fs.Int64("refund", -1, "a cashier's own limit: the largest refund they give alone, in paise")
		}
	})
	if code >= 0 {
		return code
	}
	defer done()
	if verb == "list" {
		if len(rest) != 0 {
			return c.fail(exitBadInput, "%s", usage)
		}
		list, err := d.Staff.ListStaff(ctx)
		if err != nil {
			return storeFail(c, err)
		}
		for _, s := range list {
			status := "active"
			if s.Disabled {
				status = "disabled"
			}
			lim := ""
			if s.Limits != nil {
				lim = fmt.Sprintf("\tdiscount %s, refund %s", s.Limits.Discount, s.Limits.Refund)
			}
			fmt.Fprintf(c.stdout, "%s\t%s\t%s\t%s\tversion %d by %s at %s%s\n", s.ID, s.Name, s.Role, status, s.Version, s.UpdatedBy,
				s.UpdatedAt.Local().Format(time.DateTime), lim)
		}
		if len(list) == 0 {
			fmt.Fprintln(c.stderr, "galla: the store has no staff of its own yet: add them with galla store staff add NAME --role cashier --db URL, with a store manager's PIN.")
		}
		return exitOK
	}
	name := strings.Join(rest, " ")
	if name == "" {
		return c.fail(exitBadInput, "Name the member. %s", usage)
	}
	in := bufio.NewReader(c.stdin)
	who, code := signInStoreManager(c, ctx, d, in)
	if code >= 0 {
		return code
	}
	var pin string
	if verb == "add" || verb == "reset-pin" {
		var err error
		if pin, err = twicePIN(in); err != nil {
			return c.fail(exitBadInput, "%s.", capital(err.Error()))
		}
	}
	var m store.StaffMember
	var err error
	switch verb {
	case "add":
		role, rerr := pos.ParseRole(*roleText)
		if rerr != nil {
			return c.fail(exitBadInput, "Give the role with --role cashier or --role manager.")
		}
		var limits *pos.StaffLimits
		switch {
		case *discount < 0 && *refund < 0:
		case *discount < 0 || *refund < 0:
			return c.fail(exitBadInput, "Give both limits in paise (--discount PAISE --refund PAISE), or neither for the shop's.")
		default:
			limits = &pos.StaffLimits{Discount: pos.Paise(*discount), Refund: pos.Paise(*refund)}
		}
		m, err = d.Staff.AddStaff(ctx, name, role, pin, limits, who)
	case "reset-pin":
		m, err = d.Staff.ResetStaffPIN(ctx, name, pin, who)
	default:
		m, err = d.Staff.SetStaffDisabled(ctx, name, verb == "disable", who)
	}
	switch {
	case errors.Is(err, store.ErrUnavailable):
		return storeFail(c, err)
	case errors.Is(err, pos.ErrUnknownStaff):
		return c.fail(exitBadInput, "The store has no member of staff called %q; see galla store staff list --db URL.", name)
	case errors.Is(err, pos.ErrStaffExists):
		return c.fail(exitBadInput, "The store has a member of staff called %q already: choose another name, or reset their PIN.", name)
	case errors.Is(err, pos.ErrShortManagerPIN):
		return c.fail(exitBadInput, "A manager's PIN is 6 to 8 digits: nothing was changed; type a longer PIN.")
	case errors.Is(err, pos.ErrBadPIN):
		return c.fail(exitBadInput, "A PIN is 4 to 8 digits: nothing was changed; type it again.")
	case errors.Is(err, pos.ErrBadStaffName):
		return c.fail(exitBadInput, "A staff name is 1 to 50 letters: nothing was changed.")
	case err != nil:
		return c.fail(exitBadInput, "Nothing was changed: %s.", strings.TrimPrefix(err.Error(), "store: "))
	}
	what := map[string]string{"add": "added", "reset-pin": "has a new PIN", "disable": "is disabled", "enable": "is enabled again"}[verb]
	fmt.Fprintf(c.stdout, "%s\t%s\t%s\tversion %d\n", m.ID, m.Name, m.Role, m.Version)
	fmt.Fprintf(c.stderr, "galla: %s %s at the store (by %s); every counter applies it at its next sync.\n", m.Name, what, who)
	return exitOK
}

// twicePIN reads a new PIN and its confirmation from in (standard input, past
// the manager's PIN); the error is a sentence to print.
func twicePIN(in *bufio.Reader) (string, error) {
	sc := bufio.NewScanner(in)
	var lines []string
	for len(lines) < 2 && sc.Scan() {
		lines = append(lines, strings.TrimSpace(sc.Text()))
	}
	switch {
	case len(lines) < 2 || lines[0] == "":
		return "", errors.New("type the new PIN on the standard input twice, each on a line of its own: nothing was changed")
	case lines[1] != lines[0]:
		return "", errors.New("the two PINs differ: nothing was changed; type the same PIN twice")
	}
	return lines[0], nil
}
