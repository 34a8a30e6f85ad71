package mcptools_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOneToolDependencies: a program that registers one tool of its own
// links neither the domain (ports) nor its tool set (tools).
func TestOneToolDependencies(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./testdata/onetool").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 || deps[len(deps)-1] != "github.com/boundedkit/bounded/mcptools/testdata/onetool" {
		t.Fatalf("go list -deps listed %q, want the program last", deps)
	}
	for _, dep := range deps {
		switch dep {
		case "github.com/boundedkit/bounded/ports", "github.com/boundedkit/bounded/tools", "github.com/boundedkit/bounded/memrepo":
			t.Errorf("a program with one tool of its own imports %s", dep)
		}
	}
}
