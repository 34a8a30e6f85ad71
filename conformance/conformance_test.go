package conformance

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boundedkit/bounded/memrepo"
)

// memHarness opens memrepo stores: the reference must pass its own suite.
var memHarness = Harness{
	Name:    "memrepo",
	Cursors: true,
	New: func(t TB) Store {
		m := memrepo.New()
		return Store{Notes: m, Knowledge: m, History: m, Code: m}
	},
}

func TestMemrepo(t *testing.T) {
	Run(t, memHarness)
}

// TestMemrepoRecorded runs the suite on memrepo through the recorder the
// broken-store tests use: it must report no failure, and skip only the
// tests of capabilities memrepo does not declare. It also counts the calls
// the suite makes to the store under test, which bound its run time on a
// real database.
func TestMemrepoRecorded(t *testing.T) {
	var reads, writes atomic.Int64
	start := time.Now()
	rep := runRecorded("memrepo", "", Harness{Name: "memrepo", Cursors: true, New: func(TB) Store {
		c := countingStore{memrepo.New(), &reads, &writes}
		return Store{Notes: c, Knowledge: c, History: c, Code: c}
	}})
	t.Logf("%d subtests, %d failures, %d skips, %d reads and %d writes of the store under test, in %v",
		rep.subtests, len(rep.failures), len(rep.skips), reads.Load(), writes.Load(), time.Since(start))
	if reads.Load() > 13_000 || writes.Load() > 2_400 {
		t.Errorf("the suite makes %d reads and %d writes, over the budget of 13,000 and 2,400: it would be slow on a database", reads.Load(), writes.Load())
	}
	for i, f := range rep.failures {
		if i == 20 {
			t.Errorf("... and %d more failures", len(rep.failures)-i)
			break
		}
		t.Errorf("%s: %s", f.test, f.msg)
	}
	for _, s := range rep.skips {
		t.Errorf("unexpected skip: %s: %s", s.test, s.msg)
	}
	if rep.subtests < 500 {
		t.Errorf("only %d subtests ran", rep.subtests)
	}
}

// TestNilPorts checks that a store without a port skips that port's tests
// with a message naming it.
func TestNilPorts(t *testing.T) {
	rep := runRecorded("nil", "", Harness{Name: "empty", New: func(TB) Store { return Store{} }})
	if len(rep.failures) > 0 {
		t.Fatalf("failures on a store with no ports: %v", rep.failures)
	}
	for _, port := range []string{"Notes", "Knowledge", "History", "Code"} {
		found := false
		for _, s := range rep.skips {
			if s.test == "nil/"+port && strings.Contains(s.msg, "Store."+port+" is nil") {
				found = true
			}
		}
		if !found {
			t.Errorf("no skip naming Store.%s: %v", port, rep.skips)
		}
	}
}
