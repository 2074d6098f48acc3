package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"galla/pos"
)

// stockUsage is galla stock's usage line.
const stockUsage = "galla stock receive --supplier NAME --invoice NO --date YYYY-MM-DD --items SKU:QTY[@COST_PAISE],... [--imei IMEI[/IMEI2],...] | stock list [--sku SKU] [--format text|csv|json] | stock count --sku SKU (--counted N | --imei IMEI,...) [--apply --reason TEXT] | stock send --to COUNTER --items SKU:QTY,... [--imei IMEI,...] | stock arrive --from COUNTER --transfer ID --items SKU:QTY,... [--imei IMEI,...] | stock ageing [--format text|csv|json] | stock slow [--days N] [--format text|csv|json] | stock moves [--day YYYY-MM-DD | --from YYYY-MM-DD [--to YYYY-MM-DD] | --shift ID] [--format text|csv|json] | stock history IMEI | stock allow IMEI,... | stock damaged IMEI [--reason TEXT] (receive, count --apply, send, arrive, allow and damaged take a manager's PIN on standard input or in GALLA_PIN)"

// cmdStock is galla stock: goods received into stock, the stock on hand, a
// manager allowing a unit not in stock to be sold, and a unit set aside as
// damaged.
func cmdStock(c *cli, args []string) int {
	if len(args) == 0 {
		return c.fail(exitBadInput, "Use %s.", stockUsage)
	}
	switch args[0] {
	case "receive":
		return stockReceive(c, args[1:])
	case "list":
		return stockList(c, args[1:])
	case "allow":
		return stockAllow(c, args[1:])
	case "damaged":
		return stockDamaged(c, args[1:])
	case "count":
		return stockCount(c, args[1:])
	case "send":
		return stockSend(c, args[1:])
	case "arrive":
		return stockArrive(c, args[1:])
	case "ageing":
		return stockAgeing(c, args[1:])
	case "history":
		return stockHistory(c, args[1:])
	case "slow":
		return stockSlow(c, args[1:])
	case "moves":
		return stockMoves(c, args[1:])
	}
	return c.fail(exitBadInput, "Use %s.", stockUsage)
}

// stockErrorCode is the exit code of a refused stock command: bad input for
// what the manager corrects, FAILED for the rest.
func stockErrorCode(err error) int {
	for _, bad := range []error{pos.ErrBadDelivery, pos.ErrInvoiceReceived, pos.ErrWrongPIN, pos.ErrBadPIN, pos.ErrTooManyOverrides,
		pos.ErrBadIMEI, pos.ErrDayClosed, pos.ErrNotInStock, pos.ErrIMEIDigits, pos.ErrIMEILength, pos.ErrIMEICheckDigit} {
		if errors.Is(err, bad) {
			return exitBadInput
		}
	}
	return exitFailed
}

func stockReceive(c *cli, args []string) int {
	fs := c.flagSet("galla stock receive")
	supplier := fs.String("supplier", "", "the distributor the goods came from")
	invoice := fs.String("invoice", "", "the supplier's invoice number")
	date := fs.String("date", "", "the invoice's date, YYYY-MM-DD")
	items := fs.String("items", "", "SKU:QTY[@COST_PAISE],...")
	imeis := fs.String("imei", "", "the units' IMEIs in the order of the lines' units, a second IMEI after a slash")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 0 || *supplier == "" || *invoice == "" || *date == "" || *items == "" {
		return c.fail(exitBadInput, "Give the delivery: galla stock receive --supplier NAME --invoice NO --date YYYY-MM-DD --items SKU:QTY[@COST_PAISE],... [--imei IMEI,...].")
	}
	t, pin, failed := c.openAsManager()
	if t == nil {
		return failed
	}
	defer t.close()
	d, err := t.Stock.ReceiveItems(context.Background(), *supplier, *invoice, *date, *items, strings.Split(*imeis, ","), pin)
	if err != nil {
		return c.fail(stockErrorCode(err), "%s", pos.Sentence(err))
	}
	fmt.Fprintf(c.stderr, "galla: received %s on %s, invoice %s of %s.\n", plural(d.Units(), "unit"), plural(len(d.Lines), "line"), d.Invoice, d.Supplier)
	return exitOK
}

func stockList(c *cli, args []string) int {
	fs := c.flagSet("galla stock list")
	sku := fs.String("sku", "", "only this item, with its units")
	format := fs.String("format", "text", "text, csv or json")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 0 {
		return c.fail(exitBadInput, "Use galla stock list [--sku SKU] [--format text|csv|json].")
	}
	if *format != "text" && *format != "csv" && *format != "json" {
		return c.fail(exitBadInput, "The format %q is not known; use text, csv or json.", *format)
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx := context.Background()
	st, err := t.Stock.Enforced(ctx)
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	rows, err := t.Stock.List(ctx, "", 0, true)
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	if *sku != "" {
		p, ok := t.Shelf.Lookup(*sku)
		if !ok {
			return c.fail(exitBadInput, "%s is not in the catalog; check the item code.", *sku)
		}
		var one []pos.StockRow
		for _, r := range rows {
			if r.SKU == p.SKU {
				one = append(one, r)
			}
		}
		if one == nil {
			one = []pos.StockRow{{SKU: p.SKU, Name: p.Name, Brand: p.Brand, Serialised: p.Serialised}}
		}
		rows = one
	}
	fmt.Fprintf(c.stderr, "galla: %s\n", st.Sentence())
	switch *format {
	case "json":
		out := struct {
			Enforced bool           `json:"enforced"`
			Since    string         `json:"since,omitempty"`
			Items    []pos.StockRow `json:"items"`
		}{Enforced: st.Kept, Items: rows}
		if st.Kept {
			out.Since = st.Since.Format(pos.DayLayout)
		}
		if out.Items == nil {
			out.Items = []pos.StockRow{}
		}
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return exitFailed
		}
	case "csv":
		w := csv.NewWriter(c.stdout)
		_ = w.Write([]string{"sku", "name", "brand", "serialised", "on_hand", "damaged", "cost_paise", "value_paise", "imeis"})
		for _, r := range rows {
			_ = w.Write([]string{pos.CSVText(r.SKU), pos.CSVText(r.Name), pos.CSVText(r.Brand), strconv.FormatBool(r.Serialised), strconv.FormatInt(r.OnHand, 10),
				strconv.Itoa(r.Damaged), strconv.FormatInt(int64(r.Cost), 10), strconv.FormatInt(int64(r.Value), 10), strings.Join(r.IMEIs, " ")})
		}
		w.Flush()
		if w.Error() != nil {
			return exitFailed
		}
	default:
		for _, r := range rows {
			note := ""
			if r.OnHand < 0 {
				note = "\tBELOW ZERO: more sold than received; count the shelf"
			}
			if r.Damaged > 0 {
				note += fmt.Sprintf("\t%d damaged", r.Damaged)
			}
			fmt.Fprintf(c.stdout, "%s\t%s\t%d%s\n", r.SKU, r.Name, r.OnHand, note)
			for _, m := range r.IMEIs {
				fmt.Fprintf(c.stdout, "\t%s\n", m)
			}
		}
	}
	return exitOK
}

func stockAllow(c *cli, args []string) int {
	fs := c.flagSet("galla stock allow")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 1 {
		return c.fail(exitBadInput, "Name the units a manager allows to be sold though not in stock: galla stock allow IMEI,...")
	}
	t, pin, failed := c.openAsManager()
	if t == nil {
		return failed
	}
	defer t.close()
	var imeis []string
	for _, u := range pos.ParseUnits(strings.Split(rest[0], ",")) {
		imeis = append(imeis, u.IMEI)
	}
	m, err := t.Stock.AllowIMEIs(context.Background(), imeis, pin, "command line")
	if err != nil {
		return c.fail(stockErrorCode(err), "%s", pos.Sentence(err))
	}
	fmt.Fprintf(c.stderr, "galla: %s allowed %d unit(s) not in stock to be sold.\n", m.Name, len(imeis))
	return exitOK
}

func stockDamaged(c *cli, args []string) int {
	fs := c.flagSet("galla stock damaged")
	reason := fs.String("reason", "damaged", "why the unit is set aside")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 1 {
		return c.fail(exitBadInput, "Name the unit: galla stock damaged IMEI [--reason TEXT].")
	}
	t, pin, failed := c.openAsManager()
	if t == nil {
		return failed
	}
	defer t.close()
	err = t.Stock.Adjust(context.Background(), pos.StockAdjustment{Reason: *reason, Units: []pos.UnitMove{{IMEI: rest[0], To: pos.UnitDamaged}}}, pin)
	if err != nil {
		return c.fail(stockErrorCode(err), "%s", pos.Sentence(err))
	}
	fmt.Fprintf(c.stderr, "galla: IMEI %s is set aside as damaged.\n", rest[0])
	return exitOK
}

// stockCount is galla stock count: one item counted on the shelf against the
// book; the variance is printed as JSON, and with --apply a manager adjusts
// the book to the count, with a reason. Exit 1 when a variance is left
// unapplied, so that a script sees it.
func stockCount(c *cli, args []string) int {
	fs := c.flagSet("galla stock count")
	sku := fs.String("sku", "", "the item counted")
	counted := fs.Int64("counted", 0, "the units counted of an item not serialised")
	imeis := fs.String("imei", "", "the units scanned of a serialised item: IMEI,...")
	apply := fs.Bool("apply", false, "adjust the book to the count (manager PIN)")
	reason := fs.String("reason", "", "why the count differs, with --apply")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 0 || *sku == "" {
		return c.fail(exitBadInput, "Use galla stock count --sku SKU (--counted N | --imei IMEI,...) [--apply --reason TEXT].")
	}
	count := pos.StockCount{SKU: *sku, Counted: *counted}
	for _, u := range pos.ParseUnits(strings.Split(*imeis, ",")) {
		count.IMEIs = append(count.IMEIs, u.IMEI)
	}
	var (
		t   *terminal
		pin string
	)
	if *apply {
		var failed int
		if t, pin, failed = c.openAsManager(); t == nil {
			return failed
		}
	} else if t, err = openTill(c); err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx := context.Background()
	var v pos.Variance
	if *apply {
		v, err = t.Stock.ApplyCount(ctx, count, *reason, pin)
	} else {
		v, err = t.Stock.Count(ctx, count)
	}
	if err != nil {
		return c.fail(stockErrorCode(err), "%s", pos.Sentence(err))
	}
	b, _ := json.Marshal(v)
	fmt.Fprintln(c.stdout, string(b))
	switch {
	case v.None():
		fmt.Fprintf(c.stderr, "galla: %s: the count agrees with the book (%d).\n", v.SKU, v.Book)
	case *apply:
		fmt.Fprintf(c.stderr, "galla: %s: the book is now %d (was %d): %d missing, %d found.\n", v.SKU, v.Counted, v.Book, len(v.Missing), len(v.Found))
	default:
		return c.fail(exitFailed, "%s: counted %d, the book has %d: %d missing, %d found; a manager applies it with --apply --reason TEXT.", v.SKU, v.Counted, v.Book, len(v.Missing), len(v.Found))
	}
	return exitOK
}

// stockSend is galla stock send: goods sent to another counter or store,
// their units in transit; it prints the transfer's id for the other end.
func stockSend(c *cli, args []string) int {
	fs := c.flagSet("galla stock send")
	to := fs.String("to", "", "the counter or store the goods go to")
	items := fs.String("items", "", "SKU:QTY,...")
	imeis := fs.String("imei", "", "the units' IMEIs in the order of the lines' units")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 0 || *to == "" || *items == "" {
		return c.fail(exitBadInput, "Use galla stock send --to COUNTER --items SKU:QTY,... [--imei IMEI,...].")
	}
	t, pin, failed := c.openAsManager()
	if t == nil {
		return failed
	}
	defer t.close()
	tr, err := t.Stock.Send(context.Background(), *to, *items, strings.Split(*imeis, ","), pin)
	if err != nil {
		return c.fail(stockErrorCode(err), "%s", pos.Sentence(err))
	}
	fmt.Fprintln(c.stdout, tr.ID)
	fmt.Fprintf(c.stderr, "galla: transfer %s to %s: the goods are in transit until %s receives them with galla stock arrive --from %s --transfer %s.\n", tr.ID, tr.To, tr.To, t.Terminal(), tr.ID)
	return exitOK
}

// stockArrive is galla stock arrive: goods transferred from another counter
// or store received here, once per transfer.
func stockArrive(c *cli, args []string) int {
	fs := c.flagSet("galla stock arrive")
	from := fs.String("from", "", "the counter or store that sent the goods")
	id := fs.String("transfer", "", "the sender's transfer id")
	items := fs.String("items", "", "SKU:QTY,...")
	imeis := fs.String("imei", "", "the units' IMEIs in the order of the lines' units")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 0 || *from == "" || *id == "" || *items == "" {
		return c.fail(exitBadInput, "Use galla stock arrive --from COUNTER --transfer ID --items SKU:QTY,... [--imei IMEI,...].")
	}
	t, pin, failed := c.openAsManager()
	if t == nil {
		return failed
	}
	defer t.close()
	d, err := t.Stock.Arrive(context.Background(), *from, *id, *items, strings.Split(*imeis, ","), pin)
	if err != nil {
		return c.fail(stockErrorCode(err), "%s", pos.Sentence(err))
	}
	fmt.Fprintf(c.stderr, "galla: received %d units of transfer %s from %s.\n", d.Units(), d.Invoice, d.From)
	return exitOK
}

// stockAgeing is galla stock ageing: the serialised units in stock by model
// and days in stock.
func stockAgeing(c *cli, args []string) int {
	fs := c.flagSet("galla stock ageing")
	format := fs.String("format", "text", "text, csv or json")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 0 || (*format != "text" && *format != "csv" && *format != "json") {
		return c.fail(exitBadInput, "Use galla stock ageing [--format text|csv|json].")
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	rows, err := t.Stock.Ageing(context.Background())
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	switch *format {
	case "json":
		if rows == nil {
			rows = []pos.AgeingRow{}
		}
		b, _ := json.MarshalIndent(rows, "", "  ")
		fmt.Fprintln(c.stdout, string(b))
	case "csv":
		w := csv.NewWriter(c.stdout)
		_ = w.Write([]string{"sku", "name", "brand", "units", "days_0_30", "days_31_60", "days_61_90", "days_over_90", "oldest_days", "oldest_imei", "cost_paise"})
		for _, r := range rows {
			_ = w.Write([]string{pos.CSVText(r.SKU), pos.CSVText(r.Name), pos.CSVText(r.Brand), strconv.Itoa(r.Units), strconv.Itoa(r.Days30), strconv.Itoa(r.Days60),
				strconv.Itoa(r.Days90), strconv.Itoa(r.Over90), strconv.Itoa(r.Oldest), r.OldestI, strconv.FormatInt(int64(r.Cost), 10)})
		}
		w.Flush()
	default:
		for _, r := range rows {
			slow := ""
			if r.Over90 > 0 {
				slow = "\tSLOW: over 90 days"
			}
			fmt.Fprintf(c.stdout, "%s\t%s\t%s\t%d units\t0-30: %d\t31-60: %d\t61-90: %d\t>90: %d\toldest %d days%s\n",
				r.Brand, r.SKU, r.Name, r.Units, r.Days30, r.Days60, r.Days90, r.Over90, r.Oldest, slow)
		}
	}
	return exitOK
}

// stockHistory is galla stock history IMEI: the unit's whole story.
func stockHistory(c *cli, args []string) int {
	fs := c.flagSet("galla stock history")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 1 {
		return c.fail(exitBadInput, "Name the unit: galla stock history IMEI.")
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	u, ok, err := t.Stock.History(context.Background(), rest[0])
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	if !ok {
		return c.fail(exitFailed, "IMEI %s was never in this counter's stock; galla journal find IMEI lists the sales that carried it.", rest[0])
	}
	fmt.Fprintf(c.stdout, "IMEI %s\t%s\t%s\n", u.IMEI, u.SKU, u.State)
	for _, h := range u.History {
		fmt.Fprintf(c.stdout, "%s\t%s\n", h.Time.Format("2006-01-02 15:04"), h.What)
	}
	return exitOK
}

// plural is n and the noun, with an s unless n is one: "1 line", "2 units".
func plural[N int | int64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(int64(n), 10) + " " + noun + "s"
}

// warnShort warns, before a sale, of the items not serialised it takes below
// the quantity on hand while stock is kept (pos.Stock.Short): the sale goes
// on, and the stock list shows the quantity below zero.
func (c *cli) warnShort(ctx context.Context, t *terminal, lines []pos.CartLine) {
	short, err := t.Stock.Short(ctx, lines)
	if err != nil {
		return // the sale says what is wrong with the journal, if anything
	}
	if w := pos.ShortWarning(short); w != "" {
		fmt.Fprintln(c.stderr, w)
	}
}
