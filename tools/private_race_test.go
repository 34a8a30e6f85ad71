//go:build race

package tools_test

// raceEnabled reports a build with the race detector: the private-mode
// test then asks the per-note tools about every fifth note only.
const raceEnabled = true
