package bounded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"unicode/utf8"
)

// ErrInvalidBudget is wrapped by the errors of [Budget.Validate], and of
// [Fit] for a budget that cannot hold an envelope without results.
var ErrInvalidBudget = errors.New("bounded: invalid budget")

// ErrUnordered is wrapped by [Fit]'s error for items out of
// [FitInput.Relevance] order, or scored NaN.
var ErrUnordered = errors.New("bounded: results not in relevance order")

const (
	// DefaultMaxChars is the [Budget.MaxChars] used when it is 0.
	DefaultMaxChars = 50_000
	// DefaultMargin is the [Budget.Margin] used when it is 0.
	DefaultMargin = 0.9
	// DefaultCharsPerToken derives the token limit when [Budget.MaxTokens]
	// and CharsPerToken are 0; the [Estimator] still counts the tokens.
	DefaultCharsPerToken = 2.8
	// DefaultWarnAt is the [Budget.WarnAt] used when it is 0.
	DefaultWarnAt = 0.7
)

// Truncation reasons, the values of [Truncation.Reason].
const (
	// ReasonCharacterLimit: results were cut to fit LimitChars.
	ReasonCharacterLimit = "character_limit"
	// ReasonTokenLimit: results were cut to fit LimitTokens, given by
	// [Budget.MaxTokens] or derived from the characters.
	ReasonTokenLimit = "token_limit"
	// ReasonSingleResultTooLarge: the first result alone was over the
	// budget and was returned clipped.
	ReasonSingleResultTooLarge = "single_result_too_large"
	// ReasonBudgetTooSmall: not even the first result, clipped, fits;
	// none was returned (see [Truncation.NeededChars]).
	ReasonBudgetTooSmall = "budget_too_small"
)

// Tokenizer counts tokens as the agent's model does, for [Budget.Tokenizer].
// It must be safe for concurrent use. Package
// github.com/boundedkit/bounded/tokenizer has o200k_base and cl100k_base.
type Tokenizer interface {
	// Count returns the number of tokens of s (0 for ""), or an error,
	// which Fit returns wrapped in ErrTokenizer. ctx is FitContext's.
	Count(ctx context.Context, s string) (int, error)
}

// ErrTokenizer is wrapped by [Fit]'s error when the [Tokenizer] fails or
// counts below 0.
var ErrTokenizer = errors.New("bounded: tokenizer failed")

// Budget caps the size of a whole encoded tool response, for [Fit]. The
// zero Budget allows 45,000 characters and 16,071 tokens; [Presets] has more.
//
// Tokens are counted by Tokenizer when it and MaxTokens are set, else as
// characters / CharsPerToken when that is set, else by the [Estimator].
// Characters are runes of the JSON as written: \n counts 2, é 1.
type Budget struct {
	// MaxChars caps the response in characters; 0 means [DefaultMaxChars].
	MaxChars int
	// MaxTokens caps the response in tokens; 0 means LimitChars /
	// CharsPerToken ([DefaultCharsPerToken] when 0).
	MaxTokens int
	// Margin is the share of MaxChars and MaxTokens a response may use, in
	// (0, 1]; 0 means [DefaultMargin].
	Margin float64
	// CharsPerToken, when set, counts tokens as characters / CharsPerToken
	// rounded up, unless Tokenizer counts them.
	CharsPerToken float64
	// Tokenizer counts tokens exactly; it is used only with MaxTokens.
	Tokenizer Tokenizer
	// WarnAt is the share of a limit from which Fit logs a warning, even
	// without a cut; 0 means [DefaultWarnAt], over 1 logs only cuts.
	WarnAt float64
	// Logger receives Fit's warnings; nil means none are logged.
	Logger *slog.Logger
	// Observer is told of every response Fit writes; nil means none is.
	Observer Observer
}

// Observer receives a report of each response [Fit] writes, for metrics:
// how many were cut, how much of the budget they use. Package
// github.com/boundedkit/bounded/boundedotel records them as OpenTelemetry
// metrics. It must be safe for concurrent use and return quickly.
type Observer interface {
	// ObserveResponse is called once per response, with the tool's name
	// (the Call's Tool) and its truncation report: results offered and
	// kept, characters and tokens against their limits, and the reason
	// of a cut ("" when none).
	ObserveResponse(ctx context.Context, tool string, tr Truncation)
}

// Budget100K is 100,000 characters, a 0.8 margin and 4 characters a token:
// a rule of thumb that undercounts JSON's tokens (BENCHMARKS.md).
func Budget100K() Budget {
	return Budget{MaxChars: 100_000, Margin: 0.8, CharsPerToken: 4}
}

// ClaudeCode is Claude Code's limit on a tool result, 50,000 characters and
// 25,000 tokens, with the default margin.
func ClaudeCode() Budget {
	return Budget{MaxChars: 50_000, MaxTokens: 25_000, Margin: DefaultMargin}
}

// Preset is a named budget, for configurations and flags that name one.
type Preset struct {
	// Name is the preset's name: "default", "claude-code" or "note-100k".
	Name string
	// Budget is the preset's budget.
	Budget Budget
	// Source says where its numbers come from.
	Source string
}

// Presets returns "default" (the zero Budget), "claude-code" ([ClaudeCode])
// and "note-100k" ([Budget100K]).
func Presets() []Preset {
	return []Preset{
		{"default", Budget{}, "50,000 characters, where clients start writing results to files; 0.9 margin; 45,000 / 2.8 tokens, estimated"},
		{"claude-code", ClaudeCode(), "Claude Code: 25,000 tokens for one tool result, 50,000 characters before it goes to a file; 0.9 margin"},
		{"note-100k", Budget100K(), "100,000 characters, 0.8 margin, 4 characters a token: the common rule of thumb, not a safe default"},
	}
}

// CountTokens returns the tokens of s as [Fit] counts them under b. If the
// Tokenizer fails, it counts as b without one would.
func (b Budget) CountTokens(s string) int {
	if b.MaxTokens > 0 && b.Tokenizer != nil {
		if n, err := b.Tokenizer.Count(context.Background(), s); err == nil && n >= 0 {
			return n
		}
	}
	if b.CharsPerToken > 0 {
		return b.estimateTokens(utf8.RuneCountInString(s))
	}
	return Estimator{}.CountTokens(s)
}

// withDefaults returns b with its zero fields replaced by the defaults.
func (b Budget) withDefaults() Budget {
	if b.MaxChars == 0 {
		b.MaxChars = DefaultMaxChars
	}
	if b.Margin == 0 {
		b.Margin = DefaultMargin
	}
	if b.CharsPerToken == 0 {
		b.CharsPerToken = DefaultCharsPerToken
	}
	if b.WarnAt == 0 {
		b.WarnAt = DefaultWarnAt
	}
	return b
}

// LimitChars is MaxChars × Margin after defaults, rounded down (29 for
// 100 × 0.29), or 0 for an invalid b.
func (b Budget) LimitChars() int {
	if b.Validate() != nil {
		return 0
	}
	return b.limitChars()
}

func (b Budget) limitChars() int {
	_, chars, _ := b.limits()
	return chars
}

// limits returns b with its defaults and its limits, LimitChars and
// LimitTokens for a valid b.
func (b Budget) limits() (d Budget, chars, tokens int) {
	d = b.withDefaults()
	chars = floorInt(float64(d.MaxChars) * d.Margin)
	if d.MaxTokens > 0 {
		return d, chars, floorInt(float64(d.MaxTokens) * d.Margin)
	}
	return d, chars, floorInt(float64(chars) / d.CharsPerToken)
}

// LimitTokens is MaxTokens × Margin, or else LimitChars / CharsPerToken,
// after defaults, rounded down; or 0 for an invalid b.
func (b Budget) LimitTokens() int {
	if b.Validate() != nil {
		return 0
	}
	return b.limitTokens()
}

func (b Budget) limitTokens() int {
	_, _, tokens := b.limits()
	return tokens
}

// Validate returns an error wrapping [ErrInvalidBudget] for a negative, NaN
// or infinite field, a Margin over 1, or limits that round down to 0. Zero
// fields take their defaults first.
func (b Budget) Validate() error {
	_, _, _, err := b.validate()
	return err
}

// validate is Validate, returning what it computes on the way: b with its
// defaults, and its limits.
func (b Budget) validate() (d Budget, chars, tokens int, err error) {
	finite := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
	switch {
	case b.MaxChars < 0:
		err = fmt.Errorf("%w: MaxChars %d is negative", ErrInvalidBudget, b.MaxChars)
	case b.MaxTokens < 0:
		err = fmt.Errorf("%w: MaxTokens %d is negative", ErrInvalidBudget, b.MaxTokens)
	case !finite(b.Margin) || b.Margin < 0 || b.Margin > 1:
		err = fmt.Errorf("%w: Margin %v is not in (0, 1]", ErrInvalidBudget, b.Margin)
	case !finite(b.CharsPerToken) || b.CharsPerToken < 0:
		err = fmt.Errorf("%w: CharsPerToken %v is not a positive number", ErrInvalidBudget, b.CharsPerToken)
	case !finite(b.WarnAt) || b.WarnAt < 0:
		err = fmt.Errorf("%w: WarnAt %v is not a positive number", ErrInvalidBudget, b.WarnAt)
	}
	if err != nil {
		return Budget{}, 0, 0, err
	}
	d, chars, tokens = b.limits()
	switch {
	case chars < 1:
		err = fmt.Errorf("%w: MaxChars %d with Margin %v leaves %d characters", ErrInvalidBudget, d.MaxChars, d.Margin, chars)
	case tokens < 1:
		err = fmt.Errorf("%w: MaxTokens %d, Margin %v and CharsPerToken %v leave %d tokens", ErrInvalidBudget, d.MaxTokens, d.Margin, d.CharsPerToken, tokens)
	}
	return d, chars, tokens, err
}

// estimateTokens is the token estimate of chars characters: chars /
// CharsPerToken rounded up. b has its defaults.
func (b Budget) estimateTokens(chars int) int {
	return ceilInt(float64(chars) / b.CharsPerToken)
}

// charsForTokens is the largest character count whose token estimate is at
// most tokens, or math.MaxInt when that is beyond any response. b has its
// defaults.
func (b Budget) charsForTokens(tokens int) int {
	if tokens >= math.MaxInt/2 {
		return math.MaxInt
	}
	// tokens × CharsPerToken, up to rounding: bracket the answer between
	// lo, which fits, and hi, which does not, then bisect. The estimate is
	// non-decreasing in the characters, and 0 characters always fit.
	lo := floorInt(float64(tokens) * b.CharsPerToken)
	for step := 1; lo > 0 && b.estimateTokens(lo) > tokens; step *= 2 {
		lo = max(0, lo-step)
	}
	hi := lo + 1
	for step := 1; b.estimateTokens(hi) <= tokens; step *= 2 {
		if hi >= math.MaxInt/4 {
			return math.MaxInt
		}
		lo, hi = hi, hi+step
	}
	for hi-lo > 1 {
		if mid := lo + (hi-lo)/2; b.estimateTokens(mid) <= tokens {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// floorInt rounds x down to an int, treating values within 1e-9 (relative)
// of an integer as that integer; NaN and negatives give 0, huge values
// math.MaxInt.
func floorInt(x float64) int {
	switch {
	case !(x > 0):
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt
	}
	if r := math.Round(x); math.Abs(x-r) <= 1e-9*math.Max(1, x) {
		return int(r)
	}
	return int(math.Floor(x))
}

// ceilInt is floorInt rounding up.
func ceilInt(x float64) int {
	switch {
	case !(x > 0):
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt
	}
	if r := math.Round(x); math.Abs(x-r) <= 1e-9*math.Max(1, x) {
		return int(r)
	}
	return int(math.Ceil(x))
}
