package mcptools_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/mcptools/mcptoolstest"
)

// Doc is a result with strings at several depths and keys a JSON Pointer
// escapes.
type Doc struct {
	ID    int               `json:"id"`
	Title string            `json:"title"`
	Body  string            `json:"body"`
	Meta  map[string]string `json:"meta"`
	Notes []string          `json:"notes,omitempty"`
}

// recordingKeeper keeps what it is given, or fails with err.
type recordingKeeper struct {
	mu   sync.Mutex
	kept [][]byte
	err  error
}

func (k *recordingKeeper) Keep(ctx context.Context, req *mcp.CallToolRequest, results []byte) (mcptools.ReadCall, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.err != nil {
		return mcptools.ReadCall{}, k.err
	}
	k.kept = append(k.kept, results)
	return mcptools.ReadCall{Tool: "read_kept", Args: bounded.Args{{Name: "id", Value: len(k.kept)}}, PointerArg: "at"}, nil
}

func docs() []Doc {
	out := make([]Doc, 12)
	for i := range out {
		out[i] = Doc{ID: i, Title: "short", Body: strings.Repeat("Grüße aus Zürich, 東京. ", 10+i),
			Meta: map[string]string{"a/b~c": strings.Repeat("x", 30*i)}}
		if i%2 == 1 {
			out[i].Notes = []string{"n", strings.Repeat("note ", 100)}
		}
	}
	return out
}

// TestKeep checks that clipped results are kept as the handler returned
// them, and that the hint names the read of the first clipped string,
// with the pointers of every clipped field.
func TestKeep(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{{"kept", nil}, {"keeper fails", errors.New("disk full")}} {
		t.Run(tc.name, func(t *testing.T) {
			k := &recordingKeeper{err: tc.err}
			rec := &logRecorder{}
			all := docs()
			server := mcp.NewServer(&mcp.Implementation{Name: "docs"}, nil)
			clip := func(d Doc, n int) Doc {
				d.Body, _ = bounded.Clip(d.Body, n)
				m := map[string]string{}
				for key, v := range d.Meta {
					m[key], _ = bounded.Clip(v, n)
				}
				d.Meta = m
				if d.Notes != nil {
					d.Notes = append([]string(nil), d.Notes...)
					d.Notes[1], _ = bounded.Clip(d.Notes[1], n)
				}
				return d
			}
			policy := bounded.ContentPolicy{Steps: []bounded.ContentStep{{MaxResults: 5, MaxChars: 0}, {MaxResults: 100, MaxChars: 200}}}
			mcptools.AddTool(server, &mcp.Tool{Name: "docs"},
				mcptools.Options[Doc]{Limits: bounded.Limits{Default: 10, Max: 12}, Clip: clip, Content: policy, Keep: k,
					Budget: bounded.Budget{Logger: slog.New(rec)}},
				func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (bounded.Source[Doc], error) {
					return bounded.FromSlice(all), nil
				})
			c := mcptoolstest.Serve(t, server)
			env, _ := c.Call("docs", `{}`)
			if len(env.Results) != 10 {
				t.Fatalf("%d results", len(env.Results))
			}
			if tc.err != nil {
				if strings.Contains(env.Hint, "read_kept") || len(k.kept) != 0 {
					t.Errorf("the keeper failed, yet the hint names a read: %q", env.Hint)
				}
				if msgs := rec.messages(); len(msgs) != 1 || !strings.Contains(msgs[0], "not kept") {
					t.Errorf("logged %q, want the keeper's failure", msgs)
				}
				return
			}
			if len(k.kept) != 1 {
				t.Fatalf("kept %d times, want once", len(k.kept))
			}
			if want := mustJSON(all[:10]); string(k.kept[0]) != want {
				t.Errorf("kept\n%.300s\nwant the results as the handler returned them\n%.300s", k.kept[0], want)
			}
			// Result 0's body is 220 runes: clipped at 200; its meta is empty.
			for _, want := range []string{`read_kept(id=1, at="/0/body") reads result 0's whole`, `pointer "/I/body" result I's`,
				"(body, notes/1, meta/a~1b~0c)", "clipped to 200 characters"} {
				if !strings.Contains(env.Hint, want) {
					t.Errorf("hint %q does not say %q", env.Hint, want)
				}
			}
			// A page the policy leaves whole keeps nothing.
			if env, _ := c.Call("docs", `{"limit":5}`); strings.Contains(env.Hint, "read_kept") || len(k.kept) != 1 {
				t.Errorf("nothing clipped, yet kept %d times, hint %q", len(k.kept), env.Hint)
			}
		})
	}
}

// TestKeepBudgetClip checks that a first result the budget clips is kept
// and its first clipped string named, by its JSON Pointer.
func TestKeepBudgetClip(t *testing.T) {
	k := &recordingKeeper{}
	server := mcp.NewServer(&mcp.Implementation{Name: "docs"}, nil)
	big := Doc{ID: 7, Title: "big", Meta: map[string]string{"x.y": strings.Repeat("мета ", 400)}, Body: strings.Repeat("body ", 400)}
	mcptools.AddTool(server, &mcp.Tool{Name: "docs"},
		mcptools.Options[Doc]{Limits: bounded.Limits{Default: 10, Max: 12}, Keep: k, Budget: bounded.Budget{MaxChars: 1500}},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (bounded.Source[Doc], error) {
			return bounded.FromSlice([]Doc{big, {ID: 8}}), nil
		})
	c := mcptoolstest.Serve(t, server)
	env, _ := c.Call("docs", `{}`)
	if env.Truncation.Reason != bounded.ReasonSingleResultTooLarge || len(env.Truncation.ClippedFields) == 0 {
		t.Fatalf("truncation %+v: want the first result clipped", env.Truncation)
	}
	if len(k.kept) != 1 || string(k.kept[0]) != mustJSON([]Doc{big, {ID: 8}}) {
		t.Fatalf("kept %q", k.kept)
	}
	var want string
	switch env.Truncation.ClippedFields[0] {
	case "body":
		want = `at="/0/body"`
	case `meta["x.y"]`:
		want = `at="/0/meta/x.y"`
	default:
		t.Fatalf("clipped %q", env.Truncation.ClippedFields)
	}
	if !strings.Contains(env.Hint, "The first result is clipped to fit: read_kept(id=1, "+want+") reads") {
		t.Errorf("hint %q does not name the read of %s", env.Hint, want)
	}
	var first Doc
	if err := json.Unmarshal(env.Results[0], &first); err != nil || first.ID != 7 {
		t.Fatalf("first result %s: %v", env.Results[0], err)
	}
}
