package conformance_test

import (
	"testing"

	"github.com/boundedkit/bounded/conformance"
	"github.com/boundedkit/bounded/memrepo"
)

// An adapter's test describes how to open a new, empty store and runs the
// suite. Here the store is memrepo itself; a SQL adapter would open a
// database in t.TempDir() and close it with t.Cleanup.
func ExampleRun() {
	harness := conformance.Harness{
		Name: "memrepo",
		New: func(t conformance.TB) conformance.Store {
			m := memrepo.New()
			return conformance.Store{Notes: m, Knowledge: m, History: m, Code: m}
		},
	}
	// The adapter's test function:
	testConformance := func(t *testing.T) { conformance.Run(t, harness) }
	_ = testConformance
}
