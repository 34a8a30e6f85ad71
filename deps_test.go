package bounded_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStandardLibraryOnly checks that importing the root package, driver or ports
// pulls in nothing outside the standard library and this module's own
// standard-library-only packages.
func TestStandardLibraryOnly(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	for _, pkg := range []string{".", "./driver", "./ports"} {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			switch dep {
			case "github.com/boundedkit/bounded", "github.com/boundedkit/bounded/driver", "github.com/boundedkit/bounded/internal/probe", "github.com/boundedkit/bounded/ports":
			default:
				t.Errorf("%s imports non-standard package %s", pkg, dep)
			}
		}
	}
}
