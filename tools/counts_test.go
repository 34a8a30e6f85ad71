package tools_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

// TestDefaultCounts: every paged tool counts at most ten pages' worth by
// default and says so ("100+"); Counts asks for the exact total.
func TestDefaultCounts(t *testing.T) {
	ctx := context.Background()
	s := memrepo.New()
	const n = 150
	for i := range n {
		err := s.PutNote(ctx, ports.Note{ID: fmt.Sprintf("n%03d", i), Title: "T", Content: "needle",
			Links: []ports.Link{{Target: "hub"}}, Tags: []string{"t"}, UpdatedAt: base})
		if err != nil {
			t.Fatal(err)
		}
	}
	capped, err := tools.New(tools.Config{Notes: s, Budget: quiet})
	if err != nil {
		t.Fatal(err)
	}
	exact, err := tools.New(tools.Config{Notes: s, Budget: quiet, Counts: map[string]tools.Count{
		"search_notes": {Mode: bounded.CountExact}, "get_backlinks": {Mode: bounded.CountExact}, "list_notes": {Mode: bounded.CountExact},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		set        *tools.Set
		tool, args string
		total      int
		kind       bounded.TotalKind
		hint       string
	}{
		{capped, "search_notes", `{"query":"needle","limit":10}`, 100, bounded.TotalAtLeast, "Found 100+ results"},
		{capped, "get_backlinks", `{"id":"hub","limit":10}`, 100, bounded.TotalAtLeast, "Found 100+ results"},
		{capped, "list_notes", `{"limit":10}`, 100, bounded.TotalAtLeast, "Found 100+ results"},
		{capped, "list_notes", `{"limit":50}`, n, bounded.TotalExact, "Found 150 results"}, // under a cap of 500
		{exact, "list_notes", `{"limit":10}`, n, bounded.TotalExact, "Found 150 results"},
		{exact, "search_notes", `{"query":"needle","limit":10}`, n, bounded.TotalExact, "Found 150 results"},
		{exact, "get_backlinks", `{"id":"hub","limit":10}`, n, bounded.TotalExact, "Found 150 results"},
	} {
		env, _ := call(t, tc.set, tc.tool, tc.args)
		if env.Pagination.Total != tc.total || env.Pagination.TotalKind != tc.kind || !strings.Contains(env.Hint, tc.hint) {
			t.Errorf("%s(%s): total %d (%v), hint %q; want %d (%v), hint with %q", tc.tool, tc.args,
				env.Pagination.Total, env.Pagination.TotalKind, env.Hint, tc.total, tc.kind, tc.hint)
		}
		if !env.Pagination.HasMore || len(env.Results) == 0 {
			t.Errorf("%s(%s): %d results, hasMore %v; want a page, and more", tc.tool, tc.args, len(env.Results), env.Pagination.HasMore)
		}
	}
}
