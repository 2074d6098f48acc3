package cli

import (
	"bufio"
	"fmt"

	"galla/pos"
)

// cmdShop is galla shop set --name N --address A --state CODE [--gstin GSTIN]
// [--composition] [--rates SCHEDULE] [--turnover CRORE]: the shop's details on its documents, on a manager's PIN once
// staff exist (GALLA_PIN or standard input).
func cmdShop(c *cli, args []string) int {
	fs := c.flagSet("galla shop")
	var d pos.ShopDetails
	fs.StringVar(&d.Name, "name", "", "the shop's name")
	fs.StringVar(&d.Address, "address", "", "the address, lines separated by commas")
	fs.StringVar(&d.State, "state", "", "the GST state code, e.g. 27 for Maharashtra")
	fs.StringVar(&d.GSTIN, "gstin", "", "the shop's GSTIN (without it sales print a RECEIPT, not a tax invoice)")
	fs.BoolVar(&d.Composition, "composition", false, "the shop is under the composition scheme: bills of supply")
	fs.StringVar(&d.Rates, "rates", "", `the shop's GST rate schedule, e.g. "0,5,18" or "0,5,18,28; from 2026-02-01: 0,5,18,40" ("all": every rate in force); a catalog row outside it is refused`)
	fs.StringVar(&d.Turnover, "turnover", "", `the previous financial year's aggregate turnover in crore of rupees, e.g. 12.5 (above 5: six-digit HSN codes)`)
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 1 || rest[0] != "set" {
		return c.fail(exitBadInput, "Use %s.", commands()["shop"].usage)
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	pin := ""
	if has, err := t.Crew.HasStaff(ctx); err != nil {
		return c.fail(exitCannotWork, "%s", pos.Sentence(err))
	} else if has {
		if pin, err = c.managerPIN(bufio.NewReader(c.stdin)); err != nil {
			return c.fail(exitBadInput, "%v.", err)
		}
	}
	shop, note, err := t.Setup.SetShop(ctx, d, pin)
	if err != nil {
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	fmt.Fprintf(c.stdout, "%s\t%s\t%s\n", shop.Name, shop.State, shop.GSTIN)
	fmt.Fprintln(c.stderr, "galla: "+note)
	return exitOK
}
