//go:build race

package store

// raceDetector is whether the tests run with the race detector, which
// allocates for its own bookkeeping: the counts of allocations differ.
const raceDetector = true
