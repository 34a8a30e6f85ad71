package bounded

import (
	"context"
	"fmt"
	"math"
	"reflect"

	"github.com/boundedkit/bounded/internal/jsonenc"
)

// Truncation reports how a response was fitted to its budget, also when
// nothing was cut.
type Truncation struct {
	// Reason is a Reason constant, or "" when nothing was cut.
	Reason string `json:"reason,omitempty"`
	// OriginalCount is the number of results the page had; ReturnedCount
	// the number in the response (a clipped result counts as returned).
	OriginalCount int `json:"originalCount"`
	ReturnedCount int `json:"returnedCount"`
	// EstimatedChars is the exact character count of the response, this
	// object included; LimitChars is the budget's.
	EstimatedChars int `json:"estimatedChars"`
	LimitChars     int `json:"limitChars"`
	// EstimatedTokens is the response's token count as the [Budget]
	// counts, this object included; LimitTokens is the budget's.
	EstimatedTokens int `json:"estimatedTokens"`
	LimitTokens     int `json:"limitTokens"`
	// ClippedFields lists, for ReasonSingleResultTooLarge, the paths of
	// the clipped strings in document order: keys joined by "."
	// ("meta.author"), elements as "observations[2]", other keys quoted
	// (`meta["a.b"]`), "$" for a string result.
	ClippedFields []string `json:"clippedFields,omitempty"`
	// NeededChars and NeededTokens, for ReasonBudgetTooSmall, are the
	// limits that would return the first result, clipped. With MaxTokens
	// 0, NeededChars covers NeededTokens.
	NeededChars  int `json:"neededChars,omitempty"`
	NeededTokens int `json:"neededTokens,omitempty"`
}

// FitInput is what [Fit] fits into a budget.
type FitInput[T any] struct {
	// Page is the page to fit, in the method's order; Page.Returned must
	// equal len(Items).
	Page Paged[T]
	// Call is the tool call that produced the page, for the hint and next.
	Call Call
	// Hints sets how much the hint says; HintOff leaves it out.
	Hints HintStyle
	// Relevance, when set, scores an item; items must be in non-increasing
	// order of it, else Fit returns [ErrUnordered].
	Relevance func(T) float64
	// Window, when set, is written as the envelope's contentMetadata.
	Window *WindowInfo
	// Unclipped names strings never clipped, as ClippedFields does; a
	// result that would need one clipped is [ReasonBudgetTooSmall].
	Unclipped []string
	// Clipped names strings of the first result the caller clipped, as
	// ClippedFields does: a response keeping that result lists them in
	// ClippedFields and is truncated; Reason is that of Fit's own cut.
	Clipped []string
	// WindowNext is the call that reads on in Window's document. When the
	// page has no next page and the first result is kept, it is the
	// response's next call, and the hint names it.
	WindowNext Args
	// Notes are sentences the hint ends with, whatever Hints says: an
	// argument clamped to its maximum, for one.
	Notes []string
}

// Fitted is a response fitted into a budget.
type Fitted struct {
	// JSON is the encoded [Envelope], within the budget's limits.
	JSON []byte
	// Page is the input's page info after [PageInfo.Cut], NextCursor set
	// from CursorAt(Kept) when there is one.
	Page PageInfo
	// Truncation is the report written in JSON.
	Truncation Truncation
	// Hint is the hint written in JSON ("" with HintOff).
	Hint string
	// Next is the arguments of the next call, nil on the last page, less
	// the caller's arguments in NextKeeps, too long to repeat
	// ([MaxNextValue]), which it passes again as they were.
	Next      Args
	NextKeeps []string
	// Kept is the number of items in JSON, the page's first.
	Kept int
}

// noticeKey is the context key of [WithNotice]'s notice.
type noticeKey struct{}

// WithNotice returns a context under which [FitContext] and [Respond]
// begin every hint with notice, a sentence every answer must carry (e.g.
// "Import in progress: results may be incomplete."), counted within the
// budget like the rest of the response. An empty notice adds nothing.
func WithNotice(ctx context.Context, notice string) context.Context {
	return context.WithValue(ctx, noticeKey{}, notice)
}

// Fit encodes a page as an [Envelope] within b's limits, keeping the
// longest prefix of items that fits; the next call starts at the first item
// cut. A first item too large alone is clipped, or else none is kept (see
// [Truncation.Reason]). Warnings go to b.Logger.
//
// Fit does not modify in. Its errors wrap [ErrInvalidBudget],
// [ErrUnordered], [ErrInvalidPage], [ErrTokenizer] or, for an item that
// does not encode, [ErrInvalidResult]; or are in.Page.CursorAt's.
func Fit[T any](b Budget, in FitInput[T]) (Fitted, error) {
	return FitContext(context.Background(), b, in)
}

// FitContext is [Fit] with a context for b's Tokenizer and Logger.
func FitContext[T any](ctx context.Context, b Budget, in FitInput[T]) (Fitted, error) {
	f, err := prepareFit(ctx, b, in)
	if err != nil {
		return Fitted{}, err
	}
	f.notice, _ = ctx.Value(noticeKey{}).(string)
	fd, err := f.fit()
	f.release()
	return fd, err
}

// prepareFit checks Fit's input and encodes its items (and with a
// Tokenizer counts them, under ctx).
func prepareFit[T any](ctx context.Context, b Budget, in FitInput[T]) (*fitter, error) {
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
	f.ctx = ctx
	f.cursorAt = in.Page.CursorAt
	f.unclipped, f.clippedIn, f.windowNext, f.notes = in.Unclipped, in.Clipped, in.WindowNext, in.Notes
	if err := f.setWindow(in.Window); err != nil {
		return nil, err
	}
	// Encode every item once, each followed by a comma, after the
	// envelope's opening: the kept prefix of the buffer is the final
	// JSON's head. Items go in batches, one Encode call each, from a first
	// item alone (whose size predicts the others') to batches of up to
	// three times as many items as before, but not much past what the
	// ceiling leaves room for: encoding stops after the batch that takes
	// the items over it. With a Tokenizer, items are counted as they are
	// encoded, and encoding stops one item past the first that takes them
	// over the token limit (batches sized by it too).
	//
	// A pointer to the batch, which encodes as the batch does (its items
	// addressable, as json.Marshal([]T) sees them), set for each batch
	// without boxing a slice header each time.
	var batch *[]T
	// encoding/json writes a slice of bytes as one base64 string: items of
	// a byte kind go one at a time.
	single := reflect.TypeFor[T]().Kind() == reflect.Uint8
	if fe := jsonenc.For(reflect.TypeFor[T]()); fe != nil {
		if err := encodeFast(f, items, fe); err != nil {
			return nil, err
		}
		single = false // every item is encoded, or a limit reached
	}
	for !single && f.more() {
		c := f.batchSize()
		if batch == nil {
			batch = new([]T)
		}
		*batch = items[f.M : f.M+c]
		if err := f.EncodeBatch(batch, c); err == nil {
			if err := f.countItems(); err != nil {
				return nil, err
			}
			continue
		}
		// Encode the batch's items one at a time, as far as they would
		// be encoded so, to name the item at fault.
		if err := encodeEach(f, items, f.M+c); err != nil {
			return nil, err
		}
	}
	if single {
		if err := encodeEach(f, items, f.N); err != nil {
			return nil, err
		}
	}
	f.Settle()
	if f.tokensDone() {
		// Encoding stopped at the token limit, one item past the first
		// over it, as encoding one item at a time would have.
		f.M = min(f.M, f.counted+1)
	}
	if f.Est && f.M < f.N && !f.Over(f.M) {
		// Encoding stopped at the token limit: any cut is its.
		f.capReason = ReasonTokenLimit
	}
	return f, nil
}

// encodeEach encodes items[f.M:end] one at a time, as long as the items
// encoded do not take more characters than the ceiling, nor more tokens
// than the limit (see fitter.more). Its error names the item at fault.
func encodeEach[T any](f *fitter, items []T, end int) error {
	for i := f.M; i < end && !f.Over(i) && !f.tokensDone(); i++ {
		// A pointer, as json.Marshal([]T) sees addressable elements: the
		// same methods are used, and the item is not copied.
		if err := f.EncodeOne(&items[i]); err != nil {
			return encodeError(i, reflect.ValueOf(&items[i]), err)
		}
		if err := f.countItems(); err != nil {
			return err
		}
	}
	return nil
}

// encodeFast encodes items with their compiled encoder, one at a time,
// straight into f's buffer, as long as the items encoded are within the
// ceiling and the token limit (see fitter.more). An item the encoder
// refuses (a NaN float) goes to encoding/json, whose error names it.
func encodeFast[T any](f *fitter, items []T, fe jsonenc.Func) error {
	f.StartFast()
	for f.more() {
		// Through a pointer, which needs no allocation to box: the item
		// is addressable, as json.Marshal([]T) sees it.
		i := f.M
		if f.EncodeFast(fe, reflect.ValueOf(&items[i]).Elem()) {
			if err := f.countItems(); err != nil {
				return err
			}
			continue
		}
		if err := encodeEach(f, items, i+1); err != nil {
			return err
		}
	}
	return nil
}
