//go:build race

package conformance

// raceEnabled reports a build with the race detector: the property tests
// then run one seed per port by default instead of two.
const raceEnabled = true
