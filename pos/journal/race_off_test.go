//go:build !race

package journal

// raceOn reports whether the tests run under the race detector.
const raceOn = false
