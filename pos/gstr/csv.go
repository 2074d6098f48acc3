package gstr

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// CSVText makes a text cell safe for a spreadsheet (DESIGN.md section 5): a cell
// starting with =, +, -, @, a tab or a carriage return is a formula to Excel,
// LibreOffice and Sheets, so it gets a leading apostrophe and is read as text.
// Amounts, which Galla writes itself, are not passed through it.
func CSVText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// CSVHeader is the header row WriteCSV writes.
var CSVHeader = []string{"document_no", "date", "kind", "original_no", "buyer_gstin", "buyer_name", "place_of_supply",
	"item", "hsn", "qty", "uqc", "taxable", "rate", "igst", "cgst", "sgst", "cess", "total", "imei", "tender", "cashier", "seller_gstin"}

// WriteCSV writes one row per line sold or returned in docs, in the order given,
// for the accountant: a credit note's lines with negative quantities and values
// (so that a column's sum is the net), a cancelled document as one row with no
// line. Its last column is the GSTIN the shop issued the document under (empty
// while it had none, or where the document does not say), so that a period
// across a change of registration is told apart. Amounts are rupees with two decimals; every text cell is CSVText.
func WriteCSV(w io.Writer, docs []Document) error {
	cw := NewCSVWriter(w)
	cw.Write(docs...)
	return cw.Close()
}

// CSVWriter writes WriteCSV's rows a few documents at a time, so that an export
// of many days holds one day's documents in memory, not the period's: its header
// row first, then the rows of each Write in the order given, the same bytes as
// one WriteCSV of all the documents.
type CSVWriter struct {
	cw *csv.Writer
}

// NewCSVWriter returns a CSVWriter on w that has written the header row.
func NewCSVWriter(w io.Writer) *CSVWriter {
	cw := csv.NewWriter(w)
	_ = cw.Write(CSVHeader)
	return &CSVWriter{cw: cw}
}

// Write writes the rows of docs; an error is reported by Flush or Close.
func (c *CSVWriter) Write(docs ...Document) {
	for i := range docs {
		writeRows(c.cw, &docs[i])
	}
}

// Flush writes what is buffered to the underlying writer and reports the first
// error met so far.
func (c *CSVWriter) Flush() error {
	c.cw.Flush()
	if err := c.cw.Error(); err != nil {
		return fmt.Errorf("gstr: csv: %w", err)
	}
	return nil
}

// Close flushes the rows written (Flush); the underlying writer stays open.
func (c *CSVWriter) Close() error { return c.Flush() }

func writeRows(cw *csv.Writer, d *Document) {
	pos := d.PlaceOfSupply
	if pos == "" {
		pos = d.ShopState
	}
	head := []string{CSVText(d.Number), d.Date.Format(time.DateOnly), string(d.Kind), CSVText(d.OriginalNumber),
		CSVText(d.BuyerGSTIN), CSVText(d.BuyerName), CSVText(pos)}
	seller := ""
	if d.Seller != nil {
		seller = d.Seller.GSTIN
	}
	tail := []string{CSVText(d.Tender), CSVText(d.Cashier), CSVText(seller)}
	if d.Cancelled {
		row := append(append([]string(nil), head...), make([]string, len(CSVHeader)-len(head)-len(tail))...)
		row[2] = string(d.Kind) + " (cancelled)"
		_ = cw.Write(append(row, tail...))
		return
	}
	sign := Paise(1)
	if d.Kind == CreditNote {
		sign = -1
	}
	for _, l := range d.Lines {
		uqc := l.UQC
		if uqc == "" {
			uqc = "NOS"
		}
		row := append(append([]string(nil), head...),
			CSVText(l.Description), CSVText(l.HSN), strconv.Itoa(int(sign)*l.Qty), CSVText(uqc),
			(sign * l.Taxable).Rupees(), l.Rate.String(), (sign * l.IGST).Rupees(), (sign * l.CGST).Rupees(),
			(sign * l.SGST).Rupees(), (sign * l.Cess).Rupees(), (sign * l.Total()).Rupees(),
			CSVText(strings.Join(l.IMEIs, " ")))
		_ = cw.Write(append(row, tail...))
	}
}
