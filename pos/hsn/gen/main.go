// Command gen turns the Harmonized System CSV of the public repository
// datasets/harmonized-system (ODC PDDL 1.0; columns section, hscode,
// description, parent, level) into the master package hsn embeds: one
// "code<TAB>description" line per chapter (2 digits), heading (4) and
// subheading (6), sorted by code, after one "#" line naming the source,
// compressed with gzip. UN Comtrade's own rows that are not in the HS (TOTAL,
// and 99, 9999 and 999999, "commodities not specified according to kind")
// are left out.
//
// Run it from the repository's root (docs/gstr1.md, "HSN master"):
//
//	curl -sLo /tmp/hs.csv https://raw.githubusercontent.com/datasets/harmonized-system/COMMIT/data/harmonized-system.csv
//	go run ./pos/hsn/gen -in /tmp/hs.csv -source "datasets/harmonized-system@COMMIT data/harmonized-system.csv" -out pos/hsn/hs2022.tsv.gz
//
// It refuses a file whose rows do not nest (a heading whose chapter is
// missing, a parent that is not the code's prefix), so a changed layout is
// noticed rather than shipped.
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
	flag.Parse()
	if *in == "" || *source == "" {
		fmt.Fprintln(os.Stderr, "gen: -in and -source are required")
		os.Exit(2)
	}
	if err := run(*in, *out, *source, *edition); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(in, out, source, edition string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	rows, err := read(f)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	// No name and no time in the gzip header: the same CSV gives the same bytes.
	fmt.Fprintf(zw, "# %s, %s, ODC PDDL 1.0: %d codes\n", edition, source, len(rows))
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
