package grapheme

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPropFastPaths checks propOf's shortcuts against the
// table, on every code point but the Hangul syllables, which the table
// leaves to the shortcut (graphemegen checks it against the data).
func TestPropFastPaths(t *testing.T) {
	for r := rune(0); r <= 0x10FFFF; r++ {
		if r >= 0xAC00 && r <= 0xD7A3 {
			continue
		}
		if got, want := propOf(r), lookup(r); got != want {
			t.Errorf("propOf(%U) = %d, the table says %d", r, got, want)
		}
	}
}

// TestTableGenerated checks that table.go is what its
// generator writes from the data files.
func TestTableGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	out := filepath.Join(t.TempDir(), "table.go")
	if b, err := exec.Command("go", "run", "../graphemegen", "-ucd", "../graphemegen/ucd", "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("graphemegen: %v\n%s", err, b)
	}
	got, err := os.ReadFile("table.go")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("table.go differs from what graphemegen writes: run go generate")
	}
}
