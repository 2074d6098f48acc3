package main

import (
	_ "embed"
	"os"

	"galla/internal/cli"
	"galla/internal/config"
)

// fyneApp is FyneApp.toml, the one source of Galla's version: fyne package
// reads it for the installers, and this build hands it to the command line for
// --version and the journal.
//
//go:embed FyneApp.toml
var fyneApp []byte

// processEnv is what this process hands the command line: the standard streams,
// the environment, the system's keyring for the secrets and the version.
func processEnv() cli.Env {
	return cli.Env{
		Stdin:   os.Stdin,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Getenv:  os.Getenv,
		Keyring: config.SystemKeyring{},
		FyneApp: fyneApp,
	}
}
