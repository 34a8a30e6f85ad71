package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	sections := strings.Split(out.String(), "== ")[1:]
	if len(sections) != 3 {
		t.Fatalf("got %d sections, want 3:\n%s", len(sections), out.String())
	}
	type envelope struct {
		Results    []json.RawMessage `json:"results"`
		Pagination struct {
			Total, Returned, NextOffset int
			HasMore                     bool
		} `json:"pagination"`
		Truncated       bool   `json:"truncated"`
		Hint            string `json:"hint"`
		ContentMetadata *struct {
			TotalLines, ReturnedLines int
		} `json:"contentMetadata"`
	}
	var envs [3]envelope
	for i, s := range sections {
		_, body, _ := strings.Cut(s, "\n")
		if err := json.Unmarshal([]byte(strings.TrimSpace(body)), &envs[i]); err != nil {
			t.Fatalf("section %d is not one JSON envelope: %v\n%s", i, err, body)
		}
	}
	if p := envs[0].Pagination; len(envs[0].Results) != 5 || p.Total != 30 || !p.HasMore || p.NextOffset != 5 {
		t.Errorf("paged: %d results, pagination %+v; want 5 of 30, next offset 5", len(envs[0].Results), p)
	}
	if !strings.Contains(envs[0].Hint, `get_backlinks(id="Home", offset=5, limit=5)`) {
		t.Errorf("paged: hint %q does not name the next call", envs[0].Hint)
	}
	if m := envs[1].ContentMetadata; m == nil || m.TotalLines != 10000 || m.ReturnedLines != 10 {
		t.Errorf("windowed: content metadata %+v, want 10 of 10000 lines", m)
	}
	b := envs[2]
	if !b.Truncated || len(b.Results) == 0 || len(b.Results) >= 30 || b.Pagination.NextOffset != len(b.Results) {
		t.Errorf("budgeted: truncated=%v, %d results, next offset %d; want a cut with the next page at the first item cut",
			b.Truncated, len(b.Results), b.Pagination.NextOffset)
	}
	if n := len([]rune(strings.TrimSpace(strings.SplitN(sections[2], "\n", 2)[1]))); n > 1500 {
		t.Errorf("budgeted: %d characters, over the budget of 1500", n)
	}
}
