package bounded

import (
	"context"
	"fmt"
	"math"
	"reflect"
)

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
	// Next is the argument list of the call that continues after this
	// response, nil on the last page: the whole list, but for the
	// caller's arguments in NextKeeps, too long to repeat, which the call
	// passes again as they were.
	Next      Args
	NextKeeps []string
	// Kept is the number of items in JSON: the first Kept items of the
	// page (the first one possibly clipped).
	Kept int
}

// Fit encodes a page as an [Envelope] of at most b.LimitChars() characters
// and b.LimitTokens() tokens, keeping the longest prefix of items that
// fits, each sized exactly as encoding/json writes it (HTML escaping off).
// The next call starts at the first item cut ([Fitted.Page]): none is
// skipped.
//
// A first item too large alone is clipped ([Clip]); when even that does not
// fit, none is kept and the [Truncation] names the budget needed. With
// b.Logger, cuts are logged at level Warn.
//
// Fit does not modify in. Its errors wrap [ErrInvalidBudget],
// [ErrUnordered], [ErrInvalidPage] or [ErrTokenizer], or are an item's
// encoding error or in.Page.CursorAt's.
func Fit[T any](b Budget, in FitInput[T]) (Fitted, error) {
	return FitContext(context.Background(), b, in)
}

// FitContext is [Fit] with the context that b's Tokenizer counts with, and
// that Fit logs with.
func FitContext[T any](ctx context.Context, b Budget, in FitInput[T]) (Fitted, error) {
	f, err := prepareFit(b, in)
	if err != nil {
		return Fitted{}, err
	}
	f.ctx = ctx
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
		if i > 0 {
			// Room for the items to come, as for encoding/json's.
			if avg := (len(w.b) - len(resultsOpen)) / i; cap(w.b)-len(w.b) < 2*avg {
				w.grow(0, avg, f.n-i)
			}
		}
		// Through a pointer, which needs no allocation to box: the item
		// is addressable, as json.Marshal([]T) sees it.
		b, ok := fe(w.b, reflect.ValueOf(&items[i]).Elem())
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
