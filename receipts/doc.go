// Package receipts turns a Receipt value into text (32, 42 and 48 columns), ESC/POS
// bytes, PNG and PDF, each with a signed QR code, and sends them to printers over raw
// TCP, the system spooler or a file. Renderers are pure functions writing to an
// io.Writer; receipts imports nothing of Galla's but assets.
package receipts
