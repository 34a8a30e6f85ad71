package bounded

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// benchDoc is a realistic search result: an id, a title, a path, about 300
// characters of content, a score and a few tags.
type benchDoc struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Path    string   `json:"path"`
	Content string   `json:"content"`
	Score   float64  `json:"score"`
	Tags    []string `json:"tags"`
}

func benchDocs(n int) []benchDoc {
	words := strings.Fields("the quick brown fox jumps over the lazy dog while an agent pages through search results and budgets its context window carefully")
	docs := make([]benchDoc, n)
	for i := range docs {
		var b strings.Builder
		for j := 0; b.Len() < 300; j++ {
			b.WriteString(words[(i+j)%len(words)])
			b.WriteByte(' ')
		}
		docs[i] = benchDoc{
			ID:      fmt.Sprintf("note-%06d", i),
			Title:   fmt.Sprintf("Design note %d: %s %s", i, words[i%len(words)], words[(i+3)%len(words)]),
			Path:    fmt.Sprintf("vault/projects/area-%02d/note-%06d.md", i%17, i),
			Content: b.String(),
			Score:   1 - float64(i)/float64(n+1),
			Tags:    []string{"go", words[i%len(words)], "agents"},
		}
	}
	return docs
}

var benchSizes = []int{10, 100, 1000}

// benchInput is a page of n docs, its call, and a budget large enough that
// nothing is cut, so that Fit keeps exactly the items json.Marshal encodes.
func benchInput(n int) ([]benchDoc, FitInput[benchDoc], Budget) {
	docs := benchDocs(n)
	req := Request{Limit: n}
	in := FitInput[benchDoc]{
		Page: Paged[benchDoc]{Items: docs, Page: req.Info(5*n, n)},
		Call: Call{Tool: "search_knowledge", Args: Args{{"query", "auth"}}, Paging: ByPage, DefaultLimit: n},
	}
	return docs, in, Budget{MaxChars: 10_000_000}
}

// BenchmarkFit fits a page into a budget large enough that nothing is cut:
// it encodes the items BenchmarkMarshal does, plus the envelope (pagination,
// truncation report, hint, next call).
func BenchmarkFit(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			_, in, budget := benchInput(n)
			b.ReportAllocs()
			for b.Loop() {
				f, err := Fit(budget, in)
				if err != nil || f.Kept != n {
					b.Fatalf("Fit: kept %d of %d, %v", f.Kept, n, err)
				}
			}
		})
	}
}

// BenchmarkMarshal is the baseline: json.Marshal of the same items.
func BenchmarkMarshal(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			docs, _, _ := benchInput(n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := json.Marshal(docs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFitVsMarshal runs Fit and json.Marshal of the same items in a
// rotating order, so that all see the same load on a shared machine, and
// reports the ratio of their times as fit/marshal: Fit with the default
// budget, whose tokens the Estimator counts. It runs Fit with the same
// budget estimating tokens at a flat DefaultCharsPerToken too, and reports
// that ratio as flat/marshal.
func BenchmarkFitVsMarshal(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			docs, in, budget := benchInput(n)
			fitVsMarshal(b, docs, in, budget)
		})
	}
}

// fitVsMarshal reports fit/marshal and flat/marshal for in, whose items
// are docs: Fit with budget and with budget at a flat DefaultCharsPerToken,
// against json.Marshal(docs), run by rotating.
func fitVsMarshal[T any](b *testing.B, docs []T, in FitInput[T], budget Budget) {
	flat := budget
	flat.CharsPerToken = DefaultCharsPerToken
	took := rotating(b,
		func() error { _, err := Fit(budget, in); return err },
		func() error { _, err := json.Marshal(docs); return err },
		func() error { _, err := Fit(flat, in); return err },
	)
	b.ReportMetric(float64(took[0])/float64(took[1]), "fit/marshal")
	b.ReportMetric(float64(took[2])/float64(took[1]), "flat/marshal")
}

// BenchmarkFitEstimatorVsFlat runs Fit with the default budget, whose
// tokens the Estimator counts, and with the same budget estimating tokens
// at a flat DefaultCharsPerToken (no read of the items beyond their
// encoding), in a rotating order, and reports the ratio of their times as
// estimator/flat: the cost of holding the token limit on any content.
func BenchmarkFitEstimatorVsFlat(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			_, in, budget := benchInput(n)
			flat := budget
			flat.CharsPerToken = DefaultCharsPerToken
			took := rotating(b,
				func() error { _, err := Fit(budget, in); return err },
				func() error { _, err := Fit(flat, in); return err },
			)
			b.ReportMetric(float64(took[0])/float64(took[1]), "estimator/flat")
		})
	}
}

// benchDocDeclined is benchDoc with a map field, always empty and omitted:
// the same JSON, but a type Fit's compiled encoder declines, so that Fit
// encodes it with encoding/json.
type benchDocDeclined struct {
	ID      string         `json:"id"`
	Title   string         `json:"title"`
	Path    string         `json:"path"`
	Content string         `json:"content"`
	Score   float64        `json:"score"`
	Tags    []string       `json:"tags"`
	Extra   map[string]int `json:"extra,omitempty"`
}

// BenchmarkFitDeclinedVsMarshal is BenchmarkFitVsMarshal for items of a
// type the compiled encoder declines (encoding/json encodes them in Fit
// too): fit/marshal with the default budget, flat/marshal with a flat
// DefaultCharsPerToken, in a rotating order.
func BenchmarkFitDeclinedVsMarshal(b *testing.B) {
	if fastEncoderFor(reflect.TypeFor[benchDocDeclined]()) != nil {
		b.Fatal("benchDocDeclined has a compiled encoder")
	}
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			src, _, budget := benchInput(n)
			docs := make([]benchDocDeclined, len(src))
			for i, d := range src {
				docs[i] = benchDocDeclined{d.ID, d.Title, d.Path, d.Content, d.Score, d.Tags, nil}
			}
			in := FitInput[benchDocDeclined]{
				Page: Paged[benchDocDeclined]{Items: docs, Page: Request{Limit: n}.Info(5*n, n)},
				Call: Call{Tool: "search_knowledge", Args: Args{{"query", "auth"}}, Paging: ByPage, DefaultLimit: n},
			}
			fitVsMarshal(b, docs, in, budget)
		})
	}
}

// rotating runs each of run once an iteration of b's loop, in a rotating
// order, so that each follows each of the others as often: what one leaves
// behind (garbage to collect, caches filled) is charged to all alike. It
// returns the time each took in all.
func rotating(b *testing.B, run ...func() error) []time.Duration {
	took := make([]time.Duration, len(run))
	for i := 0; b.Loop(); i++ {
		for j := range run {
			k := (i + j) % len(run)
			t0 := time.Now()
			if err := run[k](); err != nil {
				b.Fatal(err)
			}
			took[k] += time.Since(t0)
		}
	}
	return took
}
