package profile_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/profile"
)

func TestFor(t *testing.T) {
	s := profile.Default()
	for _, tc := range []struct{ client, want string }{
		{"claude-code", profile.ClaudeCode},
		{"Claude-Code", profile.ClaudeCode},
		{"codex-mcp-client", profile.Codex},
		{"codex-vscode", profile.Codex},
		{"gemini-cli-mcp-client", profile.GeminiCLI},
		{"github-copilot-cli", profile.CopilotCLI},
		{"Visual Studio Code", profile.VSCode},
		{"Visual Studio Code - Insiders", profile.VSCode},
		{"", profile.Unknown},
		{"inspector-client", profile.Unknown},
		{"claude-code-x", profile.Unknown},
	} {
		if got := s.For(tc.client).Name; got != tc.want {
			t.Errorf("For(%q) = %s, want %s", tc.client, got, tc.want)
		}
	}
}

// TestUnknownIsConservative checks that no profile allows less than the
// unknown client's, and that each says where its figures come from.
func TestUnknownIsConservative(t *testing.T) {
	ps := profile.Builtin()
	u := ps[len(ps)-1]
	if u.Name != profile.Unknown {
		t.Fatalf("last profile is %s", u.Name)
	}
	for _, p := range ps {
		if p.Source == "" {
			t.Errorf("%s: no source", p.Name)
		}
		if err := p.Budget.Validate(); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
		if p.Budget.LimitChars() < u.Budget.LimitChars() || p.Budget.LimitTokens() < u.Budget.LimitTokens() ||
			p.MaxLines > 0 && p.MaxLines < u.MaxLines || p.MaxBytes > 0 && p.MaxBytes < u.MaxBytes {
			t.Errorf("%s allows less than the unknown client: %s against %s", p.Name, p.Describe(), u.Describe())
		}
	}
	cc, _ := profile.Default().Named(profile.ClaudeCode)
	if cc.Budget.LimitTokens() != 22_500 || cc.Budget.LimitChars() != 45_000 {
		t.Errorf("claude-code: %s", cc.Describe())
	}
}

func TestMaxOutputTokens(t *testing.T) {
	t.Setenv(mcptools.EnvMaxOutputTokens, "10000")
	cc, _ := profile.Default().Named(profile.ClaudeCode)
	if got := cc.Budget.LimitTokens(); got != 9000 {
		t.Errorf("claude-code under MAX_MCP_OUTPUT_TOKENS=10000: %d tokens, want 9000", got)
	}
}

func TestParseLimits(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want profile.Limits
		err  bool
	}{
		{"20000", profile.Limits{Chars: 20_000}, false},
		{"chars=20_000,tokens=8000", profile.Limits{Chars: 20_000, Tokens: 8000}, false},
		{" lines=100, bytes=4096 ,margin=1", profile.Limits{Lines: 100, Bytes: 4096, Margin: 1}, false},
		{"", profile.Limits{}, true},
		{"chars", profile.Limits{}, true},
		{"chars=-1", profile.Limits{}, true},
		{"margin=2", profile.Limits{}, true},
		{"pages=3", profile.Limits{}, true},
	} {
		got, err := profile.ParseLimits(tc.spec)
		if tc.err {
			if !errors.Is(err, profile.ErrInvalidLimits) {
				t.Errorf("ParseLimits(%q): err %v, want ErrInvalidLimits", tc.spec, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseLimits(%q) = %+v, %v; want %+v", tc.spec, got, err, tc.want)
		}
	}
}

func TestOverride(t *testing.T) {
	s := profile.Default()
	if err := s.Override(profile.Codex, profile.Limits{Chars: 30_000, Lines: 1000}); err != nil {
		t.Fatal(err)
	}
	p := s.For("codex-mcp-client")
	if p.Budget.MaxChars != 30_000 || p.MaxLines != 1000 || p.MaxBytes != 10<<10 {
		t.Errorf("codex after override: %s", p.Describe())
	}
	if err := s.Override("*", profile.Limits{Bytes: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Profiles() {
		if p.MaxBytes != 1<<20 {
			t.Errorf("%s after *: %s", p.Name, p.Describe())
		}
	}
	if err := s.Override("nobody", profile.Limits{Chars: 1}); err == nil {
		t.Error("override of an unknown profile: no error")
	}
	if d, _ := profile.Default().Named(profile.Codex); d.Budget.MaxChars != 10<<10 {
		t.Error("override changed the built-in profiles")
	}
}

func TestFits(t *testing.T) {
	p := profile.Profile{MaxLines: 3, MaxBytes: 10}
	for _, tc := range []struct {
		texts []string
		want  bool
	}{
		{[]string{"a\nb\nc"}, true},
		{[]string{"a\nb\nc\nd"}, false},
		{[]string{"a\nb", "c"}, true},
		{[]string{"a\nb", "c", "d"}, false},
		{[]string{"0123456789"}, true},
		{[]string{"01234567890"}, false},
		{[]string{"é", "éééé"}, true},
	} {
		if got := p.Fits(tc.texts...); got != tc.want {
			t.Errorf("Fits(%q) = %v", tc.texts, got)
		}
	}
}

type row struct {
	ID   int    `json:"id"`
	Text string `json:"text"`
}

// TestMiddleware serves an mcptools tool with the middleware and checks
// that each client gets answers within its profile.
func TestMiddleware(t *testing.T) {
	ctx := context.Background()
	rows := make([]row, 2000)
	for i := range rows {
		rows[i] = row{i, strings.Repeat(fmt.Sprintf("row %d ", i), 8)}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "rows"}, nil)
	mcptools.AddTool(s, &mcp.Tool{Name: "list_rows"}, mcptools.Options[row]{Limits: bounded.Limits{Default: 500, Max: 2000}},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (bounded.Source[row], error) {
			return bounded.FromSlice(rows), nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "plain"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Budget int `json:"budget,omitempty"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.Budget)}}}, nil, nil
	})
	profiles := profile.Default()
	s.AddReceivingMiddleware(profile.Middleware(profiles))
	for _, tc := range []struct {
		client string
		args   map[string]any
	}{
		{"codex-mcp-client", nil},
		{"gemini-cli-mcp-client", nil},
		{"claude-code", nil},
		{"someone", map[string]any{"budget": 5000}},
		{"codex-mcp-client", map[string]any{"budget": 2000}},
	} {
		t.Run(tc.client, func(t *testing.T) {
			st, ct := mcp.NewInMemoryTransports()
			ss, err := s.Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: tc.client}, nil).Connect(ctx, ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_rows", Arguments: tc.args})
			if err != nil || res.IsError {
				t.Fatalf("list_rows: %v %v", err, res)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			p := profiles.For(tc.client)
			limit := min(p.Budget.LimitChars(), or(p.MaxBytes, p.Budget.LimitChars()))
			if b, ok := tc.args["budget"].(int); ok {
				limit = min(limit, b)
			}
			if n := utf8.RuneCountInString(text); n > limit || !p.Fits(text) {
				t.Errorf("%d characters, %d bytes; the limit is %d (%s)", n, len(text), limit, p.Describe())
			}
			var env struct {
				Pagination struct{ Returned int } `json:"pagination"`
			}
			if err := json.Unmarshal([]byte(text), &env); err != nil || env.Pagination.Returned == 0 {
				t.Errorf("envelope: %v %.200s", err, text)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "plain"})
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "0" {
				t.Errorf("plain tool's arguments changed: %v %v", err, res)
			}
		})
	}
}

func or(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}

func TestLowerArgs(t *testing.T) {
	codex, _ := profile.Default().Named(profile.Codex)
	most := profile.Budgets{Chars: 45_000, Tokens: 16_071}
	for _, tc := range []struct{ in, want string }{
		{``, `{"budget":9216,"budgetTokens":3291}`},
		{`{"q":"x"}`, `{"budget":9216,"budgetTokens":3291,"q":"x"}`},
		{`{"budget":2000}`, `{"budget":2000,"budgetTokens":3291}`},
		{`{"budget":20000,"budgetTokens":100}`, `{"budget":9216,"budgetTokens":100}`},
		{`[1]`, `[1]`},
	} {
		if got := string(codex.LowerArgs(json.RawMessage(tc.in), most)); got != tc.want {
			t.Errorf("LowerArgs(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if got := string(codex.LowerArgs(json.RawMessage(`{}`), profile.Budgets{Chars: 5000, Tokens: 2000})); got != `{}` {
		t.Errorf("a tool whose budgets are under the profile's: %s", got)
	}
}
