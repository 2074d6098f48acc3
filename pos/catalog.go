package pos

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"galla/assets"
)

// Product is one thing the store sells. Price includes GST.
//
// Its JSON form (the sample catalog, JSON import and export) uses snake_case names and
// writes the price in rupees as text ("74999.00"); import also accepts a number of
// rupees (74999 or 74999.5).
type Product struct {
	SKU         string // the store's own code, unique, matched without regard to case
	Barcode     string // EAN/UPC digits as a scanner types them; optional, unique
	Name        string
	Brand       string
	ProductCode string // the payment service's product code (EMI offers), e.g. SAMSUNG-S24
	Price       Paise  // GST-inclusive unit price, more than zero
	GSTRate     Rate   // one of GSTRates
	Cess        Rate   // the compensation cess on the taxable value; zero for most goods
	HSN         string // the HSN code: 4, 6 or 8 digits
	Serialised  bool   // each unit carries an IMEI
	Supply      Supply // taxable (""), or a 0% supply: nil-rated, exempt or non-GST (ParseSupply)
	Unit        UQC    // the unit quantity code it is sold in; "" is NOS (ParseUQC)
}

// MaxPrice is the highest unit price a product may carry (₹1,00,00,000.00), which
// keeps every cart sum far from overflowing.
const MaxPrice = Paise(1_00_00_000_00)

// DefaultSearchLimit is the number of results Search returns when asked for none.
const DefaultSearchLimit = 50

// ErrBadCatalog is matched (errors.Is) by every *ImportError.
var ErrBadCatalog = errors.New("catalog has problems")

// Problem is one thing wrong with one product of an import.
type Problem struct {
	Line int    // line of the file where the product starts; 0 when not read from a file
	Item int    // position of the product in the file or list, from 1; 0 for the file as a whole
	SKU  string // the product's SKU as given, when known
	Msg  string // what is wrong, in plain words
}

// String formats p as "line 4 (SKU PH-001): the price must be more than zero", or as
// the message alone for a problem of the whole file.
func (p Problem) String() string {
	var b strings.Builder
	switch {
	case p.Line > 0:
		fmt.Fprintf(&b, "line %d", p.Line)
	case p.Item > 0:
		fmt.Fprintf(&b, "item %d", p.Item)
	default:
		if p.SKU == "" {
			return p.Msg // about the file as a whole
		}
	}
	if p.SKU != "" {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "(SKU %s)", p.SKU)
	}
	b.WriteString(": ")
	b.WriteString(p.Msg)
	return b.String()
}

// ImportError lists every problem found in a catalog import; nothing was imported.
type ImportError struct {
	Problems []Problem
}

// maxProblems bounds the problems one import reports, so a wrong file (an image, a
// spreadsheet of something else) does not produce a million lines.
const maxProblems = 200

// Error lists every problem on one line.
func (e *ImportError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pos: import catalog: %d problem", len(e.Problems))
	if len(e.Problems) != 1 {
		b.WriteString("s")
	}
	for _, p := range e.Problems {
		b.WriteString("; ")
		b.WriteString(p.String())
	}
	return b.String()
}

// Is makes an *ImportError match ErrBadCatalog.
func (e *ImportError) Is(target error) bool { return target == ErrBadCatalog }

func (e *ImportError) add(p Problem) bool {
	if len(e.Problems) >= maxProblems {
		return false
	}
	e.Problems = append(e.Problems, p)
	if len(e.Problems) == maxProblems {
		e.Problems = append(e.Problems, Problem{Msg: "too many problems; the rest of the file was not checked"})
		return false
	}
	return true
}

// Catalog is an immutable, validated set of products indexed for lookup by SKU or
// barcode and for search as typed. It is safe for concurrent use.
type Catalog struct {
	products  []Product
	bySKU     map[string]int32 // lower-case SKU -> index
	byBarcode map[string]int32
	skus      []entry   // sorted by lower-case SKU
	barcodes  []entry   // sorted by barcode
	vocab     []string  // the distinct lower-case words of names and brands, sorted
	postings  [][]int32 // per word of vocab, the products that have it, ascending
	infix     []entry   // every proper suffix of every word of vocab (i: the word), sorted
	keys      []string  // per product, " " + its words joined by " "
}

type entry struct {
	key string
	i   int32
}

// NewCatalog validates products and builds a catalog of copies of them, in the order
// given. When anything is wrong the error is an *ImportError listing every problem
// (by Item, the position in products from 1) and no catalog is returned.
func NewCatalog(products []Product) (*Catalog, error) {
	ie := &ImportError{}
	ps := slices.Clone(products)
	for i := range ps {
		ps[i] = normalise(ps[i])
	}
	validateAll(ps, func(i int) Problem { return Problem{Item: i + 1} }, ie, true)
	if len(ps) == 0 {
		ie.add(Problem{Msg: "there are no products"})
	}
	if len(ie.Problems) > 0 {
		return nil, ie
	}
	return build(ps), nil
}

func normalise(p Product) Product {
	p.SKU = strings.TrimSpace(p.SKU)
	p.Barcode = strings.TrimSpace(p.Barcode)
	p.Name = strings.TrimSpace(p.Name)
	p.Brand = strings.TrimSpace(p.Brand)
	p.ProductCode = strings.TrimSpace(p.ProductCode)
	p.HSN = strings.TrimSpace(p.HSN)
	return p
}

// validateAll checks each product and the uniqueness of SKUs and barcodes, adding a
// problem located by where(i) for each thing wrong.
//
// rates checks each rate against GSTRates and the HSN codes for 4, 6 or 8 digits;
// a catalog restored from the journal keeps the rates and codes it was imported with (they were in force then), so that a
// change of the rate list never stops a terminal from opening its catalog.
func validateAll(ps []Product, where func(i int) Problem, ie *ImportError, rates bool) {
	skus := make(map[string]int, len(ps))
	barcodes := make(map[string]int, len(ps))
	for i, p := range ps {
		for _, msg := range validate(p, rates) {
			pr := where(i)
			pr.SKU, pr.Msg = printable(p.SKU), msg
			if !ie.add(pr) {
				return
			}
		}
		if k := strings.ToLower(p.SKU); k != "" {
			if j, dup := skus[k]; dup {
				pr := where(i)
				pr.SKU, pr.Msg = printable(p.SKU), fmt.Sprintf("the SKU is already used by %s", where(j).place())
				if !ie.add(pr) {
					return
				}
			} else {
				skus[k] = i
			}
		}
		if p.Barcode != "" && allDigits(p.Barcode) {
			if j, dup := barcodes[p.Barcode]; dup {
				pr := where(i)
				pr.SKU, pr.Msg = printable(p.SKU), fmt.Sprintf("the barcode is already used by %s", where(j).place())
				if !ie.add(pr) {
					return
				}
			} else {
				barcodes[p.Barcode] = i
			}
		}
	}
	// A barcode equal to another product's SKU would make a scan ambiguous.
	for i, p := range ps {
		if p.Barcode == "" {
			continue
		}
		if j, ok := skus[strings.ToLower(p.Barcode)]; ok && j != i {
			pr := where(i)
			pr.SKU, pr.Msg = printable(p.SKU), fmt.Sprintf("the barcode is the SKU of %s", where(j).place())
			if !ie.add(pr) {
				return
			}
		}
	}
}

func (p Problem) place() string {
	if p.Line > 0 {
		return fmt.Sprintf("line %d", p.Line)
	}
	return fmt.Sprintf("item %d", p.Item)
}

// printable shortens s and drops control characters so that it can be quoted in a
// problem.
func printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:40]) + "…"
	}
	return hideLongNumbers(s)
}

// validate lists what is wrong with one product, taken alone.
func validate(p Product, rates bool) []string {
	var out []string
	switch {
	case p.SKU == "":
		out = append(out, "the SKU is missing")
	case len(p.SKU) > 64:
		out = append(out, "the SKU is longer than 64 characters")
	case strings.IndexFunc(p.SKU, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 || !utf8.ValidString(p.SKU):
		out = append(out, "the SKU may not contain spaces or control characters")
	}
	switch {
	case p.Barcode == "":
	case !allDigits(p.Barcode):
		out = append(out, "the barcode must be digits only")
	case len(p.Barcode) > 32:
		out = append(out, "the barcode is longer than 32 digits")
	}
	switch {
	case p.Name == "":
		out = append(out, "the name is missing")
	case !utf8.ValidString(p.Name) || strings.IndexFunc(p.Name, unicode.IsControl) >= 0:
		out = append(out, "the name must be plain text without control characters")
	case utf8.RuneCountInString(p.Name) > 200:
		out = append(out, "the name is longer than 200 characters")
	}
	if !utf8.ValidString(p.Brand) || strings.IndexFunc(p.Brand, unicode.IsControl) >= 0 || len(p.Brand) > 64 {
		out = append(out, "the brand must be plain text of at most 64 characters")
	}
	if len(p.ProductCode) > 64 || strings.IndexFunc(p.ProductCode, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 || !utf8.ValidString(p.ProductCode) {
		out = append(out, "the product code must be at most 64 characters without spaces")
	}
	switch {
	case p.Price <= 0:
		out = append(out, "the price must be more than zero")
	case p.Price > MaxPrice:
		out = append(out, "the price is more than "+MaxPrice.String())
	}
	switch {
	case !rates:
	case !ValidGSTRate(p.GSTRate):
		out = append(out, fmt.Sprintf("the GST rate %s is not one of the rates in force since 22 September 2025 (%s); use the rate of the goods' HSN code", p.GSTRate, rateList()))
	case p.GSTRate == Percent(28) && p.Cess.IsZero():
		out = append(out, "28% is kept only for goods that also bear a compensation cess (tobacco, pan masala): set the row's cess_rate, or use the goods' rate since 22 September 2025 (most moved to 18% or 40%)")
	}
	if maxCess := Percent(300); p.Cess.BP() < 0 || p.Cess.Compare(maxCess) > 0 {
		out = append(out, "the cess rate must be between 0 and "+maxCess.String())
	}
	// A stored catalog keeps the 5- and 7-digit codes the earlier check let in.
	if n := len(p.HSN); n < 4 || n > 8 || (rates && n%2 == 1) || !allDigits(p.HSN) {
		out = append(out, fmt.Sprintf("the HSN code %q must be 4, 6 or 8 digits (for example 8517 for phones)", printable(p.HSN)))
	}
	return out
}

// build indexes validated products.
func build(ps []Product) *Catalog {
	c := &Catalog{
		products:  ps,
		bySKU:     make(map[string]int32, len(ps)),
		byBarcode: make(map[string]int32, len(ps)),
		skus:      make([]entry, 0, len(ps)),
		barcodes:  make([]entry, 0, len(ps)),
		keys:      make([]string, len(ps)),
	}
	post := map[string][]int32{}
	for i, p := range ps {
		n := int32(i)
		sku := strings.ToLower(p.SKU)
		c.bySKU[sku] = n
		c.skus = append(c.skus, entry{sku, n})
		if p.Barcode != "" {
			c.byBarcode[p.Barcode] = n
			c.barcodes = append(c.barcodes, entry{p.Barcode, n})
		}
		ws := dedupe(words(p.Name + " " + p.Brand))
		for _, w := range ws {
			post[w] = append(post[w], n)
		}
		c.keys[i] = " " + strings.Join(ws, " ")
	}
	c.vocab = slices.Sorted(maps.Keys(post))
	c.postings = make([][]int32, len(c.vocab))
	for i, w := range c.vocab {
		c.postings[i] = post[w]
		for j := range w {
			if j > 0 {
				c.infix = append(c.infix, entry{w[j:], int32(i)})
			}
		}
	}
	byKey := func(a, b entry) int {
		if r := strings.Compare(a.key, b.key); r != 0 {
			return r
		}
		return int(a.i - b.i)
	}
	slices.SortFunc(c.skus, byKey)
	slices.SortFunc(c.barcodes, byKey)
	slices.SortFunc(c.infix, byKey)
	return c
}

// words splits s into lower-case runs of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func dedupe(ws []string) []string {
	out := ws[:0]
	for _, w := range ws {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// Len returns the number of products.
func (c *Catalog) Len() int { return len(c.products) }

// Products returns a copy of the products in catalog order.
func (c *Catalog) Products() []Product { return slices.Clone(c.products) }

// Lookup finds the product whose SKU (without regard to case) or barcode is exactly
// code, as a scanner types it; surrounding spaces are ignored.
func (c *Catalog) Lookup(code string) (Product, bool) {
	code = strings.TrimSpace(code)
	if i, ok := c.bySKU[strings.ToLower(code)]; ok {
		return c.products[i], true
	}
	if i, ok := c.byBarcode[code]; ok {
		return c.products[i], true
	}
	return Product{}, false
}

// prefixRange returns the entries of sorted idx whose key starts with p.
func prefixRange(idx []entry, p string) []entry {
	lo := sort.Search(len(idx), func(i int) bool { return idx[i].key >= p })
	hi := lo + sort.Search(len(idx)-lo, func(i int) bool { return !strings.HasPrefix(idx[lo+i].key, p) })
	return idx[lo:hi]
}

// Search finds at most limit products (DefaultSearchLimit when limit <= 0) for a query
// typed at the counter, best first: an exact SKU or barcode; then SKUs and barcodes
// that start with the query; then products whose name or brand has, for every word of
// the query, a word starting with it ("sam s24"); then products whose name or brand
// has, for every word of the query, a word containing it ("phones" finds
// "Headphones"). Case is ignored. An empty query lists the first products of the
// catalog.
//
// Words are looked up in sorted indexes of the catalog's distinct words and of their
// suffixes, so a search costs a few binary searches plus the products it looks at.
func (c *Catalog) Search(query string, limit int) []Product {
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	q := strings.ToLower(strings.TrimSpace(query))
	if q == "" {
		return slices.Clone(c.products[:min(limit, len(c.products))])
	}
	s := searcher{c: c, limit: limit, seen: make(map[int32]struct{}, limit)}
	if i, ok := c.bySKU[q]; ok && s.add(i) {
		return s.out
	}
	if i, ok := c.byBarcode[q]; ok && s.add(i) {
		return s.out
	}
	for _, e := range prefixRange(c.skus, q) {
		if s.add(e.i) {
			return s.out
		}
	}
	if allDigits(q) {
		for _, e := range prefixRange(c.barcodes, q) {
			if s.add(e.i) {
				return s.out
			}
		}
	}
	toks := dedupe(words(q))
	if len(toks) == 0 {
		return s.out
	}
	if s.words(toks, false) {
		return s.out
	}
	s.words(toks, true)
	return s.out
}

type searcher struct {
	c     *Catalog
	limit int
	seen  map[int32]struct{}
	out   []Product
}

// add appends product i unless already there and reports whether the result is full.
func (s *searcher) add(i int32) bool {
	if _, dup := s.seen[i]; !dup {
		s.seen[i] = struct{}{}
		s.out = append(s.out, s.c.products[i])
	}
	return len(s.out) >= s.limit
}

// matchingWords returns the words of the vocabulary that start with t, and with
// infix also those that contain it further in, with the number of products they
// cover (counting a product once per word).
func (s *searcher) matchingWords(t string, infix bool) (ws []int32, cost int) {
	v := s.c.vocab
	lo := sort.SearchStrings(v, t)
	hi := lo + sort.Search(len(v)-lo, func(i int) bool { return !strings.HasPrefix(v[lo+i], t) })
	for i := lo; i < hi; i++ {
		ws = append(ws, int32(i))
		cost += len(s.c.postings[i])
	}
	if infix {
		for _, e := range prefixRange(s.c.infix, t) {
			ws = append(ws, e.i)
			cost += len(s.c.postings[e.i])
		}
	}
	return ws, cost
}

// words adds the products that match every token (by word prefix, or with infix by
// word substring) and reports whether the result is full. It walks the products of
// the cheapest token and tests the others with a bitmap built from their postings,
// or, when a token covers far more products than the walk, by looking in the
// product's key.
func (s *searcher) words(toks []string, infix bool) bool {
	sets := make([][]int32, len(toks))
	costs := make([]int, len(toks))
	drive := 0
	for i, t := range toks {
		sets[i], costs[i] = s.matchingWords(t, infix)
		if costs[i] == 0 {
			return false
		}
		if costs[i] < costs[drive] {
			drive = i
		}
	}
	type check struct {
		bits []uint64
		sub  string // looked for in the key when bits is nil
	}
	var checks []check
	for i, t := range toks {
		if i == drive {
			continue
		}
		if costs[i] > 16*costs[drive] {
			sub := t
			if !infix {
				sub = " " + t
			}
			checks = append(checks, check{sub: sub})
			continue
		}
		bits := make([]uint64, (len(s.c.products)+63)/64)
		for _, w := range sets[i] {
			for _, p := range s.c.postings[w] {
				bits[p/64] |= 1 << (p % 64)
			}
		}
		checks = append(checks, check{bits: bits})
	}
	for _, w := range sets[drive] {
	products:
		for _, p := range s.c.postings[w] {
			if _, dup := s.seen[p]; dup {
				continue
			}
			for _, ch := range checks {
				if ch.bits != nil && ch.bits[p/64]&(1<<(p%64)) == 0 ||
					ch.bits == nil && !strings.Contains(s.c.keys[p], ch.sub) {
					continue products
				}
			}
			if s.add(p) {
				return true
			}
		}
	}
	return false
}

// maxImportBytes bounds the size of a catalog file.
const maxImportBytes = 64 << 20

func readAll(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxImportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("pos: import catalog: %w", err)
	}
	if len(data) > maxImportBytes {
		return nil, &ImportError{Problems: []Problem{{Msg: "the file is larger than 64 MiB"}}}
	}
	return data, nil
}

// csvColumns returns the columns of a catalog CSV file; the first five are required.
func csvColumns() []string {
	return []string{"sku", "name", "price", "gst_rate", "hsn", "barcode", "brand", "product_code", "serialised", "cess_rate", "supply", "unit"}
}

// ImportCSV reads a catalog from CSV text with a header row naming the columns sku,
// barcode, name, brand, product_code, price (rupees, e.g. 74999.00), gst_rate
// (percent: 18, 0.25), hsn, serialised (yes/no, true/false, 1/0, or empty),
// cess_rate (percent) and unit (a GST unit quantity code, ParseUQC; empty is
// NOS), in any order; barcode, brand, product_code, serialised, cess_rate and
// unit may be left out. It returns a complete
// new catalog, or an *ImportError listing every bad row by line number.
func ImportCSV(r io.Reader) (*Catalog, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a spreadsheet's byte order mark
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	ie := &ImportError{}
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			ie.add(Problem{Msg: "the file is empty"})
		} else {
			ie.add(Problem{Line: 1, Msg: "the header row cannot be read: " + csvReason(err)})
		}
		return nil, ie
	}
	cols := csvColumns()
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		switch {
		case !slices.Contains(cols, h):
			ie.add(Problem{Line: 1, Msg: fmt.Sprintf("unknown column %q (the columns are %s)", printable(h), strings.Join(cols, ", "))})
		case col[h] != 0:
			ie.add(Problem{Line: 1, Msg: fmt.Sprintf("column %q appears twice", h)})
		default:
			col[h] = i + 1 // 0 means absent
		}
	}
	for _, h := range cols[:5] {
		if col[h] == 0 {
			ie.add(Problem{Line: 1, Msg: fmt.Sprintf("the required column %q is missing", h)})
		}
	}
	if len(ie.Problems) > 0 {
		return nil, ie
	}
	var ps []Product
	var lines []int
	for item := 1; ; item++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.StartLine
			}
			if !ie.add(Problem{Line: line, Item: item, Msg: "the row cannot be read: " + csvReason(err)}) {
				return nil, ie
			}
			continue
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			item--
			continue // a blank line
		}
		if len(rec) != len(header) {
			if !ie.add(Problem{Line: line, Item: item, Msg: fmt.Sprintf("the row has %d fields; the header has %d", len(rec), len(header))}) {
				return nil, ie
			}
			continue
		}
		get := func(name string) string {
			if i := col[name]; i > 0 {
				return strings.TrimSpace(rec[i-1])
			}
			return ""
		}
		p := Product{
			SKU: get("sku"), Barcode: get("barcode"), Name: get("name"), Brand: get("brand"),
			ProductCode: get("product_code"), HSN: get("hsn"),
		}
		var msgs []string
		if p.Price, err = ParsePaise(get("price")); err != nil {
			msgs = append(msgs, "the price must be rupees such as 74999.00")
			p.Price = 1 // checked; keep validate from repeating it
		}
		if p.GSTRate, err = ParseRate(get("gst_rate")); err != nil {
			msgs = append(msgs, "the GST rate must be a number of percent: "+rateList())
			p.GSTRate = Percent(18) // checked; keep validate from repeating it
		}
		if c := get("cess_rate"); c != "" {
			if p.Cess, err = ParseRate(c); err != nil {
				msgs = append(msgs, "the cess rate must be a number of percent, such as 60")
			}
		}
		if p.Serialised, err = parseYesNo(get("serialised")); err != nil {
			msgs = append(msgs, "serialised must be yes or no")
		}
		if p.Supply, err = ParseSupply(get("supply")); err != nil {
			msgs = append(msgs, err.Error())
		}
		if p.Unit, err = ParseUQC(get("unit")); err != nil {
			msgs = append(msgs, err.Error())
		}
		for _, m := range msgs {
			if !ie.add(Problem{Line: line, Item: item, SKU: printable(p.SKU), Msg: m}) {
				return nil, ie
			}
		}
		ps = append(ps, normalise(p))
		lines = append(lines, line)
	}
	return finish(ps, lines, ie, true)
}

// csvReason describes a CSV parse error without repeating the line number.
func csvReason(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func parseYesNo(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "", "0", "n", "no", "false":
		return false, nil
	case "1", "y", "yes", "true":
		return true, nil
	}
	return false, strconv.ErrSyntax
}

// finish validates the products read from a file, lines[i] being where ps[i] starts.
func finish(ps []Product, lines []int, ie *ImportError, rates bool) (*Catalog, error) {
	validateAll(ps, func(i int) Problem { return Problem{Line: lines[i], Item: i + 1} }, ie, rates)
	if len(ps) == 0 && len(ie.Problems) == 0 {
		ie.add(Problem{Msg: "the file holds no products"})
	}
	if len(ie.Problems) > 0 {
		last := func(p Problem) int {
			if p.Line == 0 {
				return int(^uint(0) >> 1)
			}
			return p.Line
		}
		slices.SortStableFunc(ie.Problems, func(a, b Problem) int { return cmp.Compare(last(a), last(b)) })
		return nil, ie
	}
	return build(ps), nil
}

// jsonProduct is Product's JSON form; pointers tell a missing field from a zero one.
type jsonProduct struct {
	SKU         string          `json:"sku"`
	Barcode     string          `json:"barcode,omitempty"`
	Name        string          `json:"name"`
	Brand       string          `json:"brand,omitempty"`
	ProductCode string          `json:"product_code,omitempty"`
	Price       json.RawMessage `json:"price"`
	GSTRate     *Rate           `json:"gst_rate"`
	Cess        Rate            `json:"cess_rate,omitzero"`
	HSN         string          `json:"hsn"`
	Serialised  bool            `json:"serialised,omitempty"`
	Supply      Supply          `json:"supply,omitempty"`
	Unit        string          `json:"unit,omitempty"`
}

// MarshalJSON writes p with snake_case names and the price in rupees as text.
func (p Product) MarshalJSON() ([]byte, error) {
	rate := p.GSTRate
	price, _ := json.Marshal(priceText(p.Price))
	return json.Marshal(jsonProduct{
		SKU: p.SKU, Barcode: p.Barcode, Name: p.Name, Brand: p.Brand, ProductCode: p.ProductCode,
		Price: price, GSTRate: &rate, Cess: p.Cess, HSN: p.HSN, Serialised: p.Serialised, Supply: p.Supply, Unit: string(p.Unit),
	})
}

// priceText writes rupees with two decimals and no grouping: "74999.00".
func priceText(p Paise) string {
	sign := ""
	if p < 0 {
		sign, p = "-", -p
	}
	return fmt.Sprintf("%s%d.%02d", sign, p/100, p%100)
}

// UnmarshalJSON reads p's JSON form. Unknown fields are refused, and so is a product
// without gst_rate, so that a misspelt name cannot turn into a 0% rate.
func (p *Product) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var j jsonProduct
	if err := dec.Decode(&j); err != nil {
		return err
	}
	if j.GSTRate == nil {
		return errors.New(`the field "gst_rate" is missing`)
	}
	price, err := parseJSONPrice(j.Price)
	if err != nil {
		return err
	}
	unit, err := ParseUQC(j.Unit)
	if err != nil {
		return err
	}
	*p = Product{
		SKU: j.SKU, Barcode: j.Barcode, Name: j.Name, Brand: j.Brand, ProductCode: j.ProductCode,
		Price: price, GSTRate: *j.GSTRate, Cess: j.Cess, HSN: j.HSN, Serialised: j.Serialised, Unit: unit,
	}
	if p.Supply, err = ParseSupply(string(j.Supply)); err != nil {
		return err
	}
	return nil
}

func parseJSONPrice(raw json.RawMessage) (Paise, error) {
	errPrice := errors.New(`the price must be rupees such as "74999.00"`)
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, errors.New(`the field "price" is missing`)
	}
	text := string(raw)
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &text); err != nil {
			return 0, errPrice
		}
	} else if strings.ContainsAny(text, "eE+") || !json.Valid(raw) {
		return 0, errPrice
	}
	v, err := ParsePaise(text)
	if err != nil {
		return 0, errPrice
	}
	return v, nil
}

// ImportJSON reads a catalog from a JSON array of products in Product's JSON form. It
// returns a complete new catalog, or an *ImportError listing every bad product by the
// line where it starts.
func ImportJSON(r io.Reader) (*Catalog, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, err
	}
	return LoadCatalogJSON(data)
}

// LoadCatalogJSON is ImportJSON over bytes in memory, such as the embedded sample
// catalog.
func LoadCatalogJSON(data []byte) (*Catalog, error) { return loadCatalogJSON(data, true) }

// RestoreCatalogJSON reads a catalog the journal stored when it was imported: as
// LoadCatalogJSON, except that its GST rates are not checked against today's
// list (GSTRates). They were accepted at import; the rate list changing must not
// leave a terminal without its catalog. Import a new catalog to move to new rates.
func RestoreCatalogJSON(data []byte) (*Catalog, error) { return loadCatalogJSON(data, false) }

func loadCatalogJSON(data []byte, rates bool) (*Catalog, error) {
	ie := &ImportError{}
	// lineAt counts lines incrementally: offsets mostly grow, so a big file is
	// scanned once, not once per product.
	var seenOff int64
	seenLine := 1
	lineAt := func(off int64) int {
		off = min(max(off, 0), int64(len(data)))
		if off < seenOff {
			seenOff, seenLine = 0, 1
		}
		seenLine += bytes.Count(data[seenOff:off], []byte("\n"))
		seenOff = off
		return seenLine
	}
	syntax := func(err error, off int64) (*Catalog, error) {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = se.Offset
		}
		msg := "the file is not a JSON array of products"
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			msg = "the JSON text ends too early"
		} else if se != nil {
			msg = "the JSON text is broken here: " + se.Error()
		}
		ie.add(Problem{Line: lineAt(off), Msg: msg})
		return nil, ie
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return syntax(err, dec.InputOffset())
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		ie.add(Problem{Line: 1, Msg: "the file must hold a JSON array of products: [ {...}, ... ]"})
		return nil, ie
	}
	var ps []Product
	var lines []int
	for item := 1; dec.More(); item++ {
		start := dec.InputOffset()
		for start < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[start]) >= 0 {
			start++
		}
		var p Product
		err := dec.Decode(&p)
		var se *json.SyntaxError
		if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return syntax(err, dec.InputOffset())
		}
		line := lineAt(start)
		raw := data[start:dec.InputOffset()]
		if err != nil {
			msg := err.Error()
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				msg = fmt.Sprintf("the field %q has the wrong type", te.Field)
				if te.Field == "" {
					msg = "each product must be a JSON object"
				}
			}
			if !ie.add(Problem{Line: line, Item: item, SKU: printable(skuOf(raw)), Msg: strings.TrimPrefix(msg, "json: ")}) {
				return nil, ie
			}
			continue
		}
		ps = append(ps, normalise(p))
		lines = append(lines, line)
	}
	if _, err := dec.Token(); err != nil {
		return syntax(err, dec.InputOffset())
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		ie.add(Problem{Line: lineAt(dec.InputOffset()), Msg: "there is text after the array of products"})
		return nil, ie
	}
	return finish(ps, lines, ie, rates)
}

// skuOf digs the sku out of a product that did not decode, to name it in a problem.
func skuOf(raw json.RawMessage) string {
	var v struct {
		SKU string `json:"sku"`
	}
	_ = json.Unmarshal(raw, &v) // best effort: an empty SKU is fine
	return v.SKU
}

// WriteJSON writes the catalog as an indented JSON array that ImportJSON reads back.
func (c *Catalog) WriteJSON(w io.Writer) error {
	data, err := json.MarshalIndent(c.products, "", "  ")
	if err != nil {
		return fmt.Errorf("pos: write catalog: %w", err)
	}
	if _, err := w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("pos: write catalog: %w", err)
	}
	return nil
}

// WriteCSV writes the catalog as CSV with a header row that ImportCSV reads back.
func (c *Catalog) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"sku", "barcode", "name", "brand", "product_code", "price", "gst_rate", "hsn", "serialised", "cess_rate", "supply", "unit"})
	for _, p := range c.products {
		ser := "no"
		if p.Serialised {
			ser = "yes"
		}
		cess := ""
		if !p.Cess.IsZero() {
			cess = p.Cess.Decimal()
		}
		_ = cw.Write([]string{p.SKU, p.Barcode, p.Name, p.Brand, p.ProductCode, priceText(p.Price), p.GSTRate.Decimal(), p.HSN, ser, cess, string(p.Supply), string(p.Unit)})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("pos: write catalog: %w", err)
	}
	return nil
}

// DefaultCatalog returns the sample catalog embedded in package assets.
func DefaultCatalog() (*Catalog, error) {
	return LoadCatalogJSON(assets.SampleCatalog())
}
