package cli

import (
	"bufio"
	"flag"
	"fmt"

	"galla/pos"
)

// cmdStoreShop is galla store shop set --name N --address A --state CODE
// [--gstin GSTIN] [--composition] [--rates SCHEDULE] [--turnover CRORE]
// --db URL: the shop's details published to every counter, as the catalog
// is, on a store manager's PIN (GALLA_PIN or standard input). They are
// checked by the counter's rules (pos.ShopDetails.Apply); the rates and
// turnover not given are kept from the store's details held. From then on a
// counter's own galla shop set is refused (pos.ErrShopByStore): the store's
// details win.
func cmdStoreShop(c *cli, args []string) int {
	if len(args) == 0 || args[0] != "set" {
		return c.fail(exitBadInput, "Use galla store shop set --name N --address A --state CODE [--gstin GSTIN] [--composition] [--rates SCHEDULE] [--turnover CRORE] --db URL.")
	}
	var d pos.ShopDetails
	ctx, done, db, rest, code := openStore(c, "shop set", args[1:], func(fs *flag.FlagSet) {
		fs.StringVar(&d.Name, "name", "", "the shop's name")
		fs.StringVar(&d.Address, "address", "", "the address, lines separated by commas")
		fs.StringVar(&d.State, "state", "", "the GST state code, e.g. 27 for Maharashtra")
		fs.StringVar(&d.GSTIN, "gstin", "", "the shop's GSTIN (without it sales print a RECEIPT, not a tax invoice)")
		fs.BoolVar(&d.Composition, "composition", false, "the shop is under the composition scheme: bills of supply")
		fs.StringVar(&d.Rates, "rates", "", `the shop's GST rate schedule, e.g. "0,5,18" (empty: the one the store holds)`)
		fs.StringVar(&d.Turnover, "turnover", "", "the previous financial year's aggregate turnover in crore of rupees (empty: the one the store holds)")
	})
	if code >= 0 {
		return code
	}
	defer done()
	if len(rest) != 0 {
		return c.fail(exitBadInput, "galla store shop set takes no other words than its options: quote an address with spaces, --address \"12 MG Road, Pune\".")
	}
	cur, _, err := db.Master.Shop(ctx)
	if err != nil {
		return storeFail(c, err)
	}
	shop, err := d.Apply(cur)
	if err != nil {
		return c.fail(exitBadInput, "The shop's details were not published; the counters keep theirs. %s", pos.Sentence(err))
	}
	by, code := signInStoreManager(c, ctx, db, bufio.NewReader(c.stdin))
	if code >= 0 {
		return code
	}
	v, err := db.Master.PublishShop(ctx, shop, by)
	if err != nil {
		return storeFail(c, err)
	}
	fmt.Fprintf(c.stdout, "%s\t%s\t%s\n", shop.Name, shop.State, shop.GSTIN)
	fmt.Fprintf(c.stderr, "galla: published the shop's details as version %d: every counter takes them at its next sync, and from then on they are changed here only (a counter's own galla shop set is refused). %s\n", v, pos.DocumentsNote(shop))
	return exitOK
}
