package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), filepath.Join(t.TempDir(), "tasks.db"), &out); err != nil {
		t.Fatal(err)
	}
	sections := strings.Split(out.String(), "== ")[1:]
	if len(sections) != 3 {
		t.Fatalf("got %d sections, want 3:\n%s", len(sections), out.String())
	}
	type envelope struct {
		Results []struct {
			ID       int64
			Priority int64
		} `json:"results"`
		Pagination struct {
			Total, Returned, Offset int
			TotalKind               string
			HasMore                 bool
			NextCursor              string
		} `json:"pagination"`
		Truncated bool            `json:"truncated"`
		Hint      string          `json:"hint"`
		Next      json.RawMessage `json:"next"`
	}
	var envs [3]envelope
	bodies := make([]string, 3)
	for i, s := range sections {
		_, body, _ := strings.Cut(s, "\n")
		bodies[i] = strings.TrimSpace(body)
		if err := json.Unmarshal([]byte(bodies[i]), &envs[i]); err != nil {
			t.Fatalf("section %d is not one JSON envelope: %v\n%s", i, err, body)
		}
	}
	first, second, cut := envs[0], envs[1], envs[2]
	// The count is capped by default: ten pages of 3, at least 100.
	if p := first.Pagination; len(first.Results) != 3 || p.Total != 100 || p.TotalKind != "atLeast" || !p.HasMore || p.NextCursor == "" {
		t.Errorf("first page: %d results, pagination %+v; want 3 of at least 100 (of 667) and a next cursor", len(first.Results), p)
	}
	hint := strings.ReplaceAll(first.Hint, "<pagination.nextCursor>", strconv.Quote(first.Pagination.NextCursor))
	if !strings.Contains(hint, "list_tasks(status=\"open\", cursor="+strconv.Quote(first.Pagination.NextCursor)+", limit=3)") {
		t.Errorf("first page: hint %q does not name the next call", first.Hint)
	}
	// The three pages read in order: by priority, highest first, then id;
	// the second page follows the first, and the cut page starts over from
	// the first task.
	var ids []int64
	for _, e := range []envelope{first, second} {
		for _, r := range e.Results {
			ids = append(ids, r.ID)
		}
	}
	var cutIDs []int64
	for _, r := range cut.Results {
		cutIDs = append(cutIDs, r.ID)
	}
	if len(cutIDs) < len(ids) || !slices.Equal(cutIDs[:len(ids)], ids) {
		t.Errorf("pages 1 and 2 hold %v, the budgeted page starts %v: want the same tasks in the same order", ids, cutIDs)
	}
	if !cut.Truncated || len(cut.Results) >= 50 || !cut.Pagination.HasMore || !strings.Contains(string(cut.Next), "cursor") {
		t.Errorf("budgeted: truncated %v, %d results, next %s; want a cut continuing by cursor", cut.Truncated, len(cut.Results), cut.Next)
	}
	if n := utf8.RuneCountInString(bodies[2]); n > 1500 {
		t.Errorf("budgeted: %d characters, over the budget of 1500", n)
	}
}
