package pgtest

import (
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var cluster *Cluster

func TestMain(m *testing.M) { Main(m, &cluster) }

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
