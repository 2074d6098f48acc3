// Package packaging holds what turns Galla into installers (the desktop entry,
// the NSIS script, the Windows icon); its tests check the release workflow
// against the Makefile, so that CI builds with the same targets as a developer.
package packaging

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// workflow is the part of a GitHub Actions workflow these tests read.
type workflow struct {
	On struct {
		Push struct {
			Tags []string `yaml:"tags"`
		} `yaml:"push"`
	} `yaml:"on"`
	Jobs map[string]struct {
		RunsOn   string `yaml:"runs-on"`
		Needs    any    `yaml:"needs"`
		If       string `yaml:"if"`
		Timeout  int    `yaml:"timeout-minutes"`
		Strategy struct {
			Matrix struct {
				Include []map[string]string `yaml:"include"`
			} `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			If   string            `yaml:"if"`
			Run  string            `yaml:"run"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func readWorkflow(t *testing.T) workflow {
	t.Helper()
	data, err := os.ReadFile("../.github/workflows/release.yml")
	require.NoError(t, err)
	var w workflow
	require.NoError(t, yaml.Unmarshal(data, &w), "release.yml is valid YAML")
	return w
}

// makeTargets lists the targets the Makefile defines.
func makeTargets(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile("../Makefile")
	require.NoError(t, err)
	targets := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):`).FindAllStringSubmatch(string(data), -1) {
		targets[m[1]] = true
	}
	return targets
}

func TestReleaseWorkflow(t *testing.T) {
	w := readWorkflow(t)
	targets := makeTargets(t)
	require.True(t, targets["test"] && targets["package"], "the Makefile parses: %v", targets)

	assert.Contains(t, w.On.Push.Tags, "v*", "packages are built on a version tag")
	build, ok := w.Jobs["build"]
	require.True(t, ok, "a build job")
	assert.Positive(t, build.Timeout)

	runners := map[string]string{}
	for _, m := range build.Strategy.Matrix.Include {
		runners[m["name"]] = m["runner"]
		for _, key := range []string{"test", "package"} {
			cmd := m[key]
			require.True(t, strings.HasPrefix(cmd, "make "), "%s %s: %q is a Makefile target", m["name"], key, cmd)
			for _, target := range strings.Fields(cmd)[1:] {
				assert.True(t, targets[target], "%s %s: make %s is not in the Makefile", m["name"], key, target)
			}
		}
	}
	assert.Equal(t, map[string]string{"linux": "ubuntu-latest", "windows": "windows-latest", "macos": "macos-latest"}, runners)
	for _, m := range build.Strategy.Matrix.Include {
		if m["name"] == "linux" {
			assert.Equal(t, "make test", m["test"], "Linux runs the whole make test")
			assert.Equal(t, "make package", m["package"])
		}
	}

	var vuln, pkg bool
	for _, s := range build.Steps {
		if strings.Contains(s.Run, "govulncheck") {
			vuln = true
		}
		if s.Run == "${{ matrix.package }}" {
			pkg = true
			assert.Equal(t, "startsWith(github.ref, 'refs/tags/v')", s.If, "packages only on a version tag")
			for _, secret := range []string{"MACOS_CERTIFICATE_P12", "MACOS_CERTIFICATE_PASSWORD", "MACOS_SIGN_IDENTITY", "APPLE_ID", "APPLE_TEAM_ID", "APPLE_APP_PASSWORD"} {
				assert.Equal(t, "${{ secrets."+secret+" }}", s.Env[secret], "the package step gets %s from the secrets", secret)
			}
		}
	}
	assert.True(t, vuln, "a govulncheck step")
	assert.True(t, pkg, "a package step")

	release, ok := w.Jobs["release"]
	require.True(t, ok, "a release job")
	assert.Equal(t, "build", release.Needs)
}

// TestMakeTestNeedsNoNetworkCheck: govulncheck needs the vulnerability
// database, which the tests' machines cannot reach; make test must not call it.
func TestMakeTestNeedsNoNetworkCheck(t *testing.T) {
	data, err := os.ReadFile("../Makefile")
	require.NoError(t, err)
	assert.NotContains(t, string(data), "govulncheck")
}

// TestMacOSSigningSkipsWithALine: without the secrets the macOS script says it
// skipped signing and notarisation, in the log.
func TestMacOSSigningSkipsWithALine(t *testing.T) {
	data, err := os.ReadFile("../scripts/package-macos.sh")
	require.NoError(t, err)
	s := string(data)
	assert.Contains(t, s, `echo "package-macos: signing skipped:`)
	assert.Contains(t, s, `echo "package-macos: notarisation skipped:`)
}
