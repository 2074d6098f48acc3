// Package hsn is the HSN master Galla ships: the chapters (2 digits),
// headings (4) and subheadings (6) of the Harmonized System, HS 2022, with
// their descriptions, and the 8-digit tariff items of India's tariff (the
// First Schedule of the Customs Tariff Act, which extends each subheading by
// two digits) for the subheadings whose items a source with a licence gave.
//
// The master is hs2022.tsv.gz, made by ./gen from the CSV of the public
// repository datasets/harmonized-system (UN Comtrade's HS 2022 nomenclature,
// ODC PDDL 1.0) and, when given, a list of tariff items; its "#" lines name
// the sources. It is unpacked and read the first time a code is looked up,
// not when the program starts. How to update it, and which tariff items it
// holds: docs/gstr1.md, "HSN master".
//
// It imports no package of Galla's.
package hsn

import (
	"bytes"
	"compress/gzip"
	_ "embed" // the master below is embedded with go:embed
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

// Edition is the HS edition of the master.
const Edition = "HS 2022"

//go:embed hs2022.tsv.gz
var packed []byte

// Master is an HSN master: the codes it knows, each with its description.
type Master struct {
	desc map[string]string
	// items lists, per subheading, the 8-digit tariff items the master
	// holds under it, sorted; a subheading without an entry is one whose
	// tariff items the master does not list.
	items map[string][]string
}

// embedded is the master Galla ships, read on the first look-up.
var embedded = sync.OnceValue(func() *Master {
	zr, err := gzip.NewReader(bytes.NewReader(packed))
	if err == nil {
		var raw []byte
		if raw, err = io.ReadAll(zr); err == nil {
			var m *Master
			if m, err = Read(string(raw)); err == nil {
				return m
			}
		}
	}
	panic("hsn: the embedded master: " + err.Error()) // the package's tests read it
})

// Embedded is the master Galla ships.
func Embedded() *Master { return embedded() }

// Description is the embedded master's description of code, a chapter (2
// digits), heading (4), subheading (6) or tariff item (8); ok is false when
// the master has no such code.
func Description(code string) (desc string, ok bool) {
	return embedded().Description(code)
}

// Description is m's description of code; ok is false when m has no such
// code.
func (m *Master) Description(code string) (desc string, ok bool) {
	desc, ok = m.desc[code]
	return desc, ok
}

// TariffItems is the 8-digit tariff items m holds under the 6-digit
// subheading sub, in order; none when m does not list that subheading's
// tariff items.
func (m *Master) TariffItems(sub string) []string {
	return m.items[sub]
}

// Len is the number of codes of m.
func (m *Master) Len() int { return len(m.desc) }

// Read reads the "code<TAB>description" lines of a master, skipping "#"
// lines. A code is of 2, 4, 6 or 8 digits; an 8-digit code is a tariff item
// of the subheading its first six digits name, which the master must have.
func Read(text string) (*Master, error) {
	m := &Master{desc: make(map[string]string, strings.Count(text, "\n")), items: map[string][]string{}}
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		if line == "" || line[0] == '#' {
			continue
		}
		code, desc, found := strings.Cut(line, "\t")
		if !found || desc == "" {
			return nil, fmt.Errorf("line %q is not code, tab, description", line)
		}
		switch n := len(code); {
		case n != 2 && n != 4 && n != 6 && n != 8, strings.Trim(code, "0123456789") != "":
			return nil, fmt.Errorf("code %q is not of 2, 4, 6 or 8 digits", code)
		case n == 8:
			m.items[code[:6]] = append(m.items[code[:6]], code)
		}
		m.desc[code] = desc
	}
	for sub, items := range m.items {
		if _, ok := m.desc[sub]; !ok {
			return nil, fmt.Errorf("tariff item %s: no subheading %s", items[0], sub)
		}
		sort.Strings(items)
	}
	return m, nil
}
