// Package gstr turns a period's sales documents (tax invoices, bills of supply,
// credit notes) into the returns and exports an accountant files: the GSTR-1
// JSON of the GST portal's offline tool (GSTR1) and a CSV of every line sold or
// returned (WriteCSV).
//
// It knows nothing of orders, the journal or the counter: pos maps its journaled
// sales and refunds to Documents and calls it. Money is int64 paise (Paise) and
// rates are hundredths of a percent (Rate), so that every sum is exact; amounts
// become rupees with two decimals only when the JSON is written.
//
// The sections and the rules used (the B2CL threshold, the place of supply, how
// credit notes are netted) are described in docs/gstr1.md.
//
// It imports no package of Galla's: pos imports it, never the other way.
package gstr
