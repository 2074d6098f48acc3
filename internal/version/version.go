// Package version says which Galla this is: the version of FyneApp.toml (the one
// source, embedded by the main package), the commit and the build date. The
// release build stamps the commit and the date with -ldflags (Makefile's
// LDFLAGS); a plain "go build" in a git checkout takes them from the build's own
// VCS information, and says "unknown" where there is none.
//
// It imports no package of Galla's.
package version

import (
	"bufio"
	"bytes"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
)

// Stamped by the release build:
//
//	-X galla/internal/version.commit=SHA -X galla/internal/version.date=2026-11-24T15:00:00Z
//
// They are variables only because -ldflags -X can set nothing else; nothing
// assigns them at run time.
var (
	commit string
	date   string
)

// Info is one build of Galla.
type Info struct {
	Version string // "0.1.0", from FyneApp.toml's [Details] Version
	Build   int    // FyneApp.toml's [Details] Build
	Commit  string // the commit it was built from, or "unknown"
	Date    string // when it was built (RFC 3339), or "unknown"
	Dirty   bool   // built from a checkout with uncommitted changes
}

// String is "0.1.0 (commit abc1234, built 2026-11-24T15:00:00Z)".
func (i Info) String() string {
	c := i.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if i.Dirty {
		c += "+changes"
	}
	return fmt.Sprintf("%s (commit %s, built %s)", i.Version, c, i.Date)
}

// Read returns the build's Info: the version from fyneApp (the bytes of
// FyneApp.toml), the commit and the date as stamped, else from the build's VCS
// information.
func Read(fyneApp []byte) (Info, error) {
	v, build, err := ParseFyneApp(fyneApp)
	if err != nil {
		return Info{}, err
	}
	info := Info{Version: v, Build: build, Commit: commit, Date: date}
	if bi, ok := debug.ReadBuildInfo(); ok {
		info = withVCS(info, bi.Settings)
	}
	if info.Commit == "" {
		info.Commit = "unknown"
	}
	if info.Date == "" {
		info.Date = "unknown"
	}
	return info, nil
}

// withVCS fills what was not stamped from the build settings go build records
// in a checkout (vcs.revision, vcs.time, vcs.modified). vcs.time is the
// commit's time: the closest a plain build knows to its date.
func withVCS(info Info, settings []debug.BuildSetting) Info {
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			if info.Commit == "" {
				info.Commit = s.Value
			}
		case "vcs.time":
			if info.Date == "" {
				info.Date = s.Value
			}
		case "vcs.modified":
			info.Dirty = s.Value == "true"
		}
	}
	return info
}

// ParseFyneApp reads Version and Build from the [Details] table of a
// FyneApp.toml. Only the two keys are read: the file is Fyne's, small and flat.
func ParseFyneApp(toml []byte) (version string, build int, err error) {
	sc := bufio.NewScanner(bytes.NewReader(toml))
	table := ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		line = stripComment(line)
		if strings.HasPrefix(line, "[") {
			table = strings.Trim(line, "[] ")
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok || table != "Details" {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "Version":
			s, err := strconv.Unquote(val)
			if err != nil {
				return "", 0, fmt.Errorf("version: FyneApp.toml: Version %s is not a quoted string", val)
			}
			version = s
		case "Build":
			n, err := strconv.Atoi(val)
			if err != nil {
				return "", 0, fmt.Errorf("version: FyneApp.toml: Build %s is not a number", val)
			}
			build = n
		}
	}
	if version == "" {
		return "", 0, fmt.Errorf("version: FyneApp.toml has no [Details] Version")
	}
	if !validVersion(version) {
		return "", 0, fmt.Errorf("version: FyneApp.toml: Version %q is not MAJOR.MINOR.PATCH", version)
	}
	return version, build, nil
}

// stripComment cuts a "#" comment off a line, leaving a "#" inside a quoted
// string alone.
func stripComment(line string) string {
	quoted := false
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '"' && (i == 0 || line[i-1] != '\\'):
			quoted = !quoted
		case line[i] == '#' && !quoted:
			return strings.TrimSpace(line[:i])
		}
	}
	return line
}

// validVersion accepts MAJOR.MINOR.PATCH, three numbers, as Fyne requires.
func validVersion(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if _, err := strconv.ParseUint(p, 10, 32); err != nil {
			return false
		}
	}
	return true
}
