// Package tokenizer counts tokens exactly as OpenAI's o200k_base and
// cl100k_base encodings do, offline: it implements [bounded.Tokenizer] with
// github.com/tiktoken-go/tokenizer, which compiles both vocabularies into the
// binary. Give a [Counter] to a [bounded.Budget] with MaxTokens, and [bounded.Fit]
// holds the response to the token:
//
//	counter, err := tokenizer.New(tokenizer.O200K)
//	if err != nil { ... }
//	b := bounded.ClaudeCode()
//	b.Tokenizer = counter
//	fitted, err := bounded.FitContext(ctx, b, in) // fitted.JSON counts at most b.LimitTokens() o200k tokens
//
// The root package bounded does not import this package: without it, budgets
// estimate tokens with the calibrated [bounded.Estimator], which errs on the
// safe side (it overestimates) and costs nothing to import.
//
// # Cost
//
// Exactness has a price, paid by the programs that import this package
// (BENCHMARKS.md has the figures):
//
//   - Binary size: both vocabularies are compiled in as Go map literals,
//     whichever encoding is used.
//   - First use: New builds the encoding's map once per process and
//     keeps it.
//   - Each count: the encoding's split pattern runs on a backtracking
//     regular expression engine, then the byte-pair merges: tens of times
//     slower than [bounded.Estimator]. Fit counts each kept result once
//     and the whole response two or three times.
//
// Use it where a token limit must hold exactly for a model of these
// encodings; the Estimator holds it within 2.2% (and budgets keep a 10%
// margin) at a fraction of the cost.
//
// Claude models use their own tokenizer, which none of these reproduces:
// counts of o200k_base and cl100k_base are close to each other on the
// content measured here, and a budget's Margin is what covers the difference
// with another model's tokenizer.
package tokenizer

import (
	"context"
	"fmt"

	tiktoken "github.com/tiktoken-go/tokenizer"
)

// Encoding names a tokenizer's encoding.
type Encoding string

// The encodings New accepts.
const (
	// O200K is o200k_base, the encoding of GPT-4o, GPT-4.1, GPT-5 and the
	// o-series models.
	O200K Encoding = "o200k_base"
	// CL100K is cl100k_base, the encoding of GPT-4 and GPT-3.5 Turbo.
	CL100K Encoding = "cl100k_base"
)

// Encodings lists the encodings New accepts.
var Encodings = []Encoding{O200K, CL100K}

// Counter counts the tokens of a text with one encoding. It implements
// [bounded.Tokenizer] (with Count) and is safe for concurrent use.
type Counter struct {
	enc   Encoding
	codec tiktoken.Codec
}

// New returns the Counter of enc, O200K or CL100K; any other encoding is an
// error. The first New of an encoding in a process builds its vocabulary
// (see the package documentation for the cost); later calls are cheap.
func New(enc Encoding) (*Counter, error) {
	switch enc {
	case O200K, CL100K:
	default:
		return nil, fmt.Errorf("tokenizer: unknown encoding %q: want %q or %q", enc, O200K, CL100K)
	}
	c, err := tiktoken.Get(tiktoken.Encoding(enc))
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %s: %w", enc, err)
	}
	// The codec's only state after Get is read-only: its vocabulary and
	// its compiled split pattern, which is safe for concurrent use.
	return &Counter{enc: enc, codec: c}, nil
}

// Encoding returns the encoding c counts with.
func (c *Counter) Encoding() Encoding { return c.enc }

// CountTokens returns the number of tokens of s in c's encoding: 0 for "".
// Special tokens such as <|endoftext|> are counted as the ordinary text they
// are written with, as a model sees them in a tool result. Invalid UTF-8 is
// counted byte by byte as the encoding sees it. Should the split pattern
// fail (it has no time limit, so it does not), the count is len(s), a bound
// no byte-level encoding exceeds.
func (c *Counter) CountTokens(s string) int {
	n, err := c.Count(context.Background(), s)
	if err != nil {
		return len(s)
	}
	return n
}

// Count is CountTokens for [bounded.Tokenizer], with the encoder's error,
// which it does not return for text, instead of len(s). Counting is local:
// ctx is not used.
func (c *Counter) Count(_ context.Context, s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := c.codec.Count(s)
	if err != nil {
		return 0, fmt.Errorf("tokenizer: %s: %w", c.enc, err)
	}
	return n, nil
}
