package tokenizer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
)

// benchPage is a page of n real results (the JSON samples' results,
// repeated): notes, windows of notes, entities, runs, code chunks.
func benchPage(b *testing.B, n int) bounded.FitInput[json.RawMessage] {
	items := testItems(b)
	page := make([]json.RawMessage, n)
	for i := range page {
		page[i] = items[i%len(items)]
	}
	return fitInput(page)
}

// BenchmarkFitExactVsEstimator runs Fit under the Claude Code budget with
// the exact o200k_base counter as its Tokenizer and with the Estimator,
// alternately, so that both see the same load on a shared machine, and
// reports the ratio of their times as exact/estimator. With 10 results
// nothing is cut; 100 and 1,000 results are cut to the budget's 45,000
// characters.
func BenchmarkFitExactVsEstimator(b *testing.B) {
	cs := mustCounters(b)
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			in := benchPage(b, n)
			est := bounded.ClaudeCode()
			est.Logger = quiet
			exact := est
			exact.Tokenizer = cs[0]
			var tExact, tEst time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := bounded.Fit(exact, in); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := bounded.Fit(est, in); err != nil {
					b.Fatal(err)
				}
				tExact += t1.Sub(t0)
				tEst += time.Since(t1)
			}
			b.ReportMetric(float64(tExact)/float64(tEst), "exact/estimator")
			b.ReportMetric(float64(tExact.Microseconds())/float64(b.N), "µs-exact/op")
			b.ReportMetric(float64(tEst.Microseconds())/float64(b.N), "µs-estimator/op")
		})
	}
}

// BenchmarkCountTokens measures the exact counters and the Estimator on
// the JSON samples.
func BenchmarkCountTokens(b *testing.B) {
	var all []byte
	for _, s := range testSamples(b) {
		if s.kind == "JSON responses" {
			all = append(all, s.text...)
		}
	}
	text := string(all)
	for _, c := range mustCounters(b) {
		b.Run(string(c.Encoding()), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				c.CountTokens(text)
			}
		})
	}
	b.Run("estimator", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			bounded.Estimator{}.CountTokens(text)
		}
	})
}

// BenchmarkFitExactVsCountOnce runs Fit with the exact o200k_base counter
// under a token limit that keeps about 20 results, and one count of the
// response it writes, alternately, and reports fit/count: what holding
// the limit exactly costs against counting the answer once. The limit
// binds whatever the number offered, so the ratio should not grow with it.
func BenchmarkFitExactVsCountOnce(b *testing.B) {
	cs := mustCounters(b)
	for _, n := range []int{30, 100, 1000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			in := benchPage(b, n)
			head, err := json.Marshal(in.Page.Items[:20])
			if err != nil {
				b.Fatal(err)
			}
			tokens, err := cs[0].Count(context.Background(), string(head))
			if err != nil {
				b.Fatal(err)
			}
			budget := bounded.Budget{MaxChars: 10_000_000, MaxTokens: tokens + 300, Margin: 1, Tokenizer: cs[0], Logger: quiet}
			fd, err := bounded.Fit(budget, in)
			if err != nil {
				b.Fatal(err)
			}
			out := string(fd.JSON)
			var tFit, tCount time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := bounded.Fit(budget, in); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := cs[0].Count(context.Background(), out); err != nil {
					b.Fatal(err)
				}
				tFit += t1.Sub(t0)
				tCount += time.Since(t1)
			}
			b.ReportMetric(float64(fd.Kept), "kept")
			b.ReportMetric(float64(tFit)/float64(tCount), "fit/count")
		})
	}
}
