// Package crashtest holds Galla's crash tests (DESIGN.md section 8): a helper
// process runs a real checkout against the sandbox over a socket with a real
// bbolt journal and is killed with SIGKILL at each journal commit and during
// polling; the test then reopens the journal, reconciles and checks that no sale
// is lost and none is charged twice. The package has no code of its own; its
// tests import pos, pos/journal and the sandbox, as the terminal wires them.
package crashtest
