package bounded_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/boundedkit/bounded"
)

// countService stands for a token counter behind a network call, such as a
// model provider's count-tokens endpoint: it counts a token a word, and
// fails when its context is done.
type countService struct{}

func (countService) Count(ctx context.Context, s string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("count-tokens request: %w", err)
	}
	return len(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '"' || r == ',' })), nil
}

// A Tokenizer backed by a service counts with the context FitContext is
// given; when it fails, FitContext returns its error, wrapped in
// ErrTokenizer, and no response.
func ExampleFitContext() {
	notes := []string{strings.Repeat("word ", 25), strings.Repeat("word ", 25), strings.Repeat("word ", 25)}
	b := bounded.Budget{MaxTokens: 130, Tokenizer: countService{}, Logger: slog.New(slog.DiscardHandler)}
	in := bounded.FitInput[string]{
		Page: bounded.Paged[string]{Items: notes, Page: bounded.PageInfo{Total: 3, Limit: 3, Returned: 3}},
		Call: bounded.Call{Tool: "read_notes", DefaultLimit: 3},
	}
	fitted, err := bounded.FitContext(context.Background(), b, in)
	if err != nil {
		panic(err)
	}
	fmt.Printf("kept %d of 3, %d of %d tokens: %s\n", fitted.Kept, fitted.Truncation.EstimatedTokens, fitted.Truncation.LimitTokens, fitted.Truncation.Reason)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = bounded.FitContext(ctx, b, in)
	fmt.Println(errors.Is(err, bounded.ErrTokenizer), errors.Is(err, context.Canceled))
	// Output:
	// kept 2 of 3, 109 of 117 tokens: token_limit
	// true true
}
