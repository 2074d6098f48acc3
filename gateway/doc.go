// Package gateway is the HTTP client of the payment service: typed calls, request
// signing and response verification, one typed error for both of the service's error
// envelopes, deadlines and safe retries.
//
// The service's interface is ../shared/spec/service-interface.md; everything it leaves
// open is decided in ../shared/spec/service-contract.md. gateway imports nothing of
// Galla's.
//
// A Client is built from a Config with New. Every call takes a context first and is
// bounded per HTTP request by Config.Timeout. Create order and refund are signed once
// (Sign over the base64 text sent) and a retry resends the identical bytes; inquiry
// and refund answers are verified over the raw bytes received, and an unverified
// answer comes back with Verified false and an error matching ErrSignature. Each
// answer must also name the ids of its request (and a refund's, its amount), else
// the error matches ErrAnswerMismatch. A refund's error answer is a refusal only
// when it is verified; otherwise it matches ErrOutcomeUnknown. Calls that
// move money report a lost or unreadable answer as ErrOutcomeUnknown, and card and
// EMI payments are never re-sent: the caller inquires instead.
//
// Card is the one type that holds a card number and CVV; it prints, marshals and logs
// only the brand and the last four digits. SubmitAuthentication completes the card
// authentication step (the sandbox's OTP page) without a browser.
//
// The service is loose about JSON types; every answer is decoded leniently (numbers
// as text and text as numbers, NA as zero or empty), and the decoders are fuzzed.
package gateway
