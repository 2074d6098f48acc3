// Package sandbox is a faithful in-process implementation of the payment service
// (../shared/spec/service-contract.md) as an http.Handler. It is the embedded default
// of a fresh install, the service every test runs against, and, through
// "galla sandbox", a standalone server. Faults can be injected on purpose.
package sandbox
