package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/boundedkit/bounded/examples/notes/vault"
	"github.com/boundedkit/bounded/mcptools/mcptoolstest"
)

// vaultEnv names the vault TestVaultWalk walks; without it, a generated
// vault of vaultNotes notes.
const vaultEnv = "BOUNDED_VAULT"

// walker walks tools by next, counting calls, the largest response and
// the violations of the contract it sees.
type walker struct {
	t          *testing.T
	c          *mcptoolstest.Client
	calls      int
	violations int
	largest    int
	largestAt  string
	// walked is the largest response of a walk under a budget of its own.
	walked   int
	walkedAt string
}

// violation reports a breach of the contract.
func (w *walker) violation(format string, args ...any) {
	w.t.Helper()
	w.violations++
	w.t.Errorf(format, args...)
}

// walk calls tool with args, then each next, under budget characters
// (0: the server's), and returns the results' keys. A response over its
// limits, or with more and no next, is a violation.
func (w *walker) walk(tool, args string, budget int) []string {
	w.t.Helper()
	if budget > 0 {
		args = mcptoolstest.WithArg(w.t, args, "budget", budget)
	}
	var got []string
	for range 5000 {
		res := w.c.Raw(tool, args)
		text := mcptoolstest.Text(res)
		w.calls++
		n := utf8.RuneCountInString(text)
		if n > w.largest {
			w.largest, w.largestAt = n, tool+args
		}
		if budget > 0 && n > w.walked {
			w.walked, w.walkedAt = n, tool+args
		}
		if res.IsError {
			w.violation("%s(%s): %.300s", tool, args, text)
			return got
		}
		var env mcptoolstest.Envelope
		if err := json.Unmarshal([]byte(text), &env); err != nil {
			w.violation("%s(%s): not an envelope: %v", tool, args, err)
			return got
		}
		switch {
		case n > env.Truncation.LimitChars || budget > 0 && n > budget:
			w.violation("%s(%s): %d characters, over its limit %d", tool, args, n, env.Truncation.LimitChars)
		case env.Truncation.LimitTokens > 0 && env.Truncation.EstimatedTokens > env.Truncation.LimitTokens:
			w.violation("%s(%s): %d tokens, over its limit %d", tool, args, env.Truncation.EstimatedTokens, env.Truncation.LimitTokens)
		case env.Pagination.HasMore && env.Next == nil:
			w.violation("%s(%s): hasMore without next", tool, args)
		}
		got = append(got, keys(w.t, env.Results)...)
		if env.Next == nil {
			return got
		}
		args = mcptoolstest.NextArgs(w.t, env, args)
	}
	w.violation("%s: no end after 5,000 calls", tool)
	return got
}

// exactlyOnce walks tool with args under budget, and reads it whole (the
// largest page, the server's budget): the walk must return every result
// of the whole read once, in order.
func (w *walker) exactlyOnce(tool, args string, limit, budget int) int {
	w.t.Helper()
	whole := w.walk(tool, mcptoolstest.WithArg(w.t, args, "limit", limit), 0)
	got := w.walk(tool, args, budget)
	seen := map[string]int{}
	for _, k := range got {
		if seen[k]++; seen[k] == 2 {
			w.violation("%s(%s): %s came twice", tool, args, k)
		}
	}
	if !slices.Equal(got, whole) {
		missed := 0
		for _, k := range whole {
			if seen[k] == 0 {
				missed++
			}
		}
		w.violation("%s(%s): the walk returned %d results (%d missed), the whole read %d", tool, args, len(got), missed, len(whole))
	}
	return len(whole)
}

// TestVaultWalk imports a vault (BOUNDED_VAULT, or a generated one) into
// SQLite through the MCP server and walks its notes tools by next under
// small budgets: every listing exactly once against a whole read, every
// response within its limits; folders listed as the hierarchy, names
// resolved as links. It logs the calls, the violations and the largest
// response:
//
//	BOUNDED_VAULT=/path/to/obsidian-help go test ./examples/mcpserver -run TestVaultWalk -v
func TestVaultWalk(t *testing.T) {
	dir := os.Getenv(vaultEnv)
	if dir == "" {
		dir, _ = genVault(t, vaultNotes())
	}
	notes, failed, err := vault.Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c, _ := inProcess(t, config{vault: dir, code: "-", mode: "balanced"})
	imported := time.Since(start)

	// What the vault holds: its top folders, the note most linked to, the
	// one with most links, a name several notes share.
	var tops []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			tops = append(tops, e.Name())
		}
	}
	// English first, where the vault has it.
	if i := slices.Index(tops, "en"); i > 0 {
		tops[0], tops[i] = tops[i], tops[0]
	}
	exists := map[string]bool{}
	for _, n := range notes {
		exists[n.ID] = true
	}
	linked := map[string]int{}
	byName := map[string][]string{}
	most := notes[0]
	for _, n := range notes {
		for _, l := range n.Links {
			if !l.External && exists[l.Target] {
				linked[l.Target]++
			}
		}
		if len(n.Links) > len(most.Links) {
			most = n
		}
		name := strings.ToLower(path.Base(n.ID))
		byName[name] = append(byName[name], n.ID)
	}
	popular := most.ID
	for id, k := range linked {
		if k > linked[popular] || k == linked[popular] && id < popular {
			popular = id
		}
	}
	// The name most notes share at its nearest depth: ambiguous.
	depth := func(id string) int { return strings.Count(id, "/") }
	shared, sharedBy := "", 0
	for name, ids := range byName {
		near := slices.MinFunc(ids, func(a, b string) int { return cmp.Compare(depth(a), depth(b)) })
		tied := 0
		for _, id := range ids {
			if depth(id) == depth(near) {
				tied++
			}
		}
		if tied > sharedBy || tied == sharedBy && name < shared {
			shared, sharedBy = name, tied
		}
	}
	folders := []string{path.Dir(popular)}
	if fi, err := os.Stat(filepath.Join(dir, "en", "Plugins")); err == nil && fi.IsDir() {
		folders = append(folders, "en/Plugins")
	}
	t.Logf("vault %s: %d notes (%d failed), %d top folders; imported in %v; most linked %q (%d links), most links %q (%d), %q names %d notes equally",
		dir, len(notes), len(failed), len(tops), imported.Round(time.Millisecond), popular, linked[popular], most.ID, len(most.Links), shared, sharedBy)

	w := &walker{t: t, c: c}
	q := func(args ...any) string {
		b, err := json.Marshal(mapOf(args...))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, s := range []struct {
		tool, args string
		limit      int
		budget     int
	}{
		{"list_notes", q("detail", "concise"), 200, 6000},
		{"list_notes", q("folder", tops[0]), 200, 3000},
		{"search_notes", q("query", path.Base(popular)), 100, 3000},
		{"search_by_links", q("hasLinksTo", []string{popular}), 200, 3000},
		{"find_broken_links", q(), 500, 4000},
		{"get_backlinks", q("id", popular), 500, 3000},
		{"get_note_links", q("id", most.ID), 500, 2500},
		{"get_related_notes", q("id", popular), 200, 3000},
		{"get_children", q("id", tops[0]), 200, 2000},
		{"get_children", q("id", folders[0]), 200, 2000},
		{"get_children", q("id", folders[len(folders)-1]), 200, 2000},
		{"get_descendants", q("id", tops[0], "maxDepth", 3), 500, 3000},
		{"get_parents", q("id", popular), 200, 1500},
		{"search_knowledge", q("query", path.Base(popular), "mode", "fuzzy", "detail", "concise"), 0, 2500},
	} {
		if s.limit == 0 {
			s.limit = 100
		}
		args := s.args
		if s.tool == "search_knowledge" {
			whole := w.walk(s.tool, mcptoolstest.WithArg(t, args, "pageSize", 100), 0)
			got := w.walk(s.tool, args, s.budget)
			if !slices.Equal(got, whole) {
				w.violation("%s(%s): the walk returned %d results, the whole read %d", s.tool, args, len(got), len(whole))
			}
			continue
		}
		n := w.exactlyOnce(s.tool, args, s.limit, s.budget)
		t.Logf("%s(%s): %d results", s.tool, args, n)
	}
	// The hierarchy of every top folder: folders first among its children.
	for _, top := range tops {
		env, _ := c.Call("get_children", q("id", top, "limit", 1, "detail", "concise"))
		w.calls++
		if env.Pagination.Total == 0 {
			w.violation("get_children(%s): no children", top)
		}
	}
	// Names as links give them: a path in other case, with .md; a name
	// several notes share.
	args := q("id", strings.ToUpper(popular)+".md", "maxLines", 1)
	env, text := c.Call("get_note", args)
	var got struct{ ID string }
	if len(env.Results) != 1 || json.Unmarshal(env.Results[0], &got) != nil || got.ID != popular {
		w.violation("get_note(%s): %.300s", args, text)
	}
	w.calls++
	if sharedBy > 1 {
		got := c.Error("get_note", q("id", shared))
		w.calls++
		if !strings.Contains(got, fmt.Sprintf("names %d notes equally", sharedBy)) {
			w.violation("get_note(%q): %.300s; want %d candidates", shared, got, sharedBy)
		}
	}
	// A long note, window by window.
	long := slices.MaxFunc(notes, func(a, b vault.File) int {
		return cmp.Compare(strings.Count(a.Content, "\n"), strings.Count(b.Content, "\n"))
	})
	w.walk("get_note", q("id", long.ID, "maxLines", 100), 4000)
	t.Logf("vault walk: %d calls, %d violations, largest response %d characters (%.120s); under a budget of its own %d (%.120s)",
		w.calls, w.violations, w.largest, w.largestAt, w.walked, w.walkedAt)
}

// mapOf builds a JSON object's arguments from name, value pairs, in order.
func mapOf(args ...any) json.RawMessage {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(args); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(args[i])
		v, _ := json.Marshal(args[i+1])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}
