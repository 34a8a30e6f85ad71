package mcpset_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded/mcptools/mcpset"
	"github.com/boundedkit/bounded/mcptools/mcptoolstest"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/tokenizer"
	"github.com/boundedkit/bounded/tools"
)

// TestSetToolListSize: the tool list is context too. tools/list of the 15
// tools of a tools.Set, as a client receives it (descriptions, input and
// output schemas, annotations, _meta), takes at most 3,500 o200k_base
// tokens: what the tools share is said once, in the set's instructions.
func TestSetToolListSize(t *testing.T) {
	st := memrepo.New()
	set, err := tools.New(tools.Config{Notes: st, Knowledge: st, History: st, Code: st})
	if err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "set"}, &mcp.ServerOptions{Instructions: set.Instructions()})
	mcpset.Add(server, set)
	c := mcptoolstest.Serve(t, server)
	res, err := c.Session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	o200k, err := tokenizer.New(tokenizer.O200K)
	if err != nil {
		t.Fatal(err)
	}
	const most = 3500
	n := o200k.CountTokens(string(b))
	t.Logf("tools/list of %d tools: %d characters, %d o200k tokens", len(res.Tools), len(b), n)
	if len(res.Tools) != 15 || n > most {
		t.Errorf("tools/list of %d tools takes %d o200k tokens, want 15 in at most %d", len(res.Tools), n, most)
	}
}
