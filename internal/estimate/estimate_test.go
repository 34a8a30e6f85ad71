package estimate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded/internal/deeptest"
)

// randomText builds texts from pieces of every class the estimate knows:
// words of both cases, digits, punctuation and escapes, whitespace and
// newlines, non-ASCII letters, marks and symbols, invalid UTF-8.
func randomText(r *rand.Rand) string {
	pieces := []string{"a", "B", "ab", "Zq", "JSON", "String", "x.y", "0", "7", "123", " ", "  ", "\t", "\n", "\r\n",
		"\\", `\"`, `\n`, `\t`, `\u00e9`, `"`, "{", "}", ":", ",", "[", "](", "'s", "é", "ß", "日", "語", "カ", "한", "Ж", "ש", "\u0301", "😀", "👩‍💻", "→", "\xff", "\xe6\x97"}
	var b strings.Builder
	for range r.IntN(40) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// TestEstimatorTableMatchesReference checks that the table the Estimator
// runs on computes what the reference machine does, on random texts of
// every class of character: the table's states, reduced to what their
// future depends on, lose nothing.
func TestEstimatorTableMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for range 20_000 {
		s := randomText(r)
		var e Estimate
		e.AddString(s)
		var ref ref
		ref.addString(s)
		if got, want := e.Total(), ref.milli+ref.pendingWS(wsEnd); got != want {
			t.Fatalf("%q: table %d, reference %d", s, got, want)
		}
		var eb Estimate
		eb.AddBytes([]byte(s))
		if eb != e {
			t.Fatalf("%q: addBytes %+v, addString %+v", s, eb, e)
		}
	}
}

// addTextSimple is the plain reading of the Estimator's tables, one or two
// bytes a lookup, with no shortcut: addText, which reads 8 bytes of ASCII
// a step and long texts as two halves at once, must give the same estimate.
func addTextSimple[T string | []byte](e *Estimate, s T) {
	m := machine()
	step2 := func(state int, c1, c2 byte) int64 {
		s1 := m.step[state*numByteClasses+int(byteClass[c1])]
		s2 := m.step[int(s1&0xffff)*numByteClasses+int(byteClass[c2])]
		return (s1>>16+s2>>16)<<16 | s2&0xffff
	}
	milli, state := e.milli, int(e.state)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i+1 < len(s) && (c|s[i+1]) < utf8.RuneSelf {
			step := step2(state, c, s[i+1])
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
		state = int(m.afterRune / pairRow)
		i += size - 1
	}
	e.milli, e.state = milli, uint16(state)
}

// checkFastEstimate compares addText and scanLanes, from the state that
// start reaches, with addTextSimple on s, and the runes they count with
// utf8.RuneCount.
func checkFastEstimate(t *testing.T, start, s []byte) {
	t.Helper()
	var e0 Estimate
	addTextSimple(&e0, start)
	want := e0
	addTextSimple(&want, s)
	got := e0
	if runes := addText(&got, s); got != want || runes != utf8.RuneCount(s) {
		t.Fatalf("%q after %q: addText %+v, %d runes; want %+v, %d runes", s, start, got, runes, want, utf8.RuneCount(s))
	}
	gs := e0
	gs.AddString(string(s))
	if gs != want {
		t.Fatalf("%q after %q: addString %+v, want %+v", s, start, gs, want)
	}
	m := machine()
	milli, row, extra := scanLanes(m, s, e0.milli, uint(e0.state)*pairRow)
	if lanes := (Estimate{milli, uint16(row / pairRow)}); lanes != want || len(s)-extra != utf8.RuneCount(s) {
		t.Fatalf("%q after %q: scanLanes %+v, %d runes; want %+v, %d runes", s, start, lanes, len(s)-extra, want, utf8.RuneCount(s))
	}
}

// longText joins random texts into one of about n bytes, some with long
// runs of one class (digits, spaces, newlines, letters, punctuation) that
// make the second half's guessed start state wrong.
func longText(r *rand.Rand, n int) string {
	runs := []string{"0123456789", "          ", "\n\n\n", "abcdefghij", "!!!!!", "\\\\\\", "\t\t"}
	var b strings.Builder
	for b.Len() < n {
		if r.IntN(8) == 0 {
			b.WriteString(strings.Repeat(runs[r.IntN(len(runs))], 1+r.IntN(20)))
			continue
		}
		b.WriteString(randomText(r))
	}
	return b.String()
}

// TestStateAfterRune checks what scanLanes relies on to start a part
// after a rune: at every ASCII byte (and the end) just after a non-ASCII
// one, the machine is in the state of afterRune, whatever came before.
func TestStateAfterRune(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	m := machine()
	for range 2000 {
		s := randomText(r) + randomText(r)
		for i := 1; i <= len(s); i++ {
			if s[i-1] < utf8.RuneSelf || i < len(s) && s[i] >= utf8.RuneSelf {
				continue
			}
			var e Estimate
			addTextSimple(&e, s[:i])
			if row := uint(e.state) * pairRow; row != m.afterRune {
				t.Fatalf("%q: row %d after %q, want afterRune's %d", s, row, s[:i], m.afterRune)
			}
		}
	}
}

// TestEstimatorFastMatchesSimple checks that the shortcuts of addText
// (8 bytes a step, two halves at once, with the second half's start state
// guessed) change no estimate, on random texts of every class of
// character, long and short, and on a response of 300 results: 1,000
// random texts, 3,000 in the deep run (deeptest).
func TestEstimatorFastMatchesSimple(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 17))
	for i := range deeptest.Size(1000, 3000) {
		n := []int{10, 100, 1000, 3000, 20_000}[i%5]
		checkFastEstimate(t, []byte(randomText(r)), []byte(longText(r, n)))
	}
	checkFastEstimate(t, nil, response(r, 300))
	checkFastEstimate(t, nil, []byte(strings.Repeat("日本語のテキスト、", 500)))
	checkFastEstimate(t, nil, []byte(strings.Repeat("1", 5000)))
	// A rune after a tab, whose cost depends on the kind of rune.
	checkFastEstimate(t, nil, []byte(strings.Repeat("word\t→ é\tx ", 100)))
}

// FuzzEstimatorFast compares addText and scanLanes with the plain
// reading of the tables on any bytes, after any prefix.
func FuzzEstimatorFast(f *testing.F) {
	f.Add([]byte(""), []byte(`{"results":[{"id":"note-1","content":"the quick brown fox"}]}`))
	f.Add([]byte("\\"), []byte("nabc日本\xff\xe6\x97 \n\n\n\n\n   0000000000"))
	f.Add([]byte("12"), bytes.Repeat([]byte("123456789"), 300))
	f.Fuzz(func(t *testing.T, start, s []byte) {
		checkFastEstimate(t, start, s)
	})
}

// TestEstimatorForks checks what Fit relies on: an estimate copied after a
// prefix and continued with the rest gives the estimate of the whole text,
// and an estimate never decreases as text is added.
func TestEstimatorForks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for range 5000 {
		a, b := randomText(r), randomText(r)
		var e Estimate
		e.AddString(a)
		prefix := e.Tokens()
		fork := e
		fork.AddString(b)
		if got, want := fork.Tokens(), CountTokens(a+b); got != want {
			t.Fatalf("%q + %q: forked estimate %d, whole %d", a, b, got, want)
		}
		if fork.Tokens() < prefix {
			t.Fatalf("%q + %q: %d tokens, fewer than the prefix's %d", a, b, fork.Tokens(), prefix)
		}
	}
}

// TestEstimateByDigitCount checks what Fit relies on to solve for the
// token count it writes in a response: the estimate of a text with a number
// in it depends on how many digits the number has, not on which.
func TestEstimateByDigitCount(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 34))
	number := func(d int) string {
		var b strings.Builder
		for range d {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		return b.String()
	}
	for range 5000 {
		a, b, d := randomText(r), randomText(r), 1+r.IntN(12)
		x, y := number(d), number(d)
		if ex, ey := CountTokens(a+x+b), CountTokens(a+y+b); ex != ey {
			t.Fatalf("%q: %d tokens with %s, %d with %s", a+"#"+b, ex, x, ey, y)
		}
	}
}

// TestRunePages checks the cached cost of every rune against runeCost and
// wordLike, and that of invalid bytes, which the cache leaves out.
func TestRunePages(t *testing.T) {
	for r := rune(utf8.RuneSelf); r <= utf8.MaxRune; r++ {
		size := utf8.RuneLen(r)
		if size < 0 {
			continue
		}
		cost, word := runeInfo(r, size)
		if cost != runeCost(r, size) || word != wordLike(r) {
			t.Fatalf("%U: cached %d, %v; want %d, %v", r, cost, word, runeCost(r, size), wordLike(r))
		}
	}
	if cost, word := runeInfo(utf8.RuneError, 1); cost != runeCost(utf8.RuneError, 1) || word {
		t.Errorf("an invalid byte: %d, %v", cost, word)
	}
}

// TestEstimatorConcurrent estimates from many goroutines at once (run
// with -race): the first use builds the state table.
func TestEstimatorConcurrent(t *testing.T) {
	texts := make([]string, 64)
	r := rand.New(rand.NewPCG(1, 1))
	for i := range texts {
		texts[i] = randomText(r)
	}
	want := make([]int, len(texts))
	for i, s := range texts {
		want[i] = CountTokens(s)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i, s := range texts {
				if got := CountTokens(s); got != want[i] {
					t.Errorf("goroutine %d: %q: %d, want %d", g, s, got, want[i])
				}
			}
		})
	}
	wg.Wait()
}

// TestHanRange checks that every rune scanMixed takes for a Han letter
// without reading its page is one: costHan, word-like.
func TestHanRange(t *testing.T) {
	for r := rune(hanFirst); r <= hanLast; r++ {
		if c, w := runeCost(r, utf8.RuneLen(r)), wordLike(r); c != costHan || !w {
			t.Fatalf("U+%04X: cost %d, word-like %v; want %d, true", r, c, w, costHan)
		}
	}
}

// response is the JSON of a response of n results of random texts, as
// encoding/json writes it.
func response(r *rand.Rand, n int) []byte {
	type result struct {
		ID      string   `json:"id"`
		Title   string   `json:"title"`
		Content string   `json:"content"`
		Score   float64  `json:"score"`
		Tags    []string `json:"tags"`
	}
	results := make([]result, n)
	for i := range results {
		results[i] = result{fmt.Sprintf("note-%06d", i), randomText(r), longText(r, 300), r.Float64(), []string{randomText(r), "go"}}
	}
	b, err := json.Marshal(map[string]any{"results": results, "pagination": map[string]any{"total": n, "hasMore": false}})
	if err != nil {
		panic(err)
	}
	return b
}
