package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/tools"
)

// TestMinimumBudgetLongArguments calls every tool with each string argument set
// to a long value, under the documented minimum budgets: the call
// answers, or fails for a reason other than its budget.
func TestMinimumBudgetLongArguments(t *testing.T) {
	s := fixtures(t)
	set, err := tools.New(tools.Config{Notes: s, Knowledge: s, History: s, Code: s, Budget: quiet})
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]string{
		"ascii 300":   strings.Repeat("tag-", 75),
		"ascii 5000":  strings.Repeat("x", 5000),
		"cjk 300":     strings.Repeat("日本語", 100),
		"emoji 300":   strings.Repeat("👩‍👩‍👧", 60),
		"escapes 300": strings.Repeat("\"\\\n", 100),
	}
	budgets := []string{
		fmt.Sprintf(`"budgetTokens":%d`, tools.MinBudgetTokens),
		fmt.Sprintf(`"budget":%d`, tools.MinBudget),
	}
	answered := 0 // calls with results
	for _, tool := range set.Tools() {
		var schema struct {
			Properties map[string]struct {
				Type  any
				Items *struct{ Type string }
			}
		}
		if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		for name, p := range schema.Properties {
			if name == "cursor" {
				continue
			}
			for vname, v := range values {
				raw, _ := json.Marshal(v)
				var arg string
				switch {
				case p.Type == "string":
					arg = string(raw)
				case p.Type == "array" && p.Items != nil && p.Items.Type == "string":
					arg = "[" + string(raw) + "]"
				default:
					continue
				}
				for _, b := range budgets {
					args := fmt.Sprintf(`{%q:%s,%s}`, name, arg, b)
					out, err := set.Call(context.Background(), tool.Name, json.RawMessage(args))
					if errors.Is(err, bounded.ErrInvalidBudget) {
						t.Errorf("%s(%s=<%s>, %s): %v", tool.Name, name, vname, b, err)
					}
					var env struct{ Results []json.RawMessage }
					if err == nil && json.Unmarshal(out, &env) == nil && len(env.Results) > 0 {
						answered++
					}
				}
			}
		}
	}
	if answered == 0 {
		t.Error("no call returned results: the test proves nothing")
	}
}
