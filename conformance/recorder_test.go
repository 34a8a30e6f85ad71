package conformance

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
)

// recorder is a TB that records failures and skips instead of reporting
// them, so that the suite's own tests can run it on broken stores. Like
// testing.T, it runs each subtest on its own goroutine, so that Fatalf and
// Skipf can end the subtest with runtime.Goexit.
type recorder struct {
	name   string
	ctx    context.Context
	cancel context.CancelFunc
	rep    *report

	mu       sync.Mutex
	failed   bool
	cleanups []func()
}

// report is what a recorder and its subtests recorded.
type report struct {
	// only, when set, runs only the subtests on the path to or below it
	// (like go test -run), e.g. "broken/Notes/Backlinks".
	only string

	mu       sync.Mutex
	failures []entry
	skips    []entry
	subtests int
}

// entry is one message of one (sub)test.
type entry struct{ test, msg string }

func newRecorder(name string) *recorder {
	ctx, cancel := context.WithCancel(context.Background())
	return &recorder{name: name, ctx: ctx, cancel: cancel, rep: &report{}}
}

func (r *recorder) Name() string             { return r.name }
func (r *recorder) Helper()                  {}
func (r *recorder) Context() context.Context { return r.ctx }
func (r *recorder) Logf(string, ...any)      {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	r.failed = true
	r.mu.Unlock()
	r.rep.mu.Lock()
	r.rep.failures = append(r.rep.failures, entry{r.name, fmt.Sprintf(format, args...)})
	r.rep.mu.Unlock()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Skipf(format string, args ...any) {
	r.rep.mu.Lock()
	r.rep.skips = append(r.rep.skips, entry{r.name, fmt.Sprintf(format, args...)})
	r.rep.mu.Unlock()
	runtime.Goexit()
}

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	r.cleanups = append(r.cleanups, f)
	r.mu.Unlock()
}

func (r *recorder) TempDir() string {
	dir, err := os.MkdirTemp("", "conformance")
	if err != nil {
		r.Fatalf("TempDir: %v", err)
	}
	r.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// finish cancels the context and runs the cleanups, last first.
func (r *recorder) finish() {
	r.cancel()
	r.mu.Lock()
	cs := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for _, f := range slices.Backward(cs) {
		f()
	}
}

func (r *recorder) Run(name string, f func(TB)) bool {
	full := r.name + "/" + name
	if o := r.rep.only; o != "" && !strings.HasPrefix(o+"/", full+"/") && !strings.HasPrefix(full+"/", o+"/") {
		return true
	}
	ctx, cancel := context.WithCancel(r.ctx)
	c := &recorder{name: full, ctx: ctx, cancel: cancel, rep: r.rep}
	r.rep.mu.Lock()
	r.rep.subtests++
	r.rep.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer c.finish()
		defer func() {
			if p := recover(); p != nil {
				c.Errorf("panic: %v\n%s", p, debug.Stack())
			}
		}()
		f(c)
	}()
	<-done
	if c.Failed() {
		r.mu.Lock()
		r.failed = true
		r.mu.Unlock()
	}
	return !c.Failed()
}

// runRecorded runs the suite on a recorder and returns its report. When
// only is set, only the subtests on the path to it or below it run.
func runRecorded(name, only string, h Harness) *report {
	r := newRecorder(name)
	r.rep.only = only
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer r.finish()
		run(r, h)
	}()
	<-done
	return r.rep
}

// failedTests are the distinct names of the subtests that reported a
// failure, in order.
func (rep *report) failedTests() []string {
	var names []string
	for _, f := range rep.failures {
		if !slices.Contains(names, f.test) {
			names = append(names, f.test)
		}
	}
	return names
}

// caughtBy reports whether the subtest test, or one below it, failed.
func (rep *report) caughtBy(test string) bool {
	return slices.ContainsFunc(rep.failures, func(e entry) bool { return e.test == test || strings.HasPrefix(e.test, test+"/") })
}
