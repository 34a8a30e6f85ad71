package main

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/boundedkit/bounded/mcptools/mcptoolstest"
	"github.com/boundedkit/bounded/memrepo"
)

// checkNames calls the notes tools of a server that imported a generated
// vault (genvault: en, ko, ja and de hold the same note names, an index
// note in each topic folder, none in a language folder) by names as links
// give them, and on folders.
func checkNames(t *testing.T, c *mcptoolstest.Client) {
	t.Helper()
	env, text := c.Call("get_note", `{"id":"EN/topics/t000/note 5.md","maxLines":1}`)
	if len(env.Results) != 1 || !bytes.Contains(env.Results[0], []byte(`"id":"en/topics/t000/Note 5"`)) ||
		!strings.Contains(env.Hint, `id "EN/topics/t000/note 5.md" resolved, as a link does, to "en/topics/t000/Note 5".`) {
		t.Errorf("get_note by a path in other case: %.600s", text)
	}
	if got := c.Error("get_note", `{"id":"Note 5"}`); !strings.Contains(got, `"Note 5" names 4 notes equally`) ||
		!strings.Contains(got, `"de/topics/t000/Note 5", "en/topics/t000/Note 5", "ja/topics/t000/Note 5", "ko/topics/t000/Note 5"`) {
		t.Errorf("get_note by an ambiguous name: %q", got)
	}
	if got := c.Error("get_children", `{"id":"Nite 5"}`); !strings.Contains(got, "not found") || !strings.Contains(got, `closest names: "`) ||
		!strings.Contains(got, `/Note 5"`) {
		t.Errorf("get_children by a name naming nothing: %q", got)
	}
	if got := c.Error("get_note", `{"id":"en/topics"}`); !strings.Contains(got, `"en/topics" is a folder, not a note: get_children(id="en/topics")`) {
		t.Errorf("get_note of a folder: %q", got)
	}

	env, text = c.Call("get_children", `{"id":"EN"}`)
	if len(env.Results) != 1 || string(env.Results[0]) != `{"id":"en/topics","title":"topics","folder":true}` {
		t.Errorf("get_children of a language folder: %.600s", text)
	}
	env, _ = c.Call("get_descendants", `{"id":"en","maxDepth":2}`)
	if ids := keys(t, env.Results); !slices.Equal(ids, []string{`"en/topics"`, `"en/topics/t000"`}) {
		t.Errorf("get_descendants of a language folder: %q", ids)
	}
	env, _ = c.Call("get_parents", `{"id":"en/topics/t000/Note 5"}`)
	if ids := keys(t, env.Results); !slices.Equal(ids, []string{`"en/topics/t000"`}) {
		t.Errorf("get_parents of a note: %q, want its folder's index note", ids)
	}
	for _, e := range []struct{ tool, args, says string }{
		{"get_parents", `{"id":"en"}`, `"en" has no parents: it is at the vault root`},
		{"get_children", `{"id":"en/topics/t000/Note 5"}`, `"en/topics/t000/Note 5" has nothing below it: it is a note, not a folder`},
	} {
		env, text := c.Call(e.tool, e.args)
		if len(env.Results) != 0 || !strings.Contains(env.Hint, e.says) {
			t.Errorf("%s(%s): %.500s; want no results and a hint saying %q", e.tool, e.args, text, e.says)
		}
	}
}

// TestNamesAndFolders serves a generated vault over MCP from SQLite and
// calls the notes tools by names and on folders (TestPostgres does the
// same on Postgres).
func TestNamesAndFolders(t *testing.T) {
	dir, _ := genVault(t, vaultNotes())
	c, _ := inProcess(t, config{vault: dir, code: "-", mode: "balanced"})
	checkNames(t, c)
}

// TestNoModule: run outside a Go module, the server indexes no code and
// says why, naming the directory it started from.
func TestNoModule(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	var log bytes.Buffer
	if err := indexCode(context.Background(), memrepo.New(), "", &log); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	for _, want := range []string{"no code indexed: no go.mod in " + wd + " or a folder above it", "-code"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log %q does not say %q", log.String(), want)
		}
	}
}
