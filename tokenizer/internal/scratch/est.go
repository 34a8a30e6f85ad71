package main

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// Estimator estimates the tokens of a text without a vocabulary: it reads
// the text once, splits it roughly as the o200k_base and cl100k_base
// encodings do before their byte-pair merges (words, runs of digits, runs of
// punctuation, whitespace), and charges each piece what those encodings
// charge it at most on real content. It errs on the safe side: on the corpora
// it was calibrated on it never counts more than 2% fewer tokens than the
// larger of the two encodings' exact counts, and most often it counts 2 to
// 15% more. It is the token counter of a [Budget] without a Tokenizer.
//
// What it charges, in tokens, measured on real content (see
// [EstimatorCalibration] for the figures per kind of content):
//
//   - A word of ASCII letters: 1, plus 1 for each case change inside it
//     (appendJSONString is append, JSON, String) and a share of a token for
//     each letter past the first 9 (6 when the word follows no space, as
//     the first word of a JSON string does). English prose measures about
//     4.7 characters a token, Go source about 3.8.
//   - Digits: 1 for each group of up to 3, as both encodings split them.
//   - Punctuation: 1 for the first character of a run, a third of a token
//     for each further one: JSON's structure ({" ":" "," },{") merges into
//     few tokens. A JSON escape (\n, \t, \") and the letter after it cost a
//     token.
//   - Whitespace: a space or tab before a word or punctuation is free; runs
//     of spaces, tabs and newlines cost a token for every few characters.
//   - CJK: 1.1 tokens a Han character or kana, 1.4 a Hangul syllable, 1
//     for CJK punctuation. Other letters (Cyrillic, Greek, Arabic, Hebrew,
//     Devanagari, Thai, accented Latin ones): 1 each; emoji and other
//     symbols: their UTF-8 length less one (a 4-byte emoji costs 3).
//
// The zero Estimator is ready to use and safe for concurrent use; it holds
// no state.
type Estimator struct{}

// CountTokens returns the estimated number of tokens of s: 0 for "".
func (Estimator) CountTokens(s string) int {
	var e estimate
	e.addString(s)
	return e.tokens()
}

// The constants of the estimate, in thousandths of a token (or letters for
// the thresholds). Those of ASCII text are the mean costs of each kind of
// piece, measured with both encodings on the calibration corpora, raised by
// safety: the least raise that keeps the estimate of every JSON response of
// the calibration within 2% of the larger exact count. Those of other
// scripts are near the most cl100k_base charges (it splits them more than
// o200k_base does). Measure them again with
//
//	go run ./tokenizer/internal/measure -calibrate
var (
	milli int64 = 1000
	safety int64 = 105 // percent

	costWord int64 = 1000 * safety / 100 // the first letter of a word after a space, a tab or nothing
	costWordBare int64 = 1000 * safety / 100 // the first letter of a word after anything else
	costAbsorb int64 = 1100 * safety / 100 // a lone punctuation character and the word after it (.Println, (ctx)
	costCaseSplit int64 = 1000 * safety / 100 // a case change inside a word

	// Letters of a word that its first token covers, and the cost of each
	// further one, by kind of word.
	longSpaced int32 = 7 // after a space
	costLongSpaced int64 = 90 * safety / 100
	longBare int32 = 7 // after anything else
	costLongBare int64 = 350 * safety / 100
	longAbsorbed int32 = 2 // after a lone punctuation character
	costLongAbsorbed int64 = 200 * safety / 100
	longPart int32 = 7 // a part of a word after a case change
	costLongPart int64 = 300 * safety / 100
	longCap int32 = 5 // a capitalized word
	costLongCap int64 = 350 * safety / 100
	costUpper int64 = 250 * safety / 100 // each capital letter after the second of a run of capitals

	costDigits int64 = 1000                // each group of up to 3 digits: exact
	costPunct int64 = 1000 * safety / 100 // the first punctuation character of a run
	costPunct2 int64 = 5 * safety / 100    // the second and third (a space before the run counts)
	costPunct4 int64 = 265 * safety / 100  // the fourth and fifth
	costPunct6 int64 = 650 * safety / 100  // each further one
	costBackslash3 int64 = 100 * safety / 100  // more for a backslash third in a run
	costBackslash4 int64 = 700 * safety / 100  // more for a backslash further in a run
	costEscape int64 = 1000 * safety / 100 // the letter of an escape (\n, \t, \u) after its backslash
	costNewlines int64 = 1000 * safety / 100 // a run of up to 4 newlines not just after punctuation
	costSpaces int64 = 1000 * safety / 100 // a run of spaces and tabs, but for a last one a word takes

	costHan int64 = 1500 // a Han character
	costKana int64 = 1100 // a hiragana or katakana
	costHangul int64 = 1300 // a Hangul syllable or jamo
	costCJKPunct int64 = 1000 // CJK and fullwidth punctuation
	costMark int64 = 2000 // a combining mark
	costLatin int64 = 1000 // an accented Latin letter
	costCyrillic int64 = 700  // a Cyrillic letter
	costLetter2 int64 = 1200 // a letter of another script written in 2 bytes (Greek, Hebrew, Arabic, ...)
	costLetter3 int64 = 1300 // a letter of another script written in 3 or 4 bytes (Devanagari, Thai, ...)
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

// estimate is a running estimate: its cost so far, and its state in the
// table of the Estimator's state machine. It is a value: copying it forks
// the estimate, which is how Fit estimates a response per number of items
// kept without reading the items again.
type estimate struct {
	milli int64  // the cost so far, in thousandths of a token
	state uint16 // the state machine's state
}

// tokens is the estimate so far, rounded up, with pending whitespace
// charged as at the end of the text.
func (e *estimate) tokens() int {
	return int((e.total() + milli - 1) / milli)
}

// total is the cost so far, in thousandths of a token, with pending
// whitespace charged as at the end of the text.
func (e *estimate) total() int64 { return e.milli + int64(machine().end[e.state]) }

func (e *estimate) addString(s string) { addText(e, s) }

func (e *estimate) addBytes(b []byte) { addText(e, b) }

// addText adds s to the estimate: a table lookup a byte for ASCII, the
// reference state machine's rune costs for the rest.
func addText[T string | []byte](e *estimate, s T) {
	m := machine()
	milli, state := e.milli, int(e.state)
	for i := 0; i < len(s); i++ {
		c := s[i]
		// Two ASCII bytes a step while there are: the steps depend on each
		// other, so each one is worth two.
		if i+1 < len(s) && (c|s[i+1]) < utf8.RuneSelf {
			step := m.step2[state*numByteClasses*numByteClasses+int(byteClass[c])*numByteClasses+int(byteClass[s[i+1]])]
			milli += step >> 16
			state = int(step & 0xffff)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			step := m.step[state*numByteClasses+int(byteClass[c])]
			milli += step >> 16
			state = int(step & 0xffff)
			continue
		}
		var buf [utf8.UTFMax]byte
		n := copy(buf[:], s[i:min(i+utf8.UTFMax, len(s))])
		r, size := utf8.DecodeRune(buf[:n])
		if wordLike(r) {
			milli += int64(m.settleWord[state])
		} else {
			milli += int64(m.settlePunct[state])
		}
		milli += runeCost(r, size)
		state = int(m.afterRune)
		i += size - 1
	}
	e.milli, e.state = milli, uint16(state)
}

// Byte classes of the state machine's table: bytes of a class move every
// state alike.
const (
	bcLower = iota
	bcUpper
	bcDigit
	bcPunct
	bcBackslash
	bcSpace
	bcTab // other horizontal whitespace
	bcNewline
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
			case c == ' ':
				t[c] = bcSpace
			default:
				t[c] = [...]uint8{clsLower: bcLower, clsUpper: bcUpper, clsDigit: bcDigit, clsPunct: bcPunct, clsSpace: bcTab, clsNewline: bcNewline}[asciiClass[c]]
			}
		}
		return t
	}()
	classByte = [numByteClasses]byte{'a', 'A', '0', '!', '\\', ' ', '\t', '\n'}
)

// stateTable is the Estimator's state machine as tables, built once from
// the reference machine [ref] by visiting every state it can reach.
type stateTable struct {
	// step[state*numByteClasses+class] is the cost of a byte of the class
	// in that state, shifted left 16 bits, and the state after it.
	step []int64
	// step2 is step for two bytes: [(state*numByteClasses+class1)*
	// numByteClasses+class2].
	step2 []int64
	end  []int32  // [state]: the cost of pending whitespace at the end
	// settleWord and settlePunct are the costs of pending whitespace
	// before a non-ASCII letter, or another non-ASCII rune; afterRune is
	// the state after any non-ASCII rune.
	settleWord, settlePunct []int32
	afterRune               uint16
}

var machine = sync.OnceValue(buildTable)

// buildTable enumerates the states of the reference machine reachable from
// the start, each reduced to what its future depends on ([ref.canon]).
func buildTable() *stateTable {
	t := &stateTable{}
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
	t.afterRune = id(after)
	for i := 0; i < len(states); i++ {
		r := states[i]
		for c := range numByteClasses {
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
	for st := range states {
		for c1 := range numByteClasses {
			s1 := t.step[st*numByteClasses+c1]
			for c2 := range numByteClasses {
				s2 := t.step[int(s1&0xffff)*numByteClasses+c2]
				t.step2 = append(t.step2, (s1>>16+s2>>16)<<16|s2&0xffff)
			}
		}
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
// mostly starts a token.
func punctMore(run int32, c byte) int64 {
	var m int64 = costPunct2
	switch {
	case run >= 6:
		m = costPunct6
	case run >= 4:
		m = costPunct4
	}
	if c == '\\' {
		switch {
		case run >= 4:
			m += costBackslash4
		case run == 3:
			m += costBackslash3
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
	longAt     = [...]*int32{&longSpaced, &longBare, &longAbsorbed, &longPart, &longCap}
	costLongOf = [...]*int64{&costLongSpaced, &costLongBare, &costLongAbsorbed, &costLongPart, &costLongCap}
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
			if r.run > *longAt[r.word] {
				r.milli += *costLongOf[r.word]
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

