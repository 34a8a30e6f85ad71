package tools_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies checks that the tool set imports nothing but bounded (its driver, toolargs,
// its internal packages), ports, the JSON Schema package toolargs declares arguments with and
// the standard library: no MCP SDK, no database driver.
func TestDependencies(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch dep {
		case "github.com/boundedkit/bounded", "github.com/boundedkit/bounded/driver", "github.com/boundedkit/bounded/ports", "github.com/boundedkit/bounded/tools", "github.com/boundedkit/bounded/toolargs",
			"github.com/boundedkit/bounded/internal/estimate", "github.com/boundedkit/bounded/internal/grapheme", "github.com/boundedkit/bounded/internal/jsonenc",
			"github.com/boundedkit/bounded/internal/probe", "github.com/boundedkit/bounded/internal/fitter", "github.com/google/jsonschema-go/jsonschema":
		default:
			t.Errorf("tools imports %s", dep)
		}
	}
}
