package result_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies checks that package result imports only the standard
// library, the root package (with the internal packages it is built on),
// driver and its own internal packages.
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
		case "github.com/boundedkit/bounded", "github.com/boundedkit/bounded/driver",
			"github.com/boundedkit/bounded/internal/estimate", "github.com/boundedkit/bounded/internal/grapheme", "github.com/boundedkit/bounded/internal/jsonenc",
			"github.com/boundedkit/bounded/internal/probe", "github.com/boundedkit/bounded/internal/fitter", "github.com/boundedkit/bounded/result", "github.com/boundedkit/bounded/internal/jtree":
		default:
			t.Errorf("result imports %s", dep)
		}
	}
}
