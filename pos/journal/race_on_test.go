//go:build race

package journal

// raceOn reports whether the tests run under the race detector, which
// multiplies the CPU of an Append and not the fsync of its floor.
const raceOn = true
