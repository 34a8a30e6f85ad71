package bounded

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
)

// flakyTokenizer counts as wordTokenizer does until its failAt-th call
// (from 1), which fails, and so do the calls after it; with failAt 0 it
// never fails. It records its calls and checks that each gets the context
// of the fit.
type flakyTokenizer struct {
	t      *testing.T
	failAt int
	calls  *int
	count  int // what a failing call returns with errTokens, when not 0
}

type ctxKey struct{}

var errTokens = errors.New("count-tokens service unavailable")

func (f flakyTokenizer) Count(ctx context.Context, s string) (int, error) {
	*f.calls++
	if ctx.Value(ctxKey{}) != "fit" {
		f.t.Errorf("call %d: the tokenizer got a context without the fit's value", *f.calls)
	}
	if f.failAt > 0 && *f.calls >= f.failAt {
		if f.count != 0 {
			return f.count, nil
		}
		return 0, errTokens
	}
	return wordCount(s), nil
}

// TestFitTokenizerFails: when the Tokenizer fails at any of its calls,
// FitContext returns its error, wrapped in ErrTokenizer, and no response;
// the page is left as it was, and fitting it again with a tokenizer that
// counts gives every item the first fit would have.
func TestFitTokenizerFails(t *testing.T) {
	items, bigFirst := tokenizerPages()
	tests := []struct {
		name   string
		items  []doc
		b      Budget
		reason string
	}{
		{"tokens bind", items, Budget{MaxChars: 100_000, MaxTokens: 1500}, ReasonTokenLimit},
		{"nothing cut", items, Budget{MaxChars: 100_000, MaxTokens: 100_000}, ""},
		{"first item clipped", bigFirst, Budget{MaxChars: 100_000, MaxTokens: 600}, ReasonSingleResultTooLarge},
	}
	ctx := context.WithValue(context.Background(), ctxKey{}, "fit")
	for _, tt := range tests {
		tt.b.Logger = quiet
		in := FitInput[doc]{Page: pageOf(tt.items, 0, 30, 30), Call: searchCall}
		orig := slices.Clone(tt.items)
		calls := 0
		tt.b.Tokenizer = flakyTokenizer{t: t, calls: &calls}
		want, err := FitContext(ctx, tt.b, in)
		if err != nil || want.Truncation.Reason != tt.reason {
			t.Fatalf("%s: reason %q, error %v; want %q", tt.name, want.Truncation.Reason, err, tt.reason)
		}
		total := calls
		if total == 0 {
			t.Fatalf("%s: the tokenizer was not called", tt.name)
		}
		for failAt := 1; failAt <= total; failAt++ {
			calls = 0
			tt.b.Tokenizer = flakyTokenizer{t: t, failAt: failAt, calls: &calls}
			fd, err := FitContext(ctx, tt.b, in)
			if !errors.Is(err, ErrTokenizer) || !errors.Is(err, errTokens) {
				t.Errorf("%s, failing at call %d of %d: error %v, want ErrTokenizer wrapping %v", tt.name, failAt, total, err, errTokens)
			}
			if !reflect.DeepEqual(fd, Fitted{}) {
				t.Errorf("%s, failing at call %d: a response with the error: %s", tt.name, failAt, fd.JSON)
			}
			if calls != failAt {
				t.Errorf("%s, failing at call %d: called %d times, want no call after the failure", tt.name, failAt, calls)
			}
			if !reflect.DeepEqual(tt.items, orig) {
				t.Fatalf("%s, failing at call %d: the page's items changed", tt.name, failAt)
			}
			// Again, with a tokenizer that counts: nothing was lost.
			calls = 0
			tt.b.Tokenizer = flakyTokenizer{t: t, calls: &calls}
			again, err := FitContext(ctx, tt.b, in)
			if err != nil || !reflect.DeepEqual(again, want) {
				t.Errorf("%s, after failing at call %d: fitted again (%v)\n%s\nwant\n%s", tt.name, failAt, err, again.JSON, want.JSON)
			}
		}
		// A count below 0 is an error too.
		calls = 0
		tt.b.Tokenizer = flakyTokenizer{t: t, failAt: 1, calls: &calls, count: -1}
		if _, err := FitContext(ctx, tt.b, in); !errors.Is(err, ErrTokenizer) {
			t.Errorf("%s: a count of -1 gave error %v, want ErrTokenizer", tt.name, err)
		}
	}
}

// TestBudgetCountTokensTokenizerFails: Budget.CountTokens, which sizes a
// text before Fit, counts as the budget would without its Tokenizer when
// the Tokenizer fails.
func TestBudgetCountTokensTokenizerFails(t *testing.T) {
	s := `{"results":[{"id":1,"title":"a title"}]}`
	b := Budget{MaxTokens: 100, Tokenizer: failingTokenizer{}}
	if got, want := b.CountTokens(s), (Estimator{}).CountTokens(s); got != want {
		t.Errorf("CountTokens = %d with a failing tokenizer, want the Estimator's %d", got, want)
	}
	b.CharsPerToken = 4
	if got, want := b.CountTokens(s), (len(s)+3)/4; got != want {
		t.Errorf("CountTokens = %d with a failing tokenizer and 4 characters a token, want %d", got, want)
	}
}

// failingTokenizer always fails.
type failingTokenizer struct{}

func (failingTokenizer) Count(context.Context, string) (int, error) { return 0, errTokens }
