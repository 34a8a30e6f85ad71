package tools_test

import (
	"strings"
	"testing"
)

// TestBudgetOverMaximum: a budget over the server's is clamped to it,
// the hint says so, and the next call repeats the budget used.
func TestBudgetOverMaximum(t *testing.T) {
	set := newSet(t, "")
	for _, c := range []struct{ tool, args, note string }{
		{"list_notes", `{"limit":1,"budget":99999999}`, "budget 99,999,999 is over the maximum 45,000"},
		{"list_notes", `{"limit":1,"budgetTokens":99999999}`, "budgetTokens 99,999,999 is over the maximum"},
		{"get_note", `{"id":"Home","budget":99999999}`, "budget 99,999,999 is over the maximum 45,000"},
	} {
		env, _ := call(t, set, c.tool, c.args)
		if !strings.Contains(env.Hint, c.note) {
			t.Errorf("%s(%s): hint %q does not say %q", c.tool, c.args, env.Hint, c.note)
		}
		if strings.Contains(string(env.Next), "99999999") || strings.Contains(env.Hint, "99999999") {
			t.Errorf("%s(%s): next %s, hint %q repeat the budget over the maximum", c.tool, c.args, env.Next, env.Hint)
		}
		if env.Truncation.LimitChars > 45_000 {
			t.Errorf("%s(%s): limit %d characters", c.tool, c.args, env.Truncation.LimitChars)
		}
	}
}
