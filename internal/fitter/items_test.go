package fitter

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded/internal/estimate"
	"github.com/boundedkit/bounded/internal/jsonenc"
)

// tricky returns a string full of what a scanner of JSON could take for
// the end of a value: quotes, backslashes, brackets, commas, escapes and
// non-ASCII characters.
func tricky(r *rand.Rand) string {
	pieces := []string{`","`, `"`, `\`, `\\`, `\"`, `\\"`, `{`, `}`, `[`, `]`, `,`, `},{`, `],[`, ":", "é", "日本", "\n", "\x01", "\xff", " ", "abc", "\u2028"}
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// values returns n values of several JSON kinds, with tricky strings.
func values(r *rand.Rand, n int) []any {
	vs := make([]any, n)
	for i := range vs {
		switch r.IntN(4) {
		case 0:
			vs[i] = tricky(r)
		case 1:
			vs[i] = []any{tricky(r), 1.5, nil, []string{tricky(r)}}
		case 2:
			vs[i] = map[string]any{tricky(r): map[string]any{"x": tricky(r)}}
		default:
			vs[i] = i
		}
	}
	return vs
}

// reference encodes vs one at a time after Open, each followed by a comma,
// and returns the bytes and the offset of each comma.
func reference(t *testing.T, vs []any) ([]byte, []int) {
	t.Helper()
	ref := []byte(Open)
	var ends []int
	for _, v := range vs {
		b, err := jsonenc.Marshal(&v)
		if err != nil {
			t.Fatal(err)
		}
		ref = append(ref, b...)
		ends = append(ends, len(ref))
		ref = append(ref, ',')
	}
	return ref, ends
}

// TestSplitValues checks that splitValues finds the commas between values
// encoding/json wrote in one slice, whatever their strings hold.
func TestSplitValues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		vs := values(r, 1+r.IntN(20))
		ref, want := reference(t, vs)
		b, err := jsonenc.Marshal(vs)
		if err != nil {
			t.Fatal(err)
		}
		inner := b[1 : len(b)-1]
		if string(inner)+"," != string(ref[len(Open):]) {
			t.Fatalf("round %d: the slice's items are not the items one at a time", round)
		}
		got := make([]int, len(vs)-1)
		splitValues(inner, len(Open), got)
		if fmt.Sprint(got) != fmt.Sprint(want[:len(vs)-1]) {
			t.Errorf("round %d: %s: commas at %v, want %v", round, inner, got, want[:len(vs)-1])
		}
	}
}

// TestItems encodes values in batches and one at a time, as the root's
// Fit does, and checks every measure of every prefix against the values
// encoded one at a time: bytes, item ends, characters and estimates.
func TestItems(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var it Items
	for round := range 100 {
		vs := values(r, 1+r.IntN(40))
		est := round%2 == 0
		it.Reset(len(vs), est, 1<<30, 1<<30)
		ref, ends := reference(t, vs)
		for it.More() {
			c := it.BatchSize()
			batch := vs[it.M : it.M+c]
			var err error
			if c == 1 && r.IntN(2) == 0 {
				err = it.EncodeOne(&batch[0])
			} else {
				err = it.EncodeBatch(&batch, c)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		it.Settle()
		if it.M != len(vs) {
			t.Fatalf("round %d: %d of %d values encoded under a ceiling that holds them all", round, it.M, len(vs))
		}
		for k := it.M; k >= 0; k-- { // all M first, as Fit asks
			want := len(Open)
			runes := 0
			if k > 0 {
				want = ends[k-1]
				runes = utf8.RuneCount(ref[len(Open):want])
			}
			if got := it.Prefix(k); string(got) != string(ref[:want]) {
				t.Errorf("round %d: prefix of %d items %s, want %s", round, k, got, ref[:want])
			}
			if got := it.ItemRunes(k); got != runes {
				t.Errorf("round %d: runes of %d items %d, want %d", round, k, got, runes)
			}
			if est {
				var e estimate.Estimate
				e.AddBytes(ref[:want])
				if got := it.Snap(k); got != e {
					t.Errorf("round %d: estimate of %d items %+v, want %+v", round, k, got, e)
				}
			}
		}
		for i := range vs {
			start := len(Open)
			if i > 0 {
				start = ends[i-1] + 1
			}
			if got := it.Item(i); string(got) != string(ref[start:ends[i]]) {
				t.Errorf("round %d: item %d %s, want %s", round, i, got, ref[start:ends[i]])
			}
		}
		it.Release()
	}
}

// The ways Items are encoded: by the compiled encoder one at a time, by
// batches through encoding/json, or one at a time through encoding/json.
const (
	encodeCompiled = iota
	encodeBatches
	encodeEach
)

// encodeStrings encodes vs into it the way mode says, as long as it asks
// for more (fe is the compiled encoder of string), then settles it.
func encodeStrings(t *testing.T, it *Items, vs []string, fe jsonenc.Func, mode int) {
	t.Helper()
	switch mode {
	case encodeCompiled:
		it.StartFast()
		for it.More() {
			if !it.EncodeFast(fe, reflect.ValueOf(&vs[it.M]).Elem()) {
				t.Fatal("the compiled encoder refused a string")
			}
		}
	case encodeBatches:
		for it.More() {
			c := it.BatchSize()
			batch := vs[it.M : it.M+c]
			if err := it.EncodeBatch(&batch, c); err != nil {
				t.Fatal(err)
			}
		}
	default:
		for it.More() {
			if err := it.EncodeOne(&vs[it.M]); err != nil {
				t.Fatal(err)
			}
		}
	}
	it.Settle()
}

// TestItemsStopAtCeiling checks that encoding stops after the first item
// that takes the items over the ceiling, in batches or by the compiled
// encoder, and that Over and LargestK say where.
func TestItemsStopAtCeiling(t *testing.T) {
	vs := make([]string, 50)
	for i := range vs {
		vs[i] = strings.Repeat("x", 8) // "xxxxxxxx", 10 characters
	}
	const ceiling = 105 // 9 items and their commas take 98, 10 take 109
	fe := jsonenc.For(reflect.TypeFor[string]())
	if fe == nil {
		t.Fatal("no compiled encoder for string")
	}
	for _, fast := range []bool{false, true} {
		var it Items
		it.Reset(len(vs), false, ceiling, 1<<30)
		mode := encodeBatches
		if fast {
			mode = encodeCompiled
		}
		encodeStrings(t, &it, vs, fe, mode)
		if it.M != 10 || it.Over(9) || !it.Over(10) {
			t.Errorf("fast %v: %d items encoded, Over(9) %v, Over(10) %v; want 10, false, true", fast, it.M, it.Over(9), it.Over(10))
		}
		if got := it.LargestK(it.M, 98); got != 9 {
			t.Errorf("fast %v: LargestK(%d, 98) = %d, want 9", fast, it.M, got)
		}
		if got := it.LargestK(it.M, 9); got != 0 {
			t.Errorf("fast %v: LargestK(%d, 9) = %d, want 0", fast, it.M, got)
		}
	}
}

// TestItemsStopAtTokenLimit checks that with the Estimator encoding stops
// soon after the items are estimated over the token limit, and that
// settling cuts the items back to the first that takes them over it.
func TestItemsStopAtTokenLimit(t *testing.T) {
	vs := make([]string, 500)
	for i := range vs {
		vs[i] = strings.Repeat("word ", 20)
	}
	var it Items
	it.Reset(len(vs), true, 1<<30, 300)
	encodeStrings(t, &it, vs, nil, encodeBatches)
	if it.M == len(vs) || !it.TokensOverAt(it.M) || it.TokensOverAt(it.M-1) {
		t.Errorf("%d of %d items encoded; want encoding stopped after the first over 300 tokens (over at M %v, at M-1 %v)",
			it.M, len(vs), it.TokensOverAt(it.M), it.TokensOverAt(it.M-1))
	}
	if !it.OverAt(it.M) || it.Over(it.M) {
		t.Errorf("OverAt(%d) %v, Over(%d) %v: want over by tokens, not characters", it.M, it.OverAt(it.M), it.M, it.Over(it.M))
	}
}

// TestSpaceAt checks that a space goes between a notice and what follows
// it only when both are there.
func TestSpaceAt(t *testing.T) {
	for _, c := range []struct {
		b    string
		i    int
		want string
	}{
		{"", 0, ""},
		{"Hint.", 0, "Hint."},
		{"Notice.", 7, "Notice."},
		{"Notice.Hint.", 7, "Notice. Hint."},
	} {
		if got := string(SpaceAt([]byte(c.b), c.i)); got != c.want {
			t.Errorf("SpaceAt(%q, %d) = %q, want %q", c.b, c.i, got, c.want)
		}
	}
}

// texts returns n strings of 1 to 900 bytes: words, non-ASCII text, and
// what JSON escapes, so that their items take from a few to several
// hundred tokens, and their encodings cross many readings.
func texts(r *rand.Rand, n int) []string {
	pieces := []string{"word ", "Wörter ", "日本語の", "🙂", "\t", "\n", `"`, `\`, "\x01", "  ", "x", "1234 ", "<a>", ", ", "fin."}
	vs := make([]string, n)
	for i := range vs {
		var b strings.Builder
		for size := 1 + r.IntN(900); b.Len() < size; {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		vs[i] = b.String()
	}
	return vs
}

// TestItemsCutAtEveryItem encodes the same strings under a token limit
// that falls in each item in turn, by the compiled encoder, in batches
// and one at a time, and checks that the items encoded, and the answers
// the search for the cut gets from them (LargestSettled, LargestK, Snap,
// ItemRunes), are those of the items read whole from the start: the
// readings near the limit, and the searches that begin at their marks,
// change how often items are read, never what is found.
func TestItemsCutAtEveryItem(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	vs := texts(r, 60)
	anys := make([]any, len(vs))
	for i, v := range vs {
		anys[i] = v
	}
	ref, ends := reference(t, anys)
	// The estimate and runes of Open and the first k items, read whole.
	want := make([]estimate.Estimate, len(vs)+1)
	runes := make([]int, len(vs)+1)
	for k := range want {
		end := len(Open)
		if k > 0 {
			end = ends[k-1]
		}
		want[k].AddBytes(ref[:end])
		runes[k] = utf8.RuneCount(ref[len(Open):end])
	}
	fe := jsonenc.For(reflect.TypeFor[string]())
	if fe == nil {
		t.Fatal("no compiled encoder for string")
	}
	var it Items
	for cut := 1; cut < len(vs); cut++ {
		// Limits that item cut just passes, and that it just fits.
		for _, limit := range []int{want[cut].Tokens() - 1, want[cut].Tokens()} {
			m := len(vs) // the first k over the limit, as one at a time
			for k := 1; k < len(vs); k++ {
				if want[k].Tokens() > limit {
					m = k
					break
				}
			}
			for _, mode := range []int{encodeCompiled, encodeBatches, encodeEach} {
				// Each search on items just encoded, so that it starts from
				// the marks of the readings alone.
				for q := range 5 {
					it.Reset(len(vs), true, 1<<30, limit)
					encodeStrings(t, &it, vs, fe, mode)
					if it.M != m {
						t.Fatalf("limit %d, mode %d: %d items encoded, want %d", limit, mode, it.M, m)
					}
					hi := it.M - r.IntN(min(it.M, 3))
					j := r.IntN(hi + 1)
					switch q {
					case 0, 1, 2:
						// Just under, at and just over the estimate of j items.
						milli := want[j].Settled() + int64(q-1)
						wantK := 0
						for k := 1; k <= hi; k++ {
							if want[k].Settled() <= milli {
								wantK = k
							}
						}
						if got := it.LargestSettled(hi, milli); got != wantK {
							t.Errorf("limit %d, mode %d: LargestSettled(%d, %d) = %d, want %d", limit, mode, hi, milli, got, wantK)
						}
					case 3:
						// Items take 3 runes at least: j fit, j+1 do not.
						if got := it.LargestK(hi, runes[j]+r.IntN(2)); got != j {
							t.Errorf("limit %d, mode %d: LargestK(%d, runes of %d items) = %d", limit, mode, hi, j, got)
						}
					default:
						// Every prefix, from the last.
						for k := it.M; k >= 0; k-- {
							if got := it.Snap(k); got != want[k] {
								t.Fatalf("limit %d, mode %d: estimate of %d items %+v, want %+v", limit, mode, k, got, want[k])
							}
							if got := it.ItemRunes(k); got != runes[k] {
								t.Fatalf("limit %d, mode %d: runes of %d items %d, want %d", limit, mode, k, got, runes[k])
							}
						}
					}
				}
			}
		}
	}
}
