package mcpresult_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/result"
	"github.com/boundedkit/bounded/result/mcpresult"
)

// Article is a result of the articles tool: a body far over the content
// policy's limits.
type Article struct {
	ID   int    `json:"id"`
	Body string `json:"body"`
}

func articles() []Article {
	out := make([]Article, 30)
	for i := range out {
		var b strings.Builder
		for l := range 40 + i {
			fmt.Fprintf(&b, "Article %d, line %d: Zürich, 東京 and \"quoted\" text.\n", i, l)
		}
		out[i] = Article{ID: i, Body: b.String()}
	}
	return out
}

// articleServer serves the articles tool, its clipped bodies kept by a
// Keeper, and the read tool answering within readBudget.
func articleServer(t *testing.T, o mcptools.Options[Article], readBudget bounded.Budget) *mcp.ClientSession {
	s := mcp.NewServer(&mcp.Implementation{Name: "articles"}, nil)
	b := result.New(result.NewMemory(result.Quota{}), result.Options{})
	mcpresult.Serve(s, b, mcpresult.Options{Budget: readBudget})
	all := articles()
	o.Limits = bounded.Limits{Default: 20, Max: 50}
	o.Clip = func(a Article, n int) Article { a.Body, _ = bounded.Clip(a.Body, n); return a }
	o.Keep = mcpresult.Keeper(b, mcpresult.Options{})
	mcptools.AddTool(s, &mcp.Tool{Name: "articles"}, o,
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (bounded.Source[Article], error) {
			return bounded.FromSlice(all), nil
		})
	return connect(t, s)
}

// articlesEnv is the envelope of the articles tool.
type articlesEnv struct {
	Results []Article `json:"results"`
	Hint    string    `json:"hint"`
}

// callArticles calls the articles tool with args.
func callArticles(t *testing.T, cs *mcp.ClientSession, args map[string]any) articlesEnv {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "articles", Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("articles(%v): %v %v", args, err, res)
	}
	texts, _ := text(res)
	var env articlesEnv
	if err := json.Unmarshal([]byte(texts[0]), &env); err != nil {
		t.Fatal(err)
	}
	return env
}

// readCall is the read call a hint names: its arguments.
var readCall = regexp.MustCompile(`read_result\(handle="([^"]+)", pointer="([^"]+)"\)`)

// clipMarker is the marker that ends a clipped string.
var clipMarker = regexp.MustCompile(`…\[truncated [0-9,]+ chars\]$`)

// readWhole reads the string at pointer of the snapshot handle names by
// following next alone, and returns it.
func readWhole(t *testing.T, cs *mcp.ClientSession, handle, pointer string, within int) (string, int) {
	t.Helper()
	args := map[string]any{"handle": handle, "pointer": pointer}
	var got strings.Builder
	reads := 0
	for args != nil {
		reads++
		if reads > 1000 {
			t.Fatal("the read does not end")
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_result", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("read_result(%v): %v %v", args, err, res)
		}
		texts, chars := text(res)
		if chars > within {
			t.Fatalf("read_result(%v): %d characters, over %d", args, chars, within)
		}
		var ans struct {
			Results []string       `json:"results"`
			Next    map[string]any `json:"next"`
		}
		if err := json.Unmarshal([]byte(texts[0]), &ans); err != nil || len(ans.Results) != 1 {
			t.Fatalf("read_result(%v): %v %.300s", args, err, texts[0])
		}
		piece := ans.Results[0]
		if ans.Next != nil {
			// A window the budget cuts ends with the clip marker.
			piece = clipMarker.ReplaceAllString(piece, "")
		}
		got.WriteString(piece)
		args = ans.Next
	}
	return got.String(), reads
}

// TestKeeper checks that a body the content policy clips is named in the
// hint with the read of it whole, and that following next alone from
// that read returns the body exactly, for the first result and others.
func TestKeeper(t *testing.T) {
	readBudget := bounded.Budget{MaxChars: 1500}
	cs := articleServer(t, mcptools.Options[Article]{Content: bounded.DefaultContentPolicy}, readBudget)
	all := articles()
	env := callArticles(t, cs, map[string]any{})
	m := readCall.FindStringSubmatch(env.Hint)
	if m == nil || m[2] != "/0/body" || !strings.Contains(env.Hint, "/I/body") {
		t.Fatalf("no read of the clipped bodies in the hint: %q", env.Hint)
	}
	if len(env.Results) != 20 {
		t.Fatalf("%d results", len(env.Results))
	}
	for _, i := range []int{0, 7, 19} {
		if len(env.Results[i].Body) >= len(all[i].Body) {
			t.Fatalf("result %d is not clipped: %d of %d bytes", i, len(env.Results[i].Body), len(all[i].Body))
		}
		got, reads := readWhole(t, cs, m[1], fmt.Sprintf("/%d/body", i), readBudget.LimitChars())
		if got != all[i].Body {
			t.Fatalf("result %d read whole in %d reads: %d bytes, want %d:\n%.300q", i, reads, len(got), len(all[i].Body), got)
		}
		if reads < 2 {
			t.Errorf("result %d: read in %d read, want several under a budget of %d characters", i, reads, readBudget.MaxChars)
		}
	}
	// A page the policy leaves whole names no read.
	if env := callArticles(t, cs, map[string]any{"limit": 5}); strings.Contains(env.Hint, "read_result") {
		t.Errorf("nothing clipped, yet the hint names a read: %q", env.Hint)
	}
}

// TestKeeperBudgetClip checks that a first result the budget clips names
// the read of its body whole, which returns it exactly.
func TestKeeperBudgetClip(t *testing.T) {
	cs := articleServer(t, mcptools.Options[Article]{Budget: bounded.Budget{MaxChars: 1500}}, bounded.Budget{MaxChars: 2000})
	all := articles()
	env := callArticles(t, cs, map[string]any{"limit": 3})
	m := readCall.FindStringSubmatch(env.Hint)
	if m == nil || m[2] != "/0/body" || !strings.Contains(env.Hint, "first result is clipped to fit") {
		t.Fatalf("no read of the clipped first result in the hint: %q", env.Hint)
	}
	if len(env.Results) != 1 || len(env.Results[0].Body) >= len(all[0].Body) {
		t.Fatalf("%d results, the first of %d bytes: want the first, clipped", len(env.Results), len(env.Results[0].Body))
	}
	if got, _ := readWhole(t, cs, m[1], m[2], 2000); got != all[0].Body {
		t.Fatalf("read whole: %d bytes, want %d", len(got), len(all[0].Body))
	}
}
