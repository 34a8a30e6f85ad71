// Package estimate counts tokens without a vocabulary: a state machine
// splits a text as the o200k_base and cl100k_base encodings do before their
// merges (words, case changes, digits, punctuation, whitespace) and charges
// each piece its mean cost, raised by a safety margin. It is the engine of
// the root package's Estimator.
//
// An [Estimate] is a value: copying it forks the estimate, so that a text
// and each of its prefixes are estimated in one reading.
package estimate

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// CountTokens returns the estimated number of tokens of s: 0 for "".
func CountTokens(s string) int {
	var e Estimate
	e.AddString(s)
	return e.Tokens()
}

// Milli is the unit of costs: a thousandth of a token.
const Milli = milli

// The constants of the estimate, in thousandths of a token (or letters for
// the thresholds). The estimate splits a text as the encodings do before
// their merges (words, case changes, digits, punctuation, whitespace) and
// charges each piece. Those of ASCII text are the mean costs of each kind
// of piece, measured with both encodings on the calibration corpora, raised
// by safety (BENCHMARKS.md has the calibration). Those of other scripts are
// near the most cl100k_base charges (it splits them more than o200k_base
// does). Measure them again with
//
//	go run ./tokenizer/internal/measure -calibrate
const (
	milli  = 1000
	safety = 106 // percent

	costWord      = 1000 * safety / 100 // the first letter of a word after a space, a tab or nothing
	costWordBare  = 1000 * safety / 100 // the first letter of a word after anything else
	costAbsorb    = 1100 * safety / 100 // a lone punctuation character and the word after it (.Println, (ctx)
	costCaseSplit = 1000 * safety / 100 // a case change inside a word

	// Letters of a word that its first token covers, and the cost of each
	// further one, by kind of word.
	longSpaced       = 7 // after a space
	costLongSpaced   = 90 * safety / 100
	longBare         = 7 // after anything else
	costLongBare     = 350 * safety / 100
	longAbsorbed     = 2 // after a lone punctuation character
	costLongAbsorbed = 200 * safety / 100
	longPart         = 7 // a part of a word after a case change
	costLongPart     = 300 * safety / 100
	longCap          = 5 // a capitalized word
	costLongCap      = 350 * safety / 100
	costUpper        = 250 * safety / 100 // each capital letter after the second of a run of capitals

	costDigits     = 1000                // each group of up to 3 digits: exact
	costPunct      = 1000 * safety / 100 // the first punctuation character of a run
	costPunct2     = 5 * safety / 100    // the second and third (a space before the run counts)
	costPunct4     = 265 * safety / 100  // the fourth and fifth
	costPunct6     = 650 * safety / 100  // each further one
	costBackslash3 = 100 * safety / 100  // more for a backslash third in a run
	costBackslash4 = 700 * safety / 100  // more for a backslash further in a run
	costBacktick2  = 350 * safety / 100  // more for a backtick second in a run
	costBacktick3  = 600 * safety / 100  // third
	costBacktick4  = 700 * safety / 100  // further
	costEscape     = 1000 * safety / 100 // the letter of an escape (\n, \t, \u) after its backslash
	costNewlines   = 1000 * safety / 100 // a run of up to 4 newlines not just after punctuation
	costSpaces     = 1000 * safety / 100 // a run of spaces and tabs, but for a last one a word takes

	costHan      = 1500 // a Han character
	costKana     = 1100 // a hiragana or katakana
	costHangul   = 1300 // a Hangul syllable or jamo
	costCJKPunct = 1000 // CJK and fullwidth punctuation
	costMark     = 2000 // a combining mark
	costLatin    = 1000 // an accented Latin letter
	costCyrillic = 700  // a Cyrillic letter
	costLetter2  = 1200 // a letter of another script written in 2 bytes (Greek, Hebrew, Arabic, ...)
	costLetter3  = 1300 // a letter of another script written in 3 or 4 bytes (Devanagari, Thai, ...)
)

// Character classes of the estimate's state machine.
const (
	clsNone    uint8 = iota // start of text
	clsLower                // a-z
	clsUpper                // A-Z
	clsDigit                // 0-9
	clsPunct                // other ASCII printable characters, and controls
	clsSpace                // ' ', '\t' and other horizontal whitespace
	clsNewline              // '\n', '\r'
	clsOther                // any non-ASCII rune
)

// asciiClass is the class of each ASCII byte.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case 'a' <= c && c <= 'z':
			t[c] = clsLower
		case 'A' <= c && c <= 'Z':
			t[c] = clsUpper
		case '0' <= c && c <= '9':
			t[c] = clsDigit
		case c == ' ' || c == '\t' || c == '\v' || c == '\f':
			t[c] = clsSpace
		case c == '\n' || c == '\r':
			t[c] = clsNewline
		default:
			t[c] = clsPunct
		}
	}
	return t
}()

// Estimate is a running estimate: its cost so far, and its state in the
// table of the state machine. The zero value is the estimate of "". It is
// a value: copying it forks the estimate, which is how Fit estimates a
// response per number of items kept without reading the items again.
type Estimate struct {
	milli int64  // the cost so far, in thousandths of a token
	state uint16 // the state machine's state
}

// Tokens is the estimate so far, rounded up, with pending whitespace
// charged as at the end of the text.
func (e *Estimate) Tokens() int {
	return int((e.Total() + milli - 1) / milli)
}

// Total is the cost so far, in thousandths of a token, with pending
// whitespace charged as at the end of the text.
func (e *Estimate) Total() int64 { return e.milli + int64(machine().end[e.state]) }

// AddString adds s to the estimate.
//
//go:noinline
func (e *Estimate) AddString(s string) { addText(e, s) }

// Settled is the cost so far, in thousandths of a token, without the
// pending whitespace that Total charges.
func (e *Estimate) Settled() int64 { return e.milli }

// AddBytes adds b to the estimate and returns its runes.
//
// AddString and AddBytes are not inlined: inlined in another package, the
// call to the generic addText would move the caller's Estimate to the heap.
//
//go:noinline
func (e *Estimate) AddBytes(b []byte) int { return addText(e, b) }

// AddBytesSum is AddBytes for a text whose runes not ASCII are those sum
// adds up, all of them.
func (e *Estimate) AddBytesSum(b []byte, sum RuneSum) int {
	t := machine()
	if len(b) < lanesMin {
		return e.AddBytes(b)
	}
	milli, row, high := scanLanesBytes(t, b, e.milli, uint(e.state)*pairRow)
	if row == t.poison {
		return e.AddBytes(b)
	}
	if high {
		milli += sum.Milli
	} else {
		sum.Extra = 0
	}
	e.milli, e.state = milli, uint16(row/pairRow)
	return len(b) - sum.Extra
}

// addText adds s to the estimate and returns the number of runes of s,
// counted as utf8.RuneCount counts them (an invalid byte is one rune).
func addText[T string | []byte](e *Estimate, s T) int {
	t := machine()
	scan := scanText[T]
	if len(s) >= lanesMin {
		scan = scanLanes[T]
	}
	milli, row, extra := scan(t, s, e.milli, uint(e.state)*pairRow)
	e.milli, e.state = milli, uint16(row/pairRow)
	return len(s) - extra
}

// The tables the estimate runs on address a state by its row, state ×
// pairRow, and two ASCII bytes by their pair class, class1 ×
// numByteClasses + class2, so that row + pair class indexes the step.
const (
	pairRow  = numByteClasses * numByteClasses
	highBits = 0x8080808080808080 // the high bit of each byte of a word
)

// load64 returns the 8 bytes of s at i as a little-endian word.
func load64[T string | []byte](s T, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// pairAt is the pair class of the two ASCII bytes of w at bit shift (0,
// 16, 32 or 48), read from stateTable.pairClass.
func pairAt(pairClass *[1 << 16]uint8, w uint64, shift uint) uint {
	return uint(pairClass[uint16(w>>shift)])
}

// scanText runs the state machine over s from the state at row with cost
// milli so far, and returns the cost and row after s, and the bytes of s
// past the first of each multi-byte rune. Runs of ASCII go 8 bytes at a
// time, two a step.
//
// A step's next row is read as next[p:][row], p the pair class: the
// addition of the row is then the load's own, and each step waits on the
// load of the one before only.
func scanText[T string | []byte](t *stateTable, s T, milli int64, row uint) (int64, uint, int) {
	next, cost, pc := t.next, t.cost, t.pairClass
	extra := 0
	for i := 0; i < len(s); {
		for ; i+8 <= len(s); i += 8 {
			w := load64(s, i)
			if w&highBits != 0 {
				break
			}
			p := pairAt(pc, w, 0)
			milli += int64(cost[p+row])
			row = uint(next[p:][row])
			p = pairAt(pc, w, 16)
			milli += int64(cost[p+row])
			row = uint(next[p:][row])
			p = pairAt(pc, w, 32)
			milli += int64(cost[p+row])
			row = uint(next[p:][row])
			p = pairAt(pc, w, 48)
			milli += int64(cost[p+row])
			row = uint(next[p:][row])
		}
		if i < len(s) {
			var x int
			milli, row, i, x = scanMixed(t, s, i, milli, row)
			extra += x
		}
	}
	return milli, row, extra
}

// scanMixed runs the state machine over s from s[i] up to 8 bytes of
// ASCII in a row, or the end of s: ASCII two bytes a lookup where it can,
// runes one by one. It returns the cost and row after what it read, the
// offset it stopped at, and the bytes it read past the first of multi-byte
// runes. It reads at least one byte when the 8 bytes at i are not all
// ASCII, or fewer than 8 are left.
func scanMixed[T string | []byte](t *stateTable, s T, i int, milli int64, row uint) (int64, uint, int, int) {
	extra := 0
	var page *[256]uint16 // the page of the last rune, for the next
	pageAt := rune(-1)
	for i < len(s) {
		if s[i] < utf8.RuneSelf {
			// The ASCII bytes up to the next rune, two a lookup.
			var end int
			if i+8 <= len(s) {
				h := load64(s, i) & highBits
				if h == 0 {
					break
				}
				end = i + bits.TrailingZeros64(h)/8
			} else {
				end = asciiEnd(s, i)
			}
			for ; i+1 < end; i += 2 {
				p := row + uint(t.pairClass[uint16(s[i])|uint16(s[i+1])<<8])
				milli, row = milli+int64(t.cost[p]), uint(t.next[p])
			}
			if i < end {
				x := t.one[row/numByteClasses+uint(byteClass[s[i]])]
				milli, row, i = milli+int64(x>>16), uint(x&0xffff), i+1
			}
			continue
		}
		var r rune
		var size int
		if c := s[i]; 0xE1 <= c && c <= 0xEC && i+2 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 {
			// Three bytes that can be neither overlong nor a surrogate:
			// most scripts written in three bytes, CJK among them.
			r, size = rune(c&0x0F)<<12|rune(s[i+1]&0x3F)<<6|rune(s[i+2]&0x3F), 3
		} else if 0xC2 <= c && c < 0xE0 && i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
			r, size = rune(c&0x1F)<<6|rune(s[i+1]&0x3F), 2
		} else {
			r, size = decodeRuneAt(s, i)
		}
		var cost int64
		var word bool
		if hanFirst <= r && r <= hanLast {
			cost, word = costHan, true // the commonest CJK, without a page
		} else if r < runePagesEnd && size > 1 {
			if r>>8 != pageAt {
				page, pageAt = runePage(r>>8), r>>8
			}
			e := page[r&0xff]
			cost, word = int64(e&^wordBit), e&wordBit != 0
		} else {
			cost, word = runeCost(r, size), wordLike(r)
		}
		if word {
			milli += int64(t.settleWord[row/pairRow])
		} else {
			milli += int64(t.settlePunct[row/pairRow])
		}
		milli, row, i, extra = milli+cost, t.afterRune, i+size, extra+size-1
	}
	return milli, row, i, extra
}

// decodeRuneAt is utf8.DecodeRune of s[i:], s[i] not ASCII, with the
// runes of 2 and 3 bytes decoded inline.
func decodeRuneAt[T string | []byte](s T, i int) (rune, int) {
	switch c := s[i]; {
	case 0xC2 <= c && c < 0xE0 && i+1 < len(s):
		if c1 := s[i+1]; c1&0xC0 == 0x80 {
			return rune(c&0x1F)<<6 | rune(c1&0x3F), 2
		}
	case 0xE0 <= c && c < 0xF0 && i+2 < len(s):
		lo, hi := byte(0x80), byte(0xBF) // the second byte's range
		switch c {
		case 0xE0:
			lo = 0xA0 // not overlong
		case 0xED:
			hi = 0x9F // not a surrogate
		}
		if c1, c2 := s[i+1], s[i+2]; lo <= c1 && c1 <= hi && c2&0xC0 == 0x80 {
			return rune(c&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F), 3
		}
	}
	var buf [utf8.UTFMax]byte
	n := copy(buf[:], s[i:min(i+utf8.UTFMax, len(s))])
	return utf8.DecodeRune(buf[:n])
}

// runePages caches runeCost and wordLike for the runes below
// runePagesEnd, which cover every script and the emoji but for the rarest
// CJK ideographs, a page of 256 runes at a time, each page filled on first
// use: the Unicode tables they read take tens of nanoseconds a rune. An
// entry is the rune's cost, with wordBit set for a word-like rune.
var runePages [runePagesEnd >> 8]atomic.Pointer[[256]uint16]

const (
	runePagesEnd = 0x30000
	wordBit      = 1 << 15
	// hanFirst to hanLast, the CJK Unified Ideographs, are all Han
	// letters: costHan, word-like (a test checks each).
	hanFirst, hanLast = 0x4e00, 0x9fff
)

// runeInfo returns runeCost(r, size) and wordLike(r) for a rune decoded
// from size bytes.
func runeInfo(r rune, size int) (int64, bool) {
	if r >= runePagesEnd || r == utf8.RuneError && size == 1 {
		return runeCost(r, size), wordLike(r)
	}
	e := runePage(r >> 8)[r&0xff]
	return int64(e &^ wordBit), e&wordBit != 0
}

// runePage returns the page of runePages holding the runes page<<8 to
// page<<8 + 255, filling it on first use.
func runePage(page rune) *[256]uint16 {
	if p := runePages[page].Load(); p != nil {
		return p
	}
	return fillRunePage(page)
}

// fillRunePage computes and stores the page of runePages holding the
// runes page<<8 to page<<8 + 255. Goroutines that fill the same page at
// once store equal pages.
func fillRunePage(page rune) *[256]uint16 {
	p := new([256]uint16)
	for i := range p {
		r := page<<8 | rune(i)
		size := utf8.RuneLen(r) // a valid rune decodes from this many bytes
		if size < 0 {
			continue // a surrogate, which decodes as an invalid byte
		}
		cost := runeCost(r, size)
		if cost < 0 || cost >= wordBit {
			panic("estimate: a rune cost out of its table's range")
		}
		p[i] = uint16(cost)
		if wordLike(r) {
			p[i] |= wordBit
		}
	}
	runePages[page].Store(p)
	return p
}

// lanesMin is the length from which addText reads a text as three parts
// at once. Each step of the machine waits on the table lookup of the one
// before, so one reading leaves the processor mostly idle; independent
// readings overlap, at the price of guessing the state each part starts
// in.
const lanesMin = 512

// warmup is how far before a part scanLanes starts reading to guess the
// state the part before it ends in: the machine's state depends on the
// last few characters only, but for runs of one class.
const warmup = 64

// scanLanes is scanText reading the three thirds of s at once. The second
// and third start from the state the machine reaches over the warmup bytes
// before them; when the part before ends in another state, they are read
// again from there, so the result is scanText's in every case.
//
// The parts are read 8 bytes a step whatever the bytes: a byte of a rune
// is of class bcRune, which settles the pending whitespace as the rune
// does, and the runes' own costs are added after, by RuneCosts. Should a
// rune follow whitespace whose cost depends on the kind of rune (a tab),
// the reading reaches the poison state, and s is read again by scanText.
//
// A step adds the pair class to the row before the lookup: one operation
// more on the path from one lookup to the next than scanText's, but fewer
// in all, which is what three readings at once are limited by.
func scanLanes[T string | []byte](t *stateTable, s T, milli int64, row uint) (int64, uint, int) {
	m, r, high := scanLanesBytes(t, s, milli, row)
	if r == t.poison {
		return scanText(t, s, milli, row)
	}
	if !high {
		return m, r, 0
	}
	runes, extra := RuneCosts(s)
	return m + runes, r, extra
}

// scanLanesBytes is scanLanes without the runes' own costs: it returns
// the cost and row after s, the row being poison when s must be read by
// scanText, and whether s has a byte not ASCII.
func scanLanesBytes[T string | []byte](t *stateTable, s T, milli int64, row uint) (int64, uint, bool) {
	cut1 := asciiFrom(s, len(s)/3)
	cut2 := asciiFrom(s, max(cut1, 2*len(s)/3))
	guess1, guess2 := guessRow(t, s, 0, cut1), guessRow(t, s, cut1, cut2)
	a, b, c := s[:cut1], s[cut1:cut2], s[cut2:]
	next, cost, pc := t.next, t.cost, t.pairClass
	// ma is the first part's cost, mbc the other two's; ra, rb and rc
	// their rows; high has the high bits of the bytes read.
	ma, mbc, ra, rb, rc := milli, int64(0), row, guess1, guess2
	var high uint64
	n := min(len(a), len(b), len(c)) &^ 7
	pa, pb, pc3 := a[:n], b[:n], c[:n]
	for q := 0; q < n; q += 8 {
		wa, wb, wc := load64(pa, q), load64(pb, q), load64(pc3, q)
		high |= wa | wb | wc
		ya, yb, yc := pairAt(pc, wa, 0)+ra, pairAt(pc, wb, 0)+rb, pairAt(pc, wc, 0)+rc
		ma += int64(cost[ya])
		mbc += int64(cost[yb]) + int64(cost[yc])
		ya, yb, yc = pairAt(pc, wa, 16)+uint(next[ya]), pairAt(pc, wb, 16)+uint(next[yb]), pairAt(pc, wc, 16)+uint(next[yc])
		ma += int64(cost[ya])
		mbc += int64(cost[yb]) + int64(cost[yc])
		ya, yb, yc = pairAt(pc, wa, 32)+uint(next[ya]), pairAt(pc, wb, 32)+uint(next[yb]), pairAt(pc, wc, 32)+uint(next[yc])
		ma += int64(cost[ya])
		mbc += int64(cost[yb]) + int64(cost[yc])
		ya, yb, yc = pairAt(pc, wa, 48)+uint(next[ya]), pairAt(pc, wb, 48)+uint(next[yb]), pairAt(pc, wc, 48)+uint(next[yc])
		ma += int64(cost[ya])
		mbc += int64(cost[yb]) + int64(cost[yc])
		ra, rb, rc = uint(next[ya]), uint(next[yb]), uint(next[yc])
	}
	var h uint64
	ma, ra, h = scanBytes(t, a[n:], ma, ra)
	high |= h
	mbc, rb, h = scanBytes(t, b[n:], mbc, rb)
	high |= h
	mbc, rc, h = scanBytes(t, c[n:], mbc, rc)
	high |= h
	if ra != guess1 || rb != guess2 {
		// A wrong guess: read the rest again.
		ma, rc, _ = scanBytes(t, s[cut1:], ma, ra)
		mbc = 0
	}
	return ma + mbc, rc, high&highBits != 0
}

// scanBytes runs the state machine over s from the state at row with cost
// milli so far, as scanLanes reads a part, 8 bytes a step: the runes' own
// costs are left out. It returns the cost and row after s, and the high
// bits of its bytes.
func scanBytes[T string | []byte](t *stateTable, s T, milli int64, row uint) (int64, uint, uint64) {
	next, cost, pc := t.next, t.cost, t.pairClass
	var high uint64
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := load64(s, i)
		high |= w
		p := pairAt(pc, w, 0)
		milli += int64(cost[p+row])
		row = uint(next[p:][row])
		p = pairAt(pc, w, 16)
		milli += int64(cost[p+row])
		row = uint(next[p:][row])
		p = pairAt(pc, w, 32)
		milli += int64(cost[p+row])
		row = uint(next[p:][row])
		p = pairAt(pc, w, 48)
		milli += int64(cost[p+row])
		row = uint(next[p:][row])
	}
	for ; i+1 < len(s); i += 2 {
		high |= uint64(s[i] | s[i+1])
		p := row + uint(pc[uint16(s[i])|uint16(s[i+1])<<8])
		milli, row = milli+int64(cost[p]), uint(next[p])
	}
	if i < len(s) {
		high |= uint64(s[i])
		x := t.one[row/numByteClasses+uint(classOf(s[i]))]
		milli, row = milli+int64(x>>16), uint(x&0xffff)
	}
	return milli, row, high & highBits
}

// RuneSum is what an encoder adds up of the runes not ASCII it writes, for
// the Estimator to read the text without them: their costs and bytes past
// the first, as RuneCosts counts them. Partial says that some were not
// added.
type RuneSum struct {
	Milli   int64
	Extra   int
	Partial bool
}

// RuneCosts returns the sum of the costs of the runes of s not ASCII, as
// runeInfo gives them, and the bytes past the first of each.
func RuneCosts[T string | []byte](s T) (int64, int) {
	var milli int64
	extra := 0
	var page *[256]uint16 // the page of the last rune, for the next
	pageAt := rune(-1)
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			if i+8 > len(s) {
				i++
				continue
			}
			h := load64(s, i) & highBits
			if h == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(h) / 8
		}
		var r rune
		var size int
		if c := s[i]; 0xE1 <= c && c <= 0xEC && i+2 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 {
			r, size = rune(c&0x0F)<<12|rune(s[i+1]&0x3F)<<6|rune(s[i+2]&0x3F), 3
		} else if 0xC2 <= c && c < 0xE0 && i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
			r, size = rune(c&0x1F)<<6|rune(s[i+1]&0x3F), 2
		} else {
			r, size = decodeRuneAt(s, i)
		}
		if hanFirst <= r && r <= hanLast {
			milli += costHan
		} else if r < runePagesEnd && size > 1 {
			if r>>8 != pageAt {
				page, pageAt = runePage(r>>8), r>>8
			}
			milli += int64(page[r&0xff] &^ wordBit)
		} else {
			milli += runeCost(r, size)
		}
		i, extra = i+size, extra+size-1
	}
	return milli, extra
}

// CostOfRune is the cost of a rune not ASCII decoded from size bytes, an
// invalid byte being utf8.RuneError of size 1, in thousandths of a token.
func CostOfRune(r rune, size int) int64 {
	cost, _ := runeInfo(r, size)
	return cost
}

// CostOfRune2 is CostOfRune for a valid rune written in 2 bytes.
func CostOfRune2(r rune) int64 { return int64(runePage(r >> 8)[r&0xff] &^ wordBit) }

// CostOfRune3 is CostOfRune for a valid rune written in 3 bytes.
func CostOfRune3(r rune) int64 {
	if hanFirst <= r && r <= hanLast {
		return costHan
	}
	return int64(runePage(r >> 8)[r&0xff] &^ wordBit)
}

// asciiEnd returns the offset of the first byte of s at or after i that
// is not ASCII, or len(s).
func asciiEnd[T string | []byte](s T, i int) int {
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// asciiFrom returns the offset of the first ASCII byte of s at or after
// i, or len(s). A reading from the start takes such a byte as a character
// of its own, since no multi-byte rune contains one: a part of s can start
// there.
func asciiFrom[T string | []byte](s T, i int) int {
	for i < len(s) && s[i] >= utf8.RuneSelf {
		i++
	}
	return i
}

// guessRow guesses the row of the state the machine is in at s[at],
// reading from the state at the start over the warmup bytes before, from
// no further back than from. Every rune leaves the machine in the same
// state (afterRune): from the last one before at, the guess is exact.
func guessRow[T string | []byte](t *stateTable, s T, from, at int) uint {
	start := max(from, at-warmup)
	for i := at - 1; i >= start; i-- {
		if s[i] >= utf8.RuneSelf {
			_, row, _ := scanText(t, s[i+1:at], 0, t.afterRune)
			return row
		}
	}
	_, row, _ := scanText(t, s[start:at], 0, 0)
	return row
}

// Byte classes of the state machine's table: bytes of a class move every
// state alike.
const (
	bcLower = iota
	bcUpper
	bcDigit
	bcPunct
	bcBackslash
	bcBacktick
	bcSpace
	bcTab // other horizontal whitespace
	bcNewline
	bcRune // any byte of a multi-byte rune, or an invalid byte
	numByteClasses
)

// byteClass is the class of each ASCII byte, and classByte a byte of each
// class.
var (
	byteClass = func() (t [utf8.RuneSelf]uint8) {
		for c := range t {
			switch {
			case c == '\\':
				t[c] = bcBackslash
			case c == '`':
				t[c] = bcBacktick
			case c == ' ':
				t[c] = bcSpace
			default:
				t[c] = [...]uint8{clsLower: bcLower, clsUpper: bcUpper, clsDigit: bcDigit, clsPunct: bcPunct, clsSpace: bcTab, clsNewline: bcNewline}[asciiClass[c]]
			}
		}
		return t
	}()
	classByte = [numByteClasses]byte{'a', 'A', '0', '!', '\\', '`', ' ', '\t', '\n', utf8.RuneSelf}
)

// classOf is the class of any byte: bcRune for those of multi-byte runes
// and invalid ones.
func classOf(c byte) uint8 {
	if c >= utf8.RuneSelf {
		return bcRune
	}
	return byteClass[c]
}

// stateTable is the Estimator's state machine as tables, built once from
// the reference machine [ref] by visiting every state it can reach. A state
// is addressed by its row, state × pairRow.
type stateTable struct {
	// step[state*numByteClasses+class] is the cost of a byte of the class
	// in that state, shifted left 16 bits, and the state after it.
	step []int64
	// next[row+p] is the row after two ASCII bytes of pair class p in the
	// state at row, and cost[row+p] their cost; one[row/numByteClasses+
	// class] is the cost of one byte, shifted left 16 bits, and the row
	// after it.
	next, cost []uint16
	one        []uint32
	// pairClass[c1|c2<<8] is the pair class of the ASCII bytes c1 and c2:
	// two bytes read as one little-endian uint16 index it.
	pairClass *[1 << 16]uint8
	end       []int32 // [state]: the cost of pending whitespace at the end
	// settleWord and settlePunct are the costs of pending whitespace
	// before a non-ASCII letter, or another non-ASCII rune; afterRune is
	// the row of the state after any non-ASCII rune.
	settleWord, settlePunct []int32
	afterRune               uint
	// poison is the row that a byte of class bcRune leads to from a state
	// whose pending whitespace costs differently before a letter and before
	// other runes: a reading that reaches it must be done again rune by
	// rune. Every byte keeps it there, at no cost.
	poison uint
}

var machine = sync.OnceValue(buildTable)

// buildTable enumerates the states of the reference machine reachable from
// the start, each reduced to what its future depends on ([ref.canon]).
func buildTable() *stateTable {
	t := &stateTable{pairClass: new([1 << 16]uint8)}
	ids := map[ref]uint16{}
	var states []ref
	id := func(r ref) uint16 {
		r = r.canon()
		if n, ok := ids[r]; ok {
			return n
		}
		n := uint16(len(states))
		ids[r] = n
		states = append(states, r)
		return n
	}
	id(ref{})
	after := ref{}
	after.addRune('é', 2)
	t.afterRune = uint(id(after)) * pairRow
	for i := 0; i < len(states); i++ {
		r := states[i]
		for c := range numByteClasses {
			if c == bcRune {
				t.step = append(t.step, 0) // set below
				continue
			}
			x := r
			x.addASCII(classByte[c])
			t.step = append(t.step, (x.milli-r.milli)<<16|int64(id(x)))
		}
		t.end = append(t.end, int32(r.pendingWS(wsEnd)))
		w, p := r, r
		w.settle(wsWord)
		p.settle(wsPunct)
		t.settleWord = append(t.settleWord, int32(w.milli-r.milli))
		t.settlePunct = append(t.settlePunct, int32(p.milli-r.milli))
	}
	// A byte of a rune: the first settles the pending whitespace, as the
	// rune does, and leads to afterRune, where the others cost nothing. The
	// rune's own cost is not the table's.
	poison := len(states)
	t.poison = uint(poison) * pairRow
	for st := range states {
		x := int64(poison)
		if t.settleWord[st] == t.settlePunct[st] {
			x = int64(t.settleWord[st])<<16 | int64(t.afterRune/pairRow)
		}
		t.step[st*numByteClasses+bcRune] = x
	}
	for range numByteClasses {
		t.step = append(t.step, int64(poison))
	}
	t.end = append(t.end, 0)
	t.settleWord, t.settlePunct = append(t.settleWord, 0), append(t.settlePunct, 0)
	states = append(states, ref{}) // poison's place
	if len(states)*pairRow >= 1<<16 {
		panic("estimate: the estimate's state machine has too many states for its tables")
	}
	// check fails the build of a table whose cost does not fit its entry.
	check := func(cost int64) int64 {
		if cost < 0 || cost >= 1<<16 {
			panic("estimate: an estimate cost out of its table's range")
		}
		return cost
	}
	t.next = make([]uint16, len(states)*pairRow)
	t.cost = make([]uint16, len(states)*pairRow)
	for st := range states {
		for c1 := range numByteClasses {
			s1 := t.step[st*numByteClasses+c1]
			t.one = append(t.one, uint32(check(s1>>16))<<16|uint32(s1&0xffff)*pairRow)
			for c2 := range numByteClasses {
				s2 := t.step[int(s1&0xffff)*numByteClasses+c2]
				i := st*pairRow + c1*numByteClasses + c2
				t.next[i] = uint16(s2&0xffff) * pairRow
				t.cost[i] = uint16(check(s1>>16 + s2>>16))
			}
		}
	}
	for i := range t.pairClass {
		t.pairClass[i] = classOf(byte(i))*numByteClasses + classOf(byte(i>>8))
	}
	return t
}

// ref is the reference state machine of the Estimator: what a character
// costs given what came before. Its reachable states, reduced by canon, make
// the tables addText runs on; it is not run on text itself but by tests.
type ref struct {
	milli int64 // the cost so far, in thousandths of a token
	prev  uint8 // the class of the last character
	run   int32 // the length of the current run: letters of a word part, digits, punctuation
	upper int32 // uppercase letters at the end of the current word
	word  int8  // the kind of the current word
	// esc: the last character was a backslash, or the letter of an escape.
	esc bool
	// Whitespace since the last character of another class: its horizontal
	// characters since the last newline (charged when what follows is
	// known), and its newlines. The newlines right after punctuation are
	// part of the punctuation's piece (absorbed); the others make one piece
	// with the whitespace before them, a token for every 4 (nl counts them
	// in the piece).
	wsH      int32
	nl       int32
	absorbed bool // the last characters were newlines right after punctuation
	wsTab    bool // the last whitespace character is not a space
}

// canon returns r without its cost and with only what its future depends
// on: runs counted up to where costs stop changing, digits modulo 3, and
// the fields of other classes zeroed.
func (r ref) canon() ref {
	c := ref{prev: r.prev}
	switch r.prev {
	case clsLower, clsUpper:
		c.run, c.upper, c.word, c.esc = min(r.run, 8), min(r.upper, 2), r.word, r.esc
	case clsDigit:
		c.run = (r.run-1)%3 + 1
	case clsPunct:
		c.run, c.esc = min(r.run, 6), r.esc
	case clsSpace, clsNewline:
		c.wsH, c.absorbed = min(r.wsH, 2), r.absorbed
		if r.nl > 0 {
			c.nl = (r.nl-1)%4 + 1
		}
		if r.wsH > 0 {
			c.wsTab = r.wsTab
		}
	}
	return c
}

// What follows pending whitespace, for what it costs.
const (
	wsEnd    = iota // the end of the text: one piece
	wsWord          // a word: it takes the last whitespace character
	wsPunct         // punctuation: it takes the last character if a space
	wsDigits        // digits: they take none
)

// pendingWS is the cost of the spaces and tabs after the last newline,
// before what follows: a piece but for its last character, which the next
// word takes (the next punctuation only if it is a space), or which is one
// more piece.
func (r *ref) pendingWS(next int) int64 {
	h := r.wsH
	if h == 0 {
		return 0
	}
	last := true // the last character is a piece of its own
	switch next {
	case wsEnd:
		last = false
		h++
	case wsWord:
		last = false
	case wsPunct:
		last = r.wsTab
	}
	var m int64
	if h > 1 {
		m += costSpaces
	}
	if last {
		m += costSpaces
	}
	return m
}

// settle charges the pending whitespace before what follows.
func (r *ref) settle(next int) {
	if r.prev == clsSpace || r.prev == clsNewline {
		r.milli += r.pendingWS(next)
		r.wsH, r.nl, r.absorbed, r.wsTab = 0, 0, false, false
	}
}

// punctMore is the cost of the punctuation character c at position run
// (from 2) of a run. JSON's structure merges into a token or two ({" ":"
// "," },{"); escapes split it: a backslash after the third character
// mostly starts a token, and so does a backtick after the first.
func punctMore(run int32, c byte) int64 {
	var m int64 = costPunct2
	switch {
	case run >= 6:
		m = costPunct6
	case run >= 4:
		m = costPunct4
	}
	switch c {
	case '\\':
		switch {
		case run >= 4:
			m += costBackslash4
		case run == 3:
			m += costBackslash3
		}
	case '`':
		switch {
		case run >= 4:
			m += costBacktick4
		case run == 3:
			m += costBacktick3
		default:
			m += costBacktick2
		}
	}
	return m
}

// addASCII adds an ASCII character.
func (r *ref) addASCII(c byte) {
	cls := asciiClass[c]
	switch cls {
	case clsLower, clsUpper:
		r.letter(cls)
	case clsDigit:
		r.settle(wsDigits)
		if r.prev == clsDigit {
			r.run++
			if r.run%3 == 1 {
				r.milli += costDigits
			}
		} else {
			r.run = 1
			r.milli += costDigits
		}
		r.esc = false
	case clsPunct:
		if r.prev == clsPunct {
			r.run++
			r.milli += punctMore(r.run, c)
		} else {
			// A space before punctuation is part of its run.
			r.run = 1
			if r.prev == clsSpace && !r.wsTab {
				r.run = 2
			}
			r.settle(wsPunct)
			r.milli += costPunct
		}
		r.esc = c == '\\'
	case clsSpace:
		r.wsH++
		r.wsTab = c != ' '
		r.absorbed = false
		r.esc = false
	case clsNewline:
		switch {
		case r.prev == clsPunct:
			r.absorbed = true
		case r.prev == clsNewline && r.absorbed:
		default:
			// Spaces before the newline join its piece.
			r.absorbed = false
			r.nl++
			if r.nl%4 == 1 {
				r.milli += costNewlines
			}
		}
		r.wsH, r.wsTab = 0, false
		r.esc = false
	}
	r.prev = cls
}

// Kinds of words, for what their long ones cost.
const (
	wordSpaced   = iota // after a space or a tab: prose, mostly
	wordBare            // after nothing, a newline, a digit or a run of punctuation
	wordAbsorbed        // after a lone punctuation character, which it takes
	wordPart            // a part of a word after a case change, or after an escape
	wordCap             // a capitalized word: a proper name, a type
)

// longAt and costLongOf are, per kind of word, the letters its first token
// covers and the cost of each further letter.
var (
	longAt     = [...]int32{longSpaced, longBare, longAbsorbed, longPart, longCap}
	costLongOf = [...]int64{costLongSpaced, costLongBare, costLongAbsorbed, costLongPart, costLongCap}
)

// letter adds an ASCII letter of class cls.
func (r *ref) letter(cls uint8) {
	switch {
	case r.prev == clsLower || r.prev == clsUpper:
		switch {
		case r.esc:
			// The letter after an escape's letter starts a word.
			r.milli += costWordBare
			r.run, r.upper, r.word = 1, 0, wordBare
		case cls == clsUpper && r.prev == clsLower:
			r.milli += costCaseSplit
			r.run, r.word = 1, wordPart
		case cls == clsLower && r.upper >= 2:
			// JSONString: the S starts a new part.
			r.milli += costCaseSplit
			r.run, r.word = 2, wordPart
		case cls == clsUpper && r.upper >= 2:
			// Acronyms split into pieces of two or three letters.
			r.run++
			r.milli += costUpper
		default:
			r.run++
			if r.run == 2 && r.upper == 1 && cls == clsLower && (r.word == wordSpaced || r.word == wordBare) {
				r.word = wordCap
			}
			if r.run > longAt[r.word] {
				r.milli += costLongOf[r.word]
			}
		}
		r.esc = false
	case r.prev == clsPunct && r.esc:
		// The letter of an escape (\n, \t, \u): a token with a lone
		// backslash, a token of its own after other punctuation. The next
		// letter starts a word.
		if r.run == 1 {
			r.milli -= costPunct
		}
		r.milli += costEscape
		r.run, r.upper, r.word = 1, 0, wordPart
	default:
		r.word = wordBare
		if r.prev == clsSpace || r.prev == clsNone {
			r.word = wordSpaced
		}
		r.settle(wsWord)
		switch {
		case r.prev == clsPunct && r.run == 1:
			// A lone punctuation character before a word: the
			// encodings often merge them.
			r.milli += costAbsorb - costPunct
			r.word = wordAbsorbed
		case r.word == wordBare:
			r.milli += costWordBare
		default:
			r.milli += costWord
		}
		r.run, r.upper = 1, 0
		r.esc = false
	}
	if cls == clsUpper {
		r.upper++
	} else {
		r.upper = 0
	}
	r.prev = cls
}

// wordLike reports whether a non-ASCII rune joins a word, taking the
// whitespace before it as a word does.
func wordLike(r rune) bool { return unicode.IsLetter(r) || unicode.IsMark(r) }

// addRune adds a non-ASCII rune of size bytes.
func (r *ref) addRune(c rune, size int) {
	if wordLike(c) {
		r.settle(wsWord)
	} else {
		r.settle(wsPunct)
	}
	r.milli += runeCost(c, size)
	r.prev, r.run, r.upper, r.esc = clsOther, 0, 0, false
}

// addString runs the reference machine on s, for tests.
func (r *ref) addString(s string) {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			r.addASCII(c)
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		r.addRune(c, size)
		i += size
	}
}

// runeCost is the cost of a non-ASCII rune of size bytes. Byte-level
// encodings split a rune they have no token for into its bytes, which bounds
// what any rune can cost.
func runeCost(r rune, size int) int64 {
	switch {
	case r == utf8.RuneError && size == 1:
		return milli
	case r >= 0x3040 && r <= 0x30ff: // hiragana, katakana
		return costKana
	case unicode.Is(unicode.Han, r):
		return costHan
	case unicode.Is(unicode.Hangul, r):
		return costHangul
	case 0x3000 <= r && r <= 0x303f, 0xff00 <= r && r <= 0xffef:
		return costCJKPunct
	case unicode.IsMark(r):
		return costMark
	case r <= 0x024f, 0x1e00 <= r && r <= 0x1eff: // Latin
		if unicode.IsLetter(r) {
			return costLatin
		}
	case 0x0400 <= r && r <= 0x04ff: // Cyrillic
		return costCyrillic
	case unicode.IsLetter(r):
		if size == 2 {
			return costLetter2
		}
		return costLetter3
	}
	return int64(max(size-1, 1)) * milli
}
