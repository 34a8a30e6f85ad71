package mcptools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boundedkit/bounded/driver"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/mcptools/mcptoolstest"
)

// TestFields: a tool with Options.Fields takes a fields argument that
// keeps only the fields named (and id) in the results, which next
// repeats; a name that is not a field of the results is an argument
// error that lists those it has, before the handler runs.
func TestFields(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
	calls := 0
	mcptools.AddTool(server, &mcp.Tool{Name: "runs", Description: "Lists runs."},
		mcptools.Options[run]{Limits: runLimits, Fields: true},
		func(context.Context, *mcp.CallToolRequest, struct{}) (bounded.Source[run], error) {
			calls++
			return newRuns(5).source(""), nil
		})
	c := mcptoolstest.Serve(t, server)

	env, _ := c.Call("runs", `{"limit":2,"fields":["status"]}`)
	for _, r := range env.Results {
		var got map[string]any
		if err := json.Unmarshal(r, &got); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got["id"] == nil || got["status"] == nil {
			t.Errorf("result %s, want id and status only", r)
		}
	}
	if len(env.Results) != 2 || !strings.Contains(string(env.Next), `"fields":["status"]`) {
		t.Errorf("%d results, next %s; want 2, and next with the fields", len(env.Results), env.Next)
	}
	calls = 0
	got := c.Error("runs", `{"fields":["colour"]}`)
	if !strings.Contains(got, `argument "fields": "colour" is not a field of the results, which have id, status, started, log`) || calls != 0 {
		t.Errorf("fields colour: %q after %d calls of the handler; want the fields listed, and no call", got, calls)
	}
	if got := c.Error("runs", `{"fields":[1]}`); !strings.Contains(got, `argument "fields"`) {
		t.Errorf("fields [1]: %q, want an error naming fields", got)
	}
	res, err := c.Session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(res.Tools[0].InputSchema)
	var schema struct {
		Properties map[string]struct {
			Items struct{ Enum []string } `json:"items"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(in, &schema); err != nil || !slices.Equal(schema.Properties["fields"].Items.Enum, []string{"id", "status", "started", "log"}) {
		t.Errorf("input schema %s; want fields with the results' fields", in)
	}
}

// TestDetail: a tool with Options.Concise takes a detail argument:
// "concise" keeps those fields (and id), "detailed" all of them, and
// next repeats it; fields, when given, wins.
func TestDetail(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
	mcptools.AddTool(server, &mcp.Tool{Name: "runs", Description: "Lists runs."},
		mcptools.Options[run]{Limits: runLimits, Fields: true, Concise: []string{"status"}},
		func(context.Context, *mcp.CallToolRequest, struct{}) (bounded.Source[run], error) {
			return newRuns(5).source(""), nil
		})
	c := mcptoolstest.Serve(t, server)
	for _, tc := range []struct {
		args string
		keys int
	}{
		{`{"limit":2,"detail":"concise"}`, 2},
		{`{"limit":2,"detail":"detailed"}`, 4},
		{`{"limit":2}`, 4},
		{`{"limit":2,"detail":"concise","fields":["log","started"]}`, 3},
	} {
		env, _ := c.Call("runs", tc.args)
		var got map[string]any
		if err := json.Unmarshal(env.Results[0], &got); err != nil {
			t.Fatal(err)
		}
		if len(got) != tc.keys || strings.Contains(tc.args, "detail") && !strings.Contains(string(env.Next), `"detail"`) {
			t.Errorf("runs(%s): result %s, next %s; want %d fields, and next with detail", tc.args, env.Results[0], env.Next, tc.keys)
		}
	}
	if got := c.Error("runs", `{"detail":"brief"}`); !strings.Contains(got, `argument "detail": "brief" is not one of "concise", "detailed"`) {
		t.Errorf("detail brief: %q", got)
	}
}

// TestProgress: a call that asks for progress is notified of it while
// its handler runs, and not after the result.
func TestProgress(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
	mcptools.AddTool(server, &mcp.Tool{Name: "slow_runs", Description: "Lists runs, slowly."},
		mcptools.Options[run]{Limits: runLimits, Progress: 5 * time.Millisecond},
		func(context.Context, *mcp.CallToolRequest, struct{}) (bounded.Source[run], error) {
			time.Sleep(100 * time.Millisecond)
			return newRuns(3).source(""), nil
		})
	var mu sync.Mutex
	var got []string
	client := mcp.NewClient(&mcp.Implementation{Name: "agent"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, req.Params.Message)
		}})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "slow_runs", Arguments: map[string]any{}}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("slow_runs: %v, %+v", err, res)
	}
	mu.Lock()
	n := len(got)
	mu.Unlock()
	time.Sleep(30 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if n < 2 || len(got) > n+1 || !strings.HasPrefix(got[0], "slow_runs: reading the results") {
		t.Errorf("progress %q, %d of them before the result; want 2 or more naming the tool, none sent after", got, n)
	}
}

// TestSourceError: a source that fails while it reads (a query the
// database refused) gets an error result that tells the model what to
// do, not the database's message, which goes to the server's log.
func TestSourceError(t *testing.T) {
	var log bytes.Buffer
	server := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
	mcptools.AddTool(server, &mcp.Tool{Name: "orders", Description: "Lists orders."},
		mcptools.Options[run]{Limits: runLimits, Budget: bounded.Budget{Logger: slog.New(slog.NewTextHandler(&log, nil))}},
		func(context.Context, *mcp.CallToolRequest, struct{}) (bounded.Source[run], error) {
			return bounded.FromFunc(func(context.Context, driver.Request) ([]run, int, error) {
				return nil, 0, errors.New("bunpage: SQL logic error: no such table: orders (1)")
			}), nil
		})
	got := mcptoolstest.Serve(t, server).Error("orders", `{}`)
	if !strings.HasPrefix(got, "orders: the results could not be read") || strings.Contains(got, "no such table") {
		t.Errorf("error %q; want what to do, without the database's message", got)
	}
	if !strings.Contains(log.String(), "no such table: orders") || !strings.Contains(log.String(), "tool=orders") {
		t.Errorf("log %q; want the cause and the tool", log.String())
	}
}

// counted is a result that counts its encodings.
type counted struct {
	ID     int    `json:"id"`
	Status string `json:"status"`
}

var encodings atomic.Int64

func (c counted) MarshalJSON() ([]byte, error) {
	encodings.Add(1)
	type plain counted
	return json.Marshal(plain(c))
}

// TestOnceEach: a call reads its source once and encodes each result
// once, with fields or without.
func TestOnceEach(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
	var fetches atomic.Int64
	mcptools.AddTool(server, &mcp.Tool{Name: "items", Description: "Lists items."},
		mcptools.Options[counted]{Limits: bounded.Limits{Default: 5, Max: 10}, Fields: true},
		func(context.Context, *mcp.CallToolRequest, struct{}) (bounded.Source[counted], error) {
			return bounded.FromFunc(func(_ context.Context, r driver.Request) ([]counted, int, error) {
				fetches.Add(1)
				var out []counted
				for i := r.Offset; i < min(r.Offset+r.Limit, 12); i++ {
					out = append(out, counted{ID: i, Status: "ok"})
				}
				return out, 12, nil
			}), nil
		})
	c := mcptoolstest.Serve(t, server)
	for _, args := range []string{`{}`, `{"fields":["status"]}`, `{"offset":5,"limit":3}`} {
		encodings.Store(0)
		fetches.Store(0)
		env, _ := c.Call("items", args)
		if n := int64(len(env.Results)); n == 0 || encodings.Load() != n || fetches.Load() != 1 {
			t.Errorf("items(%s): %d results, %d encodings, %d reads of the source; want one encoding each, one read", args, n, encodings.Load(), fetches.Load())
		}
	}
}
