package bounded

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/boundedkit/bounded/driver"
)

// BenchmarkFitCutVsMarshalKept fits 10, 100 and 1,000 items of each
// fixture into a token budget that keeps about 28 of them (8 of 10), and
// reports the time of Fit over that of json.Marshal of the items it keeps
// (fit/marshalKept, and min-fit/marshalKept for the fastest call of each):
// what a cut response costs against encoding only what it holds, which
// should not grow with the items offered.
func BenchmarkFitCutVsMarshalKept(b *testing.B) {
	type fixture struct {
		name string
		run  func(b *testing.B, n int)
	}
	for _, fx := range []fixture{
		{"ascii", func(b *testing.B, n int) { cutVsMarshalKept(b, benchDocs(n)) }},
		{"markdown", func(b *testing.B, n int) { cutVsMarshalKept(b, benchNotes(n)) }},
		{"code", func(b *testing.B, n int) { cutVsMarshalKept(b, benchCode(b, n)) }},
		{"json", func(b *testing.B, n int) { cutVsMarshalKept(b, benchRuns(n)) }},
	} {
		for _, n := range []int{10, 100, 1000} {
			b.Run(fmt.Sprintf("%s/n=%d", fx.name, n), func(b *testing.B) { fx.run(b, n) })
		}
	}
}

// cutVsMarshalKept fits items under a token limit that holds about 28 of
// them (measured on the first 28, or all but 2), and compares with
// json.Marshal of those kept.
func cutVsMarshalKept[T any](b *testing.B, items []T) {
	n := len(items)
	in := FitInput[T]{
		Page: Paged[T]{Items: items, Page: pageInfo(driver.Request{Limit: n}, 5*n, n)},
		Call: Call{Tool: "search_knowledge", Args: Args{{"query", "auth"}}, Paging: ByPage, DefaultLimit: n},
	}
	head, err := json.Marshal(items[:min(28, n-2)])
	if err != nil {
		b.Fatal(err)
	}
	budget := Budget{MaxChars: 10_000_000, MaxTokens: Estimator{}.CountTokens(string(head)) + 300, Margin: 1}
	fd, err := Fit(budget, in)
	if err != nil {
		b.Fatal(err)
	}
	kept := items[:fd.Kept]
	took, fastest := rotatingFastest(b,
		func() error { _, err := Fit(budget, in); return err },
		func() error { _, err := json.Marshal(kept); return err },
	)
	b.ReportMetric(float64(fd.Kept), "kept")
	b.ReportMetric(float64(took[0])/float64(took[1]), "fit/marshalKept")
	b.ReportMetric(float64(fastest[0])/float64(fastest[1]), "min-fit/marshalKept")
}
