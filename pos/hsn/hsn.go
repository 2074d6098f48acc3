// Package hsn holds HSN masters: the codes of India's HSN classification of
// goods, each with its description. Two masters are in use.
//
// The built-in master (Builtin, builtin.go) is a small list written for
// Galla in its own words: the headings (4 digits) and subheadings (6) of the
// goods Galla's shops sell — phones and their accessories, electronics, and
// the goods of the sample catalog. It is not the full classification, and it
// lists no 8-digit tariff items.
//
// The full list is the shop's to load: the GST portal publishes its HSN
// directory, which a shop saves as CSV and loads with galla hsn import
// (ReadPortalCSV). The program keeps it in the data directory in the format
// Read reads and Write writes.
//
// It imports no package of Galla's.
package hsn

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Master is an HSN master: the codes it knows, each with its description.
type Master struct {
	desc map[string]string
	// items lists, per subheading, the 8-digit tariff items the master
	// holds under it, sorted; a subheading without an entry is one whose
	// tariff items the master does not list.
	items map[string][]string
}

// Description is m's description of code, a chapter (2 digits), heading (4),
// subheading (6) or tariff item (8); ok is false when m has no such code.
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

// Codes is every code of m, in order.
func (m *Master) Codes() []string {
	codes := make([]string, 0, len(m.desc))
	for c := range m.desc {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	return codes
}

// Write writes m in the format Read reads: one "#" line saying what it is,
// then one "code<TAB>description" line per code, in order.
func (m *Master) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# HSN master: %d codes\n", m.Len())
	for _, c := range m.Codes() {
		fmt.Fprintf(&b, "%s\t%s\n", c, m.desc[c])
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// newMaster makes a master of codes (each already checked: 2, 4, 6 or 8
// digits) and checks that they nest: a subheading (6 digits) or a tariff item
// (8) needs its heading (the first four digits) in the master. A tariff item
// whose subheading the list does not name is kept: the subheading is known
// through its items.
func newMaster(desc map[string]string) (*Master, error) {
	m := &Master{desc: desc, items: map[string][]string{}}
	codes := m.Codes()
	for _, code := range codes {
		if len(code) > 4 {
			if _, ok := desc[code[:4]]; !ok {
				return nil, fmt.Errorf("code %s: its heading %s is not in the list", code, code[:4])
			}
		}
		if len(code) == 8 {
			m.items[code[:6]] = append(m.items[code[:6]], code) // codes are sorted
		}
	}
	return m, nil
}

// checkCode refuses a code that is not of 2, 4, 6 or 8 digits.
func checkCode(code string) error {
	if code == "" || strings.Trim(code, "0123456789") != "" {
		return fmt.Errorf("code %q is not digits", code)
	}
	if n := len(code); n != 2 && n != 4 && n != 6 && n != 8 {
		return fmt.Errorf("code %s is not of 2, 4, 6 or 8 digits", code)
	}
	return nil
}

// Read reads the "code<TAB>description" lines of a master Write wrote,
// skipping "#" lines. A code is of 2, 4, 6 or 8 digits, and codes nest
// (newMaster).
func Read(text string) (*Master, error) {
	desc := make(map[string]string, strings.Count(text, "\n"))
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		if line == "" || line[0] == '#' {
			continue
		}
		code, d, found := strings.Cut(line, "\t")
		if !found || d == "" {
			return nil, fmt.Errorf("hsn: line %q is not code, tab, description", line)
		}
		if err := checkCode(code); err != nil {
			return nil, fmt.Errorf("hsn: %w", err)
		}
		desc[code] = d
	}
	if len(desc) == 0 {
		return nil, errors.New("hsn: no code")
	}
	m, err := newMaster(desc)
	if err != nil {
		return nil, fmt.Errorf("hsn: %w", err)
	}
	return m, nil
}

// ReadPortalCSV reads the HSN directory the GST portal publishes, saved as
// CSV: a header row (HSN_CD, HSN_Description) and then rows of code and
// description; further columns are ignored. A code of odd length is one whose
// leading zero a spreadsheet dropped, and gets it back ("1011010" is
// 01011010); descriptions have their runs of white space made one space; the
// first of two rows of one code is kept. A file that is not CSV, has no code,
// a code that is not digits or not of 2, 4, 6 or 8 digits, a row without a
// description, or rows that do not nest (newMaster) is refused.
func ReadPortalCSV(r io.Reader) (*Master, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	desc := map[string]string{}
	for row := 1; ; row++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("hsn: not CSV: %w", err)
		}
		code := strings.TrimSpace(strings.TrimPrefix(rec[0], "\ufeff"))
		if row == 1 && strings.Trim(code, "0123456789") != "" {
			continue // the header row
		}
		if len(rec) == 1 && code == "" {
			continue // an empty line
		}
		if len(rec) < 2 {
			return nil, fmt.Errorf("hsn: row %d is not code and description", row)
		}
		if code != "" && strings.Trim(code, "0123456789") == "" && len(code)%2 == 1 {
			code = "0" + code // the leading zero a spreadsheet dropped
		}
		if err := checkCode(code); err != nil {
			return nil, fmt.Errorf("hsn: row %d: %w", row, err)
		}
		d := strings.Join(strings.Fields(rec[1]), " ")
		if d == "" {
			return nil, fmt.Errorf("hsn: row %d: code %s has no description", row, code)
		}
		if _, seen := desc[code]; !seen {
			desc[code] = d
		}
	}
	if len(desc) == 0 {
		return nil, errors.New("hsn: no code")
	}
	m, err := newMaster(desc)
	if err != nil {
		return nil, fmt.Errorf("hsn: %w", err)
	}
	return m, nil
}
