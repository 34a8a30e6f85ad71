// Package deeptest is the switch between the two runs of the module's
// tests. The default run, go test -race ./..., runs every check: every
// conformance case on every engine, every fault, every property, every
// fuzz seed. It keeps the repetitions and the data sets of the costliest
// checks small enough for the whole module to take a few minutes on two
// cores. The deep run, with BOUNDED_DEEP=1 in the environment, runs them at
// their full sizes, for a scheduled run:
//
//	BOUNDED_DEEP=1 go test -race -timeout 60m ./...
//
// The tests ask [On] or [Size]; the package imports neither "testing" nor
// anything outside the standard library.
package deeptest

import (
	"os"
	"strconv"
)

// Env names the environment variable that asks for the deep run:
// BOUNDED_DEEP=1 (or any true value of strconv.ParseBool).
const Env = "BOUNDED_DEEP"

// On reports whether the tests run deep.
func On() bool {
	deep, err := strconv.ParseBool(os.Getenv(Env))
	return err == nil && deep
}

// Size is def in the default run and deep in the deep run.
func Size(def, deep int) int {
	if On() {
		return deep
	}
	return def
}
