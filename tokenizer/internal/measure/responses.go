package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/conformance"
	"github.com/boundedkit/bounded/examples/codesearch/index"
	demovault "github.com/boundedkit/bounded/examples/notes/demo-vault"
	"github.com/boundedkit/bounded/examples/notes/vault"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

// world is a store and the calls that exercise it.
type world struct {
	name  string
	store *memrepo.Store
	calls []call
}

// call is one tool call, walked through its pages.
type call struct {
	tool, args string
}

// sizes are the page sizes asked for: from 1 to over every maximum (the
// tools clamp them).
var sizes = []int{1, 3, 10, 30, 100, 300, 1000}

// vaultWorld is the demo vault: its notes, and a knowledge graph derived
// from them.
func vaultWorld(ctx context.Context) (*world, error) {
	s := memrepo.New()
	if _, err := vault.Import(ctx, demovault.FS(), s); err != nil {
		return nil, err
	}
	files, _, err := vault.Load(demovault.FS())
	if err != nil {
		return nil, err
	}
	for _, e := range vault.Entities(files) {
		if err := s.PutEntity(ctx, e); err != nil {
			return nil, err
		}
	}
	var ids []string
	for _, f := range files {
		ids = append(ids, f.ID)
	}
	w := &world{name: "vault", store: s}
	w.notesCalls(ids, []string{"project", "the", "meeting", "review", "a"})
	w.knowledgeCalls([]string{"project", "the", "review", "note"})
	return w, nil
}

// fixturesWorld is the conformance suite's fixtures: generated notes with
// CJK, emoji and right-to-left text, huge notes, entities, runs and chunks.
func fixturesWorld(ctx context.Context) (*world, error) {
	s := memrepo.New()
	notes := append(conformance.Notes(conformance.Seed), conformance.HugeNotes()...)
	var ids []string
	for _, n := range notes {
		if err := s.PutNote(ctx, n); err != nil {
			return nil, err
		}
		ids = append(ids, n.ID)
	}
	for _, e := range conformance.Entities(conformance.Seed) {
		if err := s.PutEntity(ctx, e); err != nil {
			return nil, err
		}
	}
	endpoints := map[string]bool{}
	for _, r := range conformance.Runs(conformance.Seed) {
		if err := s.RecordRun(ctx, r); err != nil {
			return nil, err
		}
		endpoints[r.EndpointID] = true
	}
	if err := s.PutChunks(ctx, conformance.Chunks(conformance.Seed)); err != nil {
		return nil, err
	}
	w := &world{name: "fixtures", store: s}
	w.notesCalls(ids, []string{"plan", "日本語", "e", "review", "🎉"})
	w.knowledgeCalls([]string{"a", "entity", "日本", "obs"})
	for ep := range endpoints {
		for _, n := range []int{1, 2, 5, 10} {
			w.add("get_response_history", fmt.Sprintf(`{"endpointId":%q,"limit":%d}`, ep, n))
		}
	}
	w.codeCalls([]string{"func", "return", "ParseHTTP", "日本語", "error"}, []string{""})
	return w, nil
}

// goWorld is a code index of Go packages of GOROOT/src, in chunks of 40
// lines with 5 lines of context.
func goWorld(ctx context.Context, root string) (*world, error) {
	s := memrepo.New()
	for _, dir := range []string{"encoding/json", "net/http", "strings", "fmt", "go/parser", "go/types", "sort", "bufio"} {
		sub, err := fs.Sub(os.DirFS(root), dir)
		if err != nil {
			return nil, err
		}
		chunks, _, err := index.Tree(sub, index.Options{})
		if err != nil {
			return nil, err
		}
		for i := range chunks {
			chunks[i].ID = dir + "/" + chunks[i].ID
			chunks[i].FilePath = filepath.ToSlash(filepath.Join(dir, chunks[i].FilePath))
		}
		if err := s.PutChunks(ctx, chunks); err != nil {
			return nil, err
		}
	}
	w := &world{name: "go", store: s}
	w.codeCalls([]string{"error", "return nil", "buffer read", "parse", "request header", "json decode", "func", "type"},
		[]string{"", "net/http/", "go/types/"})
	return w, nil
}

func (w *world) add(tool, args string) { w.calls = append(w.calls, call{tool, args}) }

// notesCalls adds calls of every notes tool.
func (w *world) notesCalls(ids, queries []string) {
	for _, n := range sizes {
		w.add("list_notes", fmt.Sprintf(`{"limit":%d}`, n))
		w.add("find_broken_links", fmt.Sprintf(`{"limit":%d}`, n))
		for _, q := range queries {
			w.add("search_notes", fmt.Sprintf(`{"query":%q,"limit":%d}`, q, n))
		}
	}
	idsJSON, _ := json.Marshal(ids[:min(len(ids), ports.MaxGetNotes)])
	for _, ml := range []int{10, 200, 2000} {
		w.add("get_notes", fmt.Sprintf(`{"ids":%s,"maxLines":%d}`, idsJSON, ml))
	}
	for i, id := range ids {
		for _, ml := range []int{0, 50, 5000} {
			if ml == 0 {
				w.add("get_note", fmt.Sprintf(`{"id":%q}`, id))
			} else {
				w.add("get_note", fmt.Sprintf(`{"id":%q,"maxLines":%d}`, id, ml))
			}
		}
		if i%3 != 0 && len(ids) > 40 {
			continue // a third of a large vault is enough for the rest
		}
		for _, n := range []int{1, 10, 1000} {
			for _, tool := range []string{"get_note_links", "get_backlinks", "get_children", "get_parents", "get_descendants", "get_related_notes"} {
				w.add(tool, fmt.Sprintf(`{"id":%q,"limit":%d}`, id, n))
			}
			w.add("search_by_links", fmt.Sprintf(`{"hasLinksTo":[%q],"limit":%d}`, id, n))
		}
	}
}

func (w *world) knowledgeCalls(queries []string) {
	for _, n := range sizes {
		for _, q := range queries {
			w.add("search_knowledge", fmt.Sprintf(`{"query":%q,"pageSize":%d}`, q, n))
			w.add("search_knowledge", fmt.Sprintf(`{"query":%q,"mode":"fuzzy","threshold":0.1,"pageSize":%d}`, q, n))
		}
	}
}

func (w *world) codeCalls(queries, prefixes []string) {
	for _, n := range []int{1, 5, 10, 20, 50, 100} {
		for _, q := range queries {
			for _, p := range prefixes {
				if p == "" {
					w.add("search_code", fmt.Sprintf(`{"query":%q,"limit":%d}`, q, n))
				} else {
					w.add("search_code", fmt.Sprintf(`{"query":%q,"pathPrefix":%q,"limit":%d}`, q, p, n))
				}
			}
		}
	}
}

// response is one tool response.
type response struct {
	world, tool, args string
	json              []byte
	tr                bounded.Truncation
	chars             int
}

// run calls every call of w on the tool set of budget b and mode, following
// next for up to maxPages pages, and returns the responses; extra is merged
// into every call's arguments (a per-call budget).
func (w *world) run(ctx context.Context, b bounded.Budget, mode tools.Mode, detail, extra string, maxPages int) ([]response, error) {
	set, err := tools.New(tools.Config{Notes: w.store, Knowledge: w.store, History: w.store, Code: w.store, Mode: mode, Budget: b})
	if err != nil {
		return nil, err
	}
	var out []response
	for _, c := range w.calls {
		args := merge(c.args, fmt.Sprintf(`"detail":%q`, detail))
		if extra != "" {
			args = merge(args, extra)
		}
		for page := 0; page < maxPages && args != ""; page++ {
			js, err := set.Call(ctx, c.tool, json.RawMessage(args))
			if err != nil {
				return nil, fmt.Errorf("%s %s(%s): %w", w.name, c.tool, args, err)
			}
			var env struct {
				Truncation bounded.Truncation `json:"truncation"`
				Next       json.RawMessage    `json:"next"`
			}
			if err := json.Unmarshal(js, &env); err != nil {
				return nil, fmt.Errorf("%s %s(%s): %w", w.name, c.tool, args, err)
			}
			out = append(out, response{world: w.name, tool: c.tool, args: args, json: js, tr: env.Truncation, chars: env.Truncation.EstimatedChars})
			args = string(env.Next)
		}
	}
	return out, nil
}

// merge adds the members of the JSON object body fields to the object obj.
func merge(obj, fields string) string {
	obj = strings.TrimSpace(obj)
	if obj == "{}" {
		return "{" + fields + "}"
	}
	if strings.Contains(obj, fields[:strings.IndexByte(fields, ':')+1]) {
		return obj
	}
	return obj[:len(obj)-1] + "," + fields + "}"
}
