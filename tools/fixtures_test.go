package tools_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
)

// secret marks every piece of content in the fixtures: private mode must
// never return a string containing it.
const secret = "SECRET"

var base = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fixtures returns a store holding a small vault, a knowledge graph, the
// response history of two endpoints and a code index. Every content string
// (note text, link text, external URLs, observations, bodies, code) holds
// secret.
func fixtures(t testing.TB) *memrepo.Store {
	t.Helper()
	ctx := context.Background()
	s := memrepo.New()
	put := func(n ports.Note) {
		t.Helper()
		if err := s.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	put(ports.Note{ID: "Home", Title: "Home", Content: "# Home\nWelcome. SECRET-home\n", Tags: []string{"start"},
		Links:     []ports.Link{{Target: "projects"}, {Target: "https://example.com/SECRET-path", External: true, Text: "SECRET-ext-text"}},
		UpdatedAt: base.Add(100 * time.Hour)})
	put(ports.Note{ID: "projects", Title: "Projects", Content: "SECRET-projects body\n" + strings.Repeat("A line of the projects overview.\n", 120),
		Links: []ports.Link{{Target: "Home"}}, UpdatedAt: base.Add(90 * time.Hour)})
	put(ports.Note{ID: "projects/alpha", Title: "Alpha", Content: "Alpha SECRET-alpha\nsecond line\n", Tags: []string{"work"}, Parents: []string{"projects"},
		Links:     []ports.Link{{Target: "Home", Text: "SECRET-alias"}, {Target: "missing-note"}, {Target: "https://docs.example.org/SECRET-doc", External: true}},
		UpdatedAt: base.Add(80 * time.Hour)})
	put(ports.Note{ID: "projects/beta", Title: "Beta", Content: "Beta SECRET-beta\n", Tags: []string{"work"}, Parents: []string{"projects"},
		Links: []ports.Link{{Target: "Home"}, {Target: "projects/alpha"}}, UpdatedAt: base.Add(80 * time.Hour)})
	var design strings.Builder
	for i := range 200 {
		fmt.Fprintf(&design, "Design SECRET-design line %d: \"quoted\"\tand tabbed\n", i+1)
	}
	put(ports.Note{ID: "projects/alpha/design", Title: "Design", Content: design.String(), Parents: []string{"projects/alpha"},
		Links: []ports.Link{{Target: "also-missing"}}, UpdatedAt: base.Add(70 * time.Hour)})
	for i := range 25 {
		put(ports.Note{ID: fmt.Sprintf("notes/%02d", i), Title: fmt.Sprintf("Note %02d", i),
			Content: fmt.Sprintf("Note %d SECRET-note-%d links [[Home]]\n", i, i), Tags: []string{"demo"},
			Links: []ports.Link{{Target: "Home"}}, UpdatedAt: base.Add(time.Duration(i%4) * time.Hour)})
	}
	var log strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&log, "SECRET-log line %d of the long note\n", i+1)
	}
	put(ports.Note{ID: "Log", Title: "Log", Content: log.String(), Links: []ports.Link{{Target: "Home"}}, UpdatedAt: base})

	for i := range 30 {
		e := ports.Entity{Name: fmt.Sprintf("entity-%02d", i), Type: "concept",
			Observations: []string{fmt.Sprintf("SECRET-obs-%d-a", i), "SECRET-obs-b " + strings.Repeat("x", 600)},
			Tags:         []string{"kg"}, UpdatedAt: base.Add(time.Duration(i%5) * time.Minute)}
		if err := s.PutEntity(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 7 {
		body := fmt.Sprintf(`{"run":%d,"data":"SECRET-body-%d %s"}`, i, i, strings.Repeat("y", i*400))
		r := ports.Run{ID: fmt.Sprintf("run-%02d", i), EndpointID: "ep1", StartedAt: base.Add(time.Duration(i) * time.Minute),
			FinishedAt: base.Add(time.Duration(i)*time.Minute + time.Second), Status: "ok", StatusCode: 200, Body: body}
		if err := s.RecordRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	var chunks []ports.Chunk
	for i := range 12 {
		chunks = append(chunks, ports.Chunk{ID: fmt.Sprintf("c%02d", i), FilePath: fmt.Sprintf("pkg/file%d.go", i%4), Language: "go",
			StartLine: 1 + i*40, EndLine: 40 + i*40,
			Content:       fmt.Sprintf("func handler%d() {\n\tparseToken(SECRET_code_%d)\n\t%s\n}\n", i, i, strings.Repeat("validate ", i%3*30)),
			ContextBefore: "// SECRET-before", ContextAfter: "// SECRET-after"})
	}
	if err := s.PutChunks(ctx, chunks); err != nil {
		t.Fatal(err)
	}
	return s
}
