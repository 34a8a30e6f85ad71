// Package fitter holds the encoded items of a page that the root package's
// Fit cuts to a budget, and measures their prefixes: the characters of the
// first k items, their estimated tokens, and whether they are over the
// character ceiling or the token limit. It reads bytes and counts only:
// the envelope around the items, and the search for the cut, are the root
// package's.
package fitter

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"slices"

	"github.com/boundedkit/bounded/internal/estimate"
	"github.com/boundedkit/bounded/internal/jsonenc"
	"github.com/boundedkit/bounded/internal/probe"
)

// Open opens every envelope; the item bytes follow it.
const Open = `{"results":[`

// MaxPooled is the largest buffer a pooled Items keeps for the next call.
const MaxPooled = 1 << 20

// readAhead is how many bytes of items encoded but not yet read addBatch
// leaves for later: a read of fewer is better done with the next ones, a
// read of more while they are still in the processor's caches.
const readAhead = 16 << 10

// nearAhead is readAhead near the token limit: the search for the cut
// reads again, item by item, the items of one reading at most.
const nearAhead = 2 << 10

// Items is the buffer of one page's encoded items: Open, then each item
// followed by a comma. Items are encoded up to the first that takes them
// over the character ceiling (or, with the Estimator, the token limit):
// no response holds the items after it. The zero Items is ready for Reset;
// an Items is reused, call after call, through Reset and Release.
type Items struct {
	// N is the number of items in the page, M the number encoded: all, or
	// up to the first that cannot fit.
	N, M int
	// Est says that tokens are counted by the Estimator.
	Est bool
	// CharCap is the character ceiling, LimitTokens the token limit.
	CharCap     int
	LimitTokens int

	// When snapped[k], cum[k] is the runes of the first k items (their
	// commas left out) and, with the Estimator, snaps[k] the estimate of
	// Open and the first k items: known for each batch as it is read, and
	// for other k as needed, each item read once for both.
	snaps   []estimate.Estimate
	snapped []bool
	cum     []int
	// marks are the k > 0 snapped by the readings of encoded items, in
	// increasing order: a search for the cut tests them first, which
	// reads nothing, and reads items between two of them only.
	marks []int
	// sum adds up the runes of the items the compiled encoder writes, and
	// sumRead those of the items read; summed says that sum has every
	// rune of the items.
	sum, sumRead estimate.RuneSum
	summed       bool

	// buf holds Open, then each item followed by a comma; ends[i] is the
	// offset of the comma after item i, i < M. Items are encoded in
	// batches (batches[j] is the number of items after batch j), and the
	// ends of items inside batches are found only when needed: split says
	// they are known.
	buf     []byte
	ends    []int
	batches []int
	split   bool
	// allRunes is the runes of buf[len(Open):allEnd], the first read
	// items, counted as they are encoded, readAhead bytes at a time (with
	// the Estimator, in the same reading as their estimate).
	allRunes int
	allEnd   int
	read     int // the items before allEnd
	// ahead is the read-ahead: readAhead, or less, down to nearAhead,
	// once the next reading may take the estimate over the token limit.
	ahead int
	ints  []int // the memory of ends, cum and marks

	w   sliceWriter
	enc *json.Encoder // writes to w
}

// Reset prepares it for a page of n items, with the ceiling charCap and
// the token limit limitTokens; est says that tokens are counted by the
// Estimator.
func (it *Items) Reset(n int, est bool, charCap, limitTokens int) {
	if it.enc == nil {
		it.enc = json.NewEncoder(&it.w)
		it.enc.SetEscapeHTML(false)
	}
	// Field by field: the memory it keeps is overwritten before it is read.
	it.N, it.M, it.Est, it.CharCap, it.LimitTokens = n, 0, est, charCap, limitTokens
	it.sum, it.sumRead, it.summed = estimate.RuneSum{}, estimate.RuneSum{}, false
	it.buf, it.batches, it.split = nil, it.batches[:0], true
	it.allRunes, it.allEnd, it.read = 0, len(Open), 0
	it.setAhead()
	it.w.b, it.w.written = it.w.b[:0], 0
	it.w.items, it.w.most = n, 4*min(charCap, math.MaxInt/8)
	if est {
		// The token limit bounds the response too: reserve for a
		// generous 16 bytes a token, and grow past it if need be.
		it.w.most = min(it.w.most, 16*min(limitTokens, math.MaxInt/32))
	}
	if cap(it.ints) < 3*n+1 {
		it.ints = make([]int, 3*n+1)
	}
	// A reading reads one item at least: n marks at most.
	ints := it.ints[:3*n+1]
	it.ends, it.cum, it.marks = ints[:n:n], ints[n:2*n+1:2*n+1], ints[2*n+1:2*n+1]
	clear(it.ends)
	it.cum[0] = 0
	if cap(it.snaps) < n+1 {
		it.snaps, it.snapped = make([]estimate.Estimate, n+1), make([]bool, n+1)
	}
	it.snaps, it.snapped = it.snaps[:n+1], it.snapped[:n+1]
	clear(it.snapped)
	it.snaps[0], it.snapped[0] = estimate.Estimate{}, true
	if est {
		it.snaps[0].AddString(Open)
	}
}

// Release drops the buffers over MaxPooled bytes, so that it keeps the
// others for the next Reset.
func (it *Items) Release() {
	if cap(it.w.b) > MaxPooled {
		it.w.b = nil
	}
	if cap(it.ints) > MaxPooled/8 {
		it.ints = nil
	}
	if cap(it.snaps) > MaxPooled/16 {
		it.snaps, it.snapped = nil, nil
	}
	it.buf = nil
}

// More reports whether there are items to encode: some are left, and the
// items encoded are neither over the ceiling nor estimated over the token
// limit.
func (it *Items) More() bool {
	return it.M < it.N && !it.Over(it.M) && !it.TokensOver()
}

// EncodeBatch encodes v, a pointer to a slice of the next c items, with
// encoding/json. On an error nothing is recorded.
func (it *Items) EncodeBatch(v any, c int) error {
	it.w.batch, it.w.inSlice = c, true
	it.summed = false
	if err := it.enc.Encode(v); err != nil {
		return err
	}
	it.addBatch(c)
	return nil
}

// EncodeOne encodes v, a pointer to the next item, with encoding/json.
// On an error nothing is recorded.
func (it *Items) EncodeOne(v any) error {
	it.w.batch, it.w.inSlice = 1, false
	it.summed = false
	if err := it.enc.Encode(v); err != nil {
		return err
	}
	it.addBatch(1)
	return nil
}

// StartFast prepares the encoding of items by the compiled encoder
// (EncodeFast), from the next item on.
func (it *Items) StartFast() {
	if len(it.w.b) == 0 {
		it.w.b = append(it.w.b, Open...)
	}
	it.buf = it.w.b
	if it.Est {
		// The encoder adds up the runes it writes, which the reading of
		// the items then leaves out.
		it.summed = it.M == 0
	}
}

// EncodeFast encodes v, the next item, with its compiled encoder fe,
// straight into the buffer. It reports false, with nothing recorded,
// when fe refuses v (a NaN float).
func (it *Items) EncodeFast(fe jsonenc.Func, v reflect.Value) bool {
	w := &it.w
	if i := it.M; i > 0 {
		// Room for the items to come, as for encoding/json's.
		if avg := (len(w.b) - len(Open)) / i; cap(w.b)-len(w.b) < 2*avg {
			w.grow(0, avg, it.N-i)
		}
	}
	var sum *estimate.RuneSum
	if it.Est {
		sum = &it.sum
	}
	before := it.sum
	b, ok := fe(sum, w.b, v)
	if !ok {
		// w.b still ends after the items before.
		it.sum = before
		return false
	}
	probe.Encoded(1)
	w.b = append(b, ',')
	it.buf = w.b
	i := it.M
	it.M++
	it.ends[i] = len(w.b) - 1
	if it.ends[i]-it.allEnd >= it.ahead || it.nearTokens() {
		it.readEncoded()
	}
	return true
}

// Settle ends the encoding: the buffer holds Open when no item was
// encoded, and M is cut back to what encoding one item at a time would
// have encoded, up to the first item that takes the items over the ceiling
// or, with the Estimator, the token limit.
func (it *Items) Settle() {
	if len(it.w.b) == 0 {
		it.w.b = append(it.w.b, Open...)
		it.buf = it.w.b
	}
	it.settleEncoded()
}

// addBatch records the batch of c items just encoded, after the first M.
func (it *Items) addBatch(c int) {
	probe.Encoded(c)
	it.buf = it.w.b
	it.M += c
	it.w.items -= c
	end := len(it.buf) - 1 // the comma after the batch
	it.ends[it.M-1] = end
	it.batches = append(it.batches, it.M)
	if c > 1 {
		it.split = false
	}
	if end-it.allEnd >= it.ahead || it.nearTokens() {
		it.readEncoded()
	}
}

// readEncoded counts the characters of the items encoded since the last
// read, and with the Estimator estimates them in the same reading: from the
// comma after the items read before (or Open) to the one after the last
// item encoded.
func (it *Items) readEncoded() {
	if it.M == 0 || it.allEnd >= it.ends[it.M-1] {
		return
	}
	end := it.ends[it.M-1]
	if it.Est {
		e := it.snaps[it.read]
		if it.summed && !it.sum.Partial {
			it.allRunes += e.AddBytesSum(it.buf[it.allEnd:end], estimate.RuneSum{Milli: it.sum.Milli - it.sumRead.Milli, Extra: it.sum.Extra - it.sumRead.Extra})
		} else {
			it.allRunes += e.AddBytes(it.buf[it.allEnd:end])
		}
		it.sumRead = it.sum
		it.snaps[it.M] = e
	} else {
		it.allRunes += jsonenc.RuneCount(it.buf[it.allEnd:end])
	}
	it.cum[it.M], it.snapped[it.M] = it.allRunes-(it.M-1), true
	it.marks = append(it.marks, it.M)
	it.allEnd, it.read = end, it.M
	it.setAhead()
}

// BatchSize is the number of items to encode next: the first alone, then
// up to three times as many as so far, but no more than the ceiling leaves
// room for at the mean size of the items so far, plus one to reach it.
func (it *Items) BatchSize() int {
	if it.M == 0 {
		return 1
	}
	used := it.ends[it.M-1] - len(Open) + 1 // bytes, at least the runes
	room := max(0, it.CharCap-used) / max(1, used/it.M)
	if it.Est {
		// And no more than the token limit leaves room for, at the mean
		// estimate of the items so far.
		it.readEncoded()
		if t := it.snaps[it.read].Tokens(); t > 0 {
			room = min(room, max(0, it.LimitTokens-t)/max(1, t/it.read))
		}
		if it.ahead < readAhead {
			// Near the limit, no more than a read-ahead.
			room = min(room, it.ahead/max(1, used/it.M))
		}
	}
	return max(1, min(it.N-it.M, 3*it.M, room+1))
}

// Over reports whether the first k items, k <= M, take more characters
// than the ceiling: then no response holding them fits, and the items
// after them are not needed. Items are counted only when their bytes are
// over the ceiling (a character takes a byte at least).
func (it *Items) Over(k int) bool {
	if k == 0 || it.ends[it.M-1]-len(Open) <= it.CharCap {
		return false
	}
	return it.ItemRunes(k) > it.CharCap
}

// nearTokens reports whether the items encoded but not yet read may take
// the estimate over the token limit, at the rate of those read: then they
// are read at once, so that encoding stops soon after the limit.
func (it *Items) nearTokens() bool {
	if !it.Est || it.read == 0 {
		return false
	}
	t := it.snaps[it.read].Tokens()
	unread := it.ends[it.M-1] - it.allEnd
	return t+unread*t/max(1, it.allEnd-len(Open)) > it.LimitTokens
}

// setAhead sets the read-ahead for the items after those read. When
// readAhead bytes of them may take the estimate over the token limit, at
// twice the rate of the items read, it is half the bytes left to the
// limit at that rate, and no less than nearAhead; before any item is
// read, nearAhead when readAhead bytes may, at a token a byte.
func (it *Items) setAhead() {
	it.ahead = readAhead
	if !it.Est {
		return
	}
	if it.read == 0 {
		if it.LimitTokens <= 2*readAhead {
			it.ahead = nearAhead
		}
		return
	}
	t := it.snaps[it.read].Tokens()
	if read := max(1, it.allEnd-len(Open)); t+2*readAhead*t/read > it.LimitTokens {
		it.ahead = max(nearAhead, max(0, it.LimitTokens-t)*read/max(1, 2*t))
	}
}

// TokensOver reports whether the items read so far are estimated over the
// token limit: no response holding them fits, and the items after them
// are not needed. Only the Estimator knows before assembly.
func (it *Items) TokensOver() bool {
	return it.Est && it.read > 0 && it.snaps[it.read].Tokens() > it.LimitTokens
}

// settleEncoded cuts M back to what encoding one item at a time would have
// encoded: items up to the first that takes the items over the ceiling,
// or with the Estimator over the token limit. A batch, or a reading of the
// items' tokens that comes after several, encodes past it, or may.
func (it *Items) settleEncoded() {
	last := min(it.M, it.N-1) // one at a time, item N-1 is the last checked
	if last < 1 || !it.Over(last) && !it.TokensOverAt(last) {
		return
	}
	// The first k with OverAt(k) is in [1, last].
	it.M = it.largest(0, last-1, func(k int) bool { return !it.OverAt(k) }) + 1
	it.summed = false // sum has the runes of items past M
}

// OverAt reports whether no response holds the first k items, k <= M:
// their characters are over the ceiling, or with the Estimator their
// tokens over the limit.
func (it *Items) OverAt(k int) bool {
	return it.Over(k) || it.TokensOverAt(k)
}

// TokensOverAt reports whether, with the Estimator, the first k items,
// k <= M, are estimated over the token limit. The estimate of all M items,
// which the search reads anyway, answers for every k when it is within.
func (it *Items) TokensOverAt(k int) bool {
	if !it.Est || k == 0 {
		return false
	}
	it.readEncoded()
	if it.snaps[it.read].Tokens() <= it.LimitTokens {
		return false
	}
	e := it.Snap(k)
	return e.Tokens() > it.LimitTokens
}

// splitItems finds the end of every item encoded in a batch, once.
func (it *Items) splitItems() {
	if it.split {
		return
	}
	first := 0
	for _, end := range it.batches {
		if end-first > 1 {
			from := len(Open)
			if first > 0 {
				from = it.ends[first-1] + 1 // past the comma before the batch
			}
			splitValues(it.buf[from:it.ends[end-1]], from, it.ends[first:end-1])
		}
		first = end
	}
	it.split = true
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

// sliceWriter collects the encoded items after Open, each followed by a
// comma. It reserves room for the items still to come from the sizes
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
	if cap(w.b)-len(w.b) < len(q)+1+len(Open) {
		avg := (max(len(w.b)-len(Open), 0) + len(q) + w.batch) / (w.written + w.batch)
		w.grow(len(Open)+len(q)+1, avg, w.items-w.batch)
	}
	if len(w.b) == 0 {
		w.b = append(w.b, Open...)
	}
	w.b = append(append(w.b, q...), ',')
	w.written += w.batch
	return len(p), nil
}

// grow makes room for n bytes and for rest more items, assumed avg bytes
// long (and an eighth more) but not more than the response can use, and
// for the envelope's tail: each item is then copied once.
func (w *sliceWriter) grow(n, avg, rest int) {
	w.b = slices.Grow(w.b, n+min(avg*rest+avg*rest/8, w.most)+1024)
}

// Snap returns the estimate of Open and the first k items (k <= M),
// with the Estimator.
func (it *Items) Snap(k int) estimate.Estimate {
	it.readTo(k)
	return it.snaps[k]
}

// readTo makes snapped[k] true, k <= M: it reads the M items encoded but
// not yet read when k is M, or else the items from the last k known
// before, one by one, counting their runes and with the Estimator
// estimating them in the same reading.
func (it *Items) readTo(k int) {
	if k > 0 && k == it.M && it.allEnd < it.ends[k-1] {
		it.readEncoded()
	}
	if it.snapped[k] {
		return
	}
	i := k
	for !it.snapped[i] {
		i--
	}
	it.splitItems()
	for ; i < k; i++ {
		b := it.buf[it.itemStart(i):it.ends[i]]
		var runes int
		if it.Est {
			e := it.snaps[i]
			runes = e.AddBytes(b)
			it.snaps[i+1] = e
		} else {
			runes = jsonenc.RuneCount(b)
		}
		if i > 0 {
			runes-- // the comma before the item
		}
		it.cum[i+1], it.snapped[i+1] = it.cum[i]+runes, true
	}
}

// itemStart is the offset in buf where the estimate of item i starts: the
// comma before it, or just after Open for the first.
func (it *Items) itemStart(i int) int {
	if i == 0 {
		return len(Open)
	}
	return it.End(i - 1)
}

// End returns the offset of the comma after item i, i < M.
func (it *Items) End(i int) int {
	// Ends of items inside batches are found first if it is one of them
	// (the offset of a comma is never 0).
	if it.ends[i] == 0 {
		it.splitItems()
	}
	return it.ends[i]
}

// Item returns the JSON of item i, i < M. It is valid until the next call
// that encodes an item.
func (it *Items) Item(i int) []byte {
	start := len(Open)
	if i > 0 {
		start = it.End(i-1) + 1
	}
	return it.buf[start:it.End(i)]
}

// Prefix returns Open and the first k items, k <= M, with the commas
// between them. It is valid until the next call that encodes an item.
func (it *Items) Prefix(k int) []byte {
	if k == 0 {
		return it.buf[:len(Open)]
	}
	return it.buf[:it.End(k-1)]
}

// ItemRunes is the rune count of the first k items and their commas,
// k <= M: counted for all M items as they were encoded, or else item by
// item from the last k known before.
func (it *Items) ItemRunes(k int) int {
	if k == 0 {
		return 0
	}
	it.readTo(k)
	return it.cum[k] + k - 1
}

// LargestK returns the largest k in [0, hi] whose items take at most runes
// characters, or -1 when there is none.
func (it *Items) LargestK(hi, runes int) int {
	if hi < 0 || runes < 0 {
		return -1
	}
	// ItemRunes is strictly increasing in k, and 0 for k = 0.
	return it.largest(0, hi, func(k int) bool { return it.ItemRunes(k) <= runes })
}

// LargestSettled returns the largest k in [0, hi] whose estimate, without
// the pending whitespace, is at most milli thousandths of a token, or 0.
func (it *Items) LargestSettled(hi int, milli int64) int {
	return it.largest(0, hi, func(k int) bool {
		e := it.Snap(k)
		return e.Settled() <= milli
	})
}

// largest returns the largest k in [lo, hi] for which ok holds, ok being
// true at lo and false from some k on. The marks in (lo, hi] are tested
// first, then the ks between the two around the answer, from the lower:
// each item is read once at most.
func (it *Items) largest(lo, hi int, ok func(k int) bool) int {
	for _, m := range it.marks {
		if m > hi {
			break
		}
		if m <= lo {
			continue
		}
		if !ok(m) {
			hi = m - 1
			break
		}
		lo = m
	}
	for lo < hi {
		if mid := (lo + hi + 1) / 2; ok(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// SpaceAt inserts a space at i in b, between a notice and what follows
// it, when both are there.
func SpaceAt(b []byte, i int) []byte {
	if i == 0 || len(b) == i {
		return b
	}
	b = append(b, 0)
	copy(b[i+1:], b[i:])
	b[i] = ' '
	return b
}
