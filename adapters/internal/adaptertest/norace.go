//go:build !race

package adaptertest

// Race reports whether the tests were built with the race detector, which
// slows the pure-Go SQLite driver down about twenty times: the heavier
// tests scale down with it (see Scaled), and timing checks are skipped.
const Race = false
