package conformance

import (
	"context"
	"testing"
)

// TB is the part of [testing.T] the suite uses, and what [Harness.New]
// receives: each method behaves as testing.T's. [Run] adapts a *testing.T
// to it; the suite's own tests implement it with a recorder, so that they
// can run the suite against deliberately broken stores and check that it
// reports their failures.
//
// Fatalf and Skipf end the calling subtest at once (as [testing.T.FailNow]
// does, with runtime.Goexit); an implementation must therefore run each
// subtest of Run on its own goroutine.
type TB interface {
	// Name is the full name of the (sub)test, e.g.
	// "TestConformance/Notes/Backlinks/pagesize=7".
	Name() string
	// Helper marks the calling function as a helper, left out of the
	// file and line of a failure.
	Helper()
	// Logf records a message shown when the test fails or runs with -v.
	Logf(format string, args ...any)
	// Errorf reports a failure and continues.
	Errorf(format string, args ...any)
	// Fatalf reports a failure and ends the (sub)test.
	Fatalf(format string, args ...any)
	// Skipf ends the (sub)test, marking it skipped with the message.
	Skipf(format string, args ...any)
	// Failed reports whether the (sub)test or one of its subtests failed.
	Failed() bool
	// Cleanup registers f to run when the (sub)test and its subtests end,
	// last registered first.
	Cleanup(f func())
	// TempDir returns a directory removed when the (sub)test ends, e.g.
	// for a SQLite database file.
	TempDir() string
	// Context is canceled just before the cleanup functions run.
	Context() context.Context
	// Run runs f as a subtest called name and reports whether it passed
	// (or was skipped).
	Run(name string, f func(t TB)) bool
}

// testingT adapts a *testing.T to TB.
type testingT struct{ *testing.T }

func (t testingT) Run(name string, f func(TB)) bool {
	return t.T.Run(name, func(t *testing.T) { f(testingT{t}) })
}
