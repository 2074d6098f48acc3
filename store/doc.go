// Package store is the store server (DESIGN.md section 11): the counters of a
// store send their journal's events to it over HTTPS, and it keeps them in
// PostgreSQL. It and its manager's pages (store/web) are the only packages
// that import pgx (scripts/depcheck.sh).
//
// The server is stateless over the database: everything it knows, the
// certificate and its key included, is in PostgreSQL, so several copies can serve
// one database behind a load balancer (docs/adr/0004-store-server.md), save
// the store key (key.go): the data key that seals the buyers' details in the
// database (vault.go) and the PIN peppers, kept outside PostgreSQL by a Keeper
// so that a copy of the database yields no buyer and tests no PIN; every copy
// is given the same key, and it is backed up with the database. The
// schema is docs/store-schema.md; it is made and migrated by Migrate from the
// numbered files of sql/, each applied once and recorded in schema_version.
//
// A terminal is enrolled with a one-time code (Access.EnrolCode, then the
// terminal's POST /api/v1/enrol) and receives a credential; every later request
// is signed with it (package api). Its events go up in batches (Events.Ingest):
// stored exactly once on (terminal, seq), the chain continuing from the last
// stored hash; a gap is answered with the sequence expected, and a different
// event under a known sequence is a fork: an alarm is recorded and the terminal
// is refused until a manager clears it.
//
// # What it owns
//
// The events table and everything derived from it: the projections (orders,
// payments, documents, credit notes, IMEI units, shifts, Z reports,
// overrides), each event kind projected by the function projectionsTable
// names; the store-wide decisions (an IMEI sold once, a credit note spent at
// most its value, another counter's invoice refunded at most what was sold);
// the master data sent down and the store's staff; the terminals, their
// enrolment and alarms; the store's Z and GSTR-1. Server is the terminals'
// HTTP API; it serves the manager's pages only when handed them
// (WithManagerPages).
//
// # What it may import
//
// pos for every rule of money, tax, order states and PINs (the store applies
// events with pos.Order.Apply and writes none of pos's rules again), pos/gstr,
// store/api (the wire shared with the counters) and pgx. Never ui, internal,
// pos/journal, gateway, receipts, store/link (the counter's side of the wire)
// or store/web (which imports store).
package store
