package sqlresult_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/result"
	"github.com/boundedkit/bounded/result/sqlresult"
)

// million is a JSON array of 1,000,000 small records.
func million() []byte {
	b := []byte{'['}
	for i := range 1_000_000 {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `,"ok":true}`...)
	}
	return append(b, ']')
}

// BenchmarkReadPage reads page 0 and page 19,000 (50 elements from
// offset 950,000) of a stored array of 1,000,000 elements, alternately:
// the figure of BENCHMARKS.md.
func BenchmarkReadPage(b *testing.B) {
	doc := million()
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			ctx := context.Background()
			q := result.Quota{PerPrincipal: 1 << 30, Total: 1 << 30}
			var s *sqlresult.Store
			var err error
			if engine == "sqlite" {
				s, err = sqlresult.OpenSQLite(ctx, filepath.Join(b.TempDir(), "r.db"), q)
			} else {
				s, err = sqlresult.OpenPostgres(ctx, pgSchema(b), q)
			}
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			bd := result.New(s, result.Options{})
			budget := bounded.Budget{}
			start := time.Now()
			out, err := bd.Bound(ctx, budget, result.Call{Tool: "t", Principal: "p"}, result.JSON(doc))
			stored := time.Since(start)
			if err != nil || out.Report.Handle == "" {
				b.Fatalf("Bound: %v %+v", err, out.Report)
			}
			read := func(page int) time.Duration {
				start := time.Now()
				args := result.ReadArgs{Handle: out.Report.Handle, Offset: page * 50, Limit: 50}
				ans, err := bd.Read(ctx, budget, "p", args)
				if err != nil || len(ans.Items) != 50 || ans.Offset != page*50 {
					b.Fatalf("Read: %v, %d items", err, len(ans.Items))
				}
				return time.Since(start)
			}
			var t0, tk time.Duration
			for b.Loop() {
				t0 += read(0)
				tk += read(19_000)
			}
			n := float64(b.N)
			b.ReportMetric(float64(t0.Microseconds())/n/1000, "ms/page0")
			b.ReportMetric(float64(tk.Microseconds())/n/1000, "ms/page19000")
			b.ReportMetric(float64(tk)/float64(t0), "page19000/page0")
			b.ReportMetric(float64(stored.Milliseconds()), "ms/bound+store")
		})
	}
}
