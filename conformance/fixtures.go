package conformance

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/boundedkit/bounded/ports"
)

// Seed is the seed of the fixtures the suite loads: Notes(Seed),
// Entities(Seed), Runs(Seed) and Chunks(Seed).
const Seed uint64 = 20240301

// Epoch is the time the fixtures' timestamps are counted from. Fixture
// timestamps are UTC, whole seconds or whole microseconds, drawn from a few
// values so that sort keys collide and only the id orders the items.
var Epoch = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// pick returns a random element of s.
func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

// someTime is one of ten instants (five hours, each with or without 7µs).
func someTime(r *rand.Rand) time.Time {
	return Epoch.Add(time.Duration(r.IntN(5))*time.Hour + time.Duration(r.IntN(2))*7*time.Microsecond)
}

// Vocabularies of the generated fixtures: ASCII, CJK, emoji (with ZWJ
// sequences), combining marks, right-to-left scripts, and characters that
// fold unusually (İ, ß).
var (
	noteFolders = []string{"projects", "areas", "journal", "日本", "Zettel", ""}
	noteTitles  = []string{
		"Plan", "plan", "Meeting notes", "Ideas", "会议记录", "Café ☕", "İstanbul trip",
		"שלום עולם", "Re\u0301sume\u0301", "Weekly review 🎉", "Untitled",
	}
	noteWords = []string{
		"alpha", "beta", "gamma", "plan", "review", "deploy", "日本語", "テキスト", "🎉", "👩‍💻",
		"e\u0301cole", "naïve", "שלום", "مرحبا", "İstanbul", "straße", "Plan",
		"lorem", "ipsum", "dolor", "sit", "amet", "data", "note", "text", "more", "words",
	}
	noteTags  = []string{"work", "home", "idea", "todo", "Work", "日本語", "🎉"}
	linkTexts = []string{"", "see", "参照", "🔗 link", "O'Brien"}
	urls      = []string{
		"https://example.com/a", "https://docs.example.com/b?q=1", "http://EXAMPLE.com:8080/c",
		"https://notexample.com/", "https://golang.org/pkg/", "https://例え.jp/パス",
		"mailto:someone@example.com", "https://sub.docs.example.com/x", "https://example.org/%41",
	}
)

// Fixed note IDs of [Notes], which the suite's queries name.
const (
	// HubID is the parent of many notes.
	HubID = "projects/hub"
	// PopularID is the target of many links.
	PopularID = "areas/popular"
	// ManyLinksID has many internal and external links.
	ManyLinksID = "links/many"
	// ManyParentsID names many parents, some missing.
	ManyParentsID = "many/parents"
	// MissingParentID is a parent some notes name that does not exist.
	MissingParentID = "missing/parent"
)

// brokenTarget is the i-th missing link target of the fixtures.
func brokenTarget(i int) string { return fmt.Sprintf("missing/m%d", i) }

// Notes returns a vault of 124 notes: 72 generated from seed, plus
// hand-written ones: a hub with many children, a popular link target, a
// note with many links and one with many parents, a parent cycle, a
// diamond, folders nested four deep and one with an index note, a chain
// 22 levels deep, and notes whose text holds LIKE
// wildcards, quotes and backslashes (100%, a_b, O'Brien, "hi", C:\path)
// next to decoys that a store treating them as patterns would also find.
func Notes(seed uint64) []ports.Note {
	r := newRand(seed)
	const n = 72
	ids := make([]string, n)
	ids[0], ids[1] = HubID, PopularID
	for i := 2; i < n; i++ {
		name := fmt.Sprintf("n%03d", r.IntN(1000))
		if i%9 == 0 {
			name = pick(r, []string{"ñ", "Ä", "z", "日记", "😀"}) + name
		}
		id := name
		if f := pick(r, noteFolders); f != "" {
			id = f + "/" + name
		}
		for slices.Contains(ids[:i], id) {
			id += "x"
		}
		ids[i] = id
	}
	var notes []ports.Note
	for i, id := range ids {
		nt := ports.Note{
			ID:        id,
			Title:     pick(r, noteTitles),
			Content:   randomContent(r),
			CreatedAt: Epoch.Add(-time.Duration(r.IntN(3)) * 24 * time.Hour),
			UpdatedAt: someTime(r),
		}
		for _, tag := range noteTags {
			if r.IntN(4) == 0 {
				nt.Tags = append(nt.Tags, tag)
			}
		}
		for range r.IntN(6) {
			var l ports.Link
			switch k := r.IntN(10); {
			case k < 5:
				l = ports.Link{Target: ids[r.IntN(n)]} // maybe itself
			case k == 5:
				l = ports.Link{Target: brokenTarget(r.IntN(4))}
			case k < 8:
				l = ports.Link{Target: PopularID}
			default:
				l = ports.Link{Target: pick(r, urls), External: true}
			}
			l.Text = pick(r, linkTexts)
			nt.Links = append(nt.Links, l)
			if r.IntN(8) == 0 { // the same link twice
				nt.Links = append(nt.Links, l)
			}
		}
		if i > 1 {
			if r.IntN(5) < 2 {
				nt.Parents = append(nt.Parents, HubID)
			}
			if r.IntN(3) == 0 {
				if j := 2 + r.IntN(i-1); j != i {
					nt.Parents = append(nt.Parents, ids[j])
				}
			}
			if r.IntN(10) == 0 {
				nt.Parents = append(nt.Parents, MissingParentID)
			}
		}
		notes = append(notes, nt)
	}
	notes = append(notes, handNotes(ids)...)
	return notes
}

// randomContent is 1 to 4 lines of 1 to 4 random words, with LF or CRLF line ends
// and a final newline or not.
func randomContent(r *rand.Rand) string {
	eol := "\n"
	if r.IntN(8) == 0 {
		eol = "\r\n"
	}
	var b strings.Builder
	lines := 1 + r.IntN(4)
	for i := range lines {
		words := 1 + r.IntN(4)
		for j := range words {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(pick(r, noteWords))
		}
		if i < lines-1 || r.IntN(2) == 0 {
			b.WriteString(eol)
		}
	}
	return b.String()
}

// handNotes are the hand-written notes of [Notes].
func handNotes(ids []string) []ports.Note {
	t0, t1 := Epoch, Epoch.Add(time.Hour)
	lit := func(id, title, content string) ports.Note {
		return ports.Note{ID: id, Title: title, Content: content, UpdatedAt: t0, CreatedAt: t0, Tags: []string{"literal"}}
	}
	notes := []ports.Note{
		// Wildcards, quotes and backslashes, each with decoys.
		lit("lit/percent", "100% done", "progress: 100%\n"),
		lit("lit/1000", "1000 done", "progress: 1000 items\n"),
		lit("lit/underscore", "snake", "a_b is a name"),
		lit("lit/axb", "snake too", "axb is another"),
		lit("lit/quote", "O'Brien", "met O'Brien"),
		lit("lit/quote2", "O''Brien", "OBrien and O\"Brien"),
		lit("lit/dquote", `say "hi"`, `she said "hi"`),
		lit("lit/noquote", "say hi", "she said hi"),
		lit("lit/backslash", `C:\path`, `C:\path\to\file`),
		lit("lit/nobackslash", "C:path", `C:\\path and C:/path`),
		// Normalization forms, scripts without spaces and a line longer
		// than an index's query prefix, for SearchNotes.
		lit("lit/nfd", "Cafe\u0301 NFD", "e\u0301cole in NFD, 東京都の天気は晴れ"),
		lit("lit/nfc", "Caf\u00e9 NFC", "\u00e9cole in NFC, สวัสดีครับ"),
		lit("lit/long", "Long line", strings.Repeat("0123456789", 10)+"-end"),
		// Folders that look like patterns.
		lit("100%/x", "Plan", "in folder 100%"),
		lit("1000/y", "Plan", "in folder 1000"),
		lit("a_b/one", "Plan", "in folder a_b"),
		lit("axb/two", "Plan", "in folder axb"),
	}
	// Links between the folder notes, for SearchByLinks: a store matching
	// link targets with LIKE would find 1000/y, which links to the missing
	// axb/one, for hasLinksTo (and Backlinks of) a_b/one.
	for i, n := range notes {
		switch n.ID {
		case "1000/y":
			notes[i].Links = []ports.Link{{Target: "axb/one"}, {Target: "axb/two"}}
		case "axb/two":
			notes[i].Links = []ports.Link{{Target: "a_b/one"}, {Target: "100%/x"}}
		}
	}

	// One note with many links of both kinds, in mixed order.
	many := ports.Note{ID: ManyLinksID, Title: "Links", Content: "many links", UpdatedAt: t1, CreatedAt: t0, Tags: []string{"work"}}
	for i := range 40 {
		switch i % 3 {
		case 0:
			many.Links = append(many.Links, ports.Link{Target: urls[i%len(urls)], External: true, Text: fmt.Sprint(i)})
		case 1:
			many.Links = append(many.Links, ports.Link{Target: ids[(i*7)%len(ids)], Text: "🔗"})
		default:
			many.Links = append(many.Links, ports.Link{Target: brokenTarget(i % 5)})
		}
	}
	many.Links = append(many.Links, ports.Link{Target: ManyLinksID, Text: "self"})
	notes = append(notes, many)

	// A note with many parents, some missing.
	mp := ports.Note{ID: ManyParentsID, Title: "Child of many", UpdatedAt: t1, CreatedAt: t0}
	for i := 0; i < len(ids); i += 3 {
		mp.Parents = append(mp.Parents, ids[i])
	}
	mp.Parents = append(mp.Parents, MissingParentID, "missing/other")
	notes = append(notes, mp)

	// A cycle a -> b -> c -> a (parent edges), with a child off the cycle.
	notes = append(notes,
		ports.Note{ID: "cycle/a", Title: "Cycle", Parents: []string{"cycle/c"}, UpdatedAt: t0, CreatedAt: t0},
		ports.Note{ID: "cycle/b", Title: "Cycle", Parents: []string{"cycle/a"}, UpdatedAt: t0, CreatedAt: t0},
		ports.Note{ID: "cycle/c", Title: "Cycle", Parents: []string{"cycle/b"}, UpdatedAt: t0, CreatedAt: t0},
		ports.Note{ID: "cycle/d", Title: "Cycle", Parents: []string{"cycle/b", "cycle/c"}, UpdatedAt: t0, CreatedAt: t0},
	)
	// A diamond: top -> left, right -> bottom; bottom is at depth 2 once.
	notes = append(notes,
		ports.Note{ID: "diamond/top", Title: "Top", UpdatedAt: t0, CreatedAt: t0},
		ports.Note{ID: "diamond/left", Title: "Side", Parents: []string{"diamond/top"}, UpdatedAt: t0, CreatedAt: t0},
		ports.Note{ID: "diamond/right", Title: "Side", Parents: []string{"diamond/top"}, UpdatedAt: t0, CreatedAt: t0},
		ports.Note{ID: "diamond/bottom", Title: "Bottom", Parents: []string{"diamond/left", "diamond/right", "diamond/top"}, UpdatedAt: t0, CreatedAt: t0},
	)
	// Folders as the hierarchy: areas, with many notes, has an index
	// note; deep nests four folders without one; deep/x names a folder
	// as its parent, deep/a/b/own its own folder; the note deep/a/B ties
	// the folder deep/a/b on its title.
	notes = append(notes,
		ports.Note{ID: "areas", Title: "Areas", Content: "the areas", UpdatedAt: t1, CreatedAt: t0},
		ports.Note{ID: "deep/a/b/c/leaf", Title: "Leaf", UpdatedAt: t0, CreatedAt: t0},
		ports.Note{ID: "deep/a/b/own", Title: "Own", Parents: []string{"deep/a/b"}, UpdatedAt: t0, CreatedAt: t0},
		ports.Note{ID: "deep/x", Title: "X", Parents: []string{"deep/a"}, UpdatedAt: t0, CreatedAt: t0},
		ports.Note{ID: "deep/a/B", Title: "b", UpdatedAt: t0, CreatedAt: t0},
	)
	// A chain 22 levels deep: past the maximum depth.
	for i := range 23 {
		c := ports.Note{ID: fmt.Sprintf("chain/%02d", i), Title: "Link in a chain", UpdatedAt: t1, CreatedAt: t0}
		if i > 0 {
			c.Parents = []string{fmt.Sprintf("chain/%02d", i-1)}
		}
		notes = append(notes, c)
	}
	return notes
}

// HugeNotes returns notes for line windows: 12,000 lines of mixed text,
// 10,001 CRLF lines without a final newline, 2,500 lines of non-ASCII text,
// an empty note, a note of newlines only and a single line without a
// newline.
func HugeNotes() []ports.Note {
	var lf, crlf, uni strings.Builder
	for i := range 12000 {
		if i%97 == 0 {
			lf.WriteString("\n") // an empty line
			continue
		}
		fmt.Fprintf(&lf, "%05d %s\n", i, noteWords[i%len(noteWords)])
	}
	for i := range 10001 {
		if i > 0 {
			crlf.WriteString("\r\n")
		}
		fmt.Fprintf(&crlf, "line %d\twith a tab", i)
	}
	uniWords := []string{"日本語の行", "😀👩‍👩‍👧🇯🇵", "e\u0301\u0301 a\u0308", "שלום עולם", "مرحبا بالعالم", "İı ß"}
	for i := range 2500 {
		fmt.Fprintf(&uni, "%s %d\n", uniWords[i%len(uniWords)], i)
	}
	mk := func(id, title, content string) ports.Note {
		return ports.Note{ID: id, Title: title, Content: content, UpdatedAt: Epoch, CreatedAt: Epoch}
	}
	return []ports.Note{
		mk("big/lines", "Twelve thousand lines", lf.String()),
		mk("big/crlf", "CRLF", crlf.String()),
		mk("big/unicode", "Unicode 日本語 😀", uni.String()),
		mk("big/empty", "Empty", ""),
		mk("big/newlines", "Newlines", "\n\n\n"),
		mk("big/one-line", "One line", "one line, no newline"),
	}
}

// Entity vocabularies: two words make a name, in either order, with
// varying case and separators, so that fuzzy scores tie.
var (
	entityWords = []string{"auth", "service", "user", "store", "alice", "bob", "graph", "token", "日本", "東京", "données", "café", "🎉party"}
	entityTypes = []string{"service", "person", "concept", "概念", "place"}
	entityObs   = []string{
		"handles login", "uses OAuth 2.0", "owned by team 日本", "100% uptime", "1000 users",
		"rate a_b limit", "rate axb limit", "O'Brien's module", `stored at C:\data`, "מודול ראשי",
		"emoji 🎉 inside", "cafe\u0301 au lait", "Auth flows",
	}
	entityTags = []string{"work", "infra", "ml", "日本語", "🎉"}
)

// Entities returns 80 entities of a knowledge graph: 70 generated from
// seed, plus hand-written ones whose names hold LIKE wildcards, quotes and
// backslashes next to decoys.
func Entities(seed uint64) []ports.Entity {
	r := newRand(seed + 1)
	seen := map[string]bool{}
	var out []ports.Entity
	seps := []string{" ", "-", "_", " ", "  ", "."}
	for len(out) < 70 {
		a, b := pick(r, entityWords), pick(r, entityWords)
		if a == b {
			continue
		}
		name := a + pick(r, seps) + b
		switch r.IntN(4) {
		case 0:
			name = strings.ToUpper(name)
		case 1:
			name = caseVariant(name, 1) // the first letter
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		e := ports.Entity{Name: name, Type: pick(r, entityTypes), UpdatedAt: someTime(r)}
		for range r.IntN(4) {
			e.Observations = append(e.Observations, pick(r, entityObs))
		}
		for _, tag := range entityTags {
			if r.IntN(3) == 0 {
				e.Tags = append(e.Tags, tag)
			}
		}
		out = append(out, e)
	}
	for _, name := range []string{
		"Percent 100%", "Percent 1000", "a_b entity", "axb entity", "O'Brien", "OBrien",
		`C:\path`, "C:path", `say "hi"`, "say hi",
	} {
		out = append(out, ports.Entity{Name: name, Type: "literal", UpdatedAt: Epoch, Tags: []string{"literal"}})
	}
	return out
}

// History endpoints of [Runs]. EmptyEndpoint has no runs.
const (
	EndpointA     = "ep-alpha"
	EndpointB     = "ep-beta"
	EndpointUni   = "端点/β"
	EndpointLike  = "ep%"
	EmptyEndpoint = "ep-empty"
)

// bodyUnits are the repeated units of generated bodies: ASCII, 2-byte,
// 3-byte and 4-byte runes, combining marks, a ZWJ emoji sequence, a flag,
// Hebrew with points, CRLF.
var bodyUnits = []string{"a", "é", "日", "😀", "e\u0301", "👩‍👩‍👧", "🇯🇵", "שָׁ", "\r\n", `{"k":"v"},`}

// bodyLengths straddle the clip at ports.HistoryBodyChars (1,000 runes,
// marker included).
var bodyLengths = []int{0, 1, 500, 979, 980, 981, 999, 1000, 1001, 1002, 1500, 5000}

// body is the first n runes of unit repeated.
func body(unit string, n int) string {
	var b strings.Builder
	for _, r := range strings.Repeat(unit, n) { // unit has at least one rune
		if n == 0 {
			break
		}
		b.WriteRune(r)
		n--
	}
	return b.String()
}

// Runs returns 85 recorded runs generated from seed over the
// endpoints EndpointA (50 runs), EndpointB (20), EndpointUni (10),
// EndpointLike (3) and "EP-ALPHA" (2), with StartedAt drawn from six
// instants and bodies from 0 to 5,000 runes of every kind of character,
// many cut near 1,000 runes.
func Runs(seed uint64) []ports.Run {
	r := newRand(seed + 2)
	var out []ports.Run
	perm := r.Perm(1000)
	i := 0
	add := func(ep string, k int) {
		for range k {
			id := fmt.Sprintf("run-%03d", perm[i])
			if i%7 == 0 {
				id = fmt.Sprintf("Rün-%03d", perm[i])
			}
			i++
			start := Epoch.Add(time.Duration(r.IntN(6)) * time.Minute)
			out = append(out, ports.Run{
				ID: id, EndpointID: ep,
				StartedAt:  start,
				FinishedAt: start.Add(time.Duration(r.IntN(5000)) * time.Millisecond),
				Status:     pick(r, []string{"ok", "error", "timeout", "✓ done"}),
				StatusCode: pick(r, []int{200, 404, 500, 0}),
				Body:       body(pick(r, bodyUnits), pick(r, bodyLengths)),
			})
		}
	}
	add(EndpointA, 50)
	add(EndpointB, 20)
	add(EndpointUni, 10)
	add(EndpointLike, 3)
	add("EP-ALPHA", 2)
	return out
}

// Code vocabularies.
var (
	codeFiles = []string{
		"src/http/server.go", "src/http/client.go", "src/parse/lexer.py", "src/parse/parser.py",
		"src_a/x.go", "srcxa/y.go", "100%/z.go", "1000/w.go", "pkg/日本/テスト.go", "README", "docs/naïve.md",
	}
	codeTerms = []string{
		"parse", "http", "request", "handler", "error", "config", "user", "token", "parse_http",
		"日本語", "naïve", "ParseHTTP", "return", "func", "ERROR",
		"foo", "bar", "baz", "qux", "tmp", "val", "ctx", "err", "nil", "i", "x",
	}
	codePunct = []string{" ", "(", ") ", ".", " := ", ", ", "\t"}
)

// language is the language of a fixture file, by extension.
func language(path string) string {
	switch {
	case strings.HasSuffix(path, ".go"):
		return "go"
	case strings.HasSuffix(path, ".py"):
		return "python"
	case strings.HasSuffix(path, ".md"):
		return "markdown"
	}
	return ""
}

// Chunks returns 80 code chunks generated from seed: few files and
// start lines (so that score, path and start line all tie), contents made
// of few terms (so that scores tie), paths that look like LIKE patterns.
func Chunks(seed uint64) []ports.Chunk {
	r := newRand(seed + 3)
	perm := r.Perm(1000)
	var out []ports.Chunk
	for i := range 80 {
		path := pick(r, codeFiles)
		lines := 1 + r.IntN(3)
		var b strings.Builder
		for l := range lines {
			if l > 0 {
				b.WriteByte('\n')
			}
			for w := range 2 + r.IntN(3) {
				if w > 0 {
					b.WriteString(pick(r, codePunct))
				}
				b.WriteString(pick(r, codeTerms))
			}
		}
		start := 1 + 10*r.IntN(4)
		c := ports.Chunk{
			ID:        fmt.Sprintf("chunk-%03d", perm[i]),
			FilePath:  path,
			Language:  language(path),
			StartLine: start,
			EndLine:   start + lines - 1,
			Content:   b.String(),
		}
		if r.IntN(2) == 0 {
			c.ContextBefore = "// before\n"
			c.ContextAfter = "// after 日本\n"
		}
		out = append(out, c)
	}
	return out
}

// trickyIDs are id suffixes whose bytewise order differs from a naive
// case-insensitive or locale order.
var trickyIDs = []string{
	"B", "a", "ä", "Ä", "a b", "a-b", "a/b", "a_b", "日本", "😀", "Z9", "z10", "z9", "~", "A", "aa", "a%", "ab", "é", "e\u0301",
}

// tieIDs returns n distinct ids, prefix followed by a tricky suffix, in a
// fixed shuffled order (so that insertion order is not the sort order).
func tieIDs(prefix string, n int) []string {
	ids := make([]string, n)
	for i := range n {
		if i < len(trickyIDs) {
			ids[i] = prefix + trickyIDs[i]
		} else {
			ids[i] = fmt.Sprintf("%sx%03d", prefix, i)
		}
	}
	r := newRand(uint64(n))
	r.Shuffle(n, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	return ids
}

// fixture is a data set loaded through the ports' write methods.
type fixture struct {
	notes    []ports.Note
	entities []ports.Entity
	runs     []ports.Run
	chunks   []ports.Chunk
}

// load writes f into s, failing the test on any error.
func (f fixture) load(t TB, s Store, who string) {
	t.Helper()
	ctx := t.Context()
	if len(f.notes) > 0 {
		if s.Notes == nil {
			t.Fatalf("%s: Store.Notes is nil", who)
		}
		for _, n := range f.notes {
			if err := s.Notes.PutNote(ctx, n); err != nil {
				t.Fatalf("%s: PutNote(%q): %v", who, n.ID, err)
			}
		}
	}
	if len(f.entities) > 0 {
		if s.Knowledge == nil {
			t.Fatalf("%s: Store.Knowledge is nil", who)
		}
		for _, e := range f.entities {
			if err := s.Knowledge.PutEntity(ctx, e); err != nil {
				t.Fatalf("%s: PutEntity(%q): %v", who, e.Name, err)
			}
		}
	}
	if len(f.runs) > 0 {
		if s.History == nil {
			t.Fatalf("%s: Store.History is nil", who)
		}
		for _, r := range f.runs {
			if err := s.History.RecordRun(ctx, r); err != nil {
				t.Fatalf("%s: RecordRun(%q): %v", who, r.ID, err)
			}
		}
	}
	if len(f.chunks) > 0 {
		if s.Code == nil {
			t.Fatalf("%s: Store.Code is nil", who)
		}
		for i := 0; i < len(f.chunks); i += 50 {
			batch := f.chunks[i:min(i+50, len(f.chunks))]
			if err := s.Code.PutChunks(ctx, batch); err != nil {
				t.Fatalf("%s: PutChunks(%d chunks from %q): %v", who, len(batch), batch[0].ID, err)
			}
		}
	}
}
