package mcpresult_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/boundedkit/bounded/result"
	"github.com/boundedkit/bounded/result/mcpresult"
	"github.com/boundedkit/bounded/tokenizer"
)

// TestReadToolSize keeps the read tool's definition, as tools/list sends
// it, to 300 o200k tokens: what it adds to every tool list.
func TestReadToolSize(t *testing.T) {
	b, err := json.Marshal(mcpresult.ReadTool(result.New(nil, result.Options{})))
	if err != nil {
		t.Fatal(err)
	}
	c, err := tokenizer.New(tokenizer.O200K)
	if err != nil {
		t.Fatal(err)
	}
	n, err := c.Count(context.Background(), string(b))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("read tool: %d bytes, %d o200k tokens", len(b), n)
	if n > 300 {
		t.Errorf("the read tool takes %d o200k tokens, over 300", n)
	}
}
