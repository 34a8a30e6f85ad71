package bounded

import (
	"fmt"
	"testing"

	"github.com/boundedkit/bounded/driver"
)

// benchHintCall is the call of the Fit benchmarks: one caller argument,
// pages, a default page size.
var benchHintCall = Call{Tool: "search_knowledge", Args: Args{{"query", "auth"}}, Paging: ByPage, DefaultLimit: 10}

// BenchmarkHint renders hints of a first page, a page cut off a page
// boundary (continued by offset, with a size argument) and a page past the
// end, in each style that writes one.
func BenchmarkHint(b *testing.B) {
	req := driver.Request{Limit: 10}
	infos := []struct {
		name string
		info PageInfo
	}{
		{"first", pageInfo(req, 50, 10)},
		{"cut", pageInfo(req, 5000, 10).Cut(7)},
		{"past", pageInfo(driver.Request{Limit: 25, Offset: 9000}, 1234, 0)},
	}
	for _, in := range infos {
		for _, style := range []HintStyle{HintFull, HintTerse} {
			b.Run(fmt.Sprintf("%s/style=%d", in.name, style), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if benchHintCall.Hint(in.info, style) == "" {
						b.Fatal("no hint")
					}
				}
			})
		}
	}
}

// BenchmarkFitEmpty fits an empty page: the fixed cost of a call.
func BenchmarkFitEmpty(b *testing.B) {
	in := FitInput[benchDoc]{Page: Paged[benchDoc]{Page: pageInfo(driver.Request{Limit: 10}, 0, 0)}, Call: benchHintCall}
	budget := Budget{MaxChars: 10_000, CharsPerToken: DefaultCharsPerToken}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Fit(budget, in); err != nil {
			b.Fatal(err)
		}
	}
}
