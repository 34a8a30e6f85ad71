//go:build race

package bounded

// raceEnabled shortens the longest walks under the race detector, which
// slows them tenfold without finding more.
const raceEnabled = true
