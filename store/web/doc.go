// Package web is the store server's manager's pages (DESIGN.md section 11,
// ADR 0006): server-rendered html/template pages under /manager/, no script
// at all, a strict Content-Security-Policy, sign-in by manager name and PIN,
// sessions in the database (the server stays stateless) behind an HttpOnly,
// Secure, SameSite=Strict cookie, and a CSRF token on every form. Whoever
// builds the store server hands the pages to it:
//
//	store.NewServer(db, log, store.WithManagerPages(web.New(db, log)))
//
// # What it owns
//
// The pages and their managers: the managers and manager_sessions tables and
// the managers' pepper (a row of server_keys), and the queries that read the
// store's projections for the pages. It writes nothing derived from events:
// store projects them, and the pages read (and ask store to catch up first).
// A manager's PIN follows the counter's rules through pos's own functions:
// its format (pos.CheckRolePIN), its hash (pos.HashPIN, pos.PINHashMatches)
// and the lockout (pos.PINAttempts). The states its SQL compares with are
// picked by pos's rules (pos.OrderState.Final, Paid) from pos.AllOrderStates,
// never written as literals.
//
// # What it may import
//
// pos (the rules), pos/gstr, store (the database and its reports) and pgx.
// Never ui, internal, pos/journal, gateway, receipts or store/link. Only the
// program's commands import it: galla store serve, which hands the pages to
// the server, and galla store manager add (AddManager).
package web
