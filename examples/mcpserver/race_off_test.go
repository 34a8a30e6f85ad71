//go:build !race

package main

// raceEnabled reports a test binary built with the race detector, which
// builds the server binary the same way.
const raceEnabled = false
