// Package boundedtest checks that a [bounded.Source] pages exactly like a
// slice, as testing/fstest checks a file system.
//
// A test hands it the source and the items it must return, in order:
//
//	func TestListTasks(t *testing.T) {
//		db := openTestDB(t, tasks) // a store holding tasks
//		boundedtest.TestSource(t, listTasks(db), tasks)
//	}
//
// The source is read by offset, by page number, by cursor forward and
// backward (when it issues cursors), and by following [bounded.Respond]'s
// next calls under tight budgets; under every count strategy; with page
// sizes 1, 2, 3, 7, the default and the maximum; past the end and with
// cursors it did not issue. Every page must hold exactly the items of want
// it stands for, with exact pagination. [Options.Mutate] adds walks by
// cursor while items are inserted and deleted between pages.
//
// [CheckSource] is the same check returning an error, for use outside a
// test or to check the kit itself.
package boundedtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/boundedkit/bounded"
)

// Options configure a check. The zero value checks with its defaults.
type Options[T any] struct {
	// Limits is the page policy the source is read with (the zero value:
	// Default 10, Max 50).
	Limits bounded.Limits
	// Equal reports whether a and b are the same item. nil compares them
	// with go-cmp, unexported fields included (and Equal methods, such as
	// time.Time's).
	Equal func(a, b T) bool
	// Uncounted says the source never counts (its Rows.Count is
	// negative): totals are then checked as [bounded.CountNone] reports
	// them, whatever the count strategy asked for.
	Uncounted bool
	// Mutate, when set, adds walks by cursor, run after every other
	// check, that call it between pages: it inserts and deletes items of
	// the source and returns every item the source then holds, in order,
	// from the test's own record, not read from the source. step counts
	// the calls from 1; there may be a few hundred. Items must be
	// distinct under Equal. Each walk must return, in order, every item
	// held from its first page to its last exactly once, and nothing the
	// source did not hold when the page was read.
	Mutate func(ctx context.Context, step int) ([]T, error)
}

// maxErrors is the number of failures CheckSource reports in full.
const maxErrors = 10

// TestSource checks src with the zero [Options]: see [Options.TestSource].
func TestSource[T any](t *testing.T, src bounded.Source[T], want []T) {
	t.Helper()
	Options[T]{}.TestSource(t, src, want)
}

// CheckSource checks src with the zero [Options]: see
// [Options.CheckSource].
func CheckSource[T any](ctx context.Context, src bounded.Source[T], want []T) error {
	return Options[T]{}.CheckSource(ctx, src, want)
}

// TestSource checks that src returns exactly want, in order, each item
// once, however it is paged, and reports each failure in a subtest named
// after the walk, e.g. cursor/size=3/count=exact.
//
// It reads the source a few thousand times for a few dozen items: keep
// want small, with ties on the sort keys and items of varied sizes.
func (o Options[T]) TestSource(t *testing.T, src bounded.Source[T], want []T) {
	t.Helper()
	root, err := o.plan(t.Context(), src, want)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range root {
		runTest(t, n)
	}
}

func runTest(t *testing.T, n *node) {
	t.Run(n.name, func(t *testing.T) {
		switch {
		case n.skip != "":
			t.Skip(n.skip)
		case n.run != nil:
			if err := n.run(t.Context()); err != nil {
				t.Error(err)
			}
		}
		for _, k := range n.kids {
			runTest(t, k)
		}
	})
}

// CheckSource is [Options.TestSource] returning an error instead of
// failing a test: nil when src passes, otherwise the failures joined with
// [errors.Join], each naming its walk, the request, the page and what
// differs (the first few in full).
func (o Options[T]) CheckSource(ctx context.Context, src bounded.Source[T], want []T) error {
	root, err := o.plan(ctx, src, want)
	if err != nil {
		return err
	}
	var errs []error
	failed := 0
	run(ctx, root, func(path string, err error) {
		if failed++; failed <= maxErrors {
			errs = append(errs, fmt.Errorf("%s: %w", path, err))
		}
	})
	if failed > maxErrors {
		errs = append(errs, fmt.Errorf("boundedtest: %d more failures", failed-maxErrors))
	}
	return errors.Join(errs...)
}

// run runs the checks of nodes in order, passing each failure to fail
// with the check's path, e.g. "cursor/size=3/count=exact".
func run(ctx context.Context, nodes []*node, fail func(path string, err error)) {
	var visit func(path []string, n *node)
	visit = func(path []string, n *node) {
		path = append(path, n.name)
		if n.skip != "" {
			return
		}
		if n.run != nil {
			if err := n.run(ctx); err != nil {
				fail(strings.Join(path, "/"), err)
			}
		}
		for _, k := range n.kids {
			visit(path, k)
		}
	}
	for _, n := range nodes {
		visit(nil, n)
	}
}

// A node is one named check, or a group of them.
type node struct {
	name string
	// run, when set, is the check; skip, when set, says why it is skipped.
	run  func(ctx context.Context) error
	skip string
	kids []*node
}

// group returns a node holding kids.
func group(name string, kids ...*node) *node { return &node{name: name, kids: kids} }

// leaf returns a node that runs f.
func leaf(name string, f func(ctx context.Context) error) *node { return &node{name: name, run: f} }
