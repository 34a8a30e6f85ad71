package boundedtest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
)

// failures runs every check of src and returns the failures by path, and
// the checker that ran them.
func failures(t *testing.T, o Options[item], src bounded.Source[item], want []item) (map[string]error, *checker[item]) {
	t.Helper()
	c, err := newChecker(t.Context(), o, src, want)
	if err != nil {
		t.Fatalf("newChecker: %v", err)
	}
	got := map[string]error{}
	run(t.Context(), c.plan(), func(path string, err error) { got[path] = err })
	return got, c
}

func TestSourcesThatPageLikeSlices(t *testing.T) {
	want := items(23)
	s := newStore(want)
	for _, tc := range []struct {
		name    string
		src     bounded.Source[item]
		want    []item
		o       Options[item]
		cursors bool
	}{
		{"FromSlice", sliceOf(want), want, Options[item]{}, false},
		{"FromSlice.WithKeys", keyedOf(want), want, Options[item]{}, true},
		{"FromFunc", funcOf(want), want, Options[item]{}, false},
		{"FromFunc without a count", uncountedOf(want), want, Options[item]{Uncounted: true}, false},
		{"one item", keyedOf(want[:1]), want[:1], Options[item]{}, true},
		{"exactly a default page", keyedOf(want[:10]), want[:10], Options[item]{}, true},
		{"limits of 2 and 3", keyedOf(want), want, Options[item]{Limits: bounded.Limits{Default: 2, Max: 3}}, true},
		{"writes between pages", s, want, Options[item]{Mutate: s.mutate}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, c := failures(t, tc.o, tc.src, tc.want)
			for path, err := range got {
				t.Errorf("%s: %v", path, err)
			}
			if c.cursors != tc.cursors {
				t.Errorf("the kit found cursors %v, want %v", c.cursors, tc.cursors)
			}
			if c.cuts == 0 && len(tc.want) > 1 {
				t.Errorf("no budget cut a response: the budget walks did not test cuts")
			}
		})
	}
}

func TestEmpty(t *testing.T) {
	for name, src := range map[string]bounded.Source[item]{"FromSlice": sliceOf(nil), "FromSlice.WithKeys": keyedOf(nil), "FromFunc": funcOf(nil)} {
		t.Run(name, func(t *testing.T) {
			got, c := failures(t, Options[item]{}, src, nil)
			for path, err := range got {
				t.Errorf("%s: %v", path, err)
			}
			if c.cursors {
				t.Errorf("the kit found cursors in an empty source")
			}
			if err := CheckSource(t.Context(), src, []item{{ID: 1}}); err == nil {
				t.Errorf("CheckSource passed an empty source for one item")
			}
		})
	}
}

func TestTestSource(t *testing.T) {
	want := items(23)
	TestSource(t, keyedOf(want), want)
	s := newStore(want)
	Options[item]{Mutate: s.mutate}.TestSource(t, s, want)
}

func TestBrokenSources(t *testing.T) {
	want := items(23)
	for _, tc := range []struct {
		name string
		src  bounded.Source[item]
		o    Options[item]
		// caughtBy are checks (paths or their prefixes) that must fail.
		caughtBy []string
		// only, when set, is in the path of every failure.
		only string
	}{
		{
			name:     "skips an item between pages",
			src:      shiftOffsets(sliceOf(want), +1),
			caughtBy: []string{"offset/size=1/count=exact", "page-number/size=3/count=none", "respond/by=offset/size=7/budget=default"},
		},
		{
			name:     "repeats an item between pages",
			src:      shiftOffsets(keyedOf(want), -1),
			caughtBy: []string{"offset/size=2/count=capped(3)", "page-number/size=default(10)", "respond/by=page/size=1/budget=one-item"},
		},
		{
			name:     "miscounts the total",
			src:      miscount(funcOf(want)),
			caughtBy: []string{"offset/size=1/count=exact", "page-number/size=max(50)/count=exact", "past-end/count=none", "offset/size=7/count=capped(23)"},
		},
		{
			name:     "counts exactly the cap when more items match",
			src:      capAtCap(keyedOf(want)),
			caughtBy: []string{"offset/size=1/count=capped(1)", "cursor/size=2/count=capped(3)", "page-number/size=7/count=capped(22)"},
			only:     "count=capped",
		},
		{
			name:     "answers past the end with the last page",
			src:      lastPagePastEnd(want),
			caughtBy: []string{"past-end/count=exact", "past-end/count=none"},
			only:     "past-end/",
		},
		{
			name:     "reorders ties between calls",
			src:      newUnstableTies(want),
			caughtBy: []string{"offset/size=3/count=exact", "page-number/size=2", "respond/by=offset/size=default(10)/budget=half-page"},
		},
		{
			name:     "issues cursors one item late",
			src:      shiftKeys(want, +1),
			caughtBy: []string{"cursor/size=1/count=exact", "cursor/size=default(10)/count=none", "respond/by=cursor/size=3/budget=half-page", "respond/by=cursor/size=max(50)/budget=one-item"},
			only:     "cursor",
		},
		{
			name:     "issues cursors one item early",
			src:      shiftKeys(want, -1),
			caughtBy: []string{"cursor/size=2/count=capped(22)", "cursor/size=7/count=exact", "respond/by=cursor/size=1/budget=default", "respond/by=cursor/size=max(50)/budget=half-page"},
			only:     "cursor",
		},
		{
			name:     "ignores the backward flag",
			src:      forwardOnly(want),
			caughtBy: []string{"cursor/size=2/count=none", "cursor/size=7/count=exact"},
			only:     "cursor/",
		},
		{
			name:     "accepts cursors of any number of keys",
			src:      anyKeyCount(want),
			caughtBy: []string{"bad-cursor/key-count"},
			only:     "bad-cursor/key-count",
		},
		{
			name:     "refuses a cursor with an untyped error",
			src:      untypedRefusal{funcOf(want)},
			caughtBy: []string{"bad-cursor/offset-only"},
			only:     "bad-cursor/offset-only",
		},
		{
			name:     "never says more follow",
			src:      oneShot(want),
			o:        Options[item]{Uncounted: true},
			caughtBy: []string{"offset/size=1/count=none", "page-number/size=7/count=exact", "respond/by=offset/size=1/budget=default/count=none"},
		},
		{
			name:     "pages by offset behind its cursors, under writes",
			src:      &store{items: slices.Clone(want), byOffset: true},
			caughtBy: []string{"writes/cursor/size=2", "writes/respond/size=3"},
			only:     "writes/",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			if s, ok := tc.src.(*store); ok {
				o.Mutate = s.mutate
			}
			got, _ := failures(t, o, tc.src, want)
			if len(got) == 0 {
				t.Fatalf("no check failed for a source that %s", tc.name)
			}
			var paths []string
			for p := range got {
				paths = append(paths, p)
			}
			slices.Sort(paths)
			for _, c := range tc.caughtBy {
				if !slices.ContainsFunc(paths, func(p string) bool { return strings.HasPrefix(p, c) }) {
					t.Errorf("%s did not fail; the checks that failed: %v", c, paths)
				}
			}
			for _, p := range paths {
				if !strings.Contains(p, tc.only) {
					t.Errorf("%s failed, outside %q: %v", p, tc.only, got[p])
				}
			}
			t.Logf("%d checks fail, e.g. %s:\n%v", len(got), paths[0], got[paths[0]])
		})
	}
}

func TestFailureMessages(t *testing.T) {
	want := items(23)
	err := CheckSource(t.Context(), shiftOffsets(keyedOf(want), +1), want)
	if err == nil {
		t.Fatal("CheckSource passed a source that skips items")
	}
	msg := err.Error()
	for _, s := range []string{
		// The walk, the request, what differs, the page.
		"offset/size=1/count=exact: FetchPage(limit=1, offset=1, count=exact): items differ from want[1:2] (-want +got):",
		`"item 1 ééé"`,
		`"item 2 éééééé"`,
		"got {Total: 23 (exact), Offset: 1, Limit: 1, Returned: 1, HasMore: true, NextOffset: 2, NextCursor: set, PrevCursor: set}",
		"more failures",
	} {
		if !strings.Contains(msg, s) {
			t.Errorf("the error does not say %q:\n%s", s, msg)
		}
	}
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != maxErrors+1 {
		t.Errorf("the error joins %T, want %d failures and a count of the rest", err, maxErrors)
	}
}

// TestTestSourceFails runs TestSource on a broken source in a child
// process, which must fail in the subtests of the walks that catch it.
func TestTestSourceFails(t *testing.T) {
	if os.Getenv("BOUNDEDTEST_CHILD") == "1" {
		want := items(23)
		TestSource(t, shiftOffsets(sliceOf(want), +1), want)
		return
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestTestSourceFails$", "-test.v")
	cmd.Env = append(os.Environ(), "BOUNDEDTEST_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("TestSource passed a source that skips items:\n%s", out)
	}
	for _, s := range []string{
		"--- FAIL: TestTestSourceFails/offset/size=1/count=exact",
		"FetchPage(limit=1, offset=1, count=exact): items differ from want[1:2]",
		"--- SKIP: TestTestSourceFails/cursor",
		"the source issues no cursors",
		"--- PASS: TestTestSourceFails/bad-cursor/garbage",
	} {
		if !strings.Contains(string(out), s) {
			t.Errorf("the output does not say %q", s)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

func TestBadOptions(t *testing.T) {
	want := items(3)
	err := Options[item]{Limits: bounded.Limits{Default: 5, Max: 2}}.CheckSource(t.Context(), sliceOf(want), want)
	if !errors.Is(err, bounded.ErrInvalidPage) || !strings.Contains(err.Error(), "Options.Limits") {
		t.Errorf("Limits{5, 2}: %v, want an error naming Options.Limits", err)
	}
	failing := errors.New("disk on fire")
	err = CheckSource(t.Context(), bounded.FromFunc(func(context.Context, driver.Request) ([]item, int, error) { return nil, 0, failing }), want)
	if !errors.Is(err, failing) || !strings.Contains(err.Error(), "the first page") {
		t.Errorf("a failing source: %v, want its error on the first page", err)
	}
}

func TestMutateWithoutCursors(t *testing.T) {
	want := items(5)
	calls := 0
	got, _ := failures(t, Options[item]{Mutate: func(context.Context, int) ([]item, error) { calls++; return want, nil }}, sliceOf(want), want)
	if err := got["writes/cursor"]; err == nil || !strings.Contains(err.Error(), "issues no cursors") {
		t.Errorf("writes/cursor: %v, want an error saying the source issues no cursors", err)
	}
	if len(got) != 1 || calls != 0 {
		t.Errorf("%d failures and %d calls of Mutate, want 1 and 0: %v", len(got), calls, got)
	}
}

func TestMutateError(t *testing.T) {
	want := items(9)
	failing := errors.New("write refused")
	got, _ := failures(t, Options[item]{Mutate: func(context.Context, int) ([]item, error) { return nil, failing }}, keyedOf(want), want)
	for _, path := range []string{"writes/cursor/size=2", "writes/respond/size=3"} {
		if err := got[path]; !errors.Is(err, failing) || !strings.Contains(err.Error(), "Mutate(step ") {
			t.Errorf("%s: %v, want Mutate's error", path, err)
		}
	}
}

// secret has unexported fields only.
type secret struct {
	id   int64
	note string
}

func TestEqual(t *testing.T) {
	want := []secret{{1, "a"}, {2, "b"}, {3, "c"}}
	other := []secret{{1, "x"}, {2, "y"}, {3, "z"}}
	if err := CheckSource(t.Context(), bounded.FromSlice(want), want); err != nil {
		t.Errorf("unexported fields, compared with go-cmp: %v", err)
	}
	if err := CheckSource(t.Context(), bounded.FromSlice(other), want); err == nil {
		t.Errorf("CheckSource passed other notes with the default comparison")
	}
	byID := Options[secret]{Equal: func(a, b secret) bool { return a.id == b.id }}
	if err := byID.CheckSource(t.Context(), bounded.FromSlice(other), want); err != nil {
		t.Errorf("Equal by id: %v", err)
	}
}
