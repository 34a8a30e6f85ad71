package bounded_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// stdlibOnly are the packages whose dependencies are the standard library
// and each other only: the root package, driver, ports, and the internal
// packages the root is built on.
var stdlibOnly = []string{
	"github.com/boundedkit/bounded",
	"github.com/boundedkit/bounded/driver",
	"github.com/boundedkit/bounded/ports",
	"github.com/boundedkit/bounded/internal/estimate",
	"github.com/boundedkit/bounded/internal/grapheme",
	"github.com/boundedkit/bounded/internal/probe",
	"github.com/boundedkit/bounded/internal/jsonenc",
	"github.com/boundedkit/bounded/internal/fitter",
}

// TestStandardLibraryOnly checks that importing any of stdlibOnly pulls in
// nothing outside the standard library and stdlibOnly.
func TestStandardLibraryOnly(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	for _, pkg := range stdlibOnly {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if !slices.Contains(stdlibOnly, dep) {
				t.Errorf("%s imports non-standard package %s", pkg, dep)
			}
		}
	}
}
