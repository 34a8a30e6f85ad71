package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/tools"
)

// TestNotice checks that every tool of the set that answers with an
// envelope begins its hint with the notice of the call's context, within
// its budget.
func TestNotice(t *testing.T) {
	const say = "Import in progress: results may be incomplete."
	set := newSet(t, tools.Balanced)
	ctx := bounded.WithNotice(context.Background(), say)
	for _, tc := range []struct{ tool, args string }{
		{"list_notes", `{"limit":3}`},
		{"search_notes", `{"query":"note"}`},
		{"get_note", `{"id":"` + firstNoteID(t, set) + `","budget":1000}`},
		{"search_knowledge", `{"query":"a"}`},
	} {
		out, err := set.Call(ctx, tc.tool, json.RawMessage(tc.args))
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		var env envelope
		if err := json.Unmarshal(out, &env); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(env.Hint, say) || env.Truncation.EstimatedChars > env.Truncation.LimitChars {
			t.Errorf("%s: hint %q, %d of %d characters", tc.tool, env.Hint, env.Truncation.EstimatedChars, env.Truncation.LimitChars)
		}
	}
}

// firstNoteID is the id of list_notes' first result.
func firstNoteID(t *testing.T, set interface {
	Call(context.Context, string, json.RawMessage) ([]byte, error)
}) string {
	out, err := set.Call(context.Background(), "list_notes", json.RawMessage(`{"limit":1}`))
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Results []struct{ ID string } `json:"results"`
	}
	if err := json.Unmarshal(out, &env); err != nil || len(env.Results) == 0 {
		t.Fatalf("list_notes: %v %s", err, out)
	}
	return env.Results[0].ID
}
