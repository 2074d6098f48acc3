//go:build !unix

package cli

// noCoreDumps does nothing where the system writes no core files of its own
// (Windows writes crash dumps only when configured to).
func noCoreDumps() error { return nil }
