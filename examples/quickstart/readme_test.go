package main

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEOpensTheDatabase checks that the README's quickstart shows
// how db is opened, with the calls this example opens it by.
func TestREADMEOpensTheDatabase(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	main, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, quick, _ := strings.Cut(string(readme), "## Quickstart\n")
	_, block, _ := strings.Cut(quick, "```go\n")
	block, _, _ = strings.Cut(block, "```")
	use := strings.Index(block, "db.NewSelect()")
	for _, call := range []string{"sql.Open(sqliteshim.ShimName, ", "bun.NewDB(sqldb, sqlitedialect.New())"} {
		at := strings.Index(block, call)
		if at < 0 || use >= 0 && at > use {
			t.Errorf("the README's quickstart does not call %s before it uses db:\n%s", call, block)
		}
		if !strings.Contains(string(main), call) {
			t.Errorf("examples/quickstart does not call %s, which the README shows", call)
		}
	}
}
