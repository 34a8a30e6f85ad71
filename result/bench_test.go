package result

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
)

// doc5MB is a 5 MB JSON result: records of an API listing.
func doc5MB() []byte {
	type rec struct {
		ID     int      `json:"id"`
		Name   string   `json:"name"`
		Email  string   `json:"email"`
		Body   string   `json:"body"`
		Tags   []string `json:"tags"`
		Score  float64  `json:"score"`
		Active bool     `json:"active"`
	}
	var rs []rec
	for i := 0; ; i++ {
		rs = append(rs, rec{i, fmt.Sprintf("user %d", i), fmt.Sprintf("u%d@example.com", i),
			fmt.Sprintf("some text about record %d with a few words in it", i), []string{"a", "bb"}, float64(i) / 3, i%2 == 0})
		if i%1000 == 0 {
			if b := marshal(rs); len(b) >= 5<<20 {
				return b
			}
		}
	}
}

// BenchmarkBound5MB bounds a 5 MB JSON result to the default budget,
// against json.Unmarshal of it into any: the figure of BENCHMARKS.md.
func BenchmarkBound5MB(b *testing.B) {
	doc := doc5MB()
	ctx := context.Background()
	call := Call{Tool: "list", Principal: "p"}
	b.Run("unmarshal", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		for b.Loop() {
			var v any
			if err := json.Unmarshal(doc, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bound", func(b *testing.B) {
		bd := New(nil, Options{})
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := bd.Bound(ctx, bounded.Budget{}, call, JSON(doc)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bound+memory", func(b *testing.B) {
		bd := New(NewMemory(Quota{Total: 1 << 40, PerPrincipal: 1 << 40}), Options{})
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := bd.Bound(ctx, bounded.Budget{}, call, JSON(doc)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkWithinBudget bounds a result the default budget holds: a size
// check and a token count, nothing parsed.
func BenchmarkWithinBudget(b *testing.B) {
	doc := marshal(records(100, 1))
	bd := New(NewMemory(Quota{}), Options{})
	r := Result{Structured: doc, Content: []Block{{Type: TypeText, Text: string(doc)}}}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if out, err := bd.Bound(context.Background(), bounded.Budget{}, Call{}, r); err != nil || out.Report != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBound5MBPaired alternates json.Unmarshal and Bound in every
// iteration and reports Bound's time over Unmarshal's.
func BenchmarkBound5MBPaired(b *testing.B) {
	doc := doc5MB()
	bd := New(nil, Options{})
	ctx := context.Background()
	var tu, tb time.Duration
	for b.Loop() {
		start := time.Now()
		var v any
		if err := json.Unmarshal(doc, &v); err != nil {
			b.Fatal(err)
		}
		tu += time.Since(start)
		start = time.Now()
		if _, err := bd.Bound(ctx, bounded.Budget{}, Call{Tool: "list", Principal: "p"}, JSON(doc)); err != nil {
			b.Fatal(err)
		}
		tb += time.Since(start)
	}
	b.ReportMetric(float64(tb)/float64(tu), "bound/unmarshal")
	b.ReportMetric(float64(len(doc)), "doc-bytes")
}
