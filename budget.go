package bounded

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"
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
	// DefaultCharsPerToken is the ratio that derives a token limit from the
	// character limit when MaxTokens and CharsPerToken are 0: compact JSON
	// result lists measure about 2.8 characters a token with the o200k and
	// cl100k tokenizers, so the default budget's 45,000 characters allow
	// 16,071 tokens. It no longer estimates the tokens of a response: with
	// CharsPerToken 0 the [Estimator] counts them, by kind of content. The
	// common 4 is prose's ratio and underestimates the tokens of JSON by
	// about 30%.
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

// Tokenizer counts the tokens of a text exactly as the agent's model does.
// It is optional (see [Budget.MaxTokens]); the root package ships none, so
// that importing it stays cheap: package
// github.com/boundedkit/bounded/tokenizer has the exact o200k_base and
// cl100k_base counters, and [Estimator] estimates without a vocabulary.
// Implementations must be safe for concurrent use: one Budget is typically
// shared by every call of a tool.
type Tokenizer interface {
	// CountTokens returns the number of tokens of s (0 for "").
	CountTokens(s string) int
}

// Budget is a hard ceiling on the size of a whole encoded tool response,
// applied by [Fit]. The zero Budget is valid: 50,000 characters with a 0.9
// margin (45,000 characters), and 16,071 tokens (45,000 / 2.8) counted by
// the [Estimator]. See [ClaudeCode] and [Budget100K] for the budgets of a
// client and of the character-budget design note.
//
// Tokens are counted, in order of precedence: by Tokenizer when it and
// MaxTokens are set, exactly; as characters / CharsPerToken when
// CharsPerToken is set, the fixed rule of older budgets (Budget100K's 4);
// otherwise by the Estimator, which errs on the safe side and holds the
// token limit on any content (JSON structure, code, prose, CJK text). A flat
// rule does not: 45,000 characters of CJK text run 31,000 (o200k_base) to
// 45,000 (cl100k_base) tokens, where 2.8 characters a token assumes 16,071.
//
// Characters are Unicode code points (runes) of the encoded JSON, counted as
// written: an escape such as \u00e9 or \n counts as the 6 or 2 characters it
// occupies in the output, and "é" written as itself counts as 1.
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

// Budget100K is the budget of the character-budget design note
// (shared/seeds/003-character-budget.md): 100,000 characters, an 80% margin
// and 4 characters a token, i.e. LimitChars 80,000 and LimitTokens 20,000,
// its tokens estimated by that 4:1 rule as the note does. It is expressible
// but not safe: compact JSON runs about 2.8 characters a token, so 80,000
// characters of it are about 28,700 tokens, over its own 20,000 and over
// Claude Code's 25,000 (see BENCHMARKS.md for the responses measured). The
// note meant to keep a response under 25,000 tokens: [ClaudeCode] does, for
// the same client.
func Budget100K() Budget {
	return Budget{MaxChars: 100_000, Margin: 0.8, CharsPerToken: 4}
}

// ClaudeCode is the budget of one tool response for Claude Code, the
// coding agent: 50,000 characters and 25,000 tokens, with the default 0.9
// margin, i.e. LimitChars 45,000 and LimitTokens 22,500, tokens counted by
// the [Estimator] (set Tokenizer to count them exactly). The numbers are the
// client's (issue 7): it refuses a tool result over 25,000 tokens by default
// (its MAX_MCP_OUTPUT_TOKENS setting raises that), and writes a result over
// 50,000 characters to a file, giving the model a pointer instead of the
// result. The margin leaves room for the client's own tokenizer, which is
// Claude's and counts differently from the o200k_base and cl100k_base
// encodings the Estimator is calibrated on, and for what the client wraps
// around a result.
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
		{"note-100k", Budget100K(), "the character-budget design note: 100,000 characters, 0.8 margin, 4 characters a token"},
	}
}

// CountTokens returns the tokens of s as b counts those of a response: its
// Tokenizer when b has one and MaxTokens, characters / CharsPerToken when
// CharsPerToken is set, else the Estimator's count. Tools use it to clip a
// text to the tokens left; Fit counts a whole response this way.
func (b Budget) CountTokens(s string) int {
	switch {
	case b.MaxTokens > 0 && b.Tokenizer != nil:
		return b.Tokenizer.CountTokens(s)
	case b.CharsPerToken > 0:
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

// Truncation reports how a response was fitted into its budget. It is
// always present in a fitted envelope: it reports the budget's usage even
// when nothing was cut (Reason "").
type Truncation struct {
	// Reason is "" when nothing was cut, else ReasonCharacterLimit,
	// ReasonTokenLimit or ReasonSingleResultTooLarge.
	Reason string `json:"reason,omitempty"`
	// OriginalCount is the number of results the page had; ReturnedCount
	// the number in the response (a clipped result counts as returned).
	OriginalCount int `json:"originalCount"`
	ReturnedCount int `json:"returnedCount"`
	// EstimatedChars is the exact number of characters of the encoded
	// response, this object included; LimitChars is the budget's.
	EstimatedChars int `json:"estimatedChars"`
	LimitChars     int `json:"limitChars"`
	// EstimatedTokens is the token count of the response, this object
	// included: the Tokenizer's count with a Tokenizer and MaxTokens
	// (should writing the count change it, the larger of the two),
	// EstimatedChars / CharsPerToken rounded up when CharsPerToken is set,
	// else the [Estimator]'s count. LimitTokens is the budget's.
	EstimatedTokens int `json:"estimatedTokens"`
	LimitTokens     int `json:"limitTokens"`
	// ClippedFields lists, for ReasonSingleResultTooLarge, the paths of the
	// strings of the result that were clipped, in document order: object
	// keys joined by "." ("content", "meta.author"), array elements as
	// "[i]" ("observations[2]"), keys that are not identifiers quoted
	// (`meta["a.b"]`), and "$" for a result that is itself a string.
	ClippedFields []string `json:"clippedFields,omitempty"`
	// NeededChars and NeededTokens, for ReasonBudgetTooSmall, are the
	// size of the response holding the first result clipped to its
	// minimum: a budget of at least that much returns it. When the token
	// limit derives from the characters (MaxTokens 0), NeededChars covers
	// NeededTokens too.
	NeededChars  int `json:"neededChars,omitempty"`
	NeededTokens int `json:"neededTokens,omitempty"`
}

// FitInput is what [Fit] fits into a budget.
type FitInput[T any] struct {
	// Page is one page of items, in the method's order (most relevant
	// first for scored methods), with its PageInfo. Its Returned must equal
	// len(Items). Its CursorAt, when set, issues the NextCursor of a cut.
	Page Paged[T]
	// Call is the tool call that produced the page: it renders the hint and
	// the next call's arguments.
	Call Call
	// Hints sets how much the hint says; HintOff leaves it out.
	Hints HintStyle
	// Relevance, when set, scores an item; the items must then be in
	// non-increasing order of it, or Fit returns ErrUnordered. Fit keeps a
	// prefix of the page, so the prefix is the most relevant part.
	Relevance func(T) float64
	// Window, when set, is written as the envelope's contentMetadata.
	Window *WindowInfo
	// Unclipped names the string fields of a result that are never
	// clipped, as ClippedFields names them (e.g. "id"): a result that
	// fits only with one of them clipped is not returned, and the
	// response says the budget it needs (ReasonBudgetTooSmall).
	Unclipped []string
}

// Fitted is a response fitted into a budget.
type Fitted struct {
	// JSON is the encoded [Envelope]: at most LimitChars characters and
	// LimitTokens tokens, as measured by Truncation.
	JSON []byte
	// Page is the page info after the cut ([PageInfo.Cut]): when results
	// were cut, HasMore is true, NextOffset is the first cut result, and
	// NextCursor is the input page's CursorAt(Kept) ("" without CursorAt).
	Page PageInfo
	// Truncation is the report written in JSON.
	Truncation Truncation
	// Hint is the hint written in JSON ("" with HintOff).
	Hint string
	// Next is the whole argument list of the call that continues after
	// this response, nil on the last page.
	Next Args
	// Kept is the number of items in JSON: the first Kept items of the
	// page (the first one possibly clipped).
	Kept int
}

// Fit encodes a page as an [Envelope] that fits the budget b, cutting it at
// a result boundary when it does not.
//
// Fit keeps the longest prefix of in.Page.Items whose whole envelope (the
// results, the pagination after the cut, the truncation report, the hint and
// next call of the cut page, contentMetadata) is at most b.LimitChars()
// characters and b.LimitTokens() tokens. Sizes are exact, not estimated: each
// item is encoded once, to the bytes encoding/json writes with HTML escaping
// off, and the JSON is assembled from those bytes. Items of a type made of
// structs, strings, numbers, booleans, times, pointers and slices of those
// are written by an encoder compiled once per type, one at a time, straight
// into the response; encoding stops after the item that takes the items
// over the character ceiling. Other types (with maps, interfaces, their own
// MarshalJSON, ...) are encoded by encoding/json in batches, each as it
// encodes a slice of them (a type's MarshalJSON is called as json.Marshal
// of the page calls it): the first item alone, then batches of at most
// three times as many items as before, and about as many as the ceiling
// leaves room for at the items' mean size so far; encoding stops after the
// batch that takes the items over the ceiling. The items keep their order:
// the first ones are the most relevant for methods that return the most
// relevant first.
//
// When items are cut, the pagination's HasMore is true and NextOffset is the
// first cut item ([PageInfo.Cut]), so that following Fitted.Next (or the
// hint) returns every item exactly once. A cut page no longer ends on a page
// boundary, so [ByPage] tools continue by offset. The page's NextCursor
// pointed past the cut items: when the page has a [Paged.CursorAt], Fit
// replaces it with CursorAt(Kept), the cursor right after the last item
// kept, and [ByCursor] tools continue by that cursor (in the pagination,
// the hint and Fitted.Next), so that a walk by cursor stays exact under any
// budget while items are written between its pages; without CursorAt the
// cursor is dropped and cursor tools continue by offset. The cut is
// reported as ReasonCharacterLimit, or ReasonTokenLimit when MaxTokens was
// the tighter ceiling.
//
// With b.Tokenizer and b.MaxTokens set, per-item token counts choose the
// cut, then the final JSON is counted with the Tokenizer and items are
// dropped from the end until it fits. With the [Estimator] (CharsPerToken
// 0), the items are read once more, to estimate them (and count their
// characters in the same reading); the estimate written is the Estimator's
// count of the very response, and the cut keeps the longest prefix within
// both limits.
//
// When the first item alone is over the budget, it is returned anyway: its
// longest strings are clipped to a common length (by [Clip], each with a
// marker counting the removed characters) until the envelope fits. The
// response reports ReasonSingleResultTooLarge and the clipped paths, and the
// next page starts after that item. Only string values are clipped, never
// keys, numbers or structure, and the item keeps its key order. When not
// even that fits, the response holds no result: it reports
// ReasonBudgetTooSmall with the budget the item needs (NeededChars,
// NeededTokens), the page goes on at that item, and the hint says so.
//
// When b.Logger is set, a cut, or a response using at least b.WarnAt of a
// limit, is logged to it at level Warn as "bounded: response cut to fit budget" or
// "bounded: response near budget", with the attributes tool, kept,
// original, chars, limitChars, tokens, limitTokens and reason.
//
// An empty page gives "results":[]. Fit does not modify in, and the JSON it
// returns is its own. It returns an error wrapping [ErrInvalidBudget] for an
// invalid budget, or one too small for the envelope itself; [ErrUnordered] for items out of relevance
// order; [ErrInvalidPage] when in.Page.Page.Returned is not
// len(in.Page.Items); the error of an item encoding/json cannot encode; or
// the error of in.Page.CursorAt.
func Fit[T any](b Budget, in FitInput[T]) (Fitted, error) {
	f, err := prepareFit(b, in)
	if err != nil {
		return Fitted{}, err
	}
	fd, err := f.fit()
	f.release()
	return fd, err
}

// prepareFit checks Fit's input and encodes its items.
func prepareFit[T any](b Budget, in FitInput[T]) (*fitter, error) {
	d, limitChars, limitTokens, err := b.validate()
	if err != nil {
		return nil, err
	}
	items := in.Page.Items
	if in.Page.Page.Returned != len(items) {
		return nil, fmt.Errorf("%w: pagination says %d returned but the page has %d items", ErrInvalidPage, in.Page.Page.Returned, len(items))
	}
	if in.Relevance != nil && len(items) > 0 {
		prev := in.Relevance(items[0])
		if math.IsNaN(prev) {
			return nil, fmt.Errorf("%w: item 0 has relevance NaN", ErrUnordered)
		}
		for i := 1; i < len(items); i++ {
			r := in.Relevance(items[i])
			if math.IsNaN(r) || r > prev {
				return nil, fmt.Errorf("%w: item %d has relevance %v after %v", ErrUnordered, i, r, prev)
			}
			prev = r
		}
	}
	f := newFitter(d, b.CharsPerToken == 0, limitChars, limitTokens, in.Page.Page, in.Call, in.Hints, len(items))
	f.cursorAt = in.Page.CursorAt
	f.unclipped = in.Unclipped
	if err := f.setWindow(in.Window); err != nil {
		return nil, err
	}
	// Encode every item once, each followed by a comma, after the
	// envelope's opening: the kept prefix of buf is the final JSON's head.
	// Items go in batches, one Encode call each, from a first item alone
	// (whose size predicts the others') to batches of up to three times as
	// many items as before, but not much past what the ceiling leaves room
	// for: encoding stops after the batch that takes the items over it.
	w := &f.w
	w.items, w.most = len(items), 4*min(f.charCap, math.MaxInt/8)
	// A pointer to the batch, which encodes as the batch does (its items
	// addressable, as json.Marshal([]T) sees them), set for each batch
	// without boxing a slice header each time.
	var batch *[]T
	// encoding/json writes a slice of bytes as one base64 string: items of
	// a byte kind go one at a time.
	single := reflect.TypeFor[T]().Kind() == reflect.Uint8
	if fe := fastEncoderFor(reflect.TypeFor[T]()); fe != nil {
		if err := encodeFast(f, items, fe); err != nil {
			return nil, err
		}
		single = false // every item is encoded, or the ceiling reached
	}
	for !single && f.m < f.n && !f.over(f.m) {
		c := f.batchSize()
		if batch == nil {
			batch = new([]T)
		}
		*batch = items[f.m : f.m+c]
		w.batch, w.inSlice = c, true
		if err := f.enc.Encode(batch); err == nil {
			f.addBatch(c)
			continue
		}
		// Encode the batch's items one at a time, as far as they would
		// be encoded so, to name the item at fault.
		if err := encodeEach(f, items, f.m+c); err != nil {
			return nil, err
		}
	}
	if single {
		if err := encodeEach(f, items, f.n); err != nil {
			return nil, err
		}
	}
	if len(w.b) == 0 {
		w.b = append(w.b, resultsOpen...)
		f.buf = w.b
	}
	f.settleEncoded()
	return f, nil
}

// encodeEach encodes items[f.m:end] one at a time, as long as the items
// encoded do not take more characters than the ceiling. Its error names the
// item at fault.
func encodeEach[T any](f *fitter, items []T, end int) error {
	f.w.batch, f.w.inSlice = 1, false
	for i := f.m; i < end && !f.over(i); i++ {
		// A pointer, as json.Marshal([]T) sees addressable elements: the
		// same methods are used, and the item is not copied.
		if err := f.enc.Encode(&items[i]); err != nil {
			return fmt.Errorf("bounded: encoding result %d: %w", i, err)
		}
		f.addBatch(1)
	}
	return nil
}

// encodeFast encodes items with their compiled encoder, one at a time,
// straight into f's buffer, as long as the items encoded do not take more
// characters than the ceiling. An item the encoder refuses (a NaN float)
// goes to encoding/json, whose error names it.
func encodeFast[T any](f *fitter, items []T, fe encFunc) error {
	w := &f.w
	if len(w.b) == 0 {
		w.b = append(w.b, resultsOpen...)
	}
	f.buf = w.b
	for f.m < f.n && !f.over(f.m) {
		i := f.m
		b, ok := fe(w.b, unsafe.Pointer(&items[i]))
		if !ok {
			// w.b still ends after the items before.
			if err := encodeEach(f, items, i+1); err != nil {
				return err
			}
			continue
		}
		w.b = append(b, ',')
		f.buf = w.b
		f.m++
		f.ends[i] = len(w.b) - 1
		if f.ends[i]-f.allEnd >= readAhead {
			f.readEncoded()
		}
	}
	return nil
}

// addBatch records the batch of c items just encoded, after the first m.
func (f *fitter) addBatch(c int) {
	f.buf = f.w.b
	f.m += c
	f.w.items -= c
	end := len(f.buf) - 1 // the comma after the batch
	f.ends[f.m-1] = end
	f.batches = append(f.batches, f.m)
	if c > 1 {
		f.split = false
	}
	if end-f.allEnd >= readAhead {
		f.readEncoded()
	}
}

// readAhead is how many bytes of items encoded but not yet read addBatch
// leaves for later: a read of fewer is better done with the next ones, a
// read of more while they are still in the processor's caches.
const readAhead = 16 << 10

// readEncoded counts the characters of the items encoded since the last
// read, and with the Estimator estimates them in the same reading: from the
// comma after the items read before (or resultsOpen) to the one after the
// last item encoded.
func (f *fitter) readEncoded() {
	if f.m == 0 || f.allEnd >= f.ends[f.m-1] {
		return
	}
	end := f.ends[f.m-1]
	if f.est {
		e := f.snaps[f.read]
		f.allRunes += e.addBytes(f.buf[f.allEnd:end])
		f.snaps[f.m], f.snapped[f.m] = e, true
	} else {
		f.allRunes += runeCount(f.buf[f.allEnd:end])
	}
	f.allEnd, f.read = end, f.m
}

// batchSize is the number of items to encode next: the first alone, then
// up to three times as many as so far, but no more than the ceiling leaves
// room for at the mean size of the items so far, plus one to reach it.
func (f *fitter) batchSize() int {
	if f.m == 0 {
		return 1
	}
	used := f.ends[f.m-1] - len(resultsOpen) + 1 // bytes, at least the runes
	room := max(0, f.charCap-used) / max(1, used/f.m)
	return max(1, min(f.n-f.m, 3*f.m, room+1))
}

// over reports whether the first k items, k <= m, take more characters
// than the ceiling: then no response holding them fits, and the items
// after them are not needed. Items are counted only when their bytes are
// over the ceiling (a character takes a byte at least).
func (f *fitter) over(k int) bool {
	if k == 0 || f.ends[f.m-1]-len(resultsOpen) <= f.charCap {
		return false
	}
	return f.itemRunes(k) > f.charCap
}

// settleEncoded cuts m back to what encoding one item at a time would have
// encoded: items up to the first whose characters take the items over
// the ceiling. A batch encodes past it, or may.
func (f *fitter) settleEncoded() {
	last := min(f.m, f.n-1) // one at a time, item n-1 is the last checked
	if last < 1 || !f.over(last) {
		return
	}
	lo, hi := 1, last // the first k with itemRunes(k) > charCap is in [lo, hi]
	for lo < hi {
		if mid := (lo + hi) / 2; f.itemRunes(mid) > f.charCap {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	f.m = lo
}

// splitItems finds the end of every item encoded in a batch, once.
func (f *fitter) splitItems() {
	if f.split {
		return
	}
	first := 0
	for _, end := range f.batches {
		if end-first > 1 {
			from := len(resultsOpen)
			if first > 0 {
				from = f.ends[first-1] + 1 // past the comma before the batch
			}
			splitValues(f.buf[from:f.ends[end-1]], from, f.ends[first:end-1])
		}
		first = end
	}
	f.split = true
}

// splitValues stores in ends the offsets (plus base) of the len(ends)
// commas that separate JSON values in b, which encoding/json wrote: the
// commas outside strings, objects and arrays.
func splitValues(b []byte, base int, ends []int) {
	depth, k := 0, 0
	for i := 0; i < len(b) && k < len(ends); i++ {
		switch b[i] {
		case '"':
			// To the closing quote: the next one after an even number of
			// backslashes, since each escape in the string starts with one.
			for i++; ; i++ {
				j := bytes.IndexByte(b[i:], '"')
				if j < 0 {
					return
				}
				i += j
				bs := 0
				for bs < i && b[i-1-bs] == '\\' {
					bs++
				}
				if bs%2 == 0 {
					break
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 0 {
				ends[k] = base + i
				k++
			}
		}
	}
}

// resultsOpen opens every envelope; the item bytes follow it.
const resultsOpen = `{"results":[`

// maxPooled is the largest buffer a pooled fitter keeps for the next call.
const maxPooled = 1 << 20

// sliceWriter collects the encoded items after resultsOpen, each followed
// by a comma. It reserves room for the items still to come from the sizes
// written so far, so that each item is copied once, but not more than the
// budget can use.
type sliceWriter struct {
	b       []byte
	batch   int  // items in the value being written
	inSlice bool // the value is a slice of items, not one item
	items   int  // items still to write, these included
	written int
	most    int // bytes the response can use, about
}

func (w *sliceWriter) Write(p []byte) (int, error) {
	// The Encoder's value, without its newline and the brackets of a
	// slice, followed by a comma.
	q := p[:len(p)-1]
	if w.inSlice {
		q = q[1 : len(q)-1]
	}
	if cap(w.b)-len(w.b) < len(q)+1+len(resultsOpen) {
		// Room for these items and those to come, assumed as long as the
		// ones so far (and an eighth more), and for the envelope's tail.
		avg := (max(len(w.b)-len(resultsOpen), 0) + len(q) + w.batch) / (w.written + w.batch)
		rest := w.items - w.batch
		w.b = slices.Grow(w.b, len(resultsOpen)+len(q)+1+min(avg*rest+avg*rest/8, w.most)+1024)
	}
	if len(w.b) == 0 {
		w.b = append(w.b, resultsOpen...)
	}
	w.b = append(append(w.b, q...), ',')
	w.written += w.batch
	return len(p), nil
}

// fitter holds one Fit call's state. Everything but the item encoding is
// independent of the item type. Fitters are pooled: their slices and the
// Encoder are reused.
type fitter struct {
	b           Budget // with defaults
	limitChars  int
	limitTokens int
	// charCap is the character ceiling of the search: limitChars, lowered
	// to the token limit's equivalent when tokens are estimated.
	charCap   int
	capReason string
	tok       Tokenizer // set only with MaxTokens
	// est: tokens are counted by the Estimator (CharsPerToken 0 and no
	// Tokenizer with MaxTokens). snaps[k] is the estimate of resultsOpen
	// and the first k items when snapped[k]: known for each batch as it is
	// encoded, and for other k as needed. tailBuf is where the tails are
	// rendered to be estimated.
	est     bool
	snaps   []estimate
	snapped []bool
	tailBuf []byte
	info    PageInfo
	call    Call
	style   HintStyle
	n       int // items in the page
	m       int // items encoded: all, or up to the first that cannot fit

	// cursorAt is the page's CursorAt: it issues the NextCursor of a cut.
	cursorAt func(int) (string, error)
	// unclipped is FitInput.Unclipped.
	unclipped []string

	window      []byte // encoded WindowInfo, nil when none
	windowRunes int

	// buf holds resultsOpen, then each item followed by a comma; ends[i]
	// is the offset of the comma after item i, i < m. Items are encoded
	// in batches (batches[j] is the number of items after batch j), and
	// the ends of items inside batches are found only when needed: split
	// says they are known.
	buf     []byte
	ends    []int
	batches []int
	split   bool
	// cum[k] is the runes of the first k items, k <= counted, counted one
	// by one when needed; allRunes is those of buf[len(resultsOpen):allEnd],
	// the first read items, counted as they are encoded, readAhead bytes at
	// a time (with the Estimator, in the same reading as their estimate).
	cum      []int
	counted  int
	allRunes int
	allEnd   int
	read     int   // the items before allEnd
	cumTok   []int // cumTok[k]: tokens of the first k items (Tokenizer)
	ints     []int // the memory of ends and cum

	tails []*tail // memo of tailFor
	// lean leaves out of the pagination the cursors the next call does
	// not use: set when not one result fits with them.
	lean      bool
	tailsBuf  [4]*tail
	tailStore [4]tail      // the first tails
	tailMem   [4][3][]byte // and their buffers, kept across calls
	shape0    shape        // the first shape sizeOf measures
	shapes    int          // shapes sizeOf measured
	w         sliceWriter
	enc       *json.Encoder // writes to w
}

var fitterPool = sync.Pool{New: func() any {
	f := new(fitter)
	f.enc = json.NewEncoder(&f.w)
	f.enc.SetEscapeHTML(false)
	return f
}}

// newFitter returns a fitter for the budget b, with its defaults and
// limits; estimated says whether b's tokens are counted by the Estimator
// (its CharsPerToken was 0).
func newFitter(b Budget, estimated bool, limitChars, limitTokens int, info PageInfo, call Call, style HintStyle, n int) *fitter {
	f := fitterPool.Get().(*fitter)
	// Field by field: the memory a pooled fitter keeps (buffers, the first
	// tails and shape) is overwritten before it is read, and copying it
	// whole would cost more than the call's own work on a small page.
	f.b, f.info, f.call, f.style, f.n, f.m = b, info, call, style, n, 0
	f.limitChars, f.limitTokens = limitChars, limitTokens
	f.charCap, f.capReason, f.tok, f.est = f.limitChars, ReasonCharacterLimit, nil, false
	f.tailBuf = f.tailBuf[:0]
	f.window, f.windowRunes = nil, 0
	f.buf, f.batches, f.split = nil, f.batches[:0], true
	f.counted, f.allRunes, f.allEnd, f.read, f.cumTok = 0, 0, len(resultsOpen), 0, nil
	f.tails, f.shapes, f.lean = f.tailsBuf[:0], 0, false
	f.w.b, f.w.written = f.w.b[:0], 0
	if cap(f.ints) < 2*n+1 {
		f.ints = make([]int, 2*n+1)
	}
	ints := f.ints[:2*n+1]
	f.ends, f.cum = ints[:n:n], ints[n:]
	clear(f.ends)
	f.cum[0] = 0
	if cap(f.snaps) < n+1 {
		f.snaps, f.snapped = make([]estimate, n+1), make([]bool, n+1)
	}
	f.snaps, f.snapped = f.snaps[:n+1], f.snapped[:n+1]
	clear(f.snapped)
	switch {
	case b.MaxTokens > 0 && b.Tokenizer != nil:
		f.tok = b.Tokenizer
	case estimated:
		f.est = true
		f.snaps[0] = estimate{}
		f.snaps[0].addString(resultsOpen)
		f.snapped[0] = true
	default:
		if c := b.charsForTokens(f.limitTokens); c < f.charCap {
			f.charCap = c
			if b.MaxTokens > 0 {
				f.capReason = ReasonTokenLimit
			}
		}
	}
	return f
}

// release returns f to the pool, with the memory of its buffers (up to
// maxPooled bytes each), dropping its references to the call's budget,
// tool call, page and hints; the caller must not use f after.
func (f *fitter) release() {
	if cap(f.w.b) > maxPooled {
		f.w.b = nil
	}
	if cap(f.ints) > maxPooled/8 {
		f.ints = nil
	}
	if cap(f.snaps) > maxPooled/16 {
		f.snaps, f.snapped = nil, nil
	}
	f.b, f.call, f.info, f.buf, f.tok = Budget{}, Call{}, PageInfo{}, nil, nil
	f.cursorAt, f.unclipped = nil, nil
	for _, t := range f.tails {
		t.hint, t.next = "", nil
	}
	f.shape0.tr.ClippedFields, f.shape0.clipped, f.shape0.pathsJSON = nil, nil, nil
	fitterPool.Put(f)
}

// snap returns the estimate of resultsOpen and the first k items (k <= m),
// reading the items from the last k known before, one by one.
func (f *fitter) snap(k int) estimate {
	if k > 0 && k == f.m && f.allEnd < f.ends[k-1] {
		f.readEncoded()
	}
	if f.snapped[k] {
		return f.snaps[k]
	}
	i := k
	for !f.snapped[i] {
		i--
	}
	f.splitItems()
	for ; i < k; i++ {
		e := f.snaps[i]
		e.addBytes(f.buf[f.itemStart(i):f.ends[i]])
		f.snaps[i+1], f.snapped[i+1] = e, true
	}
	return f.snaps[k]
}

// itemStart is the offset in buf where the estimate of item i starts: the
// comma before it, or just after resultsOpen for the first.
func (f *fitter) itemStart(i int) int {
	if i == 0 {
		return len(resultsOpen)
	}
	return f.end(i - 1)
}

// end returns ends[i], finding the ends of items inside batches first if
// it is one of them (the offset of a comma is never 0).
func (f *fitter) end(i int) int {
	if f.ends[i] == 0 {
		f.splitItems()
	}
	return f.ends[i]
}

// estimateTokens is the Estimator's count of the response s describes,
// with the numbers of s.tr as they are, and the share of its envelope after
// the items, in thousandths of a token.
func (f *fitter) estimateTokens(s *shape) (tokens int, tail int64) {
	var e estimate
	if s.clipped != nil {
		e = f.snap(0)
		e.addBytes(s.clipped)
	} else {
		e = f.snap(s.k)
	}
	before := e.milli
	f.tailBuf = f.appendTail(f.tailBuf[:0], s)
	e.addBytes(f.tailBuf)
	return e.tokens(), e.total() - before
}

func (f *fitter) setWindow(w *WindowInfo) error {
	if w == nil {
		return nil
	}
	b, err := json.Marshal(w)
	if err != nil {
		return fmt.Errorf("bounded: encoding contentMetadata: %w", err)
	}
	f.window, f.windowRunes = b, runeCount(b)
	return nil
}

// tail is the part of an envelope that depends on how many items were
// kept, except the truncation report.
type tail struct {
	k          int
	info       PageInfo
	hint       string
	next       Args
	pagination []byte
	hintJSON   []byte // nil when hint is ""
	nextJSON   []byte // nil when there is no next call
	runes      int    // runes of pagination, hintJSON and nextJSON
}

// tailFor returns the tail of the envelope keeping k items; tails are
// memoized, since the search asks for a few k more than once.
func (f *fitter) tailFor(k int) (*tail, error) {
	for _, t := range f.tails {
		if t.k == k {
			return t, nil
		}
	}
	// The first tails, and their buffers, are the fitter's own.
	var t *tail
	var mem *[3][]byte
	if i := len(f.tails); i < len(f.tailStore) {
		t, mem = &f.tailStore[i], &f.tailMem[i]
	} else {
		t, mem = new(tail), new([3][]byte)
	}
	*t = tail{k: k, info: f.info.Cut(k)}
	if k > 0 && k < f.info.Returned && f.cursorAt != nil {
		// The cut position's cursor, which Cut cannot issue.
		c, err := f.cursorAt(k)
		if err != nil {
			return nil, fmt.Errorf("bounded: cursor after result %d: %w", k-1, err)
		}
		t.info.NextCursor = c
	}
	if f.lean {
		// The pagination without the cursors the next call does not use.
		t.info.PrevCursor = ""
		if f.call.Paging != ByCursor && !t.info.AfterCursor {
			t.info.NextCursor = ""
		}
	}
	var err error
	if t.pagination, err = appendPageInfo(mem[0][:0], &t.info); err != nil {
		return nil, err
	}
	mem[0] = t.pagination
	// The hint is written, then its JSON after it, in the same buffer.
	if raw := f.call.appendHint(mem[1][:0], t.info, f.style); len(raw) > 0 {
		t.hint = string(raw)
		mem[1] = appendJSONString(raw, t.hint)
		t.hintJSON = mem[1][len(raw):]
	}
	if next, ok := f.call.Next(t.info); ok {
		b, err := appendArgs(mem[2][:0], next)
		if err != nil {
			return nil, fmt.Errorf("bounded: encoding next arguments: %w", err)
		}
		t.next, t.nextJSON, mem[2] = next, b, b
	}
	t.runes = runeCount(t.pagination) + runeCount(t.hintJSON) + runeCount(t.nextJSON)
	f.tails = append(f.tails, t)
	return t, nil
}

// The constant parts of an envelope, in order.
const (
	keyPagination = `],"pagination":`
	keyTruncated  = `,"truncated":`
	keyTruncation = `,"truncation":`
	keyHint       = `,"hint":`
	keyNext       = `,"next":`
	keyWindow     = `,"contentMetadata":`
)

// shape is one candidate response: k items (or one clipped item), its tail
// and its truncation report.
type shape struct {
	k          int
	itemRunes  int    // runes of the results' contents, commas included
	clipped    []byte // the clipped item, nil for buf's items
	t          *tail
	tr         Truncation
	pathsJSON  [][]byte // encoded ClippedFields
	pathsRunes int      // their runes and separating commas
	chars      int      // exact runes of the whole response
	// tokens is the token count the response is checked against: the
	// estimate written in tr, or with a Tokenizer the larger of the count
	// written and the count of the assembled bytes.
	tokens int
}

// itemRunes is the rune count of the first k items and their commas,
// k <= m: counted for all m items as they were encoded, or else item by
// item.
func (f *fitter) itemRunes(k int) int {
	switch {
	case k == 0:
		return 0
	case k <= f.counted:
		return f.cum[k] + k - 1
	case k == f.m && f.allEnd <= f.ends[k-1]:
		f.readEncoded()
		return f.allRunes
	}
	f.splitItems()
	for ; f.counted < k; f.counted++ {
		i := f.counted
		start := len(resultsOpen)
		if i > 0 {
			start = f.ends[i-1] + 1
		}
		f.cum[i+1] = f.cum[i] + runeCount(f.buf[start:f.ends[i]])
	}
	return f.cum[k] + k - 1
}

// measure fills s.tr, s.chars and s.tokens for s's tail and items, solving
// for the numbers that describe the response's own size. tokens is the token
// count to write when a Tokenizer counts them; it is ignored otherwise.
func (f *fitter) measure(s *shape, tokens int) error {
	fixed := len(resultsOpen) + s.itemRunes + len(keyPagination) + s.t.runes +
		len(keyTruncated) + len(keyTruncation) + s.pathsRunes + 1 // closing brace
	if s.tr.Reason != "" {
		fixed += len("true")
	} else {
		fixed += len("false")
	}
	if s.t.hintJSON != nil {
		fixed += len(keyHint)
	}
	if s.t.nextJSON != nil {
		fixed += len(keyNext)
	}
	if f.window != nil {
		fixed += len(keyWindow) + f.windowRunes
	}
	s.tr.OriginalCount = f.n
	s.tr.ReturnedCount = s.k
	s.tr.LimitChars = f.limitChars
	s.tr.LimitTokens = f.limitTokens
	// chars = fixed + len(truncation(chars, tokens(chars))) is
	// non-decreasing in chars and grows by digits only: iterating from below
	// reaches its least fixed point in a few steps.
	//
	// With the Estimator, the token count is solved for too: it is the
	// estimate of the response with that count written in it, and grows
	// with the digits of both numbers only.
	//
	// Both start from below their least fixed point, so that they reach
	// it: chars from fixed, and with the Estimator the count written from
	// that of the items alone (an estimate never decreases as text is
	// added), which saves a step when it has as many digits.
	chars, estimated := fixed, 0
	if f.est && s.clipped == nil {
		e := f.snap(s.k)
		estimated = e.tokens()
	}
	for range 64 {
		s.tr.EstimatedChars = chars
		s.tr.EstimatedTokens = tokens
		switch {
		case f.est:
			s.tr.EstimatedTokens = estimated
		case f.tok == nil:
			s.tr.EstimatedTokens = f.b.estimateTokens(chars)
		}
		got := fixed + truncationLen(&s.tr)
		if f.est && got == chars {
			// The estimate of a number depends on its digits' count only
			// (a token a group of 3): a count with as many digits as the
			// one written is the estimate of the response it is written in.
			if t, _ := f.estimateTokens(s); t != estimated {
				if digits(t) != digits(estimated) {
					estimated = t
					continue
				}
				s.tr.EstimatedTokens = t
			}
		}
		if got == chars {
			s.chars, s.tokens = chars, s.tr.EstimatedTokens
			return nil
		}
		chars = got
	}
	return errors.New("bounded: internal error: response size did not converge")
}

// fits reports whether s is within both limits.
func (f *fitter) fits(s *shape) bool {
	return s.chars <= f.charCap && s.chars <= f.limitChars && s.tokens <= f.limitTokens
}

// sizeOf measures the response keeping the first k items of buf.
func (f *fitter) sizeOf(k int, reason string) (*shape, error) {
	t, err := f.tailFor(k)
	if err != nil {
		return nil, err
	}
	var s *shape
	if f.shapes == 0 {
		s = &f.shape0
	} else {
		s = new(shape)
	}
	f.shapes++
	*s = shape{k: k, itemRunes: f.itemRunes(k), t: t}
	s.tr.Reason = reason
	// With a Tokenizer the count is not known before assembly: the limit's
	// digits bound it.
	return s, f.measure(s, f.limitTokens)
}

// search returns the largest k whose response fits the character ceiling
// (and the token estimate without a Tokenizer), with its shape; -1 when not
// even the envelope without items does.
func (f *fitter) search() (int, *shape, error) {
	if f.m == f.n {
		s, err := f.sizeOf(f.n, "")
		switch {
		case err != nil:
			return 0, nil, err
		case s.chars <= f.charCap:
			return f.n, s, nil
		case f.n == 0:
			return -1, s, nil
		}
	}
	// The whole page does not fit, or encoding stopped at m items whose
	// characters alone are over the ceiling: fewer than m fit.
	//
	// Cuts of the same page differ only in a few numbers (the kept count,
	// the next offset, the range in the hint, ...), so their envelopes differ
	// by less than slack characters and the exact size of one cut bounds the
	// others; with CursorAt, also in the cursor of the cut, which the slack
	// of each measured cut allows for whole (cursorSlack). slack only
	// decides how far down the search looks; every answer is measured
	// exactly.
	const slack = 96
	s, err := f.sizeOf(f.m-1, f.capReason)
	if err != nil {
		return 0, nil, err
	}
	head := s.chars - f.itemRunes(f.m-1) // the envelope without items
	k := f.largestK(f.m-1, f.charCap-head+slack+f.cursorSlack(s.t))
	for k >= 0 {
		if s, err = f.sizeOf(k, f.capReason); err != nil {
			return 0, nil, err
		}
		if s.chars <= f.charCap {
			return k, s, nil
		}
		// A shorter prefix can fit only if its items are at least
		// excess-slack characters shorter.
		excess := s.chars - f.charCap
		k = min(k-1, f.largestK(k-1, f.itemRunes(k)-excess+slack+f.cursorSlack(s.t)))
	}
	return -1, s, nil
}

// optionalCursors reports whether the page's pagination carries a cursor
// its next call does not use: a prevCursor, or a nextCursor of a call
// that continues by offset.
func (f *fitter) optionalCursors() bool {
	byCursor := f.call.Paging == ByCursor || f.info.AfterCursor
	return f.info.PrevCursor != "" || !byCursor && (f.info.NextCursor != "" || f.cursorAt != nil)
}

// cursorSlack bounds the characters that the cursor of a cut, re-issued
// by CursorAt, adds to t's envelope over a cut without one: the cursor in
// the pagination, and in the hint and the next call where an offset would
// be (a cursor of fewer characters than that offset is allowed for too).
// Cuts at other positions carry the keys of other items, so cursors of
// other lengths: the search allows for the whole of this one. It is 0 when
// the page has no CursorAt.
func (f *fitter) cursorSlack(t *tail) int {
	c := t.info.NextCursor
	if f.cursorAt == nil || c == "" {
		return 0
	}
	enc := len(c) // each byte is a character, but for escapes
	for i := 0; i < len(c); i++ {
		if b := c[i]; b < 0x20 || b == '"' || b == '\\' || b >= utf8.RuneSelf {
			enc = 7 * len(c) // \u0000 in the hint's JSON string
			break
		}
	}
	name := len(orDefault(f.call.CursorArg, "cursor"))
	return len(`,"nextCursor":""`) + 3*enc + 2*(name+len(`=\"\"`)) + 48
}

// cursorSlackTokens is cursorSlack in thousandths of a token, for the
// Estimator: the cursor's estimate in each of its three places, with a few
// tokens for its quotes, argument name and neighbours.
func (f *fitter) cursorSlackTokens(t *tail) int64 {
	c := t.info.NextCursor
	if f.cursorAt == nil || c == "" {
		return 0
	}
	var e estimate
	e.addString(c)
	return 3*e.total() + int64(16+Estimator{}.CountTokens(f.call.CursorArg))*milli
}

// largestK returns the largest k in [0, hi] whose items take at most runes
// characters, or -1 when there is none.
func (f *fitter) largestK(hi, runes int) int {
	if hi < 0 || runes < 0 {
		return -1
	}
	// itemRunes is strictly increasing in k, and 0 for k = 0.
	lo, up := 0, hi
	for lo < up {
		mid := (lo + up + 1) / 2
		if f.itemRunes(mid) <= runes {
			lo = mid
		} else {
			up = mid - 1
		}
	}
	return lo
}

// fit finds the cut, assembles the response and logs it.
func (f *fitter) fit() (Fitted, error) {
	k, s, err := f.search()
	if err != nil {
		return Fitted{}, err
	}
	var out []byte
	switch {
	case f.n == 0:
		if k == 0 {
			out, err = f.assemble(s)
		}
		if err == nil && (k < 0 || !f.fits(s)) {
			return Fitted{}, f.tooSmall(s, "the envelope alone")
		}
	case k > 0 && f.tok != nil:
		out, s, err = f.fitTokens(k)
	case k > 0 && f.est && !f.fits(s):
		out, s, err = f.fitEstimate(k, s)
	case k > 0:
		out, err = f.assemble(s)
	}
	if err == nil && out == nil && !f.lean && f.optionalCursors() {
		// Not one result fits: the cursors the next call does not use
		// give way before any result is clipped.
		f.lean, f.tails = true, f.tails[:0]
		return f.fit()
	}
	if err == nil && out == nil {
		out, s, err = f.clipFirst()
	}
	if err != nil {
		return Fitted{}, err
	}
	if !f.fits(s) {
		return Fitted{}, fmt.Errorf("bounded: internal error: response of %d characters, %d tokens is over the budget", s.chars, s.tokens)
	}
	// The response is copied out of the fitter's buffer, which the next
	// call reuses, as encoding/json copies out of its own.
	out = append([]byte(nil), out...)
	fd := Fitted{
		JSON:       out,
		Page:       s.t.info,
		Truncation: s.tr,
		Hint:       s.t.hint,
		Next:       s.t.next,
		Kept:       s.k,
	}
	f.log(&fd)
	return fd, nil
}

// fitTokens applies the Tokenizer to the first kc items, the prefix that
// fits the character ceiling: per-item counts choose the cut, then the
// assembled JSON is counted and items are dropped from the end until it
// fits. It returns nil bytes when no item fits.
func (f *fitter) fitTokens(kc int) ([]byte, *shape, error) {
	f.splitItems()
	f.cumTok = make([]int, kc+1)
	for i := range kc {
		start := len(resultsOpen)
		if i > 0 {
			start = f.ends[i-1] + 1
		}
		f.cumTok[i+1] = f.cumTok[i] + f.tok.CountTokens(string(f.buf[start:f.ends[i]]))
	}
	reason := func(k int) string {
		switch {
		case k < kc:
			return ReasonTokenLimit
		case k < f.n:
			return f.capReason
		}
		return ""
	}
	// Estimate: the items' counts plus the envelope's, counted once.
	s, err := f.sizeOf(kc, reason(kc))
	if err != nil {
		return nil, nil, err
	}
	headTokens := f.tok.CountTokens(string(f.appendTail([]byte(resultsOpen), s)))
	k := kc
	if f.cumTok[k]+headTokens > f.limitTokens {
		k = f.largestTokK(k-1, f.limitTokens-headTokens)
	}
	for k > 0 {
		if s, err = f.sizeOf(k, reason(k)); err != nil {
			return nil, nil, err
		}
		out, err := f.assemble(s)
		if err != nil {
			return nil, nil, err
		}
		if f.fits(s) {
			return out, s, nil
		}
		// Drop at least the excess, assuming the envelope keeps its count.
		k2 := k - 1
		if excess := s.tokens - f.limitTokens; excess > 0 {
			k2 = min(k2, f.largestTokK(k-1, f.cumTok[k]-excess))
		}
		if excess := s.chars - f.limitChars; excess > 0 {
			k2 = min(k2, f.largestK(k-1, f.itemRunes(k)-excess))
		}
		k = k2
	}
	return nil, nil, nil
}

// fitEstimate cuts the first kc items, the prefix that fits the character
// ceiling but whose estimated tokens are over the token limit, to the
// longest prefix that fits both. The estimate of a prefix grows with it, and
// the envelope around the items changes by a few tokens only: the estimates
// of the items choose the cut, and each candidate is measured exactly. It
// returns nil bytes when no item fits.
func (f *fitter) fitEstimate(kc int, s *shape) ([]byte, *shape, error) {
	reason := ReasonCharacterLimit // the token limit derived from the characters
	if f.b.MaxTokens > 0 {
		reason = ReasonTokenLimit
	}
	limit := int64(f.limitTokens) * milli
	_, tail := f.estimateTokens(s)
	// With CursorAt, each cut carries its own cursor: a shorter one may
	// leave room for more items.
	tail -= f.cursorSlackTokens(s.t)
	k := kc - 1
	var fit *shape
	for k > 0 {
		// The largest prefix whose items leave room for the tail.
		lo, hi := 0, k
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if f.snap(mid).milli+tail <= limit {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		if lo == 0 {
			break
		}
		k = lo
		c, err := f.sizeOf(k, reason)
		if err != nil {
			return nil, nil, err
		}
		if f.fits(c) {
			fit = c
			break
		}
		// The tail took more than expected: expect that much more.
		_, t := f.estimateTokens(c)
		tail = max(tail, t-f.cursorSlackTokens(c.t))
		k--
	}
	if fit == nil {
		return nil, nil, nil
	}
	// A shorter tail may leave room for more items.
	for k := fit.k + 1; k < kc; k++ {
		c, err := f.sizeOf(k, reason)
		if err != nil {
			return nil, nil, err
		}
		if !f.fits(c) {
			break
		}
		fit = c
	}
	out, err := f.assemble(fit)
	return out, fit, err
}

// largestTokK returns the largest k in [0, hi] whose items count at most
// tokens tokens, or 0.
func (f *fitter) largestTokK(hi, tokens int) int {
	k := hi
	for k > 0 && f.cumTok[k] > tokens {
		k--
	}
	return max(k, 0)
}

// assemble writes the response s describes and recounts its characters as
// a check. With a Tokenizer it counts the tokens too and writes the count.
func (f *fitter) assemble(s *shape) ([]byte, error) {
	var out []byte
	switch {
	case s.clipped != nil:
		out = append(f.buf[:len(resultsOpen)], s.clipped...)
	case s.k == 0:
		out = f.buf[:len(resultsOpen)]
	default:
		out = f.buf[:f.end(s.k-1)]
	}
	head := len(out)
	if f.tok == nil {
		out = f.appendTail(out, s)
	} else {
		// The count is written inside what it counts: repeat until it is
		// stable (only its digits matter), and check against the larger of
		// the written and the counted when it is not.
		written := s.tr.EstimatedTokens
		for i := 0; ; i++ {
			if err := f.measure(s, written); err != nil {
				return nil, err
			}
			out = f.appendTail(out[:head], s)
			got := f.tok.CountTokens(string(out))
			if got == written || (i >= 2 && got < written) || i == 6 {
				s.tokens = max(got, written)
				break
			}
			written = got
		}
	}
	// Check the measure: the items' characters were counted on these very
	// bytes, as they were encoded; the envelope around them is recounted.
	if n := len(resultsOpen) + s.itemRunes + runeCount(out[head:]); n != s.chars {
		return nil, fmt.Errorf("bounded: internal error: response has %d characters, measured %d", n, s.chars)
	}
	return out, nil
}

// appendTail appends everything after the last result.
func (f *fitter) appendTail(b []byte, s *shape) []byte {
	b = append(b, keyPagination...)
	b = append(b, s.t.pagination...)
	b = append(b, keyTruncated...)
	b = strconv.AppendBool(b, s.tr.Reason != "")
	b = append(b, keyTruncation...)
	b = appendTruncation(b, &s.tr, s.pathsJSON)
	if s.t.hintJSON != nil {
		b = append(b, keyHint...)
		b = append(b, s.t.hintJSON...)
	}
	if s.t.nextJSON != nil {
		b = append(b, keyNext...)
		b = append(b, s.t.nextJSON...)
	}
	if f.window != nil {
		b = append(b, keyWindow...)
		b = append(b, f.window...)
	}
	return append(b, '}')
}

func (f *fitter) tooSmall(s *shape, what string) error {
	return fmt.Errorf("%w: %s needs %d characters (%d tokens), over the limit of %d characters (%d tokens)",
		ErrInvalidBudget, what, s.chars, s.tokens, f.limitChars, f.limitTokens)
}

// log writes the warning of a cut response, or of one near its limits.
func (f *fitter) log(fd *Fitted) {
	if f.b.Logger == nil {
		return
	}
	tr := &fd.Truncation
	msg := "bounded: response cut to fit budget"
	if tr.Reason == "" {
		near := float64(tr.EstimatedChars) >= f.b.WarnAt*float64(tr.LimitChars) ||
			float64(tr.EstimatedTokens) >= f.b.WarnAt*float64(tr.LimitTokens)
		if !near {
			return
		}
		msg = "bounded: response near budget"
	}
	ctx := context.Background()
	if !f.b.Logger.Enabled(ctx, slog.LevelWarn) {
		return
	}
	f.b.Logger.LogAttrs(ctx, slog.LevelWarn, msg,
		slog.String("tool", f.call.Tool),
		slog.Int("kept", tr.ReturnedCount),
		slog.Int("original", tr.OriginalCount),
		slog.Int("chars", tr.EstimatedChars),
		slog.Int("limitChars", tr.LimitChars),
		slog.Int("tokens", tr.EstimatedTokens),
		slog.Int("limitTokens", tr.LimitTokens),
		slog.String("reason", tr.Reason),
	)
}

// appendTruncation appends tr as encoding/json would encode it, with the
// ClippedFields given already encoded.
func appendTruncation(b []byte, tr *Truncation, paths [][]byte) []byte {
	b = append(b, '{')
	if tr.Reason != "" {
		b = append(b, `"reason":`...)
		b = appendJSONString(b, tr.Reason)
		b = append(b, ',')
	}
	b = append(b, `"originalCount":`...)
	b = strconv.AppendInt(b, int64(tr.OriginalCount), 10)
	b = append(b, `,"returnedCount":`...)
	b = strconv.AppendInt(b, int64(tr.ReturnedCount), 10)
	b = append(b, `,"estimatedChars":`...)
	b = strconv.AppendInt(b, int64(tr.EstimatedChars), 10)
	b = append(b, `,"limitChars":`...)
	b = strconv.AppendInt(b, int64(tr.LimitChars), 10)
	b = append(b, `,"estimatedTokens":`...)
	b = strconv.AppendInt(b, int64(tr.EstimatedTokens), 10)
	b = append(b, `,"limitTokens":`...)
	b = strconv.AppendInt(b, int64(tr.LimitTokens), 10)
	if len(tr.ClippedFields) > 0 {
		b = append(b, `,"clippedFields":[`...)
		for i, p := range paths {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, p...)
		}
		b = append(b, ']')
	}
	if tr.NeededChars != 0 {
		b = append(b, `,"neededChars":`...)
		b = strconv.AppendInt(b, int64(tr.NeededChars), 10)
	}
	if tr.NeededTokens != 0 {
		b = append(b, `,"neededTokens":`...)
		b = strconv.AppendInt(b, int64(tr.NeededTokens), 10)
	}
	return append(b, '}')
}

// truncationLen is the length of appendTruncation(nil, tr, paths) but for
// the contents of ClippedFields (its brackets counted): tr's fixed keys and
// its numbers' digits.
func truncationLen(tr *Truncation) int {
	n := len(`{"originalCount":,"returnedCount":,"estimatedChars":,"limitChars":,"estimatedTokens":,"limitTokens":}`) +
		digits(tr.OriginalCount) + digits(tr.ReturnedCount) + digits(tr.EstimatedChars) +
		digits(tr.LimitChars) + digits(tr.EstimatedTokens) + digits(tr.LimitTokens)
	if tr.Reason != "" {
		n += len(`"reason":`) + jsonStringLen(tr.Reason) + len(",")
	}
	if len(tr.ClippedFields) > 0 {
		n += len(`,"clippedFields":[]`)
	}
	if tr.NeededChars != 0 {
		n += len(`,"neededChars":`) + digits(tr.NeededChars)
	}
	if tr.NeededTokens != 0 {
		n += len(`,"neededTokens":`) + digits(tr.NeededTokens)
	}
	return n
}

// digits is the length of strconv.Itoa(n).
func digits(n int) int {
	d := 1
	if n < 0 {
		d++
		if n == math.MinInt {
			return len(strconv.Itoa(n))
		}
		n = -n
	}
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

// jsonStringLen is the length of appendJSONString(nil, s), quotes
// included.
func jsonStringLen(s string) int {
	var scratch [64]byte
	return len(appendJSONString(scratch[:0], s))
}

// appendArgs appends a as [Args.MarshalJSON] encodes it (a test checks that
// it does), without reflection for the values Call.Next writes.
func appendArgs(b []byte, a Args) ([]byte, error) {
	b = append(b, '{')
	for i, arg := range a {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendJSONString(b, arg.Name), ':')
		var err error
		if b, err = appendArgValue(b, arg.Value); err != nil {
			return nil, fmt.Errorf("bounded: argument %s: %w", arg.Name, err)
		}
	}
	return append(b, '}'), nil
}

// appendPageInfo appends pi as encoding/json would encode it (a test checks
// that it does), failing as it does on an unknown TotalKind.
func appendPageInfo(b []byte, pi *PageInfo) ([]byte, error) {
	if int(pi.TotalKind) >= len(totalKindNames) {
		_, err := pi.TotalKind.MarshalText()
		return nil, fmt.Errorf("bounded: encoding pagination: %w", err)
	}
	b = append(b, `{"total":`...)
	b = strconv.AppendInt(b, int64(pi.Total), 10)
	b = append(b, `,"totalKind":`...)
	b = appendJSONString(b, totalKindNames[pi.TotalKind])
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, int64(pi.Limit), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(pi.Offset), 10)
	b = append(b, `,"returned":`...)
	b = strconv.AppendInt(b, int64(pi.Returned), 10)
	b = append(b, `,"hasMore":`...)
	b = strconv.AppendBool(b, pi.HasMore)
	if pi.NextOffset != 0 {
		b = append(b, `,"nextOffset":`...)
		b = strconv.AppendInt(b, int64(pi.NextOffset), 10)
	}
	if pi.NextCursor != "" {
		b = append(b, `,"nextCursor":`...)
		b = appendJSONString(b, pi.NextCursor)
	}
	if pi.PrevCursor != "" {
		b = append(b, `,"prevCursor":`...)
		b = appendJSONString(b, pi.PrevCursor)
	}
	if pi.Clamped {
		b = append(b, `,"clamped":true`...)
	}
	if pi.RequestedLimit != 0 {
		b = append(b, `,"requestedLimit":`...)
		b = strconv.AppendInt(b, int64(pi.RequestedLimit), 10)
	}
	if pi.AfterCursor {
		b = append(b, `,"afterCursor":true`...)
	}
	return append(b, '}'), nil
}

// appendJSONString appends s as a JSON string exactly as encoding/json does
// with HTML escaping off: \" \\ \b \f \n \r \t, other controls as \u00XX,
// invalid UTF-8 as \ufffd, and U+2028, U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// 32 bytes at a time while none needs a look, then 8.
		for ; len(s)-i >= 32; i += 32 {
			c := s[i : i+32]
			w0, w1, w2, w3 := load64(c, 0), load64(c, 8), load64(c, 16), load64(c, 24)
			if plainMask(w0)|plainMask(w1)|plainMask(w2)|plainMask(w3) != 0 {
				break
			}
		}
		if i == len(s) {
			break
		}
		if len(s)-i >= 8 {
			// 8 bytes at a time while none needs a look.
			if plainMask(load64(s, i)) == 0 {
				i += 8
				continue
			}
		} else if len(s) >= 8 && plainMask(load64(s, len(s)-8)) == 0 {
			// The last few bytes, read as the end of the last 8: plain.
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plainMask is 0 when each of the 8 bytes of w is written in a JSON string
// as it is: printable ASCII other than a quote or a backslash. Otherwise it
// has a high bit set (for one of the bytes that are not, or after one).
func plainMask(w uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		high  = 0x8080808080808080
		quote = 0x2222222222222222
		bslsh = 0x5c5c5c5c5c5c5c5c
		space = 0x2020202020202020
	)
	q, bs := w^quote, w^bslsh
	return ((q-ones)&^q | (bs-ones)&^bs | (w - space) | w) & high
}

// runeCount is utf8.RuneCount with a fast path for ASCII, which JSON mostly
// is: 32 bytes at a time while their high bits are clear. Like
// utf8.RuneCount, it counts each invalid byte as one rune.
func runeCount(b []byte) int {
	const high = 0x8080808080808080
	// The bytes, less those past the first of each multi-byte rune.
	n := len(b)
	for i := 0; i < len(b); {
		for ; len(b)-i >= 32; i += 32 {
			c := b[i : i+32 : i+32]
			w := binary.LittleEndian.Uint64(c) | binary.LittleEndian.Uint64(c[8:]) |
				binary.LittleEndian.Uint64(c[16:]) | binary.LittleEndian.Uint64(c[24:])
			if w&high != 0 {
				break
			}
		}
		// The next 32 bytes, which hold a non-ASCII one, or the last few.
		for end := min(i+32, len(b)); i < end; {
			if b[i] < utf8.RuneSelf {
				i++
				continue
			}
			_, size := utf8.DecodeRune(b[i:])
			n -= size - 1
			i += size
		}
	}
	return n
}

// clipFirst returns the response holding only the first item, its longest
// strings clipped until the envelope fits.
func (f *fitter) clipFirst() ([]byte, *shape, error) {
	root, err := parseJSONTree(f.buf[len(resultsOpen):f.end(0)])
	if err != nil {
		return nil, nil, fmt.Errorf("bounded: internal error: decoding result 0 to clip it: %w", err)
	}
	var leaves []*jsonNode
	root.collect("", &leaves)
	leaves = slices.DeleteFunc(leaves, func(l *jsonNode) bool { return slices.Contains(f.unclipped, l.path) })
	t, err := f.tailFor(1)
	if err != nil {
		return nil, nil, err
	}
	for {
		s := &shape{k: 1, t: t, clipped: root.appendTo(nil)}
		s.itemRunes = runeCount(s.clipped)
		s.tr.Reason = ReasonSingleResultTooLarge
		for _, l := range leaves {
			if l.clipped {
				if len(s.pathsJSON) > 0 {
					s.pathsRunes++
				}
				p := appendJSONString(nil, l.path)
				s.tr.ClippedFields = append(s.tr.ClippedFields, l.path)
				s.pathsJSON = append(s.pathsJSON, p)
				s.pathsRunes += runeCount(p)
			}
		}
		if err := f.measure(s, f.limitTokens); err != nil {
			return nil, nil, err
		}
		if f.tok != nil && s.chars <= f.limitChars {
			out, err := f.assemble(s)
			if err != nil || f.fits(s) {
				return out, s, err
			}
		} else if f.fits(s) {
			out, err := f.assemble(s)
			return out, s, err
		}
		excess := s.chars - f.charCap
		switch {
		case f.tok != nil:
			excess = max(s.chars-f.limitChars, ceilInt(float64(s.tokens-f.limitTokens)*f.b.CharsPerToken), 1)
		case f.est:
			// Characters in proportion to the tokens over the limit.
			perToken := float64(s.chars) / float64(max(s.tokens, 1))
			excess = max(s.chars-f.limitChars, ceilInt(float64(s.tokens-f.limitTokens)*perToken), 1)
		}
		if !waterfill(leaves, excess) {
			return f.noneFits(s)
		}
	}
}

// noneFits returns the response without results when not even min, the
// first result clipped to its minimum, fits: ReasonBudgetTooSmall, with
// what min needs, and the page going on at the first result. It returns
// the error of a budget too small for that response too.
func (f *fitter) noneFits(min *shape) ([]byte, *shape, error) {
	t0, err := f.tailFor(0)
	if err != nil {
		return nil, nil, err
	}
	t := *t0
	s := &shape{k: 0, t: &t}
	s.tr.Reason = ReasonBudgetTooSmall
	// Slack for the report's numbers, whose digits grow with the limits.
	const slack, slackTokens = 16, 8
	s.tr.NeededChars, s.tr.NeededTokens = min.chars+slack, min.tokens+slackTokens
	if f.b.MaxTokens == 0 {
		// The token limit comes from the characters: enough of them for
		// the tokens too.
		s.tr.NeededChars = max(s.tr.NeededChars, ceilInt(float64(s.tr.NeededTokens)*f.b.CharsPerToken))
	}
	if f.style != HintOff {
		h := fmt.Sprintf("The next result needs a budget of %s characters (%s tokens); this one is %s (%s): call again with a larger budget.",
			FormatCount(s.tr.NeededChars), FormatCount(s.tr.NeededTokens), FormatCount(f.limitChars), FormatCount(f.limitTokens))
		t.hint, t.hintJSON = h, appendJSONString(nil, h)
		t.runes = runeCount(t.pagination) + runeCount(t.hintJSON) + runeCount(t.nextJSON)
	}
	if err := f.measure(s, f.limitTokens); err != nil {
		return nil, nil, err
	}
	if s.chars > f.limitChars || f.tok == nil && !f.fits(s) {
		return nil, nil, f.tooSmall(min, "the envelope with result 0 clipped to its minimum")
	}
	out, err := f.assemble(s)
	if err == nil && !f.fits(s) {
		err = f.tooSmall(min, "the envelope with result 0 clipped to its minimum")
	}
	return out, s, err
}

// waterfill clips the longest strings of leaves down to one common length,
// chosen so that they lose about excess encoded characters in all. It
// reports false when every string is already at its minimum, the one-rune
// marker.
func waterfill(leaves []*jsonNode, excess int) bool {
	var lens []int
	encRunes, runes := 0, 0
	for _, l := range leaves {
		if l.cur > 1 {
			lens = append(lens, l.cur)
			encRunes += l.encRunes
			runes += l.cur
		}
	}
	if len(lens) == 0 {
		return false
	}
	// Escapes make a string's encoding longer than its runes: remove
	// runes in proportion. Every pass removes at least one rune, so the
	// caller's loop ends.
	need := max(1, ceilInt(float64(excess)*float64(runes)/float64(max(encRunes, 1))))
	slices.SortFunc(lens, func(a, b int) int { return b - a })
	// Find the level x >= 1 such that cutting every string longer than x
	// down to x removes at least need runes.
	level, sum := 1, 0
	for j, l := range lens {
		sum += l
		next := 1
		if j+1 < len(lens) {
			next = lens[j+1]
		}
		if x := (sum - need) / (j + 1); sum-need >= 0 && x >= next {
			level = max(x, 1)
			break
		}
	}
	for _, l := range leaves {
		if l.cur > level {
			l.str, _ = Clip(l.orig, level)
			l.clipped = true
			l.setString(l.str)
		}
	}
	return true
}

// jsonNode is a decoded JSON value that keeps object keys in order, so that
// a clipped result is re-encoded as it was.
type jsonNode struct {
	kind byte   // '{', '[', '"', or 0 for a number, true, false or null
	lit  string // the literal, for kind 0
	// Objects and arrays.
	names []string // an object's keys, for paths
	keys  [][]byte // an object's keys, encoded
	kids  []*jsonNode
	// Strings.
	orig     string // the string as the item encoded it
	str      string // the string as it is now
	enc      []byte // str, encoded
	cur      int    // runes of str
	encRunes int    // runes of enc without its quotes
	clipped  bool
	path     string // for ClippedFields
}

func (n *jsonNode) setString(s string) {
	n.str = s
	n.enc = appendJSONString(n.enc[:0], s)
	n.cur = utf8.RuneCountInString(s)
	n.encRunes = runeCount(n.enc) - 2
}

// parseJSONTree decodes one JSON value, numbers kept as written.
func parseJSONTree(b []byte) (*jsonNode, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return parseJSONNode(dec)
}

func parseJSONNode(dec *json.Decoder) (*jsonNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		n := &jsonNode{kind: byte(v)}
		for dec.More() {
			if v == '{' {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				n.names = append(n.names, key)
				n.keys = append(n.keys, appendJSONString(nil, key))
			}
			kid, err := parseJSONNode(dec)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, kid)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return n, nil
	case string:
		n := &jsonNode{kind: '"', orig: v}
		n.setString(v)
		return n, nil
	case json.Number:
		return &jsonNode{lit: v.String()}, nil
	case bool:
		return &jsonNode{lit: strconv.FormatBool(v)}, nil
	default:
		return &jsonNode{lit: "null"}, nil
	}
}

// collect appends the string leaves under n to leaves, in document order,
// setting their paths.
func (n *jsonNode) collect(path string, leaves *[]*jsonNode) {
	switch n.kind {
	case '"':
		n.path = cmp.Or(path, "$")
		*leaves = append(*leaves, n)
	case '{':
		for i, kid := range n.kids {
			name := n.names[i]
			switch {
			case !isIdent(name):
				kid.collect(path+"["+string(n.keys[i])+"]", leaves)
			case path == "":
				kid.collect(name, leaves)
			default:
				kid.collect(path+"."+name, leaves)
			}
		}
	case '[':
		for i, kid := range n.kids {
			kid.collect(path+"["+strconv.Itoa(i)+"]", leaves)
		}
	}
}

// isIdent reports whether a key can be written bare in a path:
// [A-Za-z_][A-Za-z0-9_]*.
func isIdent(s string) bool {
	for i, c := range []byte(s) {
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}

// appendTo appends n's compact encoding.
func (n *jsonNode) appendTo(b []byte) []byte {
	switch n.kind {
	case '"':
		return append(b, n.enc...)
	case '{', '[':
		b = append(b, n.kind)
		for i, kid := range n.kids {
			if i > 0 {
				b = append(b, ',')
			}
			if n.kind == '{' {
				b = append(append(b, n.keys[i]...), ':')
			}
			b = kid.appendTo(b)
		}
		return append(b, n.kind+2) // '}' and ']' follow '{' and '[' by 2
	}
	return append(b, n.lit...)
}
