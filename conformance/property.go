package conformance

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/deeptest"
	"github.com/boundedkit/bounded/ports"
)

// The property tests: random data sets (ties on every sort key, items
// written twice or replaced, Unicode, LIKE wildcards), read back by every
// paged method with random page sizes and fitted into random budgets. For
// each data set and query:
//
//   - the whole answer (pages of the maximum) is memrepo's;
//   - a walk by NextOffset with a new random page size at every step
//     (sometimes the default, sometimes over the maximum) returns memrepo's
//     page at every step and every item exactly once;
//   - a walk that fits every page into a random budget with [bounded.Fit]
//     and follows only Fitted.Next (as an agent following the envelope's
//     next call) returns every item exactly once, never over its budget;
//     with [Harness.Cursors], half the walks' next calls continue by cursor
//     ([bounded.ByCursor]), after a cut by the page's CursorAt.
//
// The data sets and the random choices come from a seed: the same seeds
// give the same calls on every run. Subtests are named
// "Properties/<port>/seed=<n>".

// PropertySeedsEnv names the environment variable that sets how many seeds
// the property tests run per port (default 2; 1 under the race detector): a
// longer run, e.g.
// BOUNDED_PROPERTY_SEEDS=50 go test ./adapters/... -run Conformance/Properties.
const PropertySeedsEnv = "BOUNDED_PROPERTY_SEEDS"

// DeepEnv names the environment variable that asks for the deep run,
// BOUNDED_DEEP=1, as the module's own tests do. By default each way of
// walking a method's queries (a page size, by offset, page number, hint,
// bounded.All or cursor, the totals) walks one in six of the queries
// whose answer has two items or more, a different share for each way, so
// that every query is walked and every way walks some; the batch reads
// try each set of ids with half of the depths and caps. The deep run
// walks every query every way and tries every combination. Every other
// check runs in full in either run.
const DeepEnv = deeptest.Env

// propertySeeds are the seeds of the property tests.
func propertySeeds() []uint64 {
	n := 2
	if raceEnabled {
		n = 1
	}
	if v, err := strconv.Atoi(os.Getenv(PropertySeedsEnv)); err == nil && v > 0 {
		n = v
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = Seed + uint64(i)*7919
	}
	return seeds
}

// propStats counts what the property tests checked, for their log line.
type propStats struct {
	cases, pages, items, fits, cuts atomic.Int64
}

// quiet is the budgets' logger: cuts are expected, not news.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// runProperties runs the property tests of every port the harness's
// stores have, as subtests of "Properties".
func (s *suite) runProperties(t TB) {
	t.Run("Properties", func(t TB) {
		var st propStats
		start := time.Now()
		portTests := []struct {
			p    port
			test func(t TB, r *rand.Rand, st *propStats)
		}{
			{notesPort, s.notesProperties},
			{knowledgePort, s.knowledgeProperties},
			{historyPort, s.historyProperties},
			{codePort, s.codeProperties},
		}
		for _, pt := range portTests {
			t.Run(string(pt.p), func(t TB) {
				for _, seed := range propertySeeds() {
					t.Run(fmt.Sprintf("seed=%d", seed), func(t TB) {
						pt.test(t, newRand(seed^uint64(len(pt.p))), &st)
					})
				}
			})
		}
		t.Logf("%s: properties: %d cases (data set and query), %d pages compared, %d items walked, %d pages fitted into random budgets (%d cut), in %v",
			s.store(), st.cases.Load(), st.pages.Load(), st.items.Load(), st.fits.Load(), st.cuts.Load(), time.Since(start).Round(time.Millisecond))
	})
}

// openProps opens a store of the harness for port p and loads fx into it
// and into a new reference; when the store lacks p, the test is skipped
// with a message naming it.
func (s *suite) openProps(t TB, p port, fx fixture) (st, ref Store) {
	t.Helper()
	st = s.h.New(t)
	if !st.has(p) {
		t.Skipf("%s: Store.%s is nil: skipping the %s properties", s.store(), p, p)
	}
	return s.fill(t, st, fx)
}

// propRand returns the random source of one check, drawn from the data
// set's and mixed with the check's name.
func propRand(r *rand.Rand, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	a := r.Uint64()
	return rand.New(rand.NewPCG(a, a^h.Sum64()))
}

// randomSize is a random page size for l: mostly small (many pages), at
// times 0 (the default) or over the maximum (clamped).
func randomSize(r *rand.Rand, l bounded.Limits) int {
	switch k := r.IntN(16); {
	case k == 0:
		return 0
	case k == 1:
		return l.Max + 1 + r.IntN(3)
	case k < 4:
		return 1 + r.IntN(l.Max)
	}
	return 1 + r.IntN(min(l.Max, 9))
}

// checkProperties checks one query of m over the data in st and ref: its
// whole answer, a walk with random page sizes and a walk through random
// budgets. relevance, when set, is the score the items are ordered by
// (most relevant first), which Fit checks.
func checkProperties[T any](t TB, s *suite, r *rand.Rand, m method[T], q query[T], st, ref Store, stats *propStats, relevance func(T) float64) {
	t.Helper()
	stats.cases.Add(1)
	want, _, ok := fullReads(t, s, &m, q, st, ref)
	if !ok {
		return
	}
	stats.pages.Add(1)
	at := label(m.call, q.args, bounded.Page{})

	// Random page sizes, every page compared with memrepo's.
	rs := propRand(r, at+"/sizes")
	p := bounded.Page{Limit: randomSize(rs, m.limits)}
	var got []T
	for step := 0; ; step++ {
		if step > len(want)+3 {
			t.Errorf("%s walked with random page sizes: the walk did not end after %d pages of %d items", at, step, len(want))
			return
		}
		_, sp, ok := comparePage(t, s, &m, q, st, ref, p)
		if !ok || !checkInfo(t, m.label(q, p), m.limits, p, sp, len(want)) {
			return
		}
		stats.pages.Add(1)
		got = append(got, sp.Items...)
		if !sp.Page.HasMore {
			break
		}
		p = bounded.Page{Limit: randomSize(rs, m.limits), Offset: sp.Page.NextOffset}
	}
	stats.items.Add(int64(len(got)))
	exactlyOnce(t, s, at+" walked by NextOffset with random page sizes", m.key, want, got)

	// Random budgets, following Fitted.Next only.
	rb := propRand(r, at+"/budget")
	b := bounded.Budget{MaxChars: 1500 + rb.IntN(6000), Margin: 1, Logger: quiet}
	if rb.IntN(3) == 0 {
		b.MaxTokens = b.MaxChars / 3
	}
	call := bounded.Call{Tool: m.tool, Args: q.args, Paging: m.paging, DefaultLimit: m.limits.Default}
	size := randomSize(rb, m.limits)
	if s.h.Cursors && rb.IntN(2) == 0 {
		call.Paging = bounded.ByCursor
	}
	p = bounded.Page{Limit: size}
	if call.Paging == bounded.ByPage {
		var err error
		if p, err = m.limits.FromPageNumber(0, size); err != nil {
			t.Fatalf("FromPageNumber(0, %d): %v", size, err)
		}
	}
	got = got[:0]
	for step := 0; ; step++ {
		if step > len(want)+3 {
			t.Errorf("%s fitted into %+v: the walk did not end after %d responses for %d items", at, b, step, len(want))
			return
		}
		sp, err := q.fetch(t.Context(), st, p)
		if err != nil {
			t.Errorf("%s: %v", m.label(q, p), err)
			return
		}
		fd, err := bounded.Fit(b, bounded.FitInput[T]{Page: sp, Call: call, Hints: bounded.HintFull, Relevance: relevance})
		if err != nil {
			t.Errorf("%s: Fit into %d characters, %d tokens: %v", m.label(q, p), b.LimitChars(), b.LimitTokens(), err)
			return
		}
		stats.fits.Add(1)
		if fd.Kept < len(sp.Items) {
			stats.cuts.Add(1)
		}
		if n := utf8.RuneCount(fd.JSON); n > b.LimitChars() {
			t.Errorf("%s: the fitted response has %d characters, over the budget's %d", m.label(q, p), n, b.LimitChars())
		}
		if len(sp.Items) > 0 && fd.Kept == 0 {
			t.Errorf("%s: Fit kept nothing of a page of %d items", m.label(q, p), len(sp.Items))
			return
		}
		got = append(got, sp.Items[:fd.Kept]...)
		if fd.Next == nil {
			if fd.Page.HasMore {
				t.Errorf("%s: the fitted page says more follow but has no next call", m.label(q, p))
			}
			break
		}
		if _, byCursor := fd.Next.Get("cursor"); call.Paging == bounded.ByCursor && !byCursor {
			t.Errorf("%s: the next call %s of a page fitted to %d of %d items continues by offset: the page has no NextCursor or CursorAt", m.label(q, p), call.Render(fd.Next), fd.Kept, len(sp.Items))
			return
		}
		if p, err = pageFromArgs(call, m.limits, fd.Next); err != nil {
			t.Errorf("%s: the next call %s: %v", m.label(q, p), call.Render(fd.Next), err)
			return
		}
	}
	exactlyOnce(t, s, fmt.Sprintf("%s fitted into budgets of %d characters and %d tokens, following the next calls (paging %d)", at, b.LimitChars(), b.LimitTokens(), call.Paging), m.key, want, got)
}

// largest returns the candidate whose answer (read from ref with a page of
// one item) is the largest: the walks then have many pages.
func largest[T any](t TB, ref Store, candidates []string, fetch func(id string) query[T]) string {
	t.Helper()
	best, most := "", -1
	for _, id := range candidates {
		pg, err := fetch(id).fetch(t.Context(), ref, bounded.Page{Limit: 1})
		if err == nil && pg.Page.Total > most {
			best, most = id, pg.Page.Total
		}
	}
	return best
}

// Vocabularies of the property data sets: few values, so that sort keys
// tie; Unicode and characters special to SQL.
var (
	propFolders = []string{"", "p", "p/q", "日本", "a_b", "a%", "Z"}
	propTitles  = []string{"Same", "same", "Ünïcode 日本", `100% a_b 'q' "d" \`, "e\u0301", "Zeta", "ß"}
	propWords   = []string{"alpha", "Alpha", "ALPHA", "日本語", "🎉", "e\u0301", "straße", "100%", "a_b", "O'Brien", `C:\x`, "plain", "x"}
	propTags    = []string{"t", "T", "ü", "日本語", "a_b", "%"}
	propURLs    = []string{"https://example.com/a", "https://Sub.Example.com/b", "https://other.org/", "http://例え.jp/x", "https://example.com/a"}
)

func propTimes(r *rand.Rand) time.Time {
	return Epoch.Add(time.Duration(r.IntN(3))*time.Hour + time.Duration(r.IntN(2))*3*time.Microsecond)
}

func propText(r *rand.Rand, words int) string {
	var b strings.Builder
	for i := range words {
		if i > 0 {
			b.WriteString(pick(r, []string{" ", "\n", " ", "\r\n", "-"}))
		}
		b.WriteString(pick(r, propWords))
	}
	return b.String()
}

// propNoteWrites returns the writes of a random vault: about 40 notes, a
// few written twice, a few replaced later by another version.
func propNoteWrites(r *rand.Rand) []ports.Note {
	n := 34 + r.IntN(10)
	ids := make([]string, 0, n)
	for len(ids) < n {
		id := pick(r, trickyIDs)
		if r.IntN(2) == 0 {
			id = fmt.Sprintf("n%02d", r.IntN(60))
		}
		if f := pick(r, propFolders); f != "" {
			id = f + "/" + id
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	note := func(id string) ports.Note {
		nt := ports.Note{ID: id, Title: pick(r, propTitles), Content: propText(r, r.IntN(6)), CreatedAt: propTimes(r), UpdatedAt: propTimes(r)}
		for _, tag := range propTags {
			if r.IntN(4) == 0 {
				nt.Tags = append(nt.Tags, tag)
			}
		}
		for range r.IntN(6) {
			var l ports.Link
			switch k := r.IntN(8); {
			case k < 4:
				l = ports.Link{Target: ids[r.IntN(min(len(ids), 8))]} // a few popular targets
			case k < 6:
				l = ports.Link{Target: pick(r, ids)}
			case k == 6:
				l = ports.Link{Target: fmt.Sprintf("gone/%d", r.IntN(3))}
			default:
				l = ports.Link{Target: pick(r, propURLs), External: true}
			}
			l.Text = pick(r, []string{"", "see", "参照", "O'Brien"})
			nt.Links = append(nt.Links, l)
		}
		for range r.IntN(3) {
			if p := ids[r.IntN(min(len(ids), 6))]; p != id {
				nt.Parents = append(nt.Parents, p)
			}
		}
		if r.IntN(8) == 0 {
			nt.Parents = append(nt.Parents, "ghost")
		}
		return nt
	}
	var writes []ports.Note
	for _, id := range ids {
		writes = append(writes, note(id))
	}
	r.Shuffle(len(writes), func(i, j int) { writes[i], writes[j] = writes[j], writes[i] })
	for range 4 { // the same note twice
		writes = append(writes, writes[r.IntN(len(writes))])
	}
	for range 3 { // a new version
		writes = append(writes, note(pick(r, ids)))
	}
	return writes
}

func (s *suite) notesProperties(t TB, r *rand.Rand, stats *propStats) {
	writes := propNoteWrites(r)
	st, ref := s.openProps(t, notesPort, fixture{notes: writes})
	var ids []string
	for _, n := range writes {
		if !slices.Contains(ids, n.ID) {
			ids = append(ids, n.ID)
		}
	}
	targets := append(slices.Clone(ids), "gone/0", "gone/1", "ghost")
	byID := func(name string) func(id string) query[ports.NoteRef] {
		return func(id string) query[ports.NoteRef] {
			return noteQuery(bounded.Args{{Name: "id", Value: id}}, func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
				switch name {
				case "Backlinks":
					return n.Backlinks(ctx, id, p)
				case "Children":
					return n.Children(ctx, id, p)
				default:
					return n.Parents(ctx, id, p)
				}
			})
		}
	}
	refs := func(name, tool string, l bounded.Limits) method[ports.NoteRef] {
		return method[ports.NoteRef]{name: name, call: name, tool: tool, port: notesPort, limits: l, paging: bounded.ByOffset, key: noteRefKey}
	}

	list := refs("ListNotes", "list_notes", ports.ListNotesLimits)
	for _, f := range []ports.ListFilter{{}, {Tag: pick(r, propTags)}, {Folder: pick(r, propFolders[1:])}} {
		checkProperties(t, s, r, list, noteQuery(bounded.Args{{Name: "tag", Value: f.Tag}, {Name: "folder", Value: f.Folder}},
			func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
				return n.ListNotes(ctx, f, p)
			}), st, ref, stats, nil)
	}
	search := refs("SearchNotes", "search_notes", ports.SearchNotesLimits)
	for _, q := range []string{pick(r, propWords[:6]), pick(r, []string{"%", "_", `\`, "'", "a"})} {
		checkProperties(t, s, r, search, noteQuery(bounded.Args{{Name: "query", Value: q}},
			func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
				return n.SearchNotes(ctx, q, p)
			}), st, ref, stats, nil)
	}
	links := refs("SearchByLinks", "search_by_links", ports.SearchByLinksLimits)
	popular := largest(t, ref, targets, byID("Backlinks"))
	for _, lq := range []ports.LinkQuery{
		{HasLinksTo: []string{popular, pick(r, ids)}},
		{BrokenLinks: true},
		{ExternalDomains: []string{"EXAMPLE.com"}, LinkedFrom: ids[:10]},
	} {
		checkProperties(t, s, r, links, noteQuery(linkArgs(lq),
			func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
				return n.SearchByLinks(ctx, lq, p)
			}), st, ref, stats, nil)
	}
	checkProperties(t, s, r, findBrokenLinksMethod(), noteQuery(nil,
		func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[ports.LinkRef], error) {
			return n.FindBrokenLinks(ctx, p)
		}), st, ref, stats, nil)
	for _, cat := range []string{"internal", "external", "incoming"} {
		m := noteLinksMethod(cat)
		m.queries, m.errs, m.sized = nil, nil, nil
		id := largest(t, ref, ids, func(id string) query[ports.LinkRef] { return noteLinksQuery(cat, id) })
		checkProperties(t, s, r, m, noteLinksQuery(cat, id), st, ref, stats, nil)
	}
	for _, name := range []string{"Backlinks", "Children", "Parents"} {
		l := map[string]bounded.Limits{"Backlinks": ports.BacklinksLimits, "Children": ports.ChildrenLimits, "Parents": ports.ParentsLimits}[name]
		cands := ids
		if name == "Backlinks" {
			cands = targets
		}
		q := byID(name)
		checkProperties(t, s, r, refs(name, strings.ToLower(name), l), q(largest(t, ref, cands, q)), st, ref, stats, nil)
	}
	depth := r.IntN(5)
	desc := func(id string) query[ports.Descendant] {
		return noteQuery(bounded.Args{{Name: "id", Value: id}, {Name: "maxDepth", Value: depth}},
			func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[ports.Descendant], error) {
				return n.Descendants(ctx, id, depth, p)
			})
	}
	dm := descendantsMethod()
	dm.queries, dm.errs, dm.sized = nil, nil, nil
	checkProperties(t, s, r, dm, desc(largest(t, ref, ids, desc)), st, ref, stats, nil)
	related := func(id string) query[ports.Related] {
		return noteQuery(bounded.Args{{Name: "id", Value: id}}, func(ctx context.Context, n ports.Notes, p bounded.Page) (bounded.Paged[ports.Related], error) {
			return n.RelatedNotes(ctx, id, p)
		})
	}
	rm := relatedNotesMethod()
	rm.queries, rm.errs, rm.sized = nil, nil, nil
	checkProperties(t, s, r, rm, related(largest(t, ref, ids, related)), st, ref, stats,
		func(x ports.Related) float64 { return float64(x.Score) })
}

// propEntityWrites returns the writes of a random knowledge graph: about
// 40 entities whose names are case and separator variants of few words
// (fuzzy scores tie), a few written twice or replaced.
func propEntityWrites(r *rand.Rand) []ports.Entity {
	words := []string{"auth", "token", "日本", "café", "a_b", "100%", "o'brien", "x"}
	var names []string
	for len(names) < 38 {
		name := caseVariant(pick(r, words)+pick(r, []string{" ", "-", "_", "  "})+pick(r, words), r.IntN(1<<10))
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	entity := func(name string) ports.Entity {
		e := ports.Entity{Name: name, Type: pick(r, []string{"t", "T", "概念"}), UpdatedAt: propTimes(r)}
		for range r.IntN(3) {
			e.Observations = append(e.Observations, propText(r, 1+r.IntN(3)))
		}
		for _, tag := range propTags[:3] {
			if r.IntN(3) == 0 {
				e.Tags = append(e.Tags, tag)
			}
		}
		return e
	}
	var writes []ports.Entity
	for _, n := range names {
		writes = append(writes, entity(n))
	}
	for range 3 {
		writes = append(writes, writes[r.IntN(len(writes))])
	}
	for range 2 {
		writes = append(writes, entity(pick(r, names)))
	}
	return writes
}

func (s *suite) knowledgeProperties(t TB, r *rand.Rand, stats *propStats) {
	st, ref := s.openProps(t, knowledgePort, fixture{entities: propEntityWrites(r)})
	for _, mode := range []string{"exact", "fuzzy"} {
		m := searchNodesMethod(mode)
		m.queries, m.errs, m.sized = nil, nil, nil
		nq := ports.NodeQuery{Queries: []string{pick(r, []string{"AUTH", "token", "日本", "a_b", "%", "é"})}}
		var relevance func(ports.NodeMatch) float64
		if mode == "fuzzy" {
			nq = ports.NodeQuery{Mode: ports.Fuzzy, Queries: []string{"auth token", pick(r, []string{"café x", "日本 auth", "a_b"})},
				Threshold: pick(r, []float64{0.05, 0.1, 0.2})}
			relevance = func(x ports.NodeMatch) float64 { return x.Score }
		}
		if r.IntN(3) == 0 {
			nq.Tags = []string{pick(r, propTags[:3])}
		}
		checkProperties(t, s, r, m, nodeQuery(nq), st, ref, stats, relevance)
	}
}

// propRunWrites returns the writes of a random response history: about
// 40 runs of two endpoints started at few instants, bodies of every length
// around the clip, a few recorded twice or moved to the other endpoint.
func propRunWrites(r *rand.Rand) []ports.Run {
	eps := []string{"ep", "ép/%_"}
	run := func(id string) ports.Run {
		start := Epoch.Add(time.Duration(r.IntN(3)) * time.Minute)
		return ports.Run{ID: id, EndpointID: pick(r, eps), StartedAt: start, FinishedAt: start.Add(time.Second),
			Status: pick(r, []string{"ok", "✓"}), StatusCode: pick(r, []int{200, 500}),
			Body: body(pick(r, bodyUnits), pick(r, bodyLengths))}
	}
	var writes []ports.Run
	for _, id := range tieIDs("run-", 40) {
		writes = append(writes, run(id))
	}
	for range 3 {
		writes = append(writes, writes[r.IntN(len(writes))])
	}
	for range 3 {
		writes = append(writes, run(writes[r.IntN(40)].ID))
	}
	return writes
}

func (s *suite) historyProperties(t TB, r *rand.Rand, stats *propStats) {
	st, ref := s.openProps(t, historyPort, fixture{runs: propRunWrites(r)})
	m := responseHistoryMethod()
	m.queries, m.errs, m.sized = nil, nil, nil
	for _, ep := range []string{"ep", "ép/%_"} {
		checkProperties(t, s, r, m, historyQuery(ep), st, ref, stats, nil)
	}
}

// propChunks returns a random code index of about 40 chunks over few
// files, start lines and terms (scores, paths and lines tie), in two
// batches, then some of them again.
func propChunks(r *rand.Rand) []ports.Chunk {
	terms := []string{"parse", "http", "token", "日本語", "naïve", "a_b", "err", "ctx"}
	var out []ports.Chunk
	for _, id := range tieIDs("c-", 40) {
		var b strings.Builder
		for i := range 1 + r.IntN(4) {
			if i > 0 {
				b.WriteString(pick(r, []string{" ", "(", ".", "\n"}))
			}
			b.WriteString(pick(r, terms))
		}
		start := 1 + 10*r.IntN(2)
		out = append(out, ports.Chunk{ID: id, FilePath: pick(r, []string{"a/x.go", "a/y.go", "100%/z.go"}), Language: "go",
			StartLine: start, EndLine: start + r.IntN(3), Content: b.String()})
	}
	for range 4 {
		out = append(out, out[r.IntN(len(out))])
	}
	return out
}

func (s *suite) codeProperties(t TB, r *rand.Rand, stats *propStats) {
	st, ref := s.openProps(t, codePort, fixture{chunks: propChunks(r)})
	m := searchCodeMethod()
	m.queries, m.errs, m.sized = nil, nil, nil
	for _, cq := range []ports.CodeQuery{
		{Query: "parse http token 日本語"},
		{Query: pick(r, []string{"err ctx", "a_b naïve", "token"}), PathPrefix: pick(r, []string{"", "a/", "100%"})},
	} {
		checkProperties(t, s, r, m, codeQuery(cq), st, ref, stats, func(x ports.CodeMatch) float64 { return x.Score })
	}
}
