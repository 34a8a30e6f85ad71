package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/conformance"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/google/go-cmp/cmp"
)

// Fuzzer sends fuzzed query strings through every method of a store that
// takes a string from the caller, and compares each answer with memrepo's
// for the same data: the conformance fixtures and items whose text holds
// the hostile strings (quotes, LIKE wildcards, backslashes, bun's
// placeholders, SQL).
type Fuzzer struct {
	ref   *memrepo.Store
	got   Store
	notes int
	// Calls counts the calls compared.
	Calls int
}

// fuzzHostile are the strings stored in items' text, next to the
// conformance fixtures, so that queries made of them find something.
var fuzzHostile = []string{"'", `"`, "%", "_", `\`, "a%b", "a_b", "' OR '1'='1", "'; DROP TABLE bounded_notes; --", "?", "?0", "$1", "é", "İ", "ß"}

// NewFuzzer loads the data into got and a new memrepo.
func NewFuzzer(tb testing.TB, got Store) *Fuzzer {
	tb.Helper()
	ctx := context.Background()
	f := &Fuzzer{ref: memrepo.New(), got: got}
	notes := conformance.Notes(conformance.Seed)
	var entities []ports.Entity
	var runs []ports.Run
	var chunks []ports.Chunk
	for i, h := range fuzzHostile {
		notes = append(notes, ports.Note{ID: fmt.Sprintf("hostile/%d%s", i, h), Title: "title " + h, Content: "content " + h,
			Tags: []string{"tag" + h}, Links: []ports.Link{{Target: "target" + h}, {Target: "https://h" + fmt.Sprint(i) + ".example.com/" + h, External: true}},
			Parents: []string{conformance.HubID}, UpdatedAt: conformance.Epoch})
		entities = append(entities, ports.Entity{Name: "entity " + h, Type: "type" + h, Observations: []string{"obs " + h}, Tags: []string{"tag" + h}, UpdatedAt: conformance.Epoch})
		runs = append(runs, ports.Run{ID: fmt.Sprintf("hostile-run-%d", i), EndpointID: "ep" + h, StartedAt: conformance.Epoch, Body: "body " + h})
		chunks = append(chunks, ports.Chunk{ID: fmt.Sprintf("hostile-chunk-%d", i), FilePath: "src" + h + "/f.go", Language: "go" + h,
			StartLine: 1, EndLine: 1, Content: "func f" + h + "() { return parse" + h + " }"})
	}
	f.notes = len(notes)
	for _, s := range []Store{f.ref, got} {
		for _, n := range notes {
			mustTB(tb, s.PutNote(ctx, n))
		}
		for _, e := range append(conformance.Entities(conformance.Seed), entities...) {
			mustTB(tb, s.PutEntity(ctx, e))
		}
		for _, r := range append(conformance.Runs(conformance.Seed), runs...) {
			mustTB(tb, s.RecordRun(ctx, r))
		}
		mustTB(tb, s.PutChunks(ctx, append(conformance.Chunks(conformance.Seed), chunks...)))
	}
	return f
}

func mustTB(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

// FuzzQuery is the query a fuzz input stands for: q as given, or (by
// mode%16) q repeated to exactly ports.MaxQueryBytes (1 MB, possibly cut
// inside a character), one byte over it, upper-cased, or wrapped in LIKE
// wildcards.
func FuzzQuery(q string, mode uint8) string {
	switch mode % 16 {
	case 1, 2:
		if q == "" {
			q = "a"
		}
		n := ports.MaxQueryBytes + int(mode%16) - 1
		return strings.Repeat(q, n/len(q)+1)[:n]
	case 3:
		return strings.ToUpper(q)
	case 4:
		return "%" + q + "_"
	}
	return q
}

// Check sends q through every string-taking method with a page built from
// limit and offset (invalid ones included), and compares each answer with
// memrepo's: the same items and page info, or errors wrapping the same
// sentinel; a store error must always wrap one (a typed error, never a
// driver's). Fuzzy search is skipped for queries over 64 KB, which take
// seconds (see TestHugeFuzzyQuery). After the calls the store must still
// hold every note: no input dropped or altered a table.
func (f *Fuzzer) Check(t *testing.T, q string, mode uint8, limit, offset int) {
	t.Helper()
	ctx := context.Background()
	p := bounded.Page{Limit: limit, Offset: offset}
	type call struct {
		name string
		do   func(s Store) (any, error)
	}
	paged := func(name string, do func(s Store) (any, error)) call { return call{name, do} }
	calls := []call{
		paged("SearchNotes", func(s Store) (any, error) { return s.SearchNotes(ctx, q, p) }),
		paged("ListNotes(tag)", func(s Store) (any, error) { return s.ListNotes(ctx, ports.ListFilter{Tag: q}, p) }),
		paged("ListNotes(folder)", func(s Store) (any, error) { return s.ListNotes(ctx, ports.ListFilter{Folder: q}, p) }),
		paged("SearchByLinks(hasLinksTo)", func(s Store) (any, error) {
			return s.SearchByLinks(ctx, ports.LinkQuery{HasLinksTo: []string{q, "target" + q}}, p)
		}),
		paged("SearchByLinks(linkedFrom, externalDomains)", func(s Store) (any, error) {
			return s.SearchByLinks(ctx, ports.LinkQuery{LinkedFrom: []string{q}, ExternalDomains: []string{q}}, p)
		}),
		paged("SearchNodes(exact)", func(s Store) (any, error) {
			return s.SearchNodes(ctx, ports.NodeQuery{Queries: []string{q, "entity " + q}}, p)
		}),
		paged("SearchNodes(tags)", func(s Store) (any, error) {
			return s.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"e"}, Tags: []string{q}}, p)
		}),
		paged("SearchCode", func(s Store) (any, error) { return s.SearchCode(ctx, ports.CodeQuery{Query: q}, p) }),
		paged("SearchCode(pathPrefix, language)", func(s Store) (any, error) {
			return s.SearchCode(ctx, ports.CodeQuery{Query: "parse func " + q, PathPrefix: q, Language: q}, p)
		}),
		paged("ResponseHistory", func(s Store) (any, error) { return s.ResponseHistory(ctx, q, p) }),
		paged("Backlinks", func(s Store) (any, error) { return s.Backlinks(ctx, q, p) }),
		paged("Children", func(s Store) (any, error) { return s.Children(ctx, q, p) }),
		paged("Parents", func(s Store) (any, error) { return s.Parents(ctx, q, p) }),
		paged("Descendants", func(s Store) (any, error) { return s.Descendants(ctx, q, int(mode%4), p) }),
		paged("RelatedNotes", func(s Store) (any, error) { return s.RelatedNotes(ctx, q, p) }),
		paged("NoteLinks", func(s Store) (any, error) {
			return s.NoteLinks(ctx, q, ports.NoteLinksPages{Internal: p, External: p, Incoming: p})
		}),
		paged("GetNote", func(s Store) (any, error) { return s.GetNote(ctx, q, bounded.Window{MaxLines: limit, Offset: offset}) }),
		paged("GetNotes", func(s Store) (any, error) {
			return s.GetNotes(ctx, []string{q, conformance.HubID, q}, bounded.Window{})
		}),
	}
	if len(q) <= 64<<10 {
		calls = append(calls, paged("SearchNodes(fuzzy)", func(s Store) (any, error) {
			return s.SearchNodes(ctx, ports.NodeQuery{Queries: []string{q}, Mode: ports.Fuzzy, Threshold: []float64{0, 0.05, 0.3, 1}[mode/16%4]}, p)
		}))
	}
	for _, c := range calls {
		f.Calls++
		want, werr := c.do(f.ref)
		got, gerr := c.do(f.got)
		at := fmt.Sprintf("%s(%.80q, page %+v)", c.name, q, p)
		switch {
		case gerr != nil && sentinelOf(gerr) == gerr:
			t.Errorf("%s: untyped error %q (memrepo: %v)", at, gerr, werr)
		case (werr == nil) != (gerr == nil) || !errors.Is(gerr, sentinelOf(werr)):
			t.Errorf("%s: error %v, memrepo %v", at, gerr, werr)
		case werr == nil:
			if d := cmp.Diff(want, got, CursorAtPresence); d != "" {
				t.Errorf("%s: differs from memrepo (-memrepo +store):\n%s", at, d)
			}
		}
	}
	pg, err := f.got.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 1, Count: bounded.CountExact})
	if err != nil || pg.Page.Total != f.notes {
		t.Fatalf("after the calls with %.80q: ListNotes: %d notes, %v; want %d", q, pg.Page.Total, err, f.notes)
	}
}

// FuzzOffset is the offset a fuzz input stands for: mostly inside the data
// (0 to 299), and for the top values of o offsets next to
// bounded.MaxOffset (whose sum with a limit overflows).
func FuzzOffset(o uint16) int {
	if o >= 65530 {
		return bounded.MaxOffset - int(65535-o)
	}
	return int(o) % 300
}

// InjectionQueries are strings that break SQL built from input: quotes and
// comments that end a literal and a statement, DROP TABLE and DELETE, LIKE
// wildcards and escape characters, placeholders of bun, database/sql and
// Postgres, identifiers' quotes, escapes of Postgres string literals, NUL
// and invalid UTF-8 (ErrInvalidQuery).
var InjectionQueries = []string{
	"'; DROP TABLE bounded_notes; --", "'); DELETE FROM bounded_notes; --", "' OR '1'='1", "' OR 1=1 --",
	"'", "''", `"`, `\'`, `\`, `\\`, "%", "_", "%%", "%_%", `\%`, `\_`, "a%b", "a_b", "100%", "[a-z]%",
	"?", "?0", "??", "$1", ":name", "@p1", "/*", "*/", "--", ";", "`", "E'\\x41'", "$$", "$tag$",
	"\x00", "a\x00b", "\xff", "\xed\xa0\x80", " ", "é", "İ", "ß", "日本語", "🎉",
}
