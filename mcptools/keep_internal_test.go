package mcptools

import "testing"

func TestPathPointer(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"$", "/0"},
		{"body", "/0/body"},
		{"meta.author", "/0/meta/author"},
		{"observations[2]", "/0/observations/2"},
		{`meta["a.b"]`, "/0/meta/a.b"},
		{`meta["a/b~c"].x[10]`, "/0/meta/a~1b~0c/x/10"},
		{`["é \"q\""]`, `/0/é "q"`},
	} {
		got, ok := pathPointer("/0", tc.path)
		if !ok || got != tc.want {
			t.Errorf("pathPointer(%q) = %q, %v; want %q", tc.path, got, ok, tc.want)
		}
	}
	for _, bad := range []string{"a[", "a[x]", `a["x`, `a["x"`, "a[-1]", "a..b["} {
		if got, ok := pathPointer("/0", bad); ok {
			t.Errorf("pathPointer(%q) = %q, want refused", bad, got)
		}
	}
}
