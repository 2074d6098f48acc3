// Package receipts turns a Receipt value into text (32, 42 and 48 columns), ESC/POS
// bytes, PNG and PDF, each with a signed QR code, and sends them to printers over raw
// TCP, the system spooler or a file. Renderers are pure functions writing to an
// io.Writer; receipts imports nothing of Galla's but assets.
//
// A Receipt is plain values: amounts are int64 paise (Amount and Money format them
// with Indian grouping, Words spells them: "Rupees Seventy-Four Thousand Nine
// Hundred Ninety-Nine Only"), the card is its brand and last four digits. pos fills
// one from a journaled order.
//
// Every renderer prints the same rows in the same places:
//
//   - Text(w, r, cols, opts...) writes UTF-8 text; WithRs writes "Rs." for ₹.
//   - ESCPOS(w, r, profile) writes printer bytes: ESC @, ESC t, ESC a, ESC E, GS !,
//     the QR code natively (GS ( k) or as a raster image (GS v 0) by Profile.QRMode,
//     GS V and the cash-drawer pulse ESC p. Text is reduced to printable ASCII.
//   - Renderer.PNG draws what a 203 dpi printer prints (576 dots on 80 mm, 384 on
//     58 mm) with the embedded DejaVu Sans Mono; Renderer.PDF makes an A4 page: a
//     sale as the A4 tax invoice (seller and document side by side, buyer, table of
//     lines, HSN summary, totals, words), a credit note as its A4 page in the same
//     layout, anything else as the receipt's column; PageText is that page's text.
//     Build the Renderer once with NewRenderer: it parses the font and draws the
//     glyphs in advance, and is never modified afterwards.
//
// What a document states is pos's decision, carried as plain values: Legend (the
// composition scheme's sentence, or that the seller is not registered) under the
// title, NoTax (prices only: no tax figure, rate or HSN summary in any format),
// NoReverseCharge ("Reverse charge: No"), and each line's Unit. Every numbered
// document says ORIGINAL FOR RECIPIENT on its first print and DUPLICATE on later
// ones, and ends with the seller's signature line.
//
// The QR code carries the merchant order id, the service order id, the payment id and
// the amount in compact text, "GALLA1|moid|soid|pid|amount|sig", signed with the
// terminal's key (SignQR) and checked with ParseQR, which refuses a forged or altered
// receipt with ErrForgedQR.
//
// Printers (TCP, Spooler, File, or NewPrinter from a Profile) take a finished job
// within a deadline (5 seconds unless told otherwise); one that does not answer is a
// *PrinterError whose text is the sentence the cashier reads: "Printer at
// 192.168.1.50 is not answering; the sale is saved — print it again once the printer answers (it prints as the original)".
package receipts
