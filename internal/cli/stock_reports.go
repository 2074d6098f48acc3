package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"text/tabwriter"

	"galla/pos"
)

// stockSlow is galla stock slow: the items on hand with no sale in the last
// days, the most stale first.
func stockSlow(c *cli, args []string) int {
	fs := c.flagSet("galla stock slow")
	days := fs.Int("days", pos.SlowDays, "days without a sale")
	format := fs.String("format", "text", "text, csv or json")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 0 || *days <= 0 || !reportFormat(*format) {
		return c.fail(exitBadInput, "Use galla stock slow [--days N] [--format text|csv|json] (N a number of days from 1).")
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	rows, err := t.Stock.Slow(context.Background(), *days)
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	switch *format {
	case "json":
		if rows == nil {
			rows = []pos.SlowRow{}
		}
		b, _ := json.MarshalIndent(rows, "", "  ")
		fmt.Fprintln(c.stdout, string(b))
	case "csv":
		w := csv.NewWriter(c.stdout)
		_ = w.Write([]string{"sku", "name", "brand", "days", "never_sold", "last_sold", "on_hand", "cost_paise"})
		for _, r := range rows {
			last := ""
			if !r.LastSold.IsZero() {
				last = r.LastSold.Format(pos.DayLayout)
			}
			_ = w.Write([]string{pos.CSVText(r.SKU), pos.CSVText(r.Name), pos.CSVText(r.Brand), strconv.Itoa(r.Days), strconv.FormatBool(r.Never), last,
				strconv.FormatInt(r.OnHand, 10), strconv.FormatInt(int64(r.Cost), 10)})
		}
		w.Flush()
	default:
		if len(rows) == 0 {
			fmt.Fprintf(c.stdout, "Everything on hand sold in the last %d days.\n", *days)
			return exitOK
		}
		w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
		for _, r := range rows {
			since := "since last sale " + r.LastSold.Format(pos.DayLayout)
			if r.Never {
				since = "never sold, since received"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%d on hand\t%s at cost\t%d days\t%s\n", r.Brand, r.SKU, r.Name, r.OnHand, r.Cost, r.Days, since)
		}
		_ = w.Flush()
	}
	return exitOK
}

// stockMoves is galla stock moves: every stock movement of a business day
// (today unless told), of the days from one to another, or of a shift. The
// journal lists its stock events by day, so the days asked are read, not
// the history before them.
func stockMoves(c *cli, args []string) int {
	fs := c.flagSet("galla stock moves")
	dayText := fs.String("day", "", "the business day, YYYY-MM-DD (default today)")
	fromText := fs.String("from", "", "the first business day, YYYY-MM-DD")
	toText := fs.String("to", "", "the last business day, YYYY-MM-DD (default today)")
	shift := fs.String("shift", "", "the shift's id, as galla shift list shows it")
	format := fs.String("format", "text", "text, csv or json")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	ranged := *fromText != "" || *toText != ""
	chosen := 0
	for _, on := range []bool{*dayText != "", ranged, *shift != ""} {
		if on {
			chosen++
		}
	}
	if len(rest) != 0 || chosen > 1 || (*toText != "" && *fromText == "") || !reportFormat(*format) {
		return c.fail(exitBadInput, "Use galla stock moves [--day YYYY-MM-DD | --from YYYY-MM-DD [--to YYYY-MM-DD] | --shift ID] [--format text|csv|json].")
	}
	day, err := c.dayFlag(*dayText)
	if err != nil {
		return c.fail(exitBadInput, "%v; type it again.", err)
	}
	from, to := day, day
	if ranged {
		if from, err = c.dayFlag(*fromText); err != nil {
			return c.fail(exitBadInput, "%v; type it again.", err)
		}
		if to, err = c.dayFlag(*toText); err != nil {
			return c.fail(exitBadInput, "%v; type it again.", err)
		}
		if to < from {
			return c.fail(exitBadInput, "The days run from %s to %s: give the first day first.", from, to)
		}
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx := context.Background()
	var moves []pos.StockMovement
	if *shift != "" {
		rep, err := t.Drawer.ShiftReport(ctx, *shift)
		if err != nil {
			code := exitFailed
			if errors.Is(err, pos.ErrShiftNotFound) {
				code = exitBadInput
			}
			return c.fail(code, "%s", pos.Sentence(err))
		}
		moves, err = t.Stock.MovesOfShift(ctx, rep.Shift)
		if err != nil {
			return c.fail(exitFailed, "%s", pos.Sentence(err))
		}
	} else if moves, err = t.Stock.MovesOfDays(ctx, from, to); err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	switch *format {
	case "json":
		if moves == nil {
			moves = []pos.StockMovement{}
		}
		b, _ := json.MarshalIndent(moves, "", "  ")
		fmt.Fprintln(c.stdout, string(b))
	case "csv":
		w := csv.NewWriter(c.stdout)
		_ = w.Write([]string{"time", "kind", "sku", "imei", "qty", "document", "staff"})
		for _, m := range moves {
			_ = w.Write([]string{m.Time.Local().Format("2006-01-02 15:04:05"), string(m.Kind), pos.CSVText(m.SKU), m.IMEI, strconv.FormatInt(m.Qty, 10),
				pos.CSVText(m.Document), pos.CSVText(m.Staff)})
		}
		w.Flush()
	default:
		if len(moves) == 0 {
			fmt.Fprintln(c.stdout, "No stock moved.")
			return exitOK
		}
		w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
		for _, m := range moves {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%+d\t%s\t%s\n", m.Time.Local().Format("2006-01-02 15:04"), m.Kind, m.SKU, m.IMEI, m.Qty, m.Document, m.Staff)
		}
		_ = w.Flush()
	}
	return exitOK
}

// reportFormat reports whether format is one a stock report is written in.
func reportFormat(format string) bool {
	return format == "text" || format == "csv" || format == "json"
}
