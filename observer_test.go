package bounded

import (
	"context"
	"reflect"
	"slices"
	"sync"
	"testing"
)

type observed struct {
	tool string
	tr   Truncation
	ctx  context.Context
}

type recordObserver struct {
	mu  sync.Mutex
	got []observed
}

func (o *recordObserver) ObserveResponse(ctx context.Context, tool string, tr Truncation) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, observed{tool, tr, ctx})
}

// TestObserver: the Observer hears of every response Fit writes, once,
// with its tool, context and truncation report, and of none it refuses.
func TestObserver(t *testing.T) {
	items := docs(slices.Repeat([]int{120}, 30)...)
	ctx := context.WithValue(context.Background(), ctxKey{}, "fit")
	for _, b := range []Budget{{}, {MaxChars: 2000, Margin: 1}, {MaxChars: 2000, MaxTokens: 300, Margin: 1}, {MaxChars: 600, Margin: 1}} {
		o := new(recordObserver)
		b.Observer, b.Logger = o, quiet
		fd, err := FitContext(ctx, b, FitInput[doc]{Page: pageOf(items, 0, 30, 30), Call: searchCall})
		if err != nil {
			t.Fatal(err)
		}
		if len(o.got) != 1 || o.got[0].tool != searchCall.Tool || !reflect.DeepEqual(o.got[0].tr, fd.Truncation) || o.got[0].ctx != ctx {
			t.Errorf("budget %+v: observed %+v, want one report of %+v", b, o.got, fd.Truncation)
		}
	}
	o := new(recordObserver)
	if _, err := Fit(Budget{MaxChars: 10, Margin: 1, Observer: o}, FitInput[doc]{Page: pageOf(items, 0, 30, 30), Call: searchCall}); err == nil || len(o.got) != 0 {
		t.Errorf("a budget no response fits: %v, %d reports; want an error and none", err, len(o.got))
	}
}

// TestFitStopsAtTokenLimit: under a token limit far below the character
// ceiling, encoding stops after the first item over it, and the cut is
// reported as the token limit's.
func TestFitStopsAtTokenLimit(t *testing.T) {
	items := docs(slices.Repeat([]int{300}, 200)...)
	in := FitInput[doc]{Page: pageOf(items, 0, 200, 200), Call: searchCall}
	for _, b := range []Budget{{MaxChars: 1_000_000, MaxTokens: 2000, Margin: 1}, {MaxChars: 1_000_000, MaxTokens: 5000, Margin: 1}} {
		fd, err := Fit(b, in)
		if err != nil {
			t.Fatal(err)
		}
		f, err := prepareFit(context.Background(), b, in)
		if err != nil {
			t.Fatal(err)
		}
		if fd.Truncation.Reason != ReasonTokenLimit || f.M >= 200 || !f.TokensOverAt(f.M) || f.TokensOverAt(f.M-1) {
			t.Errorf("%d kept, %d encoded of 200, reason %q; want the token limit's cut, encoding stopped after the first item over it", fd.Kept, f.M, fd.Truncation.Reason)
		}
		f.release()
	}
}
