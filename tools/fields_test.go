package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/boundedkit/bounded/tools"
)

// TestFields: fields keeps only the named fields of each result (and its
// id), in the result's order; a name the results do not have is an
// argument error that lists the ones they have.
func TestFields(t *testing.T) {
	set := newSet(t, "")
	for _, c := range []struct {
		tool, args string
		want       []string
	}{
		{"list_notes", `{"limit":5,"fields":["title"]}`, []string{"id", "title"}},
		{"list_notes", `{"limit":50,"fields":["updatedAt","tags"]}`, []string{"id", "tags", "updatedAt"}},
		{"get_related_notes", `{"id":"Home","fields":["score"]}`, []string{"id", "score"}},
		{"get_note", `{"id":"Home","fields":["content","contentMetadata"]}`, []string{"id", "content", "contentMetadata"}},
		{"find_broken_links", `{"fields":["target"]}`, []string{"target"}},
	} {
		env, _ := call(t, set, c.tool, c.args)
		if len(env.Results) == 0 {
			t.Fatalf("%s(%s): no results", c.tool, c.args)
		}
		seen := map[string]bool{}
		for _, r := range env.Results {
			var keys []string
			dec := json.NewDecoder(strings.NewReader(string(r)))
			dec.Token()
			for dec.More() {
				k, _ := dec.Token()
				keys = append(keys, k.(string))
				seen[k.(string)] = true
				var skip json.RawMessage
				dec.Decode(&skip)
			}
			// Empty fields are left out: the keys are the wanted ones, in
			// order, with the first (the id) always there.
			kept := slices.DeleteFunc(slices.Clone(c.want), func(w string) bool { return !slices.Contains(keys, w) })
			if !slices.Equal(keys, kept) || keys[0] != c.want[0] {
				t.Errorf("%s(%s): result fields %v, want %v", c.tool, c.args, keys, c.want)
			}
		}
		for _, w := range c.want {
			if !seen[w] {
				t.Errorf("%s(%s): no result has %s", c.tool, c.args, w)
			}
		}
	}
	whole, _ := call(t, set, "get_related_notes", `{"id":"Home"}`)
	cut, _ := call(t, set, "get_related_notes", `{"id":"Home","fields":["score"]}`)
	if got, want := keys(t, cut), keys(t, whole); !slices.Equal(got, want) {
		t.Errorf("get_related_notes with fields: %v, want the same results in the same order %v", got, want)
	}
	_, err := set.Call(context.Background(), "list_notes", json.RawMessage(`{"fields":["title","content"]}`))
	var ae *tools.ArgumentError
	if !errors.As(err, &ae) || ae.Argument != "fields" || !strings.Contains(err.Error(), `"content" is not a field`) || !strings.Contains(err.Error(), "updatedAt") {
		t.Errorf("an unknown field: %v; want an argument error on fields listing the fields", err)
	}
}
