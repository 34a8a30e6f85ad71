package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/deeptest"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/google/go-cmp/cmp"
)

// Interrupted runs call with a context that is canceled after cancelAfter
// (or, with deadline set, that expires then), and checks that call returns
// an error, and, when before is not 0, that it returns before that time
// from its start: the time it would take to end otherwise, measured in
// the same run (the uninterrupted call) or set by the test (a timeout it
// configured). A call that has not returned by [WaitLimit] fails as hung.
// It returns how long after the cancellation call returned, and its error;
// whether the error wraps the context's error is left to the caller (see
// WantContextErr).
func Interrupted(t *testing.T, call func(ctx context.Context) error, cancelAfter time.Duration, deadline bool, before time.Duration) (time.Duration, error) {
	t.Helper()
	start := time.Now() // before the cancellation is scheduled: late is never negative
	ctx, cancel := context.WithCancel(context.Background())
	if deadline {
		ctx, cancel = context.WithTimeout(context.Background(), cancelAfter)
	} else {
		time.AfterFunc(cancelAfter, cancel)
	}
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- call(ctx) }()
	select {
	case err := <-done:
		took := time.Since(start)
		late := took - cancelAfter
		if err == nil {
			t.Fatalf("the call ended without an error %v after the context was canceled (it finished %v after the start: too fast to be interrupted?)", late, took)
		}
		if before > 0 && took >= before {
			t.Errorf("the call returned %v after its start, %v after its context was canceled: not before %v, when it would end anyway: %v", took, late, before, err)
		}
		return late, err
	case <-time.After(WaitLimit(t)):
		t.Fatalf("the call has not returned %v after its context was canceled: it hangs", time.Since(start)-cancelAfter)
	}
	return 0, nil
}

// WaitLimit is how long a test may wait for what must happen (a call to
// return, a server to act) before failing: 2 minutes, or nine tenths of
// the time left before the test binary's deadline (go test -timeout) when
// that is sooner. It bounds waits for hangs, not latency.
func WaitLimit(t *testing.T) time.Duration {
	limit := 2 * time.Minute
	if end, ok := t.Deadline(); ok {
		limit = min(limit, time.Until(end)*9/10)
	}
	return limit
}

// WantContextErr checks that err wraps want (context.Canceled or
// context.DeadlineExceeded): a caller must be able to tell a timeout or a
// cancellation from a failure.
func WantContextErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: error %q does not wrap %q", what, err, want)
	}
}

// DenseHierarchy puts k notes, each the child of every other one, into s:
// the densest hierarchy (k*(k-1) parent edges), whose Descendants walk
// takes the SQL adapters time in k^2 * depth. The notes are named
// prefix/n000, ...; it returns the first.
func DenseHierarchy(ctx context.Context, t *testing.T, s ports.Notes, prefix string, k int) string {
	t.Helper()
	ids := make([]string, k)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s/n%03d", prefix, i)
	}
	for i, id := range ids {
		parents := make([]string, 0, k-1)
		parents = append(parents, ids[:i]...)
		parents = append(parents, ids[i+1:]...)
		if err := s.PutNote(ctx, ports.Note{ID: id, Title: "Dense", Parents: parents}); err != nil {
			t.Fatalf("PutNote(%s): %v", id, err)
		}
	}
	return ids[0]
}

// DescendantsCost times Descendants(top, 20) on got and ref, which hold
// the same DenseHierarchy, compares their answers, and fails when got
// takes over 100 ms and over 20 times memrepo's time: a walk that keeps
// every (note, depth) pair it reaches (a recursive CTE with UNION over
// (id, depth)) does notes^2 * depth work on a dense hierarchy, where a
// breadth-first walk that expands each note once (memrepo's, and the SQL
// adapters') is linear in the edges. Any agent can ask get_descendants for
// maxDepth 20. Not checked under the race detector, which slows the two
// sides unevenly.
func DescendantsCost(t *testing.T, got Store, ref ports.Notes, top string) {
	t.Helper()
	ctx := context.Background()
	timed := func(s ports.Notes) (time.Duration, any) {
		start := time.Now()
		pg, err := s.Descendants(ctx, top, ports.MaxDescendantDepth, bounded.Page{Limit: ports.DescendantsLimits.Max})
		if err != nil {
			t.Fatal(err)
		}
		return time.Since(start), pg
	}
	rt, want := timed(ref)
	gt, have := timed(got)
	if d := cmp.Diff(want, have, CursorAtPresence); d != "" {
		t.Errorf("Descendants differs from memrepo (-memrepo +store):\n%s", d)
	}
	t.Logf("Descendants(%q, 20) over a dense hierarchy: %v; memrepo %v", top, gt, rt)
	if !Race && gt > 100*time.Millisecond && gt > 20*rt {
		t.Errorf("Descendants(maxDepth 20) over a dense hierarchy takes %v, memrepo %v: over 20 times as long", gt, rt)
	}
}

// HugeFuzzyQuery times fuzzy SearchNodes with five queries of 1 MB of CJK
// words (about 330,000 distinct trigrams each) on got and on memrepo,
// compares their answers, and fails when got takes over 2 s and over 3
// times memrepo's time. Sending every trigram of such a query to the
// database took seconds per query, and a call may carry ports.MaxQueries
// (20) of them; but a query with more trigrams than the threshold allows
// against the longest possible name matches nothing
// (fuzzy.QueryTrigrams), and every store skips it.
func HugeFuzzyQuery(t *testing.T, got Store) {
	ctx := context.Background()
	ref := memrepo.New()
	for _, s := range []Store{ref, got} {
		if err := s.PutEntity(ctx, ports.Entity{Name: "日本 東京", Type: "place"}); err != nil {
			t.Fatal(err)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	q := ports.NodeQuery{Mode: ports.Fuzzy}
	for range 5 {
		var b strings.Builder
		for b.Len() < ports.MaxQueryBytes-8 {
			b.WriteRune(rune(0x4e00 + r.IntN(20000)))
			if r.IntN(4) == 0 {
				b.WriteByte(' ')
			}
		}
		q.Queries = append(q.Queries, b.String())
	}
	timed := func(s Store) (time.Duration, any) {
		start := time.Now()
		pg, err := s.SearchNodes(ctx, q, bounded.Page{})
		if err != nil {
			t.Fatal(err)
		}
		return time.Since(start), pg
	}
	rt, want := timed(ref)
	gt, have := timed(got)
	if d := cmp.Diff(want, have, CursorAtPresence); d != "" {
		t.Errorf("SearchNodes differs from memrepo (-memrepo +store):\n%s", d)
	}
	if deeptest.On() {
		// Counting the trigrams takes longer than the calls.
		trigrams := 0
		for _, s := range q.Queries {
			trigrams += len(ports.Trigrams(s))
		}
		t.Logf("the 5 queries hold %d trigrams", trigrams)
	}
	t.Logf("fuzzy SearchNodes with 5 queries of 1 MB: %v; memrepo %v", gt, rt)
	if gt > 2*time.Second && gt > 3*rt {
		t.Errorf("a fuzzy SearchNodes call with 5 queries of 1 MB takes %v (memrepo %v); a call may carry %d of them", gt, rt, ports.MaxQueries)
	}
}

// Scaled is normal, or underRace when the tests run with the race
// detector.
func Scaled(normal, underRace int) int {
	if Race {
		return underRace
	}
	return normal
}
