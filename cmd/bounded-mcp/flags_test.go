package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/boundedkit/bounded/profile"
)

func TestFlags(t *testing.T) {
	o, err := parse([]string{"-budget", "chars=20000", "-profile", "codex=lines=500", "-tool", "get=skip", "-tool", "list=tokens=2000",
		"-max-result", "8MiB", "-session-quota", "1GiB", "--", "npx", "-y", "server", "--flag"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.command, " ") != "npx -y server --flag" || o.maxResult != 8<<20 || o.quotaSession != 1<<30 {
		t.Errorf("parsed %+v", o)
	}
	s, err := buildProfiles(o)
	if err != nil {
		t.Fatal(err)
	}
	if p := s.For("codex-mcp-client"); p.Budget.MaxChars != 20_000 || p.MaxLines != 500 {
		t.Errorf("codex: %s", p.Describe())
	}
	if p := s.For("claude-code"); p.Budget.MaxChars != 20_000 || p.Budget.MaxTokens != 25_000 {
		t.Errorf("claude-code: %s", p.Describe())
	}
	tools, err := toolPolicies(o.tools)
	if err != nil || !tools["get"].skip || tools["list"].limits != (profile.Limits{Tokens: 2000}) {
		t.Errorf("tools: %+v %v", tools, err)
	}
	for _, args := range [][]string{
		{},
		{"-url", "http://x", "--", "cmd"},
		{"-budget", "chars=10", "--", "cmd"},
		{"-budget", "pages=3", "--", "cmd"},
		{"-profile", "nobody=chars=9000", "--", "cmd"},
		{"-client", "nobody", "--", "cmd"},
		{"-tool", "x", "--", "cmd"},
		{"-max-result", "-3", "--", "cmd"},
		{"-store", "memory", "--", "/nonexistent/upstream"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), io.Discard, &stderr); code == 0 || !strings.Contains(stderr.String(), "bounded-mcp") {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr.String())
		}
	}
	var out bytes.Buffer
	if code := run(context.Background(), []string{"-profiles"}, nil, &out, io.Discard); code != 0 || !strings.Contains(out.String(), "openai/codex") {
		t.Errorf("-profiles: %d %q", code, out.String())
	}
}
