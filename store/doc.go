// Package store is the store server (DESIGN.md section 11): the counters of a
// store send their journal's events to it over HTTPS, and it keeps them in
// PostgreSQL. It is the only package that imports pgx.
//
// The server is stateless over the database: everything it knows, the
// certificate and its key included, is in PostgreSQL, so several copies can serve
// one database behind a load balancer (docs/adr/0004-store-server.md). The
// schema is docs/store-schema.md; it is made and migrated by Migrate from the
// numbered files of sql/, each applied once and recorded in schema_version.
//
// A terminal is enrolled with a one-time code (EnrolCode, then the terminal's
// POST /api/v1/enrol) and receives a credential; every later request is signed
// with it (package api). Its events go up in batches (Ingest): stored exactly
// once on (terminal, seq), the chain continuing from the last stored hash; a gap
// is answered with the sequence expected, and a different event under a known
// sequence is a fork: an alarm is recorded and the terminal is refused until a
// manager clears it.
package store
