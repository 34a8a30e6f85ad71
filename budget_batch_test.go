package bounded

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded/internal/deeptest"
	"github.com/boundedkit/bounded/internal/estimate"
	"github.com/boundedkit/bounded/internal/jsonenc"
)

// trickyText returns a string full of what a scanner of JSON could take
// for the end of a value: quotes, backslashes before quotes, brackets and
// commas, escapes, and non-ASCII characters.
func trickyText(r *rand.Rand) string {
	pieces := []string{`","`, `"`, `\`, `\\`, `\"`, `\\"`, `{`, `}`, `[`, `]`, `,`, `},{`, `],[`, ":", "é", "日本", "\n", "\x01", "\xff", "<&>", " ", "abc", "\u2028"}
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// arrayItem encodes as a JSON array, as a slice item does.
type arrayItem struct{ parts []string }

func (a arrayItem) MarshalJSON() ([]byte, error) { return json.Marshal(a.parts) }

// checkBatches compares what prepareFit records of the items it encodes
// (in batches by encoding/json, or one at a time by the compiled encoder,
// for the types it compiles) with what encoding/json encoding them one at
// a time gives: the same items
// encoded (up to the first that takes them over the ceiling or the token
// limit), the same
// offsets of each item's end, and the same runes for every prefix.
func checkBatches[T any](t *testing.T, name string, b Budget, items []T) {
	t.Helper()
	in := FitInput[T]{Page: pageOf(items, 0, len(items), len(items)), Call: searchCall}
	f, err := prepareFit(context.Background(), b, in)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	// One at a time, as encoding/json writes each item.
	ref := []byte(resultsOpen)
	ends := []int{}
	cum := []int{0}
	for i := range items {
		if i > 0 && cum[i]+i-1 > f.CharCap {
			break
		}
		if f.Est && i > 0 {
			// Nor past the first item that takes the estimate over the
			// token limit.
			var e estimate.Estimate
			e.AddBytes(ref[:ends[i-1]])
			if e.Tokens() > f.LimitTokens {
				break
			}
		}
		enc, err := jsonenc.Marshal(&items[i])
		if err != nil {
			t.Fatalf("%s: item %d: %v", name, i, err)
		}
		ref = append(ref, enc...)
		ends = append(ends, len(ref))
		ref = append(ref, ',')
		cum = append(cum, cum[i]+utf8.RuneCount(enc))
	}
	if f.M != len(ends) {
		t.Fatalf("%s: %d items encoded, want %d", name, f.M, len(ends))
	}
	if got := f.Prefix(f.M); f.M > 0 && string(got) != string(ref[:ends[f.M-1]]) {
		t.Fatalf("%s: items encoded as %s, want %s", name, got, ref[:ends[f.M-1]])
	}
	for k := f.M; k >= 0; k-- { // all m first, as Fit asks
		if got, want := f.ItemRunes(k), max(0, cum[k]+k-1); got != want {
			t.Errorf("%s: runes of %d items %d, want %d", name, k, got, want)
		}
	}
	for i, want := range ends {
		if got := f.End(i); got != want {
			t.Errorf("%s: item %d ends at %d, want %d", name, i, got, want)
		}
	}
	if !f.Est {
		return
	}
	// The estimate of every prefix, the longest first (as Fit asks for the
	// whole page first), then the others in turn, from a fitter that has
	// counted nothing yet, and from this one.
	g, err := prepareFit(context.Background(), b, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []*fitter{g, f} {
		for _, k := range append([]int{f.M}, rand.Perm(f.M+1)...) {
			prefix := len(resultsOpen)
			if k > 0 {
				prefix = ends[k-1]
			}
			var want estimate.Estimate
			want.AddBytes(ref[:prefix])
			if got := f.Snap(k); got != want {
				t.Errorf("%s: estimate of %d items %+v, want %+v", name, k, got, want)
			}
		}
	}
}

// TestFitBatches checks the batches Fit encodes items in, on items of
// several kinds whose JSON holds everything that could mislead the search
// for their ends, with ceilings from a few items to all of them: 80
// rounds of random items, 200 in the deep run (deeptest).
func TestFitBatches(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for round := range deeptest.Size(80, 200) {
		n := 1 + r.IntN(40)
		var structs []doc
		var strs []string
		var arrays []arrayItem
		var maps []map[string]any
		for i := range n {
			structs = append(structs, doc{ID: i, Title: trickyText(r), Content: strings.Repeat(trickyText(r), r.IntN(20)), Tags: []string{trickyText(r)}})
			strs = append(strs, trickyText(r))
			arrays = append(arrays, arrayItem{[]string{trickyText(r), trickyText(r)}})
			maps = append(maps, map[string]any{trickyText(r): []any{trickyText(r), 1.5, nil, map[string]any{"x": trickyText(r)}}})
		}
		b := Budget{MaxChars: 200 + r.IntN(5000), Margin: 1, Logger: quiet}
		if round%4 == 0 {
			b.MaxChars = 10_000_000
		}
		name := fmt.Sprintf("round %d, %d items, %d characters", round, n, b.MaxChars)
		checkBatches(t, name+", structs", b, structs)
		checkBatches(t, name+", strings", b, strs)
		checkBatches(t, name+", arrays", b, arrays)
		checkBatches(t, name+", maps", b, maps)
		fd, err := Fit(b, FitInput[doc]{Page: pageOf(structs, 0, n, n), Call: searchCall})
		if err != nil {
			if errors.Is(err, ErrInvalidBudget) {
				continue
			}
			t.Fatalf("%s: %v", name, err)
		}
		checkFitted(t, name, b, FitInput[doc]{Page: pageOf(structs, 0, n, n), Call: searchCall}, fd)
	}
}

// TestFitBatchErrors checks that an item encoding/json cannot encode is
// reported by its index wherever it is in a batch, and not at all when
// encoding one item at a time would stop before it: past the first item
// that cannot fit.
func TestFitBatchErrors(t *testing.T) {
	items := make([]float64, 100)
	for i := range items {
		items[i] = float64(i)
	}
	for _, bad := range []int{0, 1, 2, 5, 17, 63, 99} {
		withInf := append([]float64(nil), items...)
		withInf[bad] = math.Inf(1)
		_, err := Fit(Budget{Logger: quiet}, FitInput[float64]{Page: pageOf(withInf, 0, 100, 100)})
		var unsupported *json.UnsupportedValueError
		if !errors.As(err, &unsupported) || !strings.Contains(err.Error(), fmt.Sprintf("result %d:", bad)) {
			t.Errorf("infinity at %d: error %v, want a json.UnsupportedValueError naming result %d", bad, err, bad)
		}
	}
	// Items of 100 characters under a ceiling that holds about 10 of
	// them: the item after the first that takes them over is never
	// encoded one at a time, nor reported.
	long := make([]doc, 40)
	for i := range long {
		long[i] = doc{ID: i, Content: strings.Repeat("x", 100)}
	}
	b := Budget{MaxChars: 1500, Margin: 1, Logger: quiet}
	f, err := prepareFit(context.Background(), b, FitInput[doc]{Page: pageOf(long, 0, 40, 40), Call: searchCall})
	if err != nil {
		t.Fatal(err)
	}
	for bad := f.M + 1; bad < len(long); bad++ {
		withNaN := append([]doc(nil), long...)
		withNaN[bad].Score = math.NaN()
		if _, err := Fit(b, FitInput[doc]{Page: pageOf(withNaN, 0, 40, 40), Call: searchCall}); err != nil {
			t.Errorf("NaN at %d, past the %d items encoded one at a time: %v", bad, f.M, err)
		}
	}
	withNaN := append([]doc(nil), long...)
	withNaN[f.M-1].Score = math.NaN()
	if _, err := Fit(b, FitInput[doc]{Page: pageOf(withNaN, 0, 40, 40), Call: searchCall}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("result %d:", f.M-1)) {
		t.Errorf("NaN at %d, the last item encoded one at a time: error %v", f.M-1, err)
	}
}

// level is a byte type, which encoding/json writes as a number alone but
// as base64 in a slice: Fit encodes such items one at a time, and writes
// them as an array of numbers.
type level uint8

// TestFitByteItems fits pages of byte items.
func TestFitByteItems(t *testing.T) {
	levels := make([]level, 40)
	for i := range levels {
		levels[i] = level(i * 6)
	}
	for _, b := range []Budget{{Logger: quiet}, {MaxChars: 600, Margin: 1, Logger: quiet}} {
		checkBatches(t, "bytes", b, []byte("hello, world: a page of bytes"))
		checkBatches(t, "levels", b, levels)
		fd, err := Fit(b, FitInput[level]{Page: pageOf(levels, 0, 50, 40), Call: searchCall})
		if err != nil {
			t.Fatal(err)
		}
		var env struct{ Results []int }
		if err := json.Unmarshal(fd.JSON, &env); err != nil || len(env.Results) != fd.Kept {
			t.Fatalf("budget %d: %d results kept, decoded %v (%v) from %s", b.MaxChars, fd.Kept, env.Results, err, fd.JSON)
		}
		for i, v := range env.Results {
			if v != int(levels[i]) {
				t.Errorf("budget %d: result %d is %d, want %d", b.MaxChars, i, v, levels[i])
			}
		}
	}
}
