package conformance

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// knowledgeTests checks ports.Knowledge: SearchNodes in exact and fuzzy
// mode, its bad input, and PutEntity; st and ref hold Entities(Seed).
func (s *suite) knowledgeTests(t TB, st, ref Store) {
	t.Run("SearchNodes", func(t TB) {
		runMethod(t, s, searchNodesMethod("exact"), st, ref)
		runMethod(t, s, searchNodesMethod("fuzzy"), st, ref)
	})
	t.Run("PutEntity", s.putEntityTests)
}

func nodeKey(m ports.NodeMatch) string { return m.Name }

// nodeArgs writes a NodeQuery as tool arguments.
func nodeArgs(q ports.NodeQuery) bounded.Args {
	mode := "exact"
	if q.Mode == ports.Fuzzy {
		mode = "fuzzy"
	}
	args := bounded.Args{{Name: "queries", Value: q.Queries}, {Name: "mode", Value: mode}}
	if len(q.Tags) > 0 {
		args = append(args, bounded.Arg{Name: "tags", Value: q.Tags})
	}
	if q.Threshold != 0 {
		args = append(args, bounded.Arg{Name: "threshold", Value: q.Threshold})
	}
	return args
}

func nodeQuery(nq ports.NodeQuery) query[ports.NodeMatch] {
	return query[ports.NodeMatch]{args: nodeArgs(nq), fetch: func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.NodeMatch], error) {
		return s.Knowledge.SearchNodes(ctx, nq, p)
	}}
}

// caseVariant is s with the letters whose bit is set in mask upper-cased.
func caseVariant(s string, mask int) string {
	var b strings.Builder
	i := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			if mask&(1<<i) != 0 {
				r = unicode.ToUpper(r)
			}
			i++
		}
		b.WriteRune(r)
	}
	return b.String()
}

// searchNodesMethod is SearchNodes in one mode, "exact" or "fuzzy".
func searchNodesMethod(mode string) method[ports.NodeMatch] {
	mm := ports.Exact
	if mode == "fuzzy" {
		mm = ports.Fuzzy
	}
	q := func(nq ports.NodeQuery) query[ports.NodeMatch] {
		nq.Mode = mm
		return nodeQuery(nq)
	}
	bad := func(name string, nq ports.NodeQuery) errCase {
		if nq.Mode == ports.Exact {
			nq.Mode = mm
		}
		return errCase{name, func(ctx context.Context, s Store) error {
			_, err := s.Knowledge.SearchNodes(ctx, nq, bounded.Page{})
			return err
		}, []error{ports.ErrInvalidQuery}}
	}
	m := method[ports.NodeMatch]{
		name: mode, call: "SearchNodes", tool: "search_nodes", port: knowledgePort,
		limits: ports.SearchNodesLimits, paging: bounded.ByPage, key: nodeKey,
		errs: []errCase{
			bad("no-queries", ports.NodeQuery{}),
			bad("too-many-queries", ports.NodeQuery{Queries: strings.Fields(strings.Repeat("q ", ports.MaxQueries+1))}),
			bad("empty-tag", ports.NodeQuery{Queries: []string{"auth"}, Tags: []string{""}}),
			bad("invalid-utf8-tag", ports.NodeQuery{Queries: []string{"auth"}, Tags: []string{"\xff"}}),
			bad("unknown-mode", ports.NodeQuery{Queries: []string{"auth"}, Mode: ports.Fuzzy + 1}),
		},
	}
	for _, b := range badQueries() {
		m.errs = append(m.errs,
			bad("query-"+b.name, ports.NodeQuery{Queries: []string{b.q}}),
			bad("second-query-"+b.name, ports.NodeQuery{Queries: []string{"auth", b.q}}))
	}
	if mode == "exact" {
		for _, text := range []string{"100%", "%", "_", "a_b", "O'Brien", `C:\path`, `"hi"`, "日本", "🎉", "e\u0301", "מודול", "nothing matches this"} {
			m.queries = append(m.queries, q(ports.NodeQuery{Queries: []string{text}}))
		}
		m.queries = append(m.queries,
			q(ports.NodeQuery{Queries: []string{"AUTH", "service", "Auth"}}),
			q(ports.NodeQuery{Queries: []string{"s"}, Tags: []string{"work", "infra"}}),
			q(ports.NodeQuery{Queries: []string{"auth"}, Tags: []string{"absent"}}),
			q(ports.NodeQuery{Queries: []string{"user"}, Tags: []string{"日本語"}, Threshold: 0.9}), // ignored
		)
		m.sized = func(n int) (fixture, query[ports.NodeMatch]) {
			var es []ports.Entity
			for _, name := range tieIDs("needle ", n) {
				es = append(es, ports.Entity{Name: name, Type: "t", UpdatedAt: Epoch})
			}
			es = append(es, ports.Entity{Name: "decoy", Type: "t", Observations: []string{"nothing"}, UpdatedAt: Epoch})
			return fixture{entities: es}, q(ports.NodeQuery{Queries: []string{"NEEDLE"}})
		}
	} else {
		m.queries = append(m.queries,
			q(ports.NodeQuery{Queries: []string{"auth service"}}),
			q(ports.NodeQuery{Queries: []string{"alice"}, Threshold: 0.1}),
			q(ports.NodeQuery{Queries: []string{"alice", "bob", "auth", "alice"}}),
			q(ports.NodeQuery{Queries: []string{"auth servce"}, Threshold: 0.5}),
			q(ports.NodeQuery{Queries: []string{"service auth"}, Threshold: 1}),
			q(ports.NodeQuery{Queries: []string{"日本 東京"}}),
			q(ports.NodeQuery{Queries: []string{"café"}, Tags: []string{"work"}, Threshold: 0.05}),
			q(ports.NodeQuery{Queries: []string{"100%", "a_b"}, Threshold: 0.2}),
			q(ports.NodeQuery{Queries: []string{"zzzz"}}),
		)
		m.errs = append(m.errs,
			bad("negative-threshold", ports.NodeQuery{Queries: []string{"auth"}, Threshold: -0.1}),
			bad("threshold-over-1", ports.NodeQuery{Queries: []string{"auth"}, Threshold: 1.1}),
			bad("nan-threshold", ports.NodeQuery{Queries: []string{"auth"}, Threshold: math.NaN()}),
		)
		m.sized = func(n int) (fixture, query[ports.NodeMatch]) {
			// Names with the same trigrams: the same fuzzy score.
			var es []ports.Entity
			for i := range n {
				name := caseVariant("needle haystack", i*37%(1<<14))
				es = append(es, ports.Entity{Name: name, Type: "t", UpdatedAt: Epoch})
			}
			es = append(es, ports.Entity{Name: "zzz qqq", Type: "t", UpdatedAt: Epoch})
			return fixture{entities: es}, q(ports.NodeQuery{Queries: []string{"haystack needle"}})
		}
	}
	return m
}

// putEntityTests checks PutEntity: invalid entities are refused with
// ErrInvalidItem and leave nothing behind; a second put replaces the first.
func (s *suite) putEntityTests(t TB) {
	all := ports.NodeQuery{Queries: []string{"e", "a", "o", "i", "u", "%", "日", "1"}}
	exact := searchNodesMethod("exact")
	exact.queries = []query[ports.NodeMatch]{nodeQuery(all)}
	t.Run("invalid", func(t TB) {
		keep := ports.Entity{Name: "keep", Type: "t", Observations: []string{"kept"}, UpdatedAt: Epoch}
		st, ref := s.open(t, knowledgePort, fixture{entities: []ports.Entity{keep}})
		bad := func(f func(e *ports.Entity)) ports.Entity {
			e := ports.Entity{Name: "bad entity", Type: "t", Observations: []string{"bad"}, UpdatedAt: Epoch}
			f(&e)
			return e
		}
		cases := []struct {
			name string
			e    ports.Entity
		}{
			{"empty-name", bad(func(e *ports.Entity) { e.Name = "" })},
			{"invalid-utf8-name", bad(func(e *ports.Entity) { e.Name = "bad \xff" })},
			{"nul-type", bad(func(e *ports.Entity) { e.Type = "\x00" })},
			{"nul-observation", bad(func(e *ports.Entity) { e.Observations = []string{"ok", "a\x00b"} })},
			{"empty-tag", bad(func(e *ports.Entity) { e.Tags = []string{""} })},
			{"invalid-replacement", func() ports.Entity { e := keep; e.Observations = []string{"\xff"}; return e }()},
		}
		for _, c := range cases {
			t.Run(c.name, func(t TB) {
				if err := ref.Knowledge.PutEntity(t.Context(), c.e); err == nil {
					t.Fatalf("memrepo accepts the invalid entity %q (a bug of the suite or of memrepo)", c.e.Name)
				}
				expectErr(t, fmt.Sprintf("PutEntity(%s entity)", c.name), st.Knowledge.PutEntity(t.Context(), c.e), ports.ErrInvalidItem)
			})
		}
		readsOf(exact).check(t, s, st, ref)
	})
	t.Run("replace", func(t TB) {
		data := fixture{entities: Entities(Seed)}
		st, ref := s.open(t, knowledgePort, data)
		for i, e := range data.entities {
			if i%4 != 0 {
				continue
			}
			e.Type = "replaced"
			e.Observations = []string{"now about tokens"}
			e.Tags = []string{"replaced"}
			e.UpdatedAt = Epoch.Add(-1e9)
			for range 2 { // twice: still one copy
				for _, st := range []Store{ref, st} {
					if err := st.Knowledge.PutEntity(t.Context(), e); err != nil {
						t.Fatalf("PutEntity(%q) again: %v", e.Name, err)
					}
				}
			}
		}
		readsOf(searchNodesMethod("exact")).check(t, s, st, ref)
		readsOf(searchNodesMethod("fuzzy")).check(t, s, st, ref)
		readsOf(exact).check(t, s, st, ref)
	})
}
