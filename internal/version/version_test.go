package version

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFyneApp(t *testing.T) {
	tests := []struct {
		name    string
		toml    string
		version string
		build   int
		wantErr bool
	}{
		{"galla's", "[Details]\n  Icon = \"assets/icon.png\"\n  Name = \"Galla\"\n  Version = \"0.1.0\"\n  Build = 1\n\n[Migrations]\n  fyneDo = true\n", "0.1.0", 1, false},
		{"comments", "# app\n[Details] # the app\nVersion = \"2.10.3\" # released\nBuild = 42\n", "2.10.3", 42, false},
		{"version in another table", "[Other]\nVersion = \"9.9.9\"\n[Details]\nVersion = \"1.2.3\"\n", "1.2.3", 0, false},
		{"no version", "[Details]\nName = \"Galla\"\n", "", 0, true},
		{"unquoted", "[Details]\nVersion = 1.2.3\n", "", 0, true},
		{"two parts", "[Details]\nVersion = \"1.2\"\n", "", 0, true},
		{"bad build", "[Details]\nVersion = \"1.2.3\"\nBuild = x\n", "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, b, err := ParseFyneApp([]byte(tt.toml))
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.version, v)
			assert.Equal(t, tt.build, b)
		})
	}
}

func TestWithVCS(t *testing.T) {
	settings := []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"},
		{Key: "vcs.time", Value: "2026-11-20T10:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	got := withVCS(Info{Version: "0.1.0"}, settings)
	assert.Equal(t, "0123456789abcdef0123", got.Commit)
	assert.Equal(t, "2026-11-20T10:00:00Z", got.Date)
	assert.True(t, got.Dirty)
	assert.Equal(t, "0.1.0 (commit 0123456789ab+changes, built 2026-11-20T10:00:00Z)", got.String())

	stamped := withVCS(Info{Version: "0.1.0", Commit: "feedface", Date: "2026-11-24T15:00:00Z"}, settings)
	assert.Equal(t, "feedface", stamped.Commit, "the stamp wins over the VCS information")
	assert.Equal(t, "2026-11-24T15:00:00Z", stamped.Date)
}
