package conformance

import (
	"context"
	"fmt"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// codeTests checks ports.Code: SearchCode and PutChunks; st and ref hold
// Chunks(Seed).
func (s *suite) codeTests(t TB, st, ref Store) {
	runMethod(t, s, searchCodeMethod(), st, ref)
	t.Run("PutChunks", s.putChunksTests)
}

func chunkKey(c ports.CodeMatch) string { return c.ID }

func codeQuery(cq ports.CodeQuery) query[ports.CodeMatch] {
	args := bounded.Args{{Name: "query", Value: cq.Query}}
	if cq.PathPrefix != "" {
		args = append(args, bounded.Arg{Name: "pathPrefix", Value: cq.PathPrefix})
	}
	if cq.Language != "" {
		args = append(args, bounded.Arg{Name: "language", Value: cq.Language})
	}
	return query[ports.CodeMatch]{args: args, fetch: func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
		return s.Code.SearchCode(ctx, cq, p)
	}}
}

func searchCodeMethod() method[ports.CodeMatch] {
	bad := func(name string, cq ports.CodeQuery) errCase {
		return errCase{name, func(ctx context.Context, s Store) error {
			_, err := s.Code.SearchCode(ctx, cq, bounded.Page{})
			return err
		}, []error{ports.ErrInvalidQuery}}
	}
	m := method[ports.CodeMatch]{
		name: "SearchCode", call: "SearchCode", tool: "search_code", port: codePort,
		limits: ports.SearchCodeLimits, paging: bounded.ByOffset, key: chunkKey,
		queries: []query[ports.CodeMatch]{
			codeQuery(ports.CodeQuery{Query: "parse http request"}),
			codeQuery(ports.CodeQuery{Query: "ERROR handler", PathPrefix: "src/"}),
			codeQuery(ports.CodeQuery{Query: "parse_http"}),
			codeQuery(ports.CodeQuery{Query: "日本語 naïve"}),
			codeQuery(ports.CodeQuery{Query: "user token config error", Language: "go"}),
			codeQuery(ports.CodeQuery{Query: "parse", PathPrefix: "src_a"}),
			codeQuery(ports.CodeQuery{Query: "parse request", PathPrefix: "100%"}),
			codeQuery(ports.CodeQuery{Query: "parse", Language: "Go"}),
			codeQuery(ports.CodeQuery{Query: "return func", PathPrefix: "src/http/", Language: "go"}),
			codeQuery(ports.CodeQuery{Query: "zzz qqq"}),
		},
		sized: func(n int) (fixture, query[ports.CodeMatch]) {
			var cs []ports.Chunk
			for _, id := range tieIDs("chunk-", n) {
				cs = append(cs, ports.Chunk{ID: id, FilePath: "same/file.go", Language: "go", StartLine: 3, EndLine: 4, Content: "needle(token)\nhaystack"})
			}
			cs = append(cs, ports.Chunk{ID: "decoy", FilePath: "same/file.go", StartLine: 1, EndLine: 1, Content: "nothing"})
			return fixture{chunks: cs}, codeQuery(ports.CodeQuery{Query: "needle token"})
		},
		errs: []errCase{
			bad("no-terms", ports.CodeQuery{Query: "!!! ?"}),
			bad("one-rune-terms", ports.CodeQuery{Query: "a b c"}),
			bad("invalid-utf8-pathPrefix", ports.CodeQuery{Query: "parse", PathPrefix: "src\xff"}),
			bad("nul-language", ports.CodeQuery{Query: "parse", Language: "go\x00"}),
		},
	}
	for _, b := range badQueries() {
		m.errs = append(m.errs, bad("query-"+b.name, ports.CodeQuery{Query: b.q}))
	}
	return m
}

// putChunksTests checks PutChunks: a batch holding an invalid chunk is
// refused with ErrInvalidItem and writes nothing; putting chunks again
// replaces them.
func (s *suite) putChunksTests(t TB) {
	probe := searchCodeMethod()
	probe.queries = []query[ports.CodeMatch]{codeQuery(ports.CodeQuery{Query: "kept valid bad"})}
	t.Run("invalid", func(t TB) {
		keep := ports.Chunk{ID: "keep", FilePath: "a.go", StartLine: 1, EndLine: 1, Content: "kept"}
		st, ref := s.open(t, codePort, fixture{chunks: []ports.Chunk{keep}})
		valid := ports.Chunk{ID: "valid", FilePath: "b.go", StartLine: 1, EndLine: 2, Content: "valid"}
		bad := func(f func(c *ports.Chunk)) ports.Chunk {
			c := ports.Chunk{ID: "bad", FilePath: "c.go", StartLine: 1, EndLine: 1, Content: "bad"}
			f(&c)
			return c
		}
		cases := []struct {
			name string
			c    ports.Chunk
		}{
			{"empty-id", bad(func(c *ports.Chunk) { c.ID = "" })},
			{"empty-path", bad(func(c *ports.Chunk) { c.FilePath = "" })},
			{"start-line-0", bad(func(c *ports.Chunk) { c.StartLine, c.EndLine = 0, 0 })},
			{"end-before-start", bad(func(c *ports.Chunk) { c.StartLine, c.EndLine = 5, 4 })},
			{"nul-content", bad(func(c *ports.Chunk) { c.Content = "a\x00" })},
			{"invalid-utf8-context", bad(func(c *ports.Chunk) { c.ContextAfter = "\xff" })},
			{"invalid-replacement", func() ports.Chunk { c := keep; c.Content = "valid \xff"; return c }()},
		}
		for _, c := range cases {
			t.Run(c.name, func(t TB) {
				batch := []ports.Chunk{valid, c.c}
				if err := ref.Code.PutChunks(t.Context(), batch); err == nil {
					t.Fatalf("memrepo accepts the invalid chunk %q (a bug of the suite or of memrepo)", c.c.ID)
				}
				expectErr(t, fmt.Sprintf("PutChunks(a valid chunk, a %s chunk)", c.name), st.Code.PutChunks(t.Context(), batch), ports.ErrInvalidItem)
			})
		}
		readsOf(probe).check(t, s, st, ref)
	})
	t.Run("replace", func(t TB) {
		data := fixture{chunks: Chunks(Seed)}
		st, ref := s.open(t, codePort, data)
		var again []ports.Chunk
		for i, c := range data.chunks {
			if i%3 == 0 {
				c.Content = "kept valid token"
				c.FilePath = "replaced/" + c.FilePath
				again = append(again, c)
			}
		}
		for range 2 {
			for _, st := range []Store{ref, st} {
				if err := st.Code.PutChunks(t.Context(), again); err != nil {
					t.Fatalf("PutChunks(%d chunks) again: %v", len(again), err)
				}
			}
		}
		readsOf(searchCodeMethod()).check(t, s, st, ref)
		readsOf(probe).check(t, s, st, ref)
	})
}
