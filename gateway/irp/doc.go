// Package irp is the client of the Invoice Registration Portal (IRP), the GST
// e-invoice API of NIC: authentication, generate IRN, get IRN by document details
// and cancel IRN, with the INV-01 (schema version 1.1) JSON that it registers,
// built from a Document, and the check of the IRP's signed QR code. Every call
// is encrypted as the NIC API asks (crypt.go): the credentials and a random
// AppKey with the IRP's RSA public encryption key, every later payload with the
// session key (Sek) authentication answers, AES-256-ECB with PKCS#7 padding.
//
// A shop whose aggregate turnover exceeds the notified limit (Notification
// 10/2023-CT: ₹5 crore) registers every B2B invoice and credit note here before
// handing it over (CGST Rule 48(4)); the IRN, the acknowledgement and the signed
// QR code it answers are printed on the document (Rule 48(5)).
//
// The contract this client speaks, and that gateway/irp/sandbox implements, is
// docs/irp-contract.md. The package is a leaf: it imports nothing of Galla's.
package irp
