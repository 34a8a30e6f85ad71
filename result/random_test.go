package result

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/deeptest"
)

// randomDoc writes a random JSON value of about size bytes.
func randomDoc(r *rand.Rand, size, depth int) any {
	switch k := r.IntN(10); {
	case depth > 6 || size < 20 || k < 2:
		switch r.IntN(4) {
		case 0:
			return r.IntN(1000)
		case 1:
			return nil
		case 2:
			return r.IntN(2) == 0
		}
		words := []string{"alpha", "é", "line\n", "\t", "\"q\"", "日本", "😀", "a/b~c", " "}
		var b strings.Builder
		for b.Len() < size {
			b.WriteString(words[r.IntN(len(words))])
		}
		return b.String()
	case k < 6:
		n := r.IntN(20) + 1
		if r.IntN(3) == 0 {
			n = r.IntN(2000) + 1
		}
		out := make([]any, n)
		for i := range out {
			out[i] = randomDoc(r, size/n, depth+1)
		}
		return out
	default:
		n := r.IntN(10) + 1
		if r.IntN(4) == 0 {
			n = r.IntN(500) + 1
		}
		out := map[string]any{}
		for i := range n {
			out[fmt.Sprintf("k%d/%s", i, []string{"", "~", "é", "x y"}[r.IntN(4)])] = randomDoc(r, size/n, depth+1)
		}
		return out
	}
}

// TestWalkRandom walks random documents at random budgets.
func TestWalkRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n, size := deeptest.Size(12, 400), 200_000
	if raceEnabled {
		n, size = deeptest.Size(5, 400), deeptest.Size(50_000, 200_000)
	}
	for i := range n {
		doc := marshal(randomDoc(r, r.IntN(size)+100, 0))
		budget := bounded.Budget{MaxChars: MinChars + r.IntN(20_000), Margin: 1}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			b := New(NewMemory(Quota{}), Options{})
			got, reads, bd := walk(t, b, budget, Call{Tool: "t", Principal: "p"}, JSON(doc), doc)
			if bd.Report != nil && !bytes.Equal(got, doc) {
				t.Fatalf("budget %d: reassembled after %d reads differs:\ngot  %.300s\nwant %.300s", budget.LimitChars(), reads, got, doc)
			}
		})
	}
}
