package tools_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/boundedkit/bounded/tokenizer"
	"github.com/boundedkit/bounded/tools"
)

// TestToolListSize: the tool list is context too. Listed as MCP's
// tools/list lists them (name, description, inputSchema), the 15 tools
// take at most 3,500 o200k_base tokens; what they share is said once, in
// the set's instructions.
func TestToolListSize(t *testing.T) {
	s := fixtures(t)
	set, err := tools.New(tools.Config{Notes: s, Knowledge: s, History: s, Code: s})
	if err != nil {
		t.Fatal(err)
	}
	o200k, err := tokenizer.New(tokenizer.O200K)
	if err != nil {
		t.Fatal(err)
	}
	type listed struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	var list []listed
	for _, tl := range set.Tools() {
		list = append(list, listed{tl.Name, tl.Description, tl.InputSchema})
	}
	b, err := json.Marshal(map[string]any{"tools": list})
	if err != nil {
		t.Fatal(err)
	}
	const most = 3500
	n := o200k.CountTokens(string(b))
	ins := set.Instructions()
	t.Logf("tools/list of %d tools: %d characters, %d o200k tokens; instructions: %d characters, %d tokens", len(list), len(b), n, len(ins), o200k.CountTokens(ins))
	if len(list) != 15 || n > most {
		t.Errorf("%d tools take %d o200k tokens, want 15 in at most %d", len(list), n, most)
	}
	for _, want := range []string{"next", "cursor", "budget", "truncation", "nextLines", "charOffset"} {
		if !strings.Contains(ins, want) {
			t.Errorf("instructions do not say %q: %s", want, ins)
		}
	}
}
