//go:build race

package result

// raceEnabled shortens the largest inputs under the race detector, which
// slows them tenfold without finding more.
const raceEnabled = true
