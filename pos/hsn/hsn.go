// Package hsn is the HSN master Galla ships: the chapters (2 digits),
// headings (4) and subheadings (6) of the Harmonized System, HS 2022, with
// their descriptions. India's HSN follows the HS to six digits; its 8-digit
// tariff items (the First Schedule of the Customs Tariff Act) extend them and
// are not in the HS, so they are not here.
//
// The master is hs2022.tsv.gz, made by ./gen from the CSV of the public
// repository datasets/harmonized-system (UN Comtrade's HS 2022 nomenclature,
// ODC PDDL 1.0); its first line names the commit. It is unpacked and read the
// first time a code is looked up, not when the program starts. How to update
// it: docs/gstr1.md, "HSN master".
//
// It imports no package of Galla's.
package hsn

import (
	"bytes"
	"compress/gzip"
	_ "embed" // the master below is embedded with go:embed
	"fmt"
	"io"
	"strings"
	"sync"
)

// Edition is the HS edition of the master.
const Edition = "HS 2022"

//go:embed hs2022.tsv.gz
var packed []byte

// master is the code → description map, built on the first look-up. The
// descriptions are slices of one string, the unpacked file.
var master = sync.OnceValue(func() map[string]string {
	m, err := parse(packed)
	if err != nil {
		panic("hsn: the embedded master: " + err.Error()) // the package's tests read it
	}
	return m
})

// Description is the master's description of code, a chapter (2 digits),
// heading (4) or subheading (6); ok is false when the master has no such code.
func Description(code string) (desc string, ok bool) {
	desc, ok = master()[code]
	return desc, ok
}

// parse reads the gzip-compressed "code<TAB>description" lines of the master,
// skipping "#" lines.
func parse(gz []byte) (map[string]string, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	text := string(raw)
	m := make(map[string]string, strings.Count(text, "\n"))
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		if line == "" || line[0] == '#' {
			continue
		}
		code, desc, found := strings.Cut(line, "\t")
		if !found || desc == "" {
			return nil, fmt.Errorf("line %q is not code, tab, description", line)
		}
		m[code] = desc
	}
	return m, nil
}
