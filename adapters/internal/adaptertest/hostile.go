package adaptertest

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/deeptest"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/uptrace/bun"
)

// hostile are strings that break naive SQL: quotes, LIKE wildcards, the
// escape character, bun's placeholders, NUL bytes and invalid UTF-8.
var hostile = []string{
	"'", "''", `"`, "%", "_", `\`, `\\`, `\%`, `\_`, "%%", "a%b", "a_b", "50%", "%_%",
	"' OR '1'='1", "'; DROP TABLE bounded_notes; --", "?", "?0", "$1", "?name", `\?`,
	"\x00", "a\x00b", "\xff", "a\xc3", "\xed\xa0\x80", " ", "\t", "é", "É", "İ", "ß",
}

// Hostile sends the hostile strings through every method that takes a
// string, on a store holding items whose text contains them, and compares
// every answer and error with memrepo's: errors must match the same
// sentinel, results must be equal (wildcards match literally). Each string
// goes as given and in four variants; with -race or -short, as given and
// in a title only, and then in the default run (not the deep one) only
// one string in two in a title.
func Hostile(t *testing.T, open Opener) {
	ctx := context.Background()
	ref, got := memrepo.New(), open(t)
	base := time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)
	var valid []string
	for _, h := range hostile {
		if ports.ValidateText("x", h) == nil {
			valid = append(valid, h)
		}
	}
	for i, h := range valid {
		id := fmt.Sprintf("dir%s/n%02d", h, i)
		n := ports.Note{ID: id, Title: "title " + h, Content: "content " + h + "\nline", Tags: []string{"tag" + h},
			Links:     []ports.Link{{Target: "target" + h}, {Target: "https://x" + strings.Trim(h, " \t") + ".example.com/p", External: true}},
			Parents:   []string{fmt.Sprintf("dir%s/n%02d", valid[(i+1)%len(valid)], (i+1)%len(valid))},
			UpdatedAt: base.Add(time.Duration(i%3) * time.Second)}
		put(t, ctx, n, ref, got)
		e := ports.Entity{Name: "entity " + h, Type: "type" + h, Observations: []string{"obs " + h}, Tags: []string{"tag" + h}, UpdatedAt: base}
		must(t, ref.PutEntity(ctx, e))
		must(t, got.PutEntity(ctx, e))
		r := ports.Run{ID: "run" + h, EndpointID: "ep" + h, StartedAt: base, Body: "body " + h}
		must(t, ref.RecordRun(ctx, r))
		must(t, got.RecordRun(ctx, r))
		c := []ports.Chunk{{ID: "chunk" + h, FilePath: "src" + h + "/f.go", Language: "go" + h, StartLine: 1, EndLine: 1, Content: "func f" + h + "() { return x" + h + " }"}}
		must(t, ref.PutChunks(ctx, c))
		must(t, got.PutChunks(ctx, c))
	}
	// Long text and queries: LIKE patterns have a length limit in SQLite
	// (50,000 bytes); queries go up to ports.MaxQueryBytes.
	var words []string
	for i := 0; len(strings.Join(words, " ")) < 70_000; i++ {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	long := strings.Join(words, " ")
	{
		n := ports.Note{ID: "long", Title: long[:60_000], Content: long, UpdatedAt: base}
		put(t, ctx, n, ref, got)
		e := ports.Entity{Name: long[:1000], Type: long, UpdatedAt: base}
		must(t, ref.PutEntity(ctx, e))
		must(t, got.PutEntity(ctx, e))
		c := []ports.Chunk{{ID: "long", FilePath: long[:1000], StartLine: 1, EndLine: 1, Content: long}}
		must(t, ref.PutChunks(ctx, c))
		must(t, got.PutChunks(ctx, c))
	}
	longQueries := []string{long[:60_000], long[1000:61_000], strings.Repeat("x", ports.MaxQueryBytes+1)}
	if !Race && !testing.Short() {
		longQueries = append(longQueries, strings.Repeat("w1 ", ports.MaxQueryBytes/3))
	}
	b := both{t: t, ref: ref, got: got, name: "store"}
	p := bounded.Page{Limit: 50}
	for _, q := range longQueries {
		w, we := ref.SearchNotes(ctx, q, p)
		g, ge := got.SearchNotes(ctx, q, p)
		b.check(fmt.Sprintf("SearchNotes(%d bytes)", len(q)), w, g, we, ge)
		for _, mode := range []ports.MatchMode{ports.Exact, ports.Fuzzy} {
			nq := ports.NodeQuery{Queries: []string{q}, Mode: mode, Threshold: 0.001}
			w, we := ref.SearchNodes(ctx, nq, p)
			g, ge := got.SearchNodes(ctx, nq, p)
			b.check(fmt.Sprintf("SearchNodes(%d bytes, mode %d)", len(q), mode), w, g, we, ge)
		}
		wc, wce := ref.SearchCode(ctx, ports.CodeQuery{Query: q}, p)
		gc, gce := got.SearchCode(ctx, ports.CodeQuery{Query: q}, p)
		b.check(fmt.Sprintf("SearchCode(%d bytes)", len(q)), wc, gc, wce, gce)
		wc, wce = ref.SearchCode(ctx, ports.CodeQuery{Query: "w1", PathPrefix: q}, p)
		gc, gce = got.SearchCode(ctx, ports.CodeQuery{Query: "w1", PathPrefix: q}, p)
		b.check(fmt.Sprintf("SearchCode(prefix %d bytes)", len(q)), wc, gc, wce, gce)
		ws, wse := ref.SearchByLinks(ctx, ports.LinkQuery{ExternalDomains: []string{q}, HasLinksTo: []string{q}}, p)
		gs, gse := got.SearchByLinks(ctx, ports.LinkQuery{ExternalDomains: []string{q}, HasLinksTo: []string{q}}, p)
		b.check(fmt.Sprintf("SearchByLinks(%d bytes)", len(q)), ws, gs, wse, gse)
	}
	for i, h := range hostile {
		variants := []string{h, "x" + h, h + "x", "title " + h, "dir" + h}
		switch {
		case (Race || testing.Short()) && (i%2 == 0 || deeptest.On()):
			variants = []string{h, "title " + h}
		case Race || testing.Short():
			// The default run: every string as given, one in two in a
			// title too.
			variants = []string{h}
		}
		for _, q := range variants {
			w, we := ref.SearchNotes(ctx, q, p)
			g, ge := got.SearchNotes(ctx, q, p)
			b.check(fmt.Sprintf("SearchNotes(%q)", q), w, g, we, ge)
			for _, f := range []ports.ListFilter{{Tag: q}, {Folder: q}, {Tag: "tag" + h, Folder: q}} {
				w, we := ref.ListNotes(ctx, f, p)
				g, ge := got.ListNotes(ctx, f, p)
				b.check(fmt.Sprintf("ListNotes(%+v)", f), w, g, we, ge)
			}
			for _, lq := range []ports.LinkQuery{{HasLinksTo: []string{q, "target" + h}}, {LinkedFrom: []string{q}}, {ExternalDomains: []string{q, "x" + h + ".example.com"}}} {
				w, we := ref.SearchByLinks(ctx, lq, p)
				g, ge := got.SearchByLinks(ctx, lq, p)
				b.check(fmt.Sprintf("SearchByLinks(%+v)", lq), w, g, we, ge)
			}
			for _, mode := range []ports.MatchMode{ports.Exact, ports.Fuzzy} {
				for _, nq := range []ports.NodeQuery{{Queries: []string{q}, Mode: mode, Threshold: 0.01}, {Queries: []string{"entity"}, Mode: mode, Tags: []string{q}, Threshold: 0.01}} {
					w, we := ref.SearchNodes(ctx, nq, p)
					g, ge := got.SearchNodes(ctx, nq, p)
					b.check(fmt.Sprintf("SearchNodes(%+v)", nq), w, g, we, ge)
				}
			}
			for _, cq := range []ports.CodeQuery{{Query: q}, {Query: "func " + q}, {Query: "func", PathPrefix: q}, {Query: "func", PathPrefix: "src" + h}, {Query: "func", Language: q}} {
				w, we := ref.SearchCode(ctx, cq, p)
				g, ge := got.SearchCode(ctx, cq, p)
				b.check(fmt.Sprintf("SearchCode(%+v)", cq), w, g, we, ge)
			}
			{
				w, we := ref.ResponseHistory(ctx, q, p)
				g, ge := got.ResponseHistory(ctx, q, p)
				b.check(fmt.Sprintf("ResponseHistory(%q)", q), w, g, we, ge)
			}
			w, we = ref.Backlinks(ctx, q, p)
			g, ge = got.Backlinks(ctx, q, p)
			b.check(fmt.Sprintf("Backlinks(%q)", q), w, g, we, ge)
			w, we = ref.Children(ctx, q, p)
			g, ge = got.Children(ctx, q, p)
			b.check(fmt.Sprintf("Children(%q)", q), w, g, we, ge)
			w, we = ref.Parents(ctx, q, p)
			g, ge = got.Parents(ctx, q, p)
			b.check(fmt.Sprintf("Parents(%q)", q), w, g, we, ge)
			wd, wde := ref.Descendants(ctx, q, 0, p)
			gd, gde := got.Descendants(ctx, q, 0, p)
			b.check(fmt.Sprintf("Descendants(%q)", q), wd, gd, wde, gde)
			wr, wre := ref.RelatedNotes(ctx, q, p)
			gr, gre := got.RelatedNotes(ctx, q, p)
			b.check(fmt.Sprintf("RelatedNotes(%q)", q), wr, gr, wre, gre)
			wl, wle := ref.NoteLinks(ctx, q, ports.NoteLinksPages{})
			gl, gle := got.NoteLinks(ctx, q, ports.NoteLinksPages{})
			b.check(fmt.Sprintf("NoteLinks(%q)", q), wl, gl, wle, gle)
			wn, wne := ref.GetNote(ctx, q, bounded.Window{})
			gn, gne := got.GetNote(ctx, q, bounded.Window{})
			b.check(fmt.Sprintf("GetNote(%q)", q), wn, gn, wne, gne)
			wg, wge := ref.GetNotes(ctx, []string{q, "nope"}, bounded.Window{})
			gg, gge := got.GetNotes(ctx, []string{q, "nope"}, bounded.Window{})
			b.check(fmt.Sprintf("GetNotes(%q)", q), wg, gg, wge, gge)
		}
		// The notes themselves, by their ids.
		for i, v := range valid {
			if v != h {
				continue
			}
			id := fmt.Sprintf("dir%s/n%02d", h, i)
			wn, wne := ref.GetNote(ctx, id, bounded.Window{})
			gn, gne := got.GetNote(ctx, id, bounded.Window{})
			b.check(fmt.Sprintf("GetNote(%q)", id), wn, gn, wne, gne)
			wr, wre := ref.RelatedNotes(ctx, id, p)
			gr, gre := got.RelatedNotes(ctx, id, p)
			b.check(fmt.Sprintf("RelatedNotes(%q)", id), wr, gr, wre, gre)
		}
		// Invalid items are rejected and nothing is written.
		for _, bad := range []string{"\x00", "a\xff"} {
			n := ports.Note{ID: "bad" + bad + h, Title: h}
			b.check(fmt.Sprintf("PutNote(%q)", n.ID), nil, nil, ref.PutNote(ctx, n), got.PutNote(ctx, n))
			n = ports.Note{ID: "bad", Title: bad + h}
			b.check(fmt.Sprintf("PutNote(title %q)", n.Title), nil, nil, ref.PutNote(ctx, n), got.PutNote(ctx, n))
			b.check(fmt.Sprintf("DeleteNote(%q)", bad+h), nil, nil, ref.DeleteNote(ctx, bad+h), got.DeleteNote(ctx, bad+h))
		}
	}
	w, we := ref.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 200})
	g, ge := got.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 200})
	b.check("ListNotes after the invalid writes", w, g, we, ge)
}

// HugeBody records a run with a 10 MB body and checks that its history page
// is clipped as memrepo clips it, reports the body's full length, and that
// reading the page allocates far less than the body (the body never leaves
// the database).
func HugeBody(t *testing.T, open Opener) {
	ctx := context.Background()
	ref, got := memrepo.New(), open(t)
	body := strings.Repeat("héllo wörld, ", 10<<20/14) + "end"
	if len(body) < 10<<20 {
		t.Fatalf("body is %d bytes", len(body))
	}
	for _, r := range []ports.Run{
		{ID: "big", EndpointID: "ep", StartedAt: time.Unix(2, 0), Status: "ok", StatusCode: 200, Body: body},
		{ID: "small", EndpointID: "ep", StartedAt: time.Unix(1, 0), Body: "tiny"},
	} {
		must(t, ref.RecordRun(ctx, r))
		must(t, got.RecordRun(ctx, r))
	}
	want, err := ref.ResponseHistory(ctx, "ep", bounded.Page{})
	must(t, err)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	page, err := got.ResponseHistory(ctx, "ep", bounded.Page{})
	runtime.ReadMemStats(&after)
	must(t, err)
	b := both{t: t, ref: ref, got: got, name: "store"}
	b.check("ResponseHistory(ep)", want, page, nil, nil)
	if n := len(page.Items); n != 2 {
		t.Fatalf("got %d runs, want 2", n)
	}
	v := page.Items[0]
	if v.BodyChars != len([]rune(body)) || !v.BodyTruncated || len([]rune(v.Body)) > ports.HistoryBodyChars {
		t.Errorf("big body: %d chars, truncated %v, returned %d chars; want %d, true, <= %d",
			v.BodyChars, v.BodyTruncated, len([]rune(v.Body)), len([]rune(body)), ports.HistoryBodyChars)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
		t.Errorf("reading the page allocated %d bytes: the whole body crossed the wire", alloc)
	}
}

// NewFunc builds a store on a bun database, connection or transaction.
type NewFunc func(ctx context.Context, db bun.IDB) (Store, error)

// InTx builds a store on a bun.Tx of db, writes and reads through it, and
// checks that everything, the schema included, is gone after the caller
// rolls back, and kept after the caller commits.
func InTx(t *testing.T, db *bun.DB, newStore NewFunc) {
	ctx := context.Background()
	for _, commit := range []bool{false, true} {
		tx, err := db.BeginTx(ctx, nil)
		must(t, err)
		s, err := newStore(ctx, tx)
		must(t, err)
		ref := memrepo.New()
		for i := range 5 {
			n := ports.Note{ID: fmt.Sprintf("n%d", i), Title: "T", Links: []ports.Link{{Target: "n0"}}, UpdatedAt: time.Unix(int64(i), 0)}
			put(t, ctx, n, ref, s)
		}
		e := ports.Entity{Name: "alpha", Type: "t"}
		must(t, ref.PutEntity(ctx, e))
		must(t, s.PutEntity(ctx, e))
		// A failing write inside the caller's transaction (a savepoint)
		// leaves the transaction usable.
		b := both{t: t, ref: ref, got: s, name: "store"}
		b.check("DeleteNote(missing)", nil, nil, ref.DeleteNote(ctx, "missing"), s.DeleteNote(ctx, "missing"))
		w, we := ref.Backlinks(ctx, "n0", bounded.Page{Limit: 2, Offset: 1})
		g, ge := s.Backlinks(ctx, "n0", bounded.Page{Limit: 2, Offset: 1})
		b.check("Backlinks in tx", w, g, we, ge)
		wn, wne := ref.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"alpha"}, Mode: ports.Fuzzy}, bounded.Page{})
		gn, gne := s.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"alpha"}, Mode: ports.Fuzzy}, bounded.Page{})
		b.check("SearchNodes in tx", wn, gn, wne, gne)
		if commit {
			must(t, tx.Commit())
		} else {
			must(t, tx.Rollback())
		}
		after, err := newStore(ctx, db)
		must(t, err)
		page, err := after.ListNotes(ctx, ports.ListFilter{}, bounded.Page{})
		must(t, err)
		if want := map[bool]int{false: 0, true: 5}[commit]; page.Page.Total != want {
			t.Errorf("commit=%v: %d notes after the transaction, want %d", commit, page.Page.Total, want)
		}
	}
}
