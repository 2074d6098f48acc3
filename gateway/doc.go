// Package gateway is the HTTP client of the payment service: typed calls, request
// signing and response verification, one typed error for both of the service's error
// envelopes, deadlines and safe retries.
//
// The service's interface is ../shared/spec/service-interface.md; everything it leaves
// open is decided in ../shared/spec/service-contract.md. gateway imports nothing of
// Galla's.
package gateway
