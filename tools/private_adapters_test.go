package tools_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/boundedkit/bounded"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/conformance"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
)

// store is every port of one store.
type store interface {
	ports.Notes
	ports.Knowledge
	ports.History
	ports.Code
}

// adapterStores are the stores the private-mode test runs on: memrepo,
// SQLite (a file under t.TempDir()) and Postgres (a schema of its own at
// BOUNDED_PG_DSN; skipped without it, failed without it when CI=true).
var adapterStores = []struct {
	name string
	open func(t *testing.T) store
}{
	{"memrepo", func(t *testing.T) store { return memrepo.New() }},
	{"sqlite", func(t *testing.T) store {
		s, db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "private.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return s
	}},
	{"postgres", func(t *testing.T) store { return openPostgres(t) }},
}

// openPostgres opens a Postgres store in a new schema, dropped when t ends.
func openPostgres(t testing.TB) store {
	const env = "BOUNDED_PG_DSN"
	addr := os.Getenv(env)
	if addr == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set; CI must run the Postgres tests", env)
		}
		t.Skipf("Postgres tests skipped: set %s (e.g. %s=postgres://postgres@127.0.0.1:5432/test?sslmode=disable) to run them", env, env)
	}
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	schema := "bounded_tools_test_" + hex.EncodeToString(b)
	admin := bun.NewDB(sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(addr))), pgdialect.New())
	t.Cleanup(func() { admin.Close() })
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	db := bun.NewDB(sql.OpenDB(searchPath{pgdriver.NewConnector(pgdriver.WithDSN(addr)), schema}), pgdialect.New())
	t.Cleanup(func() { db.Close() })
	s, err := postgres.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// searchPath sets the search_path of every new connection to its schema.
type searchPath struct {
	*pgdriver.Connector
	schema string
}

func (c searchPath) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := cn.(driver.ExecerContext).ExecContext(ctx, "SET search_path TO "+c.schema+", public", nil); err != nil {
		cn.Close()
		return nil, err
	}
	return cn, nil
}

// fixtureData is what the test loads: the conformance fixtures.
type fixtureData struct {
	notes    []ports.Note
	entities []ports.Entity
	runs     []ports.Run
	chunks   []ports.Chunk
}

func loadFixtures(t *testing.T, s store) fixtureData {
	t.Helper()
	ctx := context.Background()
	fx := fixtureData{
		notes:    append(conformance.Notes(conformance.Seed), conformance.HugeNotes()...),
		entities: conformance.Entities(conformance.Seed),
		runs:     conformance.Runs(conformance.Seed),
		chunks:   conformance.Chunks(conformance.Seed),
	}
	for _, n := range fx.notes {
		if err := s.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range fx.entities {
		if err := s.PutEntity(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range fx.runs {
		if err := s.RecordRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutChunks(ctx, fx.chunks); err != nil {
		t.Fatal(err)
	}
	return fx
}

// contentProbe is the start of one content string of the fixtures (at
// most probeRunes runes: a clipped text still holds it), with what it is.
type contentProbe struct{ what, probe string }

const probeRunes = 24

// probes returns the content of the fixtures that private mode withholds
// (as package tools documents it: note content, link texts and external
// URLs, observations, response bodies, code and its context), each as a
// probe; and how many were left out because they also occur in what
// private mode shows (ids, titles, tags, names, types, statuses, paths,
// domains, internal link targets, the arguments of the calls), where they
// would prove nothing.
func probes(fx fixtureData, args []string) (out []contentProbe, skipped int) {
	var shown []string
	add := func(s ...string) { shown = append(shown, s...) }
	for _, n := range fx.notes {
		add(n.ID, n.Title)
		add(n.Tags...)
		add(n.Parents...)
		for _, l := range n.Links {
			if l.External {
				add(l.Domain())
			} else {
				add(l.Target)
			}
		}
	}
	for _, e := range fx.entities {
		add(e.Name, e.Type)
		add(e.Tags...)
	}
	for _, r := range fx.runs {
		add(r.ID, r.EndpointID, r.Status)
	}
	for _, c := range fx.chunks {
		add(c.ID, c.FilePath, c.Language)
	}
	add(args...)
	all := strings.Join(shown, "\x00")
	seen := map[string]bool{}
	consider := func(what, s string) {
		s = strings.TrimSpace(s)
		if r := []rune(s); len(r) > probeRunes {
			s = string(r[:probeRunes])
		}
		if len([]rune(s)) < 4 || seen[s] {
			return
		}
		seen[s] = true
		if strings.Contains(all, s) {
			skipped++
			return
		}
		out = append(out, contentProbe{what, s})
	}
	for _, n := range fx.notes {
		consider("content of note "+n.ID, n.Content)
		for _, l := range n.Links {
			consider("link text in "+n.ID, l.Text)
			if l.External {
				consider("external URL in "+n.ID, l.Target)
			}
		}
	}
	for _, e := range fx.entities {
		for _, o := range e.Observations {
			consider("observation of "+e.Name, o)
		}
	}
	for _, r := range fx.runs {
		consider("body of run "+r.ID, r.Body)
	}
	for _, c := range fx.chunks {
		consider("content of chunk "+c.ID, c.Content)
		consider("context of chunk "+c.ID, c.ContextBefore)
		consider("context of chunk "+c.ID, c.ContextAfter)
	}
	return out, skipped
}

// strs appends every string of a decoded JSON value.
func strs(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		return append(out, v)
	case []any:
		for _, x := range v {
			out = strs(x, out)
		}
	case map[string]any:
		for k, x := range v {
			out = append(out, k)
			out = strs(x, out)
		}
	}
	return out
}

// privateCallsFor are the calls the test makes to each tool over the
// conformance fixtures: every note (every fifth under the race detector)
// for the tools that take one, several queries for the others. Each call is walked to its end by its next.
func privateCallsFor(fx fixtureData) map[string][]string {
	q := func(format string, a ...any) string { return fmt.Sprintf(format, a...) }
	j := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	calls := map[string][]string{
		"list_notes":           {`{}`, `{"tag":"work"}`, `{"folder":"projects"}`},
		"search_notes":         {`{"query":"a"}`, `{"query":"e"}`, `{"query":"%"}`},
		"search_by_links":      {q(`{"hasLinksTo":[%s]}`, j(conformance.PopularID)), `{"brokenLinks":true}`, `{"externalDomains":["example.com","golang.org"]}`},
		"find_broken_links":    {`{}`},
		"search_knowledge":     {`{"query":"a"}`, `{"query":"e","mode":"fuzzy","threshold":0.05}`, `{"queries":["o","i","u"]}`},
		"search_code":          {`{"query":"parse http request handler error config user token func return foo bar baz"}`},
		"get_response_history": nil,
	}
	var ids []string
	step := 1
	if raceEnabled {
		step = 5
	}
	for i, n := range fx.notes {
		ids = append(ids, n.ID)
		if i%step != 0 {
			continue
		}
		for _, tool := range []string{"get_note", "get_note_links", "get_backlinks", "get_children", "get_parents", "get_descendants", "get_related_notes"} {
			calls[tool] = append(calls[tool], q(`{"id":%s}`, j(n.ID)))
		}
	}
	calls["get_note"] = append(calls["get_note"], q(`{"id":%s,"maxLines":2000,"lineOffset":3}`, j("big/lines")))
	calls["get_backlinks"] = append(calls["get_backlinks"], q(`{"id":%s}`, j("missing/m1")))
	calls["get_descendants"] = append(calls["get_descendants"], q(`{"id":%s,"maxDepth":20}`, j("chain/00")))
	for i := 0; i < len(ids); i += ports.MaxGetNotes {
		calls["get_notes"] = append(calls["get_notes"], q(`{"ids":%s}`, j(ids[i:min(i+ports.MaxGetNotes, len(ids))])))
	}
	seen := map[string]bool{}
	for _, r := range fx.runs {
		if !seen[r.EndpointID] {
			seen[r.EndpointID] = true
			calls["get_response_history"] = append(calls["get_response_history"], q(`{"endpointId":%s,"limit":10}`, j(r.EndpointID)))
		}
	}
	return calls
}

// TestPrivateModeOnEveryAdapter runs every tool in private mode over
// memrepo, SQLite and Postgres stores holding the conformance fixtures,
// walking each call to its end by its next call, in both detail levels,
// and checks that no response holds any of the fixtures' content (the
// start of every note text, link text, external URL, observation, body and
// code chunk, looked for in every string of the decoded response). The
// same calls in full mode must return some of it, so the check is not
// vacuous. Each paged tool must also refuse a cursor it did not issue
// (TestCursorReplay checks cursors of other tools).
func TestPrivateModeOnEveryAdapter(t *testing.T) {
	for _, a := range adapterStores {
		t.Run(a.name, func(t *testing.T) {
			s := a.open(t)
			fx := loadFixtures(t, s)
			calls := privateCallsFor(fx)
			var args []string
			for _, cs := range calls {
				for _, c := range cs {
					var m map[string]any
					if err := json.Unmarshal([]byte(c), &m); err != nil {
						t.Fatal(err)
					}
					args = strs(m, args)
				}
			}
			probes, skipped := probes(fx, args)
			cfg := tools.Config{Notes: s, Knowledge: s, History: s, Code: s, Budget: quiet}
			cfg.Mode = tools.Private
			private, err := tools.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Mode = tools.Full
			full, err := tools.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			responses, leaks := 0, 0
			for _, tl := range private.Tools() {
				cases := calls[tl.Name]
				if len(cases) == 0 {
					t.Errorf("%s: no private-mode case: add one to privateCallsFor", tl.Name)
					continue
				}
				found := 0
				for _, args := range cases {
					for _, detail := range []string{"", `"detail":"concise"`} {
						a := args
						if detail != "" {
							a = strings.TrimSuffix(args, "}") + sep(args) + detail + "}"
						}
						for _, out := range walkTool(t, private, tl.Name, a) {
							responses++
							if p, ok := leaked(out, probes); ok {
								leaks++
								t.Errorf("private %s(%s) returns the %s: %q\n%.2000s", tl.Name, a, p.what, p.probe, out)
							}
						}
						if found == 0 && detail == "" {
							for _, out := range walkTool(t, full, tl.Name, a) {
								if _, ok := leaked(out, probes); ok {
									found++
								}
							}
						}
					}
				}
				switch tl.Name {
				case "get_note", "get_notes", "get_note_links", "get_response_history", "search_code", "search_knowledge":
					if found == 0 {
						t.Errorf("%s: full mode returned none of the content either: the private check proves nothing", tl.Name)
					}
				}
				if tl.Limits.Max > 0 {
					_, err := private.Call(context.Background(), tl.Name, json.RawMessage(strings.TrimSuffix(cases[0], "}")+sep(cases[0])+`"cursor":"eyJvZmZzZXQiOjB9"}`))
					want := bounded.ErrInvalidCursor
					if !strings.Contains(string(tl.InputSchema), `"cursor"`) {
						want = tools.ErrInvalidArguments // pages in memory: no cursor argument
					}
					if !errors.Is(err, want) {
						t.Errorf("%s with a forged cursor argument: %v; want an error wrapping %v", tl.Name, err, want)
					}
				}
			}
			t.Logf("%s: %d private responses from %d tools, %d content probes (%d left out: they occur in ids, titles or arguments), %d leaks",
				a.name, responses, len(private.Tools()), len(probes), skipped, leaks)
		})
	}
}

// walkTool calls a tool and follows its next calls to the end (at most
// 100 responses), returning every response.
func walkTool(t *testing.T, set *tools.Set, name, args string) [][]byte {
	t.Helper()
	var outs [][]byte
	for range 100 {
		out, err := set.Call(context.Background(), name, json.RawMessage(args))
		if err != nil {
			if errors.Is(err, ports.ErrNotFound) {
				return outs
			}
			t.Fatalf("%s(%s): %v", name, args, err)
		}
		outs = append(outs, out)
		var env envelope
		if err := json.Unmarshal(out, &env); err != nil {
			t.Fatalf("%s(%s): %v", name, args, err)
		}
		if len(env.Next) == 0 {
			return outs
		}
		args = nextArgs(t, env, args)
	}
	t.Errorf("%s: the walk does not end after 100 responses", name)
	return outs
}

// leaked returns the first probe found in a string of the response.
func leaked(out []byte, probes []contentProbe) (contentProbe, bool) {
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		return contentProbe{"invalid JSON", err.Error()}, true
	}
	hay := strings.Join(slices.Compact(strs(v, nil)), "\x00")
	for _, p := range probes {
		if strings.Contains(hay, p.probe) {
			return p, true
		}
	}
	return contentProbe{}, false
}
