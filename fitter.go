package bounded

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/boundedkit/bounded/internal/estimate"
	fitbuf "github.com/boundedkit/bounded/internal/fitter"
	"github.com/boundedkit/bounded/internal/jsonenc"
)

// resultsOpen opens every envelope; the item bytes follow it.
const resultsOpen = fitbuf.Open

// maxPooled is the largest buffer a pooled fitter keeps for the next call.
const maxPooled = fitbuf.MaxPooled

// fitter holds one Fit call's state. Everything but the item encoding is
// independent of the item type. Fitters are pooled: their slices and the
// Encoder are reused.
type fitter struct {
	// Items holds the encoded items and measures them: N items in the
	// page, M encoded (all, or up to the first that cannot fit), against
	// CharCap, the character ceiling of the search (limitChars, lowered to
	// the token limit's equivalent when tokens are estimated), and
	// LimitTokens. Est says that tokens are counted by the Estimator
	// (CharsPerToken 0 and no Tokenizer with MaxTokens).
	fitbuf.Items

	// scratch is a buffer for measuring values, kept across calls.
	scratch    []byte
	b          Budget // with defaults
	limitChars int
	capReason  string
	ctx        context.Context // FitContext's, for the Tokenizer and the Logger
	tok        Tokenizer       // set only with MaxTokens
	// tailBuf is where the tails are rendered to be estimated.
	tailBuf []byte

	info  PageInfo
	call  Call
	style HintStyle

	// cursorAt is the page's CursorAt: it issues the NextCursor of a cut.
	cursorAt func(int) (string, error)
	// unclipped, clippedIn and windowNext are FitInput's Unclipped,
	// Clipped and WindowNext.
	unclipped  []string
	clippedIn  []string
	windowNext Args
	notes      []string // FitInput.Notes
	notice     string   // WithNotice's, from FitContext's context

	window      []byte // encoded WindowInfo, nil when none
	windowRunes int
	windowInfo  *WindowInfo

	// cumTok[k] is the Tokenizer's count of the first k items, each
	// counted alone, for k <= counted: items are counted as they are
	// encoded, up to the first that takes them over the token limit or
	// over the ceiling.
	cumTok  []int
	counted int
	out     []byte // where assemble writes a response that may be rejected

	tails []*tail // memo of tailFor
	// lean leaves out of the pagination the cursors the next call does
	// not use: set when not one result fits with them.
	lean      bool
	tailsBuf  [4]*tail
	tailStore [4]tail      // the first tails
	tailMem   [4][3][]byte // and their buffers, kept across calls
	shape0    shape        // the first shape sizeOf measures
	shapes    int          // shapes sizeOf measured
}

var fitterPool = sync.Pool{New: func() any { return new(fitter) }}

// newFitter returns a fitter for the budget b, with its defaults and
// limits; estimated says whether b's tokens are counted by the Estimator
// (its CharsPerToken was 0).
func newFitter(b Budget, estimated bool, limitChars, limitTokens int, info PageInfo, call Call, style HintStyle, n int) *fitter {
	f := fitterPool.Get().(*fitter)
	// Field by field: the memory a pooled fitter keeps (buffers, the first
	// tails and shape) is overwritten before it is read, and copying it
	// whole would cost more than the call's own work on a small page.
	f.b, f.info, f.call, f.style = b, info, call, style
	f.ctx = context.Background()
	f.limitChars = limitChars
	f.capReason, f.tok = ReasonCharacterLimit, nil
	f.tailBuf = f.tailBuf[:0]
	f.window, f.windowRunes, f.windowInfo = nil, 0, nil
	f.counted = 0
	f.tails, f.shapes, f.lean = f.tailsBuf[:0], 0, false
	charCap, est := limitChars, false
	switch {
	case b.MaxTokens > 0 && b.Tokenizer != nil:
		f.tok = b.Tokenizer
	case estimated:
		est = true
	default:
		if c := b.charsForTokens(limitTokens); c < charCap {
			charCap, f.capReason = c, ReasonTokenLimit
		}
	}
	f.Reset(n, est, charCap, limitTokens)
	if f.tok != nil {
		if cap(f.cumTok) < n+1 {
			f.cumTok = make([]int, n+1)
		}
		f.cumTok = f.cumTok[:n+1]
		f.cumTok[0] = 0
	}
	return f
}

// more reports whether there are items to encode: [fitbuf.Items.More],
// and with a Tokenizer, not one past the first item that takes the items
// over the token limit. That one is encoded too, so that the search knows
// whether the response keeping the items up to it would fit the ceiling,
// as it would with all the items encoded: the cut's reason depends on it.
func (f *fitter) more() bool {
	return f.More() && !f.tokensDone()
}

// tokensDone reports whether, with a Tokenizer, the items counted are over
// the token limit and the item after them is encoded: no more are needed.
func (f *fitter) tokensDone() bool {
	return f.tok != nil && tokenStop && f.cumTok[f.counted] > f.LimitTokens && f.M > f.counted
}

// tokenStop says that encoding stops at the token limit with a Tokenizer;
// the tests turn it off to compare with encoding up to the ceiling.
var tokenStop = true

// batchSize is [fitbuf.Items.BatchSize], and with a Tokenizer no more
// than the token limit leaves room for at the mean count of the items
// counted, plus two: one to reach it, and the one after.
func (f *fitter) batchSize() int {
	c := f.BatchSize()
	if f.tok == nil || f.counted == 0 || !tokenStop {
		return c
	}
	t := f.cumTok[f.counted]
	room := max(0, f.LimitTokens-t) / max(1, t/f.counted)
	return max(1, min(c, room+2))
}

// countItems counts with the Tokenizer the items encoded since the last
// call, one by one, up to the first that takes them over the token limit,
// and not an item that takes them over the ceiling: no response holds it.
func (f *fitter) countItems() error {
	if f.tok == nil {
		return nil
	}
	for f.counted < f.M && f.cumTok[f.counted] <= f.LimitTokens && !f.Over(f.counted+1) {
		n, err := f.countTokens(f.Item(f.counted))
		if err != nil {
			return err
		}
		f.cumTok[f.counted+1] = f.cumTok[f.counted] + n
		f.counted++
	}
	return nil
}

// release returns f to the pool, with the memory of its buffers (up to
// maxPooled bytes each), dropping its references to the call's budget,
// tool call, page and hints; the caller must not use f after.
func (f *fitter) release() {
	f.Release()
	if cap(f.scratch) > maxPooled {
		f.scratch = nil
	}
	if cap(f.out) > maxPooled {
		f.out = nil
	}
	if cap(f.cumTok) > maxPooled/8 {
		f.cumTok = nil
	}
	f.b, f.call, f.info, f.tok, f.ctx, f.windowInfo = Budget{}, Call{}, PageInfo{}, nil, nil, nil
	f.cursorAt, f.unclipped, f.clippedIn, f.windowNext, f.notes, f.notice = nil, nil, nil, nil, nil, ""
	for _, t := range f.tails {
		t.hint, t.next = "", nil
	}
	f.shape0.tr.ClippedFields, f.shape0.clipped, f.shape0.pathsJSON = nil, nil, nil
	fitterPool.Put(f)
}

// estimateTokens is the Estimator's count of the response s describes,
// with the numbers of s.tr as they are, and the share of its envelope after
// the items, in thousandths of a token.
func (f *fitter) estimateTokens(s *shape) (tokens int, tail int64) {
	var e estimate.Estimate
	if s.clipped != nil {
		e = f.Snap(0)
		e.AddBytes(s.clipped)
	} else {
		e = f.Snap(s.k)
	}
	before := e.Settled()
	f.tailBuf = f.appendTail(f.tailBuf[:0], s)
	e.AddBytes(f.tailBuf)
	return e.Tokens(), e.Total() - before
}

func (f *fitter) setWindow(w *WindowInfo) error {
	f.windowInfo = w
	if w == nil {
		return nil
	}
	b, err := json.Marshal(w)
	if err != nil {
		return fmt.Errorf("bounded: encoding contentMetadata: %w", err)
	}
	f.window, f.windowRunes = b, jsonenc.RuneCount(b)
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
	hintJSON   []byte   // nil when hint is ""
	keeps      []string // the caller's arguments next leaves out
	nextJSON   []byte   // nil when there is no next call; nextKeeps after it
	runes      int      // runes of pagination, hintJSON and nextJSON
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
	switch {
	case k > 0 && k < f.info.Returned && f.cursorAt != nil:
		// The cut position's cursor, which Cut cannot issue.
		c, err := f.cursorAt(k)
		if err != nil {
			return nil, fmt.Errorf("bounded: cursor after result %d: %w", k-1, err)
		}
		t.info.NextCursor = c
	case k == 0 && f.info.Returned > 0 && f.cursorAt != nil:
		// Nothing kept: the cursor the page was read from, when CursorAt
		// has it, so that a page read by cursor goes on by cursor.
		if c, err := f.cursorAt(0); err == nil {
			t.info.NextCursor = c
		}
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
	raw := mem[1][:0]
	if f.notice != "" {
		raw = append(raw, f.notice...)
	}
	n0 := len(raw)
	raw = fitbuf.SpaceAt(f.call.appendHint(raw, t.info, f.style), n0)
	next, ok := f.call.Next(t.info)
	if !ok && k > 0 && f.windowNext != nil {
		// The page ends here, its first result's document does not.
		next, ok = f.windowNext, true
		if f.style != HintOff {
			raw = fitbuf.SpaceAt(append(raw[:n0], f.windowHint(next)...), n0)
		}
	}
	for _, n := range f.notes {
		if len(raw) > 0 {
			raw = append(raw, ' ')
		}
		raw = append(raw, n...)
	}
	if len(raw) > 0 {
		t.hint = string(raw)
		mem[1] = jsonenc.AppendString(raw, t.hint)
		t.hintJSON = mem[1][len(raw):]
	}
	if ok {
		next, keeps := f.keepLong(next)
		b, err := appendArgs(mem[2][:0], next)
		if err != nil {
			return nil, fmt.Errorf("bounded: encoding next arguments: %w", err)
		}
		if len(keeps) > 0 {
			// Written after next, as its own key: it is part of the call.
			b = append(b, keyNextKeeps...)
			b = appendStrings(b, keeps)
		}
		t.next, t.keeps, t.nextJSON, mem[2] = next, keeps, b, b
	}
	t.runes = jsonenc.RuneCount(t.pagination) + jsonenc.RuneCount(t.hintJSON) + jsonenc.RuneCount(t.nextJSON)
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
	keyNextKeeps  = `,"nextKeeps":`
	keyWindow     = `,"contentMetadata":`
)

// shape is one candidate response: k items (or one clipped item), its tail
// and its truncation report.
type shape struct {
	k          int
	itemRunes  int    // runes of the results' contents, commas included
	clipped    []byte // the clipped item, nil for the encoded items
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

// measure fills s.tr, s.chars and s.tokens for s's tail and items, solving
// for the numbers that describe the response's own size. tokens is the token
// count to write when a Tokenizer counts them; it is ignored otherwise.
func (f *fitter) measure(s *shape, tokens int) error {
	fixed := len(resultsOpen) + s.itemRunes + len(keyPagination) + s.t.runes +
		len(keyTruncated) + len(keyTruncation) + s.pathsRunes + 1 // closing brace
	if f.truncated(s) {
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
	s.tr.OriginalCount = f.N
	s.tr.ReturnedCount = s.k
	s.tr.LimitChars = f.limitChars
	s.tr.LimitTokens = f.LimitTokens
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
	var scratch [256]byte
	if f.Est && s.clipped == nil {
		e := f.Snap(s.k)
		estimated = e.Tokens()
	}
	for range 64 {
		s.tr.EstimatedChars = chars
		s.tr.EstimatedTokens = tokens
		switch {
		case f.Est:
			s.tr.EstimatedTokens = estimated
		case f.tok == nil:
			s.tr.EstimatedTokens = f.b.estimateTokens(chars)
		}
		// The report but for the contents of ClippedFields, counted in
		// fixed: all ASCII, Reason being one of the Reason constants.
		got := fixed + len(appendTruncation(scratch[:0], &s.tr, nil))
		if f.Est && got == chars {
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

// truncated reports whether s cuts or clips results: a Reason, or the
// caller's clips of a first result it keeps.
func (f *fitter) truncated(s *shape) bool {
	return s.tr.Reason != "" || s.k > 0 && len(f.clippedIn) > 0
}

// fits reports whether s is within both limits.
func (f *fitter) fits(s *shape) bool {
	return s.chars <= f.CharCap && s.chars <= f.limitChars && s.tokens <= f.LimitTokens
}

// sizeOf measures the response keeping the first k encoded items.
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
	*s = shape{k: k, itemRunes: f.ItemRunes(k), t: t}
	s.tr.Reason = reason
	if k > 0 {
		// The caller's clips of the first result.
		for _, p := range f.clippedIn {
			if len(s.pathsJSON) > 0 {
				s.pathsRunes++
			}
			j := jsonenc.AppendString(nil, p)
			s.tr.ClippedFields = append(s.tr.ClippedFields, p)
			s.pathsJSON = append(s.pathsJSON, j)
			s.pathsRunes += jsonenc.RuneCount(j)
		}
	}
	// With a Tokenizer the count is not known before assembly: the limit's
	// digits bound it.
	return s, f.measure(s, f.LimitTokens)
}

// search returns the largest k whose response fits the character ceiling
// (and the token estimate without a Tokenizer), with its shape; -1 when not
// even the envelope without items does.
func (f *fitter) search() (int, *shape, error) {
	if f.M == f.N {
		s, err := f.sizeOf(f.N, "")
		switch {
		case err != nil:
			return 0, nil, err
		case s.chars <= f.CharCap:
			return f.N, s, nil
		case f.N == 0:
			return -1, s, nil
		}
	}
	if f.M < f.N && f.tokensDone() {
		// Encoding stopped at the token limit, with the items after the
		// M encoded left out: the response keeping all M may fit the
		// ceiling, as a longer one would with all of them encoded.
		s, err := f.sizeOf(f.M, f.capReason)
		if err != nil || s.chars <= f.CharCap {
			return f.M, s, err
		}
	}
	// The whole page does not fit, or encoding stopped at M items whose
	// characters alone are over the ceiling: fewer than M fit.
	//
	// Cuts of the same page differ only in a few numbers (the kept count,
	// the next offset, the range in the hint, ...), so their envelopes differ
	// by less than slack characters and the exact size of one cut bounds the
	// others; with CursorAt, also in the cursor of the cut, which the slack
	// of each measured cut allows for whole (cursorSlack). slack only
	// decides how far down the search looks; every answer is measured
	// exactly.
	const slack = 96
	s, err := f.sizeOf(f.M-1, f.capReason)
	if err != nil {
		return 0, nil, err
	}
	head := s.chars - f.ItemRunes(f.M-1) // the envelope without items
	k := f.LargestK(f.M-1, f.CharCap-head+slack+f.cursorSlack(s.t))
	for k >= 0 {
		// s, the cut at M-1, is measured already.
		if k != s.k {
			if s, err = f.sizeOf(k, f.capReason); err != nil {
				return 0, nil, err
			}
		}
		if s.chars <= f.CharCap {
			return k, s, nil
		}
		// A shorter prefix can fit only if its items are at least
		// excess-slack characters shorter.
		excess := s.chars - f.CharCap
		k = min(k-1, f.LargestK(k-1, f.ItemRunes(k)-excess+slack+f.cursorSlack(s.t)))
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
	var e estimate.Estimate
	e.AddString(c)
	return 3*e.Total() + int64(16+Estimator{}.CountTokens(f.call.CursorArg))*estimate.Milli
}

// fit finds the cut, assembles the response and logs it.
func (f *fitter) fit() (Fitted, error) {
	k, s, err := f.search()
	if err != nil {
		return Fitted{}, err
	}
	var out []byte
	switch {
	case f.N == 0:
		if k == 0 {
			out, err = f.assemble(s)
		}
		if err == nil && (k < 0 || !f.fits(s)) {
			return Fitted{}, f.tooSmall(s, "the envelope alone")
		}
	case k > 0 && f.tok != nil:
		out, s, err = f.fitTokens(k)
	case k > 0 && f.Est && !f.fits(s):
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
		NextKeeps:  s.t.keeps,
		Kept:       s.k,
	}
	f.log(&fd)
	return fd, nil
}

// fitTokens cuts the first kc items, the prefix that fits the character
// ceiling, to the token limit: their counts, taken as they were encoded,
// choose the cut, then the assembled JSON is counted and items are dropped
// from the end until it fits. It returns nil bytes when no item fits.
func (f *fitter) fitTokens(kc int) ([]byte, *shape, error) {
	// Items were counted as they were encoded, up to the first that takes
	// them over the limit: no response holds it, nor the items after it.
	top := min(kc, f.counted)
	reason := func(k int) string {
		switch {
		case k < kc:
			return ReasonTokenLimit
		case k < f.N:
			return f.capReason
		}
		return ""
	}
	// Estimate: the items' counts plus the envelope's, counted once.
	s, err := f.sizeOf(top, reason(top))
	if err != nil {
		return nil, nil, err
	}
	headTokens, err := f.countTokens(f.appendTail([]byte(resultsOpen), s))
	if err != nil {
		return nil, nil, err
	}
	k := top
	if f.cumTok[k]+headTokens > f.LimitTokens {
		k = f.largestTokK(k-1, f.LimitTokens-headTokens)
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
		if excess := s.tokens - f.LimitTokens; excess > 0 {
			k2 = min(k2, f.largestTokK(k-1, f.cumTok[k]-excess))
		}
		if excess := s.chars - f.limitChars; excess > 0 {
			k2 = min(k2, f.LargestK(k-1, f.ItemRunes(k)-excess))
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
	reason := ReasonTokenLimit
	limit := int64(f.LimitTokens) * estimate.Milli
	_, tail := f.estimateTokens(s)
	// With CursorAt, each cut carries its own cursor: a shorter one may
	// leave room for more items.
	tail -= f.cursorSlackTokens(s.t)
	k := kc - 1
	var fit *shape
	for k > 0 {
		// The largest prefix whose items leave room for the tail.
		lo := f.LargestSettled(k, limit-tail)
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

// countTokens counts the tokens of b with the Tokenizer.
func (f *fitter) countTokens(b []byte) (int, error) {
	n, err := f.tok.Count(f.ctx, string(b))
	switch {
	case err != nil:
		return 0, fmt.Errorf("%w: %w", ErrTokenizer, err)
	case n < 0:
		return 0, fmt.Errorf("%w: %d tokens for %d bytes", ErrTokenizer, n, len(b))
	}
	return n, nil
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
	out := f.Prefix(s.k)
	if s.clipped != nil || f.tok != nil {
		// This response may be rejected (by the Tokenizer, or as too large
		// for a clip) and another measured from the encoded items: it must
		// not overwrite them.
		f.out = append(f.out[:0], resultsOpen...)
		if s.clipped != nil {
			f.out = append(f.out, s.clipped...)
		} else {
			f.out = append(f.out, out[len(resultsOpen):]...)
		}
		out = f.out
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
			got, err := f.countTokens(out)
			if err != nil {
				return nil, err
			}
			if got == written || (i >= 2 && got < written) || i == 6 {
				s.tokens = max(got, written)
				break
			}
			written = got
		}
	}
	// Check the measure: the items' characters were counted on these very
	// bytes, as they were encoded; the envelope around them is recounted.
	if n := len(resultsOpen) + s.itemRunes + jsonenc.RuneCount(out[head:]); n != s.chars {
		return nil, fmt.Errorf("bounded: internal error: response has %d characters, measured %d", n, s.chars)
	}
	return out, nil
}

// appendTail appends everything after the last result.
func (f *fitter) appendTail(b []byte, s *shape) []byte {
	b = append(b, keyPagination...)
	b = append(b, s.t.pagination...)
	b = append(b, keyTruncated...)
	b = strconv.AppendBool(b, f.truncated(s))
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

// windowHint is the hint of a response whose document goes on by next.
func (f *fitter) windowHint(next Args) string {
	return "The text goes on: call " + f.call.Render(next) + "."
}

// keepLong returns next without the caller's arguments whose value is too
// long to repeat in every response (its JSON over MaxNextValue, and over
// an eighth of the character or the token limit), and their names: the
// response says to pass them again as they were (nextKeeps), as its hint
// writes them <as before>.
func (f *fitter) keepLong(next Args) (Args, []string) {
	var keeps []string
	for _, a := range f.call.Args {
		// Measured in the fitter's pooled scratch buffer: no allocation.
		b, err := appendArgValue(f.scratch[:0], a.Value)
		if err == nil {
			f.scratch = b
		}
		if err == nil && len(b) > MaxNextValue && (len(b) > f.limitChars/8 || f.argTokens(b) > f.LimitTokens/8) {
			keeps = append(keeps, a.Name)
		}
	}
	if len(keeps) == 0 {
		return next, nil
	}
	out := make(Args, 0, len(next))
	for i, a := range next {
		if i < len(f.call.Args) && slices.Contains(keeps, a.Name) {
			continue
		}
		out = append(out, a)
	}
	return out, keeps
}

// argTokens estimates the tokens of an argument's JSON, as the budget
// estimates them; with a Tokenizer, by the Estimator, which errs high.
func (f *fitter) argTokens(b []byte) int {
	if f.Est || f.tok != nil {
		return Estimator{}.CountTokens(string(b))
	}
	return f.b.estimateTokens(jsonenc.RuneCount(b))
}

// MaxNextValue is the JSON length, in bytes, over which a caller's
// argument, if also over an eighth of LimitChars or of LimitTokens,
// moves from [Fitted.Next] to NextKeeps.
const MaxNextValue = 256

// appendStrings appends ss as a JSON array of strings.
func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, s)
	}
	return append(b, ']')
}

func (f *fitter) tooSmall(s *shape, what string) error {
	return fmt.Errorf("%w: %s needs %d characters (%d tokens), over the limit of %d characters (%d tokens)",
		ErrInvalidBudget, what, s.chars, s.tokens, f.limitChars, f.LimitTokens)
}

// log reports the response to the Observer, and writes the warning of a
// cut response, or of one near its limits.
func (f *fitter) log(fd *Fitted) {
	if f.b.Observer != nil {
		f.b.Observer.ObserveResponse(f.ctx, f.call.Tool, fd.Truncation)
	}
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
	if !f.b.Logger.Enabled(f.ctx, slog.LevelWarn) {
		return
	}
	f.b.Logger.LogAttrs(f.ctx, slog.LevelWarn, msg,
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
