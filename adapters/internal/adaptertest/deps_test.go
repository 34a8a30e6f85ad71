package adaptertest_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/boundedkit/bounded"

// testSupport are the module's packages that hold test support in non-test
// files, and so import "testing": the suites adapter and source authors
// run (conformance, boundedtest, mcptoolstest), and the adapters' shared
// tests and benchmarks, which only the adapters' _test.go files import.
var testSupport = map[string]bool{
	module + "/conformance":                   true,
	module + "/boundedtest":                   true,
	module + "/mcptools/mcptoolstest":         true,
	module + "/result/resulttest":             true,
	module + "/adapters/internal/adaptertest": true,
	module + "/adapters/internal/benchutil":   true,
}

// testsOnly are the test-support packages that no package imports, only
// _test.go files.
var testsOnly = []string{module + "/adapters/internal/adaptertest", module + "/adapters/internal/benchutil"}

// deepSwitch tells the tests' default run from their deep run: only
// _test.go files and the test-support packages import it.
const deepSwitch = module + "/internal/deeptest"

// TestTestSupportStaysInTests checks, with go list, what the module's
// packages import (their non-test files, as a program built from them
// links): no library package imports an example; only the test-support
// packages import "testing"; no other library package imports a
// test-support package; no package at all imports adaptertest or
// benchutil (the adapters' tests do); and only the test-support packages
// import deeptest.
func TestTestSupportStaysInTests(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Name}}\t{{join .Imports \" \"}}\t{{join .Deps \" \"}}", module+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	isExample := func(p string) bool { return strings.HasPrefix(p, module+"/examples/") }
	checked := 0
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 4 {
			t.Fatalf("go list: unexpected line %q", line)
		}
		pkg, name, imports, deps := f[0], f[1], strings.Fields(f[2]), strings.Fields(f[3])
		for _, dep := range deps {
			if slices.Contains(testsOnly, dep) && !slices.Contains(testsOnly, pkg) {
				t.Errorf("%s imports %s, which only _test.go files may import", pkg, dep)
			}
		}
		if slices.Contains(imports, deepSwitch) && !testSupport[pkg] {
			t.Errorf("%s imports %s, which only _test.go files and test-support packages may import", pkg, deepSwitch)
		}
		if name == "main" || isExample(pkg) {
			continue // programs: the examples, the tools' commands
		}
		checked++
		if slices.Contains(imports, "testing") && !testSupport[pkg] {
			t.Errorf(`%s imports "testing" in a non-test file: test support belongs in _test.go files or a test-support package`, pkg)
		}
		for _, dep := range deps {
			switch {
			case isExample(dep):
				t.Errorf("library package %s imports the example %s", pkg, dep)
			case testSupport[dep] && !testSupport[pkg]:
				t.Errorf("library package %s imports the test-support package %s", pkg, dep)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("go list listed %d library packages; want the module's", checked)
	}
}
