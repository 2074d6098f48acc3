package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMain gives the commands FyneApp.toml, as package main does (wire.go embeds
// it), and runs the tests; the store commands' PostgreSQL cluster (pg) is
// stopped after them.
func TestMain(m *testing.M) {
	var err error
	if fyneApp, err = os.ReadFile(filepath.Join("..", "..", "FyneApp.toml")); err != nil {
		fmt.Fprintln(os.Stderr, "cli tests:", err)
		os.Exit(1)
	}
	pg.Main(m)
}
