//go:build !race

package adaptertest

// race reports a build with the race detector, under which the pure-Go
// SQLite runs about twenty times slower: the tests then do less.
const race = false
