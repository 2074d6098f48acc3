// Command gen turns the Harmonized System CSV of the public repository
// datasets/harmonized-system (ODC PDDL 1.0; columns section, hscode,
// description, parent, level) into the master package hsn embeds: one
// "code<TAB>description" line per chapter (2 digits), heading (4) and
// subheading (6), sorted by code, after one "#" line naming the source,
// compressed with gzip. UN Comtrade's own rows that are not in the HS (TOTAL,
// and 99, 9999 and 999999, "commodities not specified according to kind")
// are left out.
//
// With -tariff it adds India's 8-digit tariff items from a CSV whose header
// row is followed by rows of code and description (the GST portal's HSN
// directory saved as CSV has this shape: HSN_CD, HSN_Description). Its
// other levels are left to the HS; a code of odd length is a code whose
// leading zero a spreadsheet dropped, and gets it back ("1011010" is
// 01011010); descriptions have their runs of white space made one space. A
// tariff item whose subheading is not in the HS edition is left out and
// named on standard error (an item of another edition's subheading); the
// first of two rows of one code is kept. -tariff-source and -tariff-licence
// say where the list came from and under which licence, on the master's
// second line.
//
// Run it from the repository's root (docs/gstr1.md, "HSN master"):
//
//	curl -sLo /tmp/hs.csv https://raw.githubusercontent.com/datasets/harmonized-system/COMMIT/data/harmonized-system.csv
//	go run ./pos/hsn/gen -in /tmp/hs.csv -source "datasets/harmonized-system@COMMIT data/harmonized-system.csv" -out pos/hsn/hs2022.tsv.gz
//
// It refuses a file whose rows do not nest (a heading whose chapter is
// missing, a parent that is not the code's prefix), and a tariff list with a
// code that is not digits or with no 8-digit code at all, so a changed
// layout is noticed rather than shipped.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

func main() {
	in := flag.String("in", "", "the CSV of datasets/harmonized-system (data/harmonized-system.csv)")
	out := flag.String("out", "pos/hsn/hs2022.tsv.gz", "the master to write")
	source := flag.String("source", "", "where the CSV came from (repository@commit and path), written on the master's first line")
	edition := flag.String("edition", "HS 2022", "the HS edition of the CSV")
	tariff := flag.String("tariff", "", "a CSV of India's tariff items: a header row, then code and description")
	tariffSource := flag.String("tariff-source", "", "where the tariff items came from (repository@commit and path, or publisher and version)")
	tariffLicence := flag.String("tariff-licence", "", "the licence of the tariff items")
	flag.Parse()
	if *in == "" || *source == "" {
		fmt.Fprintln(os.Stderr, "gen: -in and -source are required")
		os.Exit(2)
	}
	if *tariff != "" && (*tariffSource == "" || *tariffLicence == "") {
		fmt.Fprintln(os.Stderr, "gen: -tariff needs -tariff-source and -tariff-licence")
		os.Exit(2)
	}
	t := tariffList{path: *tariff, source: *tariffSource, licence: *tariffLicence}
	if err := run(*in, *out, *source, *edition, t); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// tariffList is where -tariff reads India's tariff items; path is "" without.
type tariffList struct{ path, source, licence string }

func run(in, out, source, edition string, t tariffList) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	rows, err := read(f)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	var items []row
	if t.path != "" {
		tf, err := os.Open(t.path)
		if err != nil {
			return err
		}
		defer tf.Close()
		var left []string
		if items, left, err = readTariff(tf, rows); err != nil {
			return fmt.Errorf("%s: %w", t.path, err)
		}
		if len(left) > 0 {
			fmt.Fprintf(os.Stderr, "gen: %d tariff items left out, their subheading not in %s: %s\n", len(left), edition, strings.Join(left, " "))
		}
		rows = append(rows, items...)
		sort.Slice(rows, func(i, j int) bool { return rows[i].code < rows[j].code })
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	// No name and no time in the gzip header: the same CSV gives the same bytes.
	fmt.Fprintf(zw, "# %s, %s, ODC PDDL 1.0: %d codes\n", edition, source, len(rows)-len(items))
	if t.path != "" {
		fmt.Fprintf(zw, "# India's tariff items, %s, %s: %d codes\n", t.source, t.licence, len(items))
	}
	for _, r := range rows {
		fmt.Fprintf(zw, "%s\t%s\n", r.code, r.desc)
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

type row struct{ code, desc string }

// read parses the CSV and checks that its rows nest.
func read(r io.Reader) ([]row, error) {
	cr := csv.NewReader(r)
	head, err := cr.Read()
	if err != nil {
		return nil, err
	}
	if strings.Join(head, ",") != "section,hscode,description,parent,level" {
		return nil, fmt.Errorf("header %q is not section,hscode,description,parent,level", head)
	}
	var rows []row
	seen := map[string]bool{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		code, desc, parent, level := rec[1], strings.TrimSpace(rec[2]), rec[3], rec[4]
		if code == "TOTAL" || strings.HasPrefix(code, "99") {
			continue // UN Comtrade's, not the HS's
		}
		n := len(code)
		if (n != 2 && n != 4 && n != 6) || strings.Trim(code, "0123456789") != "" || level != fmt.Sprint(n) {
			return nil, fmt.Errorf("code %q at level %s is not a chapter, heading or subheading", code, level)
		}
		if strings.ContainsAny(desc, "\t\n\r") || desc == "" {
			return nil, fmt.Errorf("code %s: description %q is empty or has a tab or a line break", code, desc)
		}
		if n > 2 && (parent != code[:n-2] || !seen[parent]) {
			return nil, fmt.Errorf("code %s: parent %q is not its prefix %s, or comes later", code, parent, code[:n-2])
		}
		if seen[code] {
			return nil, fmt.Errorf("code %s twice", code)
		}
		seen[code] = true
		rows = append(rows, row{code, desc})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].code < rows[j].code })
	return rows, nil
}

// readTariff reads the tariff items of a CSV of code and description after a
// header row: the 8-digit codes whose subheading hs has, sorted; left names
// those whose subheading it has not. See the package comment.
func readTariff(r io.Reader, hs []row) (items []row, left []string, err error) {
	subs := map[string]bool{}
	for _, h := range hs {
		if len(h.code) == 6 {
			subs[h.code] = true
		}
	}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	if _, err := cr.Read(); err != nil {
		return nil, nil, fmt.Errorf("header: %w", err)
	}
	seen := map[string]bool{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if len(rec) < 2 {
			return nil, nil, fmt.Errorf("row %q is not code and description", rec)
		}
		code, desc := strings.TrimSpace(rec[0]), strings.Join(strings.Fields(rec[1]), " ")
		if code == "" || strings.Trim(code, "0123456789") != "" {
			return nil, nil, fmt.Errorf("code %q is not digits", code)
		}
		if len(code)%2 == 1 {
			code = "0" + code // the leading zero a spreadsheet dropped
		}
		if len(code) != 8 || seen[code] {
			continue
		}
		seen[code] = true
		if desc == "" {
			return nil, nil, fmt.Errorf("code %s: no description", code)
		}
		if !subs[code[:6]] {
			left = append(left, code)
			continue
		}
		items = append(items, row{code, desc})
	}
	if len(items)+len(left) == 0 {
		return nil, nil, errors.New("no code of 8 digits")
	}
	sort.Slice(items, func(i, j int) bool { return items[i].code < items[j].code })
	sort.Strings(left)
	return items, left, nil
}
