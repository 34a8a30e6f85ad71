package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/tools"
)

type page struct {
	call, body string
	env        struct {
		Results    []tools.RunItem    `json:"results"`
		Pagination bounded.PageInfo   `json:"pagination"`
		Truncated  bool               `json:"truncated"`
		Truncation bounded.Truncation `json:"truncation"`
		Hint       string             `json:"hint"`
		Next       json.RawMessage    `json:"next"`
	}
}

func pages(t *testing.T, args ...string) []page {
	t.Helper()
	var out bytes.Buffer
	if err := run(context.Background(), args, &out); err != nil {
		t.Fatal(err)
	}
	var ps []page
	for _, sec := range strings.Split(out.String(), "== ")[1:] {
		head, body, _ := strings.Cut(sec, "\n")
		p := page{call: head, body: strings.TrimSpace(body)}
		dec := json.NewDecoder(strings.NewReader(p.body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p.env); err != nil {
			t.Fatalf("page %q is not an envelope: %v\n%s", head, err, body)
		}
		ps = append(ps, p)
	}
	return ps
}

// TestWalk checks that the loop sees every run exactly once, newest first,
// with bodies clipped to 1,000 characters.
func TestWalk(t *testing.T) {
	for _, c := range []struct {
		args   []string
		runs   int
		budget int
	}{
		{nil, 12, 0},
		{[]string{"-runs", "40", "-limit", "10"}, 40, 0},
		{[]string{"-runs", "25", "-limit", "10", "-budget", "3000"}, 25, 3000},
		{[]string{"-runs", "9", "-db", filepath.Join(t.TempDir(), "h.db")}, 9, 0},
	} {
		ps := pages(t, c.args...)
		var ids []string
		cut := false
		for i, p := range ps {
			if !strings.HasPrefix(p.call, fmt.Sprintf("page %d: get_response_history {", i+1)) {
				t.Errorf("%q: section %d is %q", c.args, i, p.call)
			}
			if c.budget > 0 && utf8.RuneCountInString(p.body) > c.budget {
				t.Errorf("%q: page %d has %d characters, over the budget", c.args, i+1, utf8.RuneCountInString(p.body))
			}
			cut = cut || p.env.Truncated
			// Bodies are clipped to 1,000 characters, and in balanced mode
			// to 500 from 10 results a page.
			clip := 1000
			if p.env.Truncation.OriginalCount >= 10 { // the page as fetched, before a budget cut
				clip = 500
			}
			for _, r := range p.env.Results {
				ids = append(ids, r.ID)
				if r.Body == nil || utf8.RuneCountInString(*r.Body) > clip {
					t.Errorf("%q: run %s: body missing or over %d characters", c.args, r.ID, clip)
				} else if r.BodyChars > clip != r.BodyTruncated || r.BodyTruncated && !strings.Contains(*r.Body, "…[truncated") {
					t.Errorf("%q: run %s: %d characters, truncated %v: %.60q", c.args, r.ID, r.BodyChars, r.BodyTruncated, *r.Body)
				}
			}
			if last := i == len(ps)-1; last != (p.env.Next == nil) || !last && !strings.Contains(p.env.Hint, "call get_response_history(") {
				t.Errorf("%q: page %d: next %s, hint %q", c.args, i+1, p.env.Next, p.env.Hint)
			}
		}
		var want []string
		for i := c.runs; i >= 1; i-- {
			want = append(want, fmt.Sprintf("orders-api-%03d", i))
		}
		if !slices.Equal(ids, want) {
			t.Errorf("%q: runs\ngot  %q\nwant %q", c.args, ids, want)
		}
		if c.budget > 0 && !cut {
			t.Errorf("%q: no page was cut by the budget", c.args)
		}
	}
}
