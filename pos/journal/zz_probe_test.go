package journal

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func BenchmarkZZPaths(b *testing.B) {
	open := func(name string, buckets ...string) *bolt.DB {
		db, err := bolt.Open(filepath.Join(b.TempDir(), name), 0o600, boltOptions(Options{LockTimeout: time.Second}))
		if err != nil { b.Fatal(err) }
		b.Cleanup(func() { _ = db.Close() })
		_ = db.Update(func(tx *bolt.Tx) error { for _, n := range buckets { tx.CreateBucket([]byte(n)) }; return nil })
		return db
	}
	one, shared, two := open("one", "a"), open("shared", "a"), open("two", "a", "b")
	v := bytes.Repeat([]byte("x"), 700)
	w := bytes.Repeat([]byte("y"), 1000)
	var t1, ts, t2 time.Duration
	seq := uint64(0)
	put := func(db *bolt.DB, mode int) time.Duration {
		t0 := time.Now()
		err := db.Update(func(tx *bolt.Tx) error {
			a := tx.Bucket([]byte("a"))
			a.FillPercent = 1
			if err := a.Put(u64(seq), v); err != nil { return err }
			okey := []byte(fmt.Sprintf("G%012d", seq/4))
			switch mode {
			case 1: return a.Put(okey, w)
			case 2: return tx.Bucket([]byte("b")).Put(okey, w)
			}
			return nil
		})
		if err != nil { b.Fatal(err) }
		return time.Since(t0)
	}
	for b.Loop() {
		seq++
		switch seq % 3 {
		case 0: t1 += put(one, 0); ts += put(shared, 1); t2 += put(two, 2)
		case 1: ts += put(shared, 1); t2 += put(two, 2); t1 += put(one, 0)
		case 2: t2 += put(two, 2); t1 += put(one, 0); ts += put(shared, 1)
		}
	}
	n := float64(b.N)
	s1, ss, s2 := one.Stats(), shared.Stats(), two.Stats()
	fmt.Printf("one %.0fµs %.2fp | shared bucket %.0fµs %.2fp x%.3f | two buckets %.0fµs %.2fp x%.3f\n",
		float64(t1.Microseconds())/n, float64(s1.TxStats.Write)/n, float64(ts.Microseconds())/n, float64(ss.TxStats.Write)/n, float64(ts)/float64(t1),
		float64(t2.Microseconds())/n, float64(s2.TxStats.Write)/n, float64(t2)/float64(t1))
}
