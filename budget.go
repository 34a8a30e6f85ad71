package bounded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"unicode/utf8"
)

// ErrInvalidBudget is returned, wrapped with the field and value at fault,
// for a [Budget] with a negative, NaN or infinite field, a Margin outside
// (0, 1], or limits that leave no room at all; and by [Fit] when the budget is
// too small for the envelope itself (its pagination, truncation report, hint
// and next call) or for the response that says a result needs more.
var ErrInvalidBudget = errors.New("bounded: invalid budget")

// ErrUnordered is returned by [Fit], wrapped with the positions and scores at
// fault, when [FitInput.Relevance] is set and the items are not in
// non-increasing relevance order (or a score is NaN). Fit never reorders a
// page: that would break exactly-once pagination across pages.
var ErrUnordered = errors.New("bounded: results not in relevance order")

const (
	// DefaultMaxChars is the ceiling of a [Budget] with MaxChars 0: 50,000
	// characters, where a client that writes larger tool results to a file
	// starts.
	DefaultMaxChars = 50_000
	// DefaultMargin is the share of the ceiling a response may use when
	// Margin is 0: 0.9, so that the default budget allows 45,000 characters.
	DefaultMargin = 0.9
	// DefaultCharsPerToken derives the token limit from the character
	// limit when MaxTokens and CharsPerToken are 0: compact JSON measures
	// about 2.8 characters a token, so the default budget's 45,000
	// characters allow 16,071 tokens. Tokens are then counted by the
	// [Estimator], not by this ratio.
	DefaultCharsPerToken = 2.8
	// DefaultWarnAt is the share of a limit at or over which [Fit] logs a
	// warning when WarnAt is 0.
	DefaultWarnAt = 0.7
)

// Truncation reasons, the values of [Truncation.Reason].
const (
	// ReasonCharacterLimit: results were cut to fit the character ceiling
	// (or, with MaxTokens 0, the token limit derived from it).
	ReasonCharacterLimit = "character_limit"
	// ReasonTokenLimit: results were cut to fit MaxTokens, which was
	// tighter than the character ceiling.
	ReasonTokenLimit = "token_limit"
	// ReasonSingleResultTooLarge: the first result alone was over the
	// budget; it was returned with its longest strings clipped.
	ReasonSingleResultTooLarge = "single_result_too_large"
	// ReasonBudgetTooSmall: not even the first result with every string
	// clipped fits the budget; none was returned, NeededChars and
	// NeededTokens say what a response with it takes, and the page goes
	// on at that result.
	ReasonBudgetTooSmall = "budget_too_small"
)

// Tokenizer counts the tokens of a text as the agent's model does, for
// [Budget.Tokenizer]. Package github.com/boundedkit/bounded/tokenizer has
// the o200k_base and cl100k_base counters; a counter backed by a service
// (a count-tokens endpoint) fits too. Implementations must be safe for
// concurrent use.
type Tokenizer interface {
	// Count returns the number of tokens of s (0 for ""), or an error,
	// which Fit returns wrapped in ErrTokenizer. ctx is FitContext's.
	Count(ctx context.Context, s string) (int, error)
}

// ErrTokenizer is returned by [FitContext], wrapping the error of the
// budget's [Tokenizer] (or saying that it counted below 0).
var ErrTokenizer = errors.New("bounded: tokenizer failed")

// Budget is a hard ceiling on the size of a whole encoded tool response,
// applied by [Fit]. The zero Budget allows 45,000 characters (50,000 with a
// 0.9 margin) and 16,071 tokens (45,000 / 2.8). [Presets] lists named
// budgets.
//
// Tokens are counted by Tokenizer when it and MaxTokens are set, else as
// characters / CharsPerToken when that is set, else by the [Estimator].
// Characters are the runes of the encoded JSON as written: \n counts 2, é 1.
type Budget struct {
	// MaxChars is the ceiling on the encoded response, in characters.
	// 0 means DefaultMaxChars (50,000).
	MaxChars int
	// MaxTokens is an optional ceiling in tokens; 0 means the limit derived
	// from the characters: LimitChars / CharsPerToken (DefaultCharsPerToken
	// when 0). Tokens are counted as the Budget documents.
	MaxTokens int
	// Margin is the share of MaxChars (and of MaxTokens) the whole response
	// may use, in (0, 1]. 0 means DefaultMargin (0.9).
	Margin float64
	// CharsPerToken, when set, estimates tokens as characters /
	// CharsPerToken, rounded up (when there is no Tokenizer), and derives
	// the token limit when MaxTokens is 0. 0 means the Estimator counts
	// tokens, and DefaultCharsPerToken (2.8) derives the limit.
	CharsPerToken float64
	// Tokenizer, when set together with MaxTokens, counts tokens exactly.
	// It is not called when MaxTokens is 0.
	Tokenizer Tokenizer
	// WarnAt is the share of LimitChars (or LimitTokens) at or over which
	// Fit logs a warning even when nothing was cut. 0 means DefaultWarnAt
	// (0.7); a value over 1 logs only cuts.
	WarnAt float64
	// Logger receives Fit's warnings; nil means none are logged.
	Logger *slog.Logger
}

// Budget100K is 100,000 characters, a 0.8 margin and 4 characters a token
// (LimitChars 80,000, LimitTokens 20,000). It is not safe for JSON, which
// runs about 2.8 characters a token: its 80,000 characters are about 28,700
// tokens. [ClaudeCode] keeps a response under that client's 25,000 tokens.
func Budget100K() Budget {
	return Budget{MaxChars: 100_000, Margin: 0.8, CharsPerToken: 4}
}

// ClaudeCode is the budget of one tool response for Claude Code: 50,000
// characters and 25,000 tokens with the default 0.9 margin (LimitChars
// 45,000, LimitTokens 22,500), tokens counted by the [Estimator]. The client
// refuses a result over 25,000 tokens by default and writes one over 50,000
// characters to a file; the margin covers its own tokenizer and what it
// wraps around a result.
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

// Presets returns the named budgets, the default first: "default" (the
// zero Budget), "claude-code" ([ClaudeCode]) and "note-100k" ([Budget100K]).
func Presets() []Preset {
	return []Preset{
		{"default", Budget{}, "50,000 characters, where clients start writing results to files; 0.9 margin; 45,000 / 2.8 tokens, estimated"},
		{"claude-code", ClaudeCode(), "Claude Code: 25,000 tokens for one tool result, 50,000 characters before it goes to a file; 0.9 margin"},
		{"note-100k", Budget100K(), "100,000 characters, 0.8 margin, 4 characters a token: the common rule of thumb, not a safe default"},
	}
}

// CountTokens returns the tokens of s as b counts those of a response: its
// Tokenizer's count when b has one and MaxTokens, characters /
// CharsPerToken when CharsPerToken is set, else the Estimator's. It is for
// sizing a text before [Fit]: when the Tokenizer fails, it counts as b
// without one does, and Fit reports the error.
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

// LimitChars is the most characters a response fitted to b may have:
// MaxChars × Margin rounded down, after defaults (45,000 for the zero
// Budget). A product within 1e-9 of an integer counts as that integer, so
// that 100 × 0.29 is 29. It is 0 for a budget [Budget.Validate] rejects.
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

// LimitTokens is the most tokens a response fitted to b may have:
// MaxTokens × Margin rounded down when MaxTokens is set, otherwise
// LimitChars / CharsPerToken rounded down (16,071 for the zero Budget). It is
// 0 for a budget [Budget.Validate] rejects.
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

// Validate reports whether b can be used. It returns an error wrapping
// [ErrInvalidBudget], naming the field and value, for a negative MaxChars or
// MaxTokens; a NaN or infinite float field; a Margin outside (0, 1]; a
// negative CharsPerToken or WarnAt; or limits that round down to 0
// characters or tokens. Zero fields take their defaults first.
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
