// Package adaptertest holds the tests shared by the SQL adapters beyond
// the conformance suite: a randomized differential test against memrepo,
// hostile input through every search method, a 10 MB response body, and
// use inside a caller's transaction. Only the adapters' _test.go files
// import it, as they import benchutil: TestTestSupportStaysInTests fails
// when a package does, when a library package imports an example, or when
// one imports "testing" outside the module's test-support packages.
package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/deeptest"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/google/go-cmp/cmp"
)

// Store is every port of one store.
type Store interface {
	ports.Notes
	ports.Knowledge
	ports.History
	ports.Code
}

// Opener opens a new, empty store for t (cleaned up with t).
type Opener func(t *testing.T) Store

// CursorAtPresence is the go-cmp option of every comparison of pages with
// memrepo's: it compares a page's CursorAt by presence, since go-cmp finds
// two functions equal only when both are nil. What CursorAt returns is
// checked by the conformance suite.
var CursorAtPresence = cmp.Comparer(func(a, b func(int) (string, error)) bool { return (a == nil) == (b == nil) })

// both applies the same call to memrepo and the store under test and
// compares results and errors.
type both struct {
	t    *testing.T
	ref  *memrepo.Store
	got  Store
	name string
}

func (b both) check(call string, want, got any, werr, gerr error) {
	b.t.Helper()
	if (werr == nil) != (gerr == nil) {
		b.t.Errorf("%s: error %v, memrepo %v", call, gerr, werr)
		return
	}
	if werr != nil {
		for _, sentinel := range []error{ports.ErrInvalidQuery, ports.ErrNotFound, ports.ErrInvalidItem, bounded.ErrInvalidPage, bounded.ErrInvalidCursor, bounded.ErrInvalidWindow} {
			if errors.Is(werr, sentinel) != errors.Is(gerr, sentinel) {
				b.t.Errorf("%s: error %v, memrepo %v", call, gerr, werr)
			}
		}
		return
	}
	if d := cmp.Diff(want, got, CursorAtPresence); d != "" {
		b.t.Errorf("%s: differs from memrepo (-memrepo +%s):\n%s", call, b.name, d)
	}
}

var words = []string{"alpha", "Beta", "gamma", "ΔЕЛЬТА", "straße", "naïve", "日本語", "x", "ab", "a_b", "50%", `c:\dir`, "it's", `"q"`, "İstanbul", "ǅemal", "ﬁne", "1st", "٣", "Ⅻ", "e\u0301"}

func randText(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString([]string{" ", "-", "\n", "/", ".", " "}[r.IntN(6)])
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.String()
}

// Load writes the same random data set into ref and got.
func load(t *testing.T, ctx context.Context, r *rand.Rand, ref *memrepo.Store, got Store, nNotes int) (ids []string) {
	t.Helper()
	base := time.Date(2024, 1, 2, 3, 4, 5, 123456789, time.UTC)
	for i := 0; i < nNotes; i++ {
		ids = append(ids, fmt.Sprintf("%s/n%02d", []string{"a", "b", "a/c", "B"}[r.IntN(4)], i))
	}
	ids = append(ids, "solo")
	for i, id := range ids {
		n := ports.Note{
			ID: id, Title: randText(r, 1+r.IntN(3)), Content: randText(r, r.IntN(12)),
			CreatedAt: base.Add(time.Duration(i) * time.Hour),
			UpdatedAt: base.Add(time.Duration(r.IntN(5)) * time.Minute), // ties
		}
		for k := r.IntN(4); k > 0; k-- {
			n.Tags = append(n.Tags, []string{"t1", "t2", "T3", "ü"}[r.IntN(4)])
		}
		for k := r.IntN(6); k > 0; k-- {
			switch r.IntN(4) {
			case 0:
				n.Links = append(n.Links, ports.Link{Target: fmt.Sprintf("https://%s/x", []string{"example.com", "sub.Example.COM", "other.org", "xample.com"}[r.IntN(4)]), External: true, Text: "e"})
			case 1:
				n.Links = append(n.Links, ports.Link{Target: "missing/" + fmt.Sprint(r.IntN(3))})
			default:
				n.Links = append(n.Links, ports.Link{Target: ids[r.IntN(len(ids))], Text: randText(r, 1)})
			}
		}
		for k := r.IntN(3); k > 0; k-- {
			if p := ids[r.IntN(len(ids))]; p != id {
				n.Parents = append(n.Parents, p)
			}
		}
		if r.IntN(5) == 0 {
			n.Parents = append(n.Parents, "ghost")
		}
		put(t, ctx, n, ref, got)
	}
	for i := 0; i < nNotes; i++ {
		e := ports.Entity{Name: randText(r, 1+r.IntN(3)), Type: []string{"person", "Place", "thing"}[r.IntN(3)],
			UpdatedAt: base.Add(time.Duration(r.IntN(4)) * time.Second)}
		for k := r.IntN(3); k > 0; k-- {
			e.Observations = append(e.Observations, randText(r, 2))
		}
		for k := r.IntN(3); k > 0; k-- {
			e.Tags = append(e.Tags, []string{"t1", "t2"}[r.IntN(2)])
		}
		must(t, ref.PutEntity(ctx, e))
		must(t, got.PutEntity(ctx, e))
	}
	for i := 0; i < nNotes; i++ {
		run := ports.Run{ID: fmt.Sprintf("r%02d", r.IntN(nNotes)), EndpointID: []string{"ep1", "ep2"}[r.IntN(2)],
			StartedAt: base.Add(time.Duration(r.IntN(5)) * time.Second), Status: "ok", StatusCode: 200,
			Body: strings.Repeat(randText(r, 3), r.IntN(120))}
		must(t, ref.RecordRun(ctx, run))
		must(t, got.RecordRun(ctx, run))
	}
	var chunks []ports.Chunk
	for i := 0; i < nNotes; i++ {
		start := 1 + r.IntN(5)
		chunks = append(chunks, ports.Chunk{ID: fmt.Sprintf("c%02d", r.IntN(nNotes)), FilePath: []string{"src/a.go", "src/b.go", "SRC/c.go", "lib/d.py"}[r.IntN(4)],
			Language: []string{"go", "python", ""}[r.IntN(3)], StartLine: start, EndLine: start + r.IntN(3), Content: randText(r, 1+r.IntN(6))})
	}
	must(t, ref.PutChunks(ctx, chunks))
	must(t, got.PutChunks(ctx, chunks))
	return ids
}

func put(t *testing.T, ctx context.Context, n ports.Note, ref *memrepo.Store, got Store) {
	t.Helper()
	must(t, ref.PutNote(ctx, n))
	must(t, got.PutNote(ctx, n))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// pages are the pages each read is checked with.
var pages = []bounded.Page{{}, {Limit: 1}, {Limit: 3, Offset: 2}, {Limit: 7, Offset: 5}, {Limit: 100000}, {Offset: 1000}, {Limit: -1}, {Cursor: "x"}}

// Differential loads random data into memrepo and the store, then compares
// every read method over many queries and pages: for three data sets, or
// one with -short or -race. Every method is called with every query and
// with every page; in the default run each page is tried with a share of
// the queries (see crossing), all of them in the deep run.
func Differential(t *testing.T, open Opener) {
	seeds := uint64(3)
	if Race || testing.Short() {
		seeds = 1
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			ctx := context.Background()
			r := rand.New(rand.NewPCG(seed, 42))
			ref, got := memrepo.New(), open(t)
			ids := load(t, ctx, r, ref, got, 30)
			b := both{t: t, ref: ref, got: got, name: "store"}
			compareAll(b, ctx, ids, 0)
			// Delete some notes: links to them become broken.
			for _, id := range ids[:5] {
				b.check("DeleteNote "+id, nil, nil, ref.DeleteNote(ctx, id), got.DeleteNote(ctx, id))
			}
			b.check("DeleteNote missing", nil, nil, ref.DeleteNote(ctx, ids[0]), got.DeleteNote(ctx, ids[0]))
			compareAll(b, ctx, ids, 1)
		})
	}
}

// crossing is how many of the pages × arguments pairs compareAll calls
// in the default run: one in crossing, each argument with one page in
// crossing (and each page with one argument in crossing), a different
// share in each pass. The deep run calls them all.
const crossing = 4

func compareAll(b both, ctx context.Context, ids []string, pass int) {
	b.t.Helper()
	queries := append([]string{"a", "A", "ß", "_", "%", `\`, "'", " ", "e\u0301", "ΔΕΛ", "1", "alpha beta", "x-"}, words...)
	some := append([]string{"missing/0", "ghost", "nope"}, ids...)
	stride := deeptest.Size(crossing, 1)
	for pi, p := range pages {
		ps := fmt.Sprintf("%+v", p)
		// with reports whether the page is tried with the k-th argument of
		// a method.
		with := func(k int) bool { return (pi+k+pass)%stride == 0 }
		for k, f := range []ports.ListFilter{{}, {Tag: "t1"}, {Folder: "a"}, {Tag: "T3", Folder: "a"}, {Folder: "B"}, {Folder: " "}} {
			if !with(k) {
				continue
			}
			w, we := b.ref.ListNotes(ctx, f, p)
			g, ge := b.got.ListNotes(ctx, f, p)
			b.check(fmt.Sprintf("ListNotes(%+v, %s)", f, ps), w, g, we, ge)
		}
		for k, q := range queries {
			if !with(k) {
				continue
			}
			w, we := b.ref.SearchNotes(ctx, q, p)
			g, ge := b.got.SearchNotes(ctx, q, p)
			b.check(fmt.Sprintf("SearchNotes(%q, %s)", q, ps), w, g, we, ge)
			for _, mode := range []ports.MatchMode{ports.Exact, ports.Fuzzy} {
				for _, th := range []float64{0, 0.1, 0.5, 1} {
					nq := ports.NodeQuery{Queries: []string{q}, Mode: mode, Threshold: th}
					w, we := b.ref.SearchNodes(ctx, nq, p)
					g, ge := b.got.SearchNodes(ctx, nq, p)
					b.check(fmt.Sprintf("SearchNodes(%+v, %s)", nq, ps), w, g, we, ge)
				}
			}
			cq := ports.CodeQuery{Query: q + " gamma"}
			wc, wce := b.ref.SearchCode(ctx, cq, p)
			gc, gce := b.got.SearchCode(ctx, cq, p)
			b.check(fmt.Sprintf("SearchCode(%+v, %s)", cq, ps), wc, gc, wce, gce)
		}
		// Thresholds on and next to float32 similarities.
		for i, th := range []float64{0.25, 1.0 / 3, float64(float32(1.0 / 3)), math.Nextafter(float64(float32(1.0/3)), 1), 0.4, float64(float32(0.4)), 2.0 / 7} {
			for j, q := range []string{"alpha", "ab", "a_b x", "beta"} {
				if !with(i + j) {
					continue
				}
				nq := ports.NodeQuery{Queries: []string{q}, Mode: ports.Fuzzy, Threshold: th}
				w, we := b.ref.SearchNodes(ctx, nq, p)
				g, ge := b.got.SearchNodes(ctx, nq, p)
				b.check(fmt.Sprintf("SearchNodes(%+v, %s)", nq, ps), w, g, we, ge)
			}
		}
		for _, nq := range []ports.NodeQuery{
			{Queries: []string{"alpha", "beta gamma", "日本"}, Mode: ports.Fuzzy, Threshold: 0.2},
			{Queries: []string{"alpha", "beta"}, Mode: ports.Exact, Tags: []string{"t1"}},
			{Queries: []string{"alpha", "beta"}, Mode: ports.Fuzzy, Tags: []string{"t1", "t2"}, Threshold: 0.05},
		} {
			w, we := b.ref.SearchNodes(ctx, nq, p)
			g, ge := b.got.SearchNodes(ctx, nq, p)
			b.check(fmt.Sprintf("SearchNodes(%+v, %s)", nq, ps), w, g, we, ge)
		}
		for _, cq := range []ports.CodeQuery{{Query: "alpha beta", PathPrefix: "src/"}, {Query: "alpha", Language: "go"}, {Query: "ab a_b gamma", PathPrefix: "SRC"}} {
			w, we := b.ref.SearchCode(ctx, cq, p)
			g, ge := b.got.SearchCode(ctx, cq, p)
			b.check(fmt.Sprintf("SearchCode(%+v, %s)", cq, ps), w, g, we, ge)
		}
		for _, lq := range []ports.LinkQuery{
			{HasLinksTo: some[:6]}, {LinkedFrom: some[2:9]}, {ExternalDomains: []string{"example.com"}}, {ExternalDomains: []string{"EXAMPLE.com", "org"}},
			{BrokenLinks: true}, {BrokenLinks: true, HasLinksTo: []string{"missing/1"}}, {},
		} {
			w, we := b.ref.SearchByLinks(ctx, lq, p)
			g, ge := b.got.SearchByLinks(ctx, lq, p)
			b.check(fmt.Sprintf("SearchByLinks(%+v, %s)", lq, ps), w, g, we, ge)
		}
		{
			w, we := b.ref.FindBrokenLinks(ctx, p)
			g, ge := b.got.FindBrokenLinks(ctx, p)
			b.check(fmt.Sprintf("FindBrokenLinks(%s)", ps), w, g, we, ge)
		}
		for _, ep := range []string{"ep1", "ep2", "none"} {
			w, we := b.ref.ResponseHistory(ctx, ep, p)
			g, ge := b.got.ResponseHistory(ctx, ep, p)
			b.check(fmt.Sprintf("ResponseHistory(%q, %s)", ep, ps), w, g, we, ge)
		}
		for k, id := range some {
			if !with(k) {
				continue
			}
			w, we := b.ref.Backlinks(ctx, id, p)
			g, ge := b.got.Backlinks(ctx, id, p)
			b.check(fmt.Sprintf("Backlinks(%q, %s)", id, ps), w, g, we, ge)
			w, we = b.ref.Children(ctx, id, p)
			g, ge = b.got.Children(ctx, id, p)
			b.check(fmt.Sprintf("Children(%q, %s)", id, ps), w, g, we, ge)
			w, we = b.ref.Parents(ctx, id, p)
			g, ge = b.got.Parents(ctx, id, p)
			b.check(fmt.Sprintf("Parents(%q, %s)", id, ps), w, g, we, ge)
			for _, depth := range []int{0, 1, 5, 20, 21} {
				w, we := b.ref.Descendants(ctx, id, depth, p)
				g, ge := b.got.Descendants(ctx, id, depth, p)
				b.check(fmt.Sprintf("Descendants(%q, %d, %s)", id, depth, ps), w, g, we, ge)
			}
			wr, wre := b.ref.RelatedNotes(ctx, id, p)
			gr, gre := b.got.RelatedNotes(ctx, id, p)
			b.check(fmt.Sprintf("RelatedNotes(%q, %s)", id, ps), wr, gr, wre, gre)
			lp := ports.NoteLinksPages{Internal: p, External: bounded.Page{Limit: 1}, Incoming: bounded.Page{Limit: 2, Offset: 1}}
			wl, wle := b.ref.NoteLinks(ctx, id, lp)
			gl, gle := b.got.NoteLinks(ctx, id, lp)
			b.check(fmt.Sprintf("NoteLinks(%q, %+v)", id, lp), wl, gl, wle, gle)
		}
	}
	for _, w := range []bounded.Window{{}, {MaxLines: 2, Offset: 1}, {Offset: 100}, {MaxLines: -1}} {
		for _, id := range some[:6] {
			wn, wne := b.ref.GetNote(ctx, id, w)
			gn, gne := b.got.GetNote(ctx, id, w)
			b.check(fmt.Sprintf("GetNote(%q, %+v)", id, w), wn, gn, wne, gne)
		}
		wn, wne := b.ref.GetNotes(ctx, some[:8], w)
		gn, gne := b.got.GetNotes(ctx, some[:8], w)
		b.check(fmt.Sprintf("GetNotes(%+v)", w), wn, gn, wne, gne)
	}
}
