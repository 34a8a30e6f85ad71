package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/tools"
)

// testdataCalls are the responses kept as the tokenizer package's test
// samples of JSON: one of each kind of content, each cut to 2,000
// characters.
var testdataCalls = []struct {
	world string
	mode  tools.Mode
	call
}{
	{"vault", tools.Balanced, call{"search_notes", `{"query":"the","limit":10}`}},
	{"vault", tools.Balanced, call{"get_note", `{"id":"areas/engineering/incident-log","maxLines":60}`}},
	{"vault", tools.Private, call{"list_notes", `{"limit":40}`}},
	{"vault", tools.Full, call{"search_knowledge", `{"query":"project","pageSize":5}`}},
	{"fixtures", tools.Balanced, call{"get_response_history", `{"endpointId":"ep-alpha","limit":3}`}},
	{"fixtures", tools.Balanced, call{"get_note", `{"id":"big/unicode","maxLines":40}`}},
	{"fixtures", tools.Balanced, call{"search_notes", `{"query":"e","limit":20}`}},
	{"go", tools.Balanced, call{"search_code", `{"query":"json decode","limit":3}`}},
	{"go", tools.Private, call{"search_code", `{"query":"request header","limit":30}`}},
}

// writeTestdata writes the JSON samples of the tokenizer package's tests
// to dir/responses.jsonl, one response a line.
func writeTestdata(ctx context.Context, goroot, dir string) error {
	worlds, err := allWorlds(ctx, goroot)
	if err != nil {
		return err
	}
	byName := map[string]*world{}
	for _, w := range worlds {
		byName[w.name] = w
	}
	var out []byte
	for _, c := range testdataCalls {
		w := byName[c.world]
		set, err := tools.New(tools.Config{Notes: w.store, Knowledge: w.store, History: w.store, Code: w.store, Mode: c.mode,
			Budget: bounded.Budget{MaxChars: 2000, Margin: 1}})
		if err != nil {
			return err
		}
		js, err := set.Call(ctx, c.tool, json.RawMessage(c.args))
		if err != nil {
			return fmt.Errorf("%s(%s): %w", c.tool, c.args, err)
		}
		out = append(append(out, js...), '\n')
	}
	return os.WriteFile(filepath.Join(dir, "responses.jsonl"), out, 0o644)
}
