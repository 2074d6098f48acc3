package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"galla/internal/version"
	"galla/pos/journal"
)

// fyneApp is FyneApp.toml, the one source of Galla's version: fyne package
// reads it for the installers, and this build reads it for --version and the
// journal. Package main embeds it and Main sets it.
var fyneApp []byte

// buildInfo is this build's version, commit and date.
func buildInfo() version.Info {
	info, err := version.Read(fyneApp)
	if err != nil {
		// FyneApp.toml is embedded at build time and checked by its tests; a
		// build with a broken one still says what it is.
		return version.Info{Version: "0.0.0", Commit: "unknown", Date: "unknown"}
	}
	return info
}

// dataDirChoice is the data directory and why it is the one used.
type dataDirChoice struct {
	dir string
	why string
}

// chooseDataDir picks the data directory when --data does not: GALLA_DATA, else
// the system's place for application data (the XDG data directory on Linux,
// the user's local AppData on Windows, Application Support on macOS). Galla 0.1
// kept its data in the configuration directory (os.UserConfigDir): where that
// holds a journal and the new place holds none, the old one stays in use, so
// that an upgrade never starts an empty journal beside the shop's.
func chooseDataDir(goos string, getenv func(string) string) dataDirChoice {
	if d := getenv("GALLA_DATA"); d != "" {
		return dataDirChoice{d, "set by GALLA_DATA"}
	}
	dir, legacy := systemDataDirs(goos, getenv)
	if dir == "" {
		return dataDirChoice{"galla-data", "no home directory is known, so a folder in the current directory"}
	}
	if legacy != "" && legacy != dir && hasJournal(legacy) && !hasJournal(dir) {
		return dataDirChoice{legacy, fmt.Sprintf("the folder an earlier Galla used, kept because it holds the journal (the default for a new install is %s)", dir)}
	}
	return dataDirChoice{dir, "the default for this system"}
}

// systemDataDirs is the default data directory for goos and the one Galla 0.1
// used there ("" when it is the same or unknown).
func systemDataDirs(goos string, getenv func(string) string) (dir, legacy string) {
	home := getenv("HOME")
	switch goos {
	case "windows":
		if d := getenv("LOCALAPPDATA"); d != "" {
			dir = filepath.Join(d, "Galla")
		}
		if d := getenv("APPDATA"); d != "" {
			legacy = filepath.Join(d, "galla")
		}
		if dir == "" {
			dir, legacy = legacy, ""
		}
	case "darwin", "ios":
		if home != "" {
			dir = filepath.Join(home, "Library", "Application Support", "galla")
		}
	case "plan9":
		if home != "" {
			dir = filepath.Join(home, "lib", "galla")
		}
	default: // Linux and the other Unix systems: the XDG base directories
		if d := getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
			dir = filepath.Join(d, "galla")
		} else if home != "" {
			dir = filepath.Join(home, ".local", "share", "galla")
		}
		if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
			legacy = filepath.Join(d, "galla")
		} else if home != "" {
			legacy = filepath.Join(home, ".config", "galla")
		}
	}
	return dir, legacy
}

// hasJournal reports whether dir holds a journal file.
func hasJournal(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, journalFile))
	return err == nil
}

// printVersion answers galla --version: the build, the data directory and why,
// and the journal schema this build writes.
func printVersion(c *cli, why string) int {
	info := buildInfo()
	fmt.Fprintf(c.stdout, "Galla %s\n", info.Version)
	fmt.Fprintf(c.stdout, "commit:         %s\n", info.Commit)
	fmt.Fprintf(c.stdout, "built:          %s\n", info.Date)
	fmt.Fprintf(c.stdout, "system:         %s/%s\n", runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(c.stdout, "journal schema: %d\n", journal.SchemaVersion())
	fmt.Fprintf(c.stdout, "data directory: %s (%s)\n", c.dataDir, why)
	return exitOK
}

// dataDirLine is the data directory as Settings shows it: the folder and why.
func dataDirLine(c *cli) string {
	if c.dataWhy == "" {
		return c.dataDir
	}
	return c.dataDir + " (" + c.dataWhy + ")"
}
