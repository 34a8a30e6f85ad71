package bunpage_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/bunpage"
)

// walkRows and walkLimit are the table and the page of BenchmarkWalk.
const walkRows, walkLimit = 100_000, 100

// BenchmarkWalk follows next through 100,000 events, newest first, in
// pages of 100 answered by bounded.Respond over bunpage.By, as an agent
// that does nothing but follow next: by the zero Paging, which continues
// by cursor ("default"), and by bounded.ByOffset ("offset"), in turns. It
// reports each walk's median time and offset/default, the ratio of the
// medians.
func BenchmarkWalk(b *testing.B) {
	ctx := context.Background()
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			db := benchDB(b, e, walkRows)
			src, err := bunpage.By[event](db, db.NewSelect().Model((*event)(nil)), "-created")
			if err != nil {
				b.Fatal(err)
			}
			opts := bounded.Options[event]{Limits: bounded.Limits{Default: walkLimit, Max: walkLimit}, Budget: bounded.Budget{MaxChars: 1 << 20}}
			walks := []struct {
				name   string
				paging bounded.Paging
			}{{"default", 0}, {"offset", bounded.ByOffset}}
			walk := func(paging bounded.Paging) (int, error) {
				call := bounded.Call{Tool: "list_events", Paging: paging, DefaultLimit: walkLimit}
				var p bounded.Page
				for n := 0; ; {
					out, err := bounded.Respond(ctx, src, call, p, opts)
					if err != nil {
						return n, err
					}
					n += out.Page.Returned
					if out.Next == nil {
						return n, nil
					}
					p = bounded.Page{}
					if v, ok := out.Next.Get("cursor"); ok {
						p.Cursor = v.(string)
					} else if v, ok := out.Next.Get("offset"); ok {
						p.Offset = v.(int)
					}
				}
			}
			times := make([][]time.Duration, len(walks))
			rng := rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				for _, i := range rng.Perm(len(walks)) {
					start := time.Now()
					n, err := walk(walks[i].paging)
					if err != nil || n != walkRows {
						b.Fatalf("%s: walked %d of %d events: %v", walks[i].name, n, walkRows, err)
					}
					times[i] = append(times[i], time.Since(start))
				}
			}
			med := make([]float64, len(walks))
			for i, w := range walks {
				med[i] = median(times[i])
				b.ReportMetric(med[i]/1e6, w.name+"-ms")
			}
			b.ReportMetric(med[0], "ns/op")
			b.ReportMetric(med[1]/med[0], fmt.Sprintf("%s/%s", walks[1].name, walks[0].name))
		})
	}
}
