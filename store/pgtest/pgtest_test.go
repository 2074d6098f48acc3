package pgtest

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var cluster *Cluster

func TestMain(m *testing.M) {
	if os.Getenv("PGTEST_DIE") == "1" { // the binary TestLeftClusterIsStopped starts
		os.Exit(m.Run())
	}
	Main(m, &cluster)
}

// TestDatabaseIsFreshAndSurvivesRestart: each test gets a database of its own,
// and what was committed is there again after the cluster stops and starts.
func TestDatabaseIsFreshAndSurvivesRestart(t *testing.T) {
	a, b := cluster.Database(t), cluster.Database(t)
	require.NotEqual(t, a, b)
	conn, err := pgx.Connect(t.Context(), a)
	require.NoError(t, err)
	_, err = conn.Exec(t.Context(), "CREATE TABLE x (n int); INSERT INTO x VALUES (41), (1)")
	require.NoError(t, err)
	require.NoError(t, conn.Close(t.Context()))

	require.NoError(t, cluster.Stop())
	_, err = pgx.Connect(t.Context(), a)
	require.Error(t, err, "a stopped cluster must refuse connections")
	require.NoError(t, cluster.Restart())

	conn, err = pgx.Connect(t.Context(), a)
	require.NoError(t, err)
	defer conn.Close(t.Context())
	var sum int
	require.NoError(t, conn.QueryRow(t.Context(), "SELECT sum(n) FROM x").Scan(&sum))
	assert.Equal(t, 42, sum)

	other, err := pgx.Connect(t.Context(), b)
	require.NoError(t, err)
	defer other.Close(t.Context())
	var n int
	require.NoError(t, other.QueryRow(t.Context(), "SELECT count(*) FROM pg_tables WHERE tablename = 'x'").Scan(&n))
	assert.Equal(t, 0, n, "the second database must not see the first's table")
}

// TestLeftClusterIsStopped: a test binary that dies without its cleanup
// leaves no server running: the watchdog stops it and removes its directory.
func TestLeftClusterIsStopped(t *testing.T) {
	if os.Getenv("PGTEST_DIE") == "1" {
		c, err := Start()
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(2)
		}
		fmt.Println("dir:", c.dir)
		os.Exit(0) // no Stop: as a crash
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLeftClusterIsStopped$")
	cmd.Env = append(os.Environ(), "PGTEST_DIE=1")
	out, err := cmd.Output()
	require.NoError(t, err, string(out))
	m := regexp.MustCompile(`dir: (\S+)`).FindSubmatch(out)
	require.NotNil(t, m, string(out))
	dir := string(m[1])
	require.Eventually(t, func() bool {
		_, err := os.Stat(dir)
		return os.IsNotExist(err)
	}, 30*time.Second, 100*time.Millisecond, "the left cluster's directory %s is still there", dir)
	pids, _ := exec.Command("pgrep", "-f", "postgres -D "+dir).Output()
	assert.Empty(t, strings.TrimSpace(string(pids)), "no postgres of the left cluster runs")
}
