package vault_test

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/uptrace/bun"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/examples/notes/vault"
	"github.com/boundedkit/bounded/ports"
)

// recorder is a store that records the IDs put and deleted.
type recorder struct {
	ports.Notes
	mu           *sync.Mutex
	puts, delete *[]string
}

func (r recorder) PutNote(ctx context.Context, n ports.Note) error {
	err := r.Notes.PutNote(ctx, n)
	if err == nil {
		r.mu.Lock()
		*r.puts = append(*r.puts, n.ID)
		r.mu.Unlock()
	}
	return err
}

func (r recorder) DeleteNote(ctx context.Context, id string) error {
	err := r.Notes.DeleteNote(ctx, id)
	if err == nil {
		r.mu.Lock()
		*r.delete = append(*r.delete, id)
		r.mu.Unlock()
	}
	return err
}

// writes counts the statements that write (INSERT, UPDATE, DELETE) run
// on a database.
type writes struct {
	mu sync.Mutex
	n  int
}

func (w *writes) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (w *writes) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	verb, _, _ := strings.Cut(strings.TrimSpace(e.Query), " ")
	switch strings.ToUpper(verb) {
	case "INSERT", "UPDATE", "DELETE":
		w.mu.Lock()
		w.n++
		w.mu.Unlock()
	}
}

func (w *writes) take() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.n
	w.n = 0
	return n
}

// watched is an engine's database with the store's writes recorded and
// the statements that write counted.
type watched struct {
	db            *bun.DB
	im            *vault.Importer
	writes        *writes
	puts, deletes []string
}

func watch(t *testing.T, e engine, batch int) *watched {
	w := &watched{writes: &writes{}}
	w.db = e.open(t).WithQueryHook(w.writes)
	var mu sync.Mutex
	w.im = e.importer(w.db, batch)
	w.im.Store = func(ctx context.Context, tx bun.Tx) (ports.Notes, error) {
		s, err := e.store(ctx, tx)
		return recorder{s, &mu, &w.puts, &w.deletes}, err
	}
	return w
}

// run imports fsys, and returns the summary, the IDs put and deleted
// (sorted) and the number of statements that wrote.
func (w *watched) run(t *testing.T, fsys fstest.MapFS) (vault.Summary, []string, []string, int) {
	t.Helper()
	w.puts, w.deletes = nil, nil
	w.writes.take()
	sum, err := w.im.Import(context.Background(), fsys)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(w.puts)
	slices.Sort(w.deletes)
	return sum, w.puts, w.deletes, w.writes.take()
}

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// stamped is a file with content s and modification time t0 + min.
func stamped(s string, min int) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(s), ModTime: t0.Add(time.Duration(min) * time.Minute)}
}

// baseVault is the vault TestIncremental starts from.
func baseVault() fstest.MapFS {
	return fstest.MapFS{
		"Home.md":            stamped("# Home\n[[Projects]] ![[logo.png]] [[Later]]\n", 0),
		"projects/index.md":  stamped("# Projects\n[[Home]]\n", 0),
		"projects/alpha.md":  stamped("---\ntags: [a]\n---\n[[beta]] [[Home]]\n", 0),
		"projects/beta.md":   stamped("[[alpha]]\n", 0),
		"en/intro.md":        stamped("[[Some Note]]\n", 0),
		"ko/Some Note.md":    stamped("# ko\n", 0),
		"en/guide/deep.md":   stamped("deep\n", 0),
		"logo.png":           stamped("\x89PNG", 0),
		"bad.md":             stamped("---\ntitle: [\n---\n", 0),
		".obsidian/app.json": stamped("{}", 0),
	}
}

// counts is a summary's counts of what an import did.
type counts struct {
	Added, Changed, Relinked, Removed, Skipped, Broken, Missing, Embeds int
}

func countsOf(s vault.Summary) counts {
	return counts{s.Added, s.Changed, s.Relinked, s.Removed, s.Skipped, s.Broken, s.Missing, s.Embeds}
}

// TestIncremental changes a vault step by step and imports it after each
// step: each import writes the notes that changed, and only those, and
// leaves the store as an import of the vault into an empty store does.
func TestIncremental(t *testing.T) {
	long := "[[" + strings.Repeat("x", 1100) + "]]\n"
	steps := []struct {
		name    string
		change  func(fs fstest.MapFS)
		want    counts
		puts    []string
		deletes []string
		// noWrites: no statement writes, to the store or the manifest.
		noWrites bool
		// fresh, when set, is the vault whose fresh import the store must
		// equal, when it is not the vault itself.
		fresh func(fs fstest.MapFS) fstest.MapFS
	}{
		{"first import", func(fs fstest.MapFS) {},
			counts{Added: 7, Skipped: 1, Broken: 1, Embeds: 1},
			[]string{"Home", "en/guide/deep", "en/intro", "ko/Some Note", "projects", "projects/alpha", "projects/beta"}, nil, false, nil},
		{"nothing changed", func(fs fstest.MapFS) {},
			counts{Skipped: 1, Broken: 1, Embeds: 1}, nil, nil, true, nil},
		{"a note touched, not changed: it keeps its time", func(fs fstest.MapFS) { fs["projects/beta.md"].ModTime = t0.Add(time.Hour) },
			counts{Skipped: 1, Broken: 1, Embeds: 1}, nil, nil, false, func(fs fstest.MapFS) fstest.MapFS {
				c := maps.Clone(fs)
				c["projects/beta.md"] = stamped(string(fs["projects/beta.md"].Data), 0)
				return c
			}},
		{"a note changed", func(fs fstest.MapFS) { fs["projects/beta.md"] = stamped("[[alpha]] and [[Home]]\n", 61) },
			counts{Changed: 1, Skipped: 1, Broken: 1, Embeds: 1}, []string{"projects/beta"}, nil, false, nil},
		{"a nearer note of the same name", func(fs fstest.MapFS) { fs["en/Some Note.md"] = stamped("# en\n", 1) },
			counts{Added: 1, Relinked: 1, Skipped: 1, Broken: 1, Embeds: 1}, []string{"en/Some Note", "en/intro"}, nil, false, nil},
		{"a broken link's note created", func(fs fstest.MapFS) { fs["later/Later.md"] = stamped("# Later\n", 1) },
			counts{Added: 1, Relinked: 1, Skipped: 1, Embeds: 1}, []string{"Home", "later/Later"}, nil, false, nil},
		{"an embedded attachment deleted", func(fs fstest.MapFS) { delete(fs, "logo.png") },
			counts{Relinked: 1, Skipped: 1, Broken: 1, Missing: 1}, []string{"Home"}, nil, false, nil},
		{"an attachment added back", func(fs fstest.MapFS) { fs["assets/logo.png"] = stamped("\x89PNG", 2) },
			counts{Relinked: 1, Skipped: 1, Embeds: 1}, []string{"Home"}, nil, false, nil},
		// The notes in a folder are not written when its index note comes
		// or goes: their folder is their parent either way.
		{"a folder's index note deleted", func(fs fstest.MapFS) { delete(fs, "projects/index.md") },
			counts{Removed: 1, Relinked: 1, Skipped: 1, Broken: 1, Embeds: 1},
			[]string{"Home"}, []string{"projects"}, false, nil},
		{"a folder's index note added", func(fs fstest.MapFS) { fs["en/index.md"] = stamped("# English\n", 3) },
			counts{Added: 1, Skipped: 1, Broken: 1, Embeds: 1},
			[]string{"en"}, nil, false, nil},
		{"a bad note fixed", func(fs fstest.MapFS) { fs["bad.md"] = stamped("---\ntitle: Fixed\n---\n", 4) },
			counts{Added: 1, Broken: 1, Embeds: 1}, []string{"bad"}, nil, false, nil},
		{"a note named as the folder", func(fs fstest.MapFS) { fs["projects.md"] = stamped("# Projects file\n", 5) },
			counts{Added: 1, Relinked: 1, Embeds: 1},
			[]string{"Home", "projects"}, nil, false, nil},
		{"the folder's index note back: it holds the ID", func(fs fstest.MapFS) { fs["projects/index.md"] = stamped("# Projects\n[[Home]]\n", 6) },
			counts{Added: 1, Skipped: 1, Embeds: 1}, []string{"projects"}, nil, false, nil},
		{"the index note gone again: the file takes the ID", func(fs fstest.MapFS) { delete(fs, "projects/index.md") },
			counts{Added: 1, Removed: 1, Embeds: 1}, []string{"projects"}, []string{"projects"}, false, nil},
		{"a note the store refuses", func(fs fstest.MapFS) { fs["later/Later.md"] = stamped(long, 7) },
			counts{Skipped: 1, Embeds: 1}, nil, nil, false, keptLater},
		{"refused again, the stored copy kept", func(fs fstest.MapFS) {},
			counts{Skipped: 1, Embeds: 1}, nil, nil, true, keptLater},
		{"a note deleted with its links", func(fs fstest.MapFS) { delete(fs, "projects/beta.md") },
			counts{Removed: 1, Relinked: 1, Skipped: 1, Broken: 1, Embeds: 1}, []string{"projects/alpha"}, []string{"projects/beta"}, false, keptLater},
	}
	forEngines(t, func(t *testing.T, e engine) {
		w := watch(t, e, 3)
		fsys := baseVault()
		for _, s := range steps {
			s.change(fsys)
			sum, puts, deletes, n := w.run(t, fsys)
			if got := countsOf(sum); got != s.want {
				t.Errorf("%s: summary %+v\nwant %+v", s.name, got, s.want)
			}
			if !slices.Equal(puts, s.puts) || !slices.Equal(deletes, s.deletes) {
				t.Errorf("%s: put %q, deleted %q; want %q, %q", s.name, puts, deletes, s.puts, s.deletes)
			}
			if len(sum.Errors) != sum.Skipped {
				t.Errorf("%s: %d files skipped, %d errors listed: %v", s.name, sum.Skipped, len(sum.Errors), sum.Errors)
			}
			if strings.HasPrefix(s.name, "the folder's index note back") &&
				(len(sum.Errors) != 1 || sum.Errors[0].Error() != `projects.md: its note id "projects" is taken by projects/index.md`) {
				t.Errorf("%s: errors %v", s.name, sum.Errors)
			}
			if s.noWrites && n != 0 {
				t.Errorf("%s: %d statements wrote", s.name, n)
			}
			if !s.noWrites && n == 0 {
				t.Errorf("%s: nothing written", s.name)
			}
			// The store is as one import of the vault leaves an empty one.
			want := fsys
			if s.fresh != nil {
				want = s.fresh(fsys)
			}
			fresh := e.open(t)
			if _, err := e.importer(fresh, 0).Import(context.Background(), want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(dump(t, e, fresh), dump(t, e, w.db)); diff != "" {
				t.Fatalf("%s: the store differs from a fresh import's (-fresh +incremental):\n%s", s.name, diff)
			}
		}
	})
}

// keptLater is fs with the note the store refuses as it was before: the
// stored copy an import keeps.
func keptLater(fs fstest.MapFS) fstest.MapFS {
	c := maps.Clone(fs)
	c["later/Later.md"] = stamped("# Later\n", 1)
	return c
}

// stored is what a store holds of a note.
type stored struct {
	Note    ports.NoteContent
	Links   []ports.Link
	Parents []string
}

// dump reads every note of the store of e on db through the port.
func dump(t *testing.T, e engine, db bun.IDB) map[string]stored {
	t.Helper()
	ctx := context.Background()
	store, err := e.store(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]stored)
	list := func(ctx context.Context, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
		return store.ListNotes(ctx, ports.ListFilter{}, p)
	}
	for ref, err := range bounded.All(ctx, bounded.Page{Limit: 200}, list) {
		if err != nil {
			t.Fatal(err)
		}
		nc, err := store.GetNote(ctx, ref.ID, bounded.Window{MaxLines: 2000})
		if err != nil {
			t.Fatal(err)
		}
		ps, err := store.Parents(ctx, ref.ID, bounded.Page{Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		var parents []string
		for _, p := range ps.Items {
			parents = append(parents, p.ID)
		}
		out[ref.ID] = stored{nc, noteLinks(t, store, ref.ID), parents}
	}
	return out
}

// TestUnchangedWritesNothing imports the link cases' vault, then again:
// the second import reads and writes nothing, and says so.
func TestUnchangedWritesNothing(t *testing.T) {
	fsys := linkVault("en/a.md", "[[Some Note]]")
	forEngines(t, func(t *testing.T, e engine) {
		w := watch(t, e, 0)
		first, puts, _, _ := w.run(t, fsys)
		if first.Added != len(puts) || first.Added == 0 {
			t.Fatalf("first import: %+v, put %q", first, puts)
		}
		again, puts, deletes, n := w.run(t, fsys)
		if again.Added+again.Changed+again.Relinked+again.Removed != 0 || len(puts)+len(deletes) != 0 || n != 0 {
			t.Errorf("second import: %+v, put %q, deleted %q, %d statements wrote", again, puts, deletes, n)
		}
		if again.Notes != first.Notes || again.Links != first.Links || again.Attachments != first.Attachments {
			t.Errorf("second import's totals %+v, first's %+v", again, first)
		}
	})
}

// TestFirstImportSweeps imports into a store that holds notes of no file
// of the vault: the first import deletes them, and the next ones leave
// notes put by others alone.
func TestFirstImportSweeps(t *testing.T) {
	forEngines(t, func(t *testing.T, e engine) {
		ctx := context.Background()
		w := watch(t, e, 2)
		store, err := e.store(ctx, w.db)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"stray", "Home", "old/one"} {
			if err := store.PutNote(ctx, ports.Note{ID: id, Title: id}); err != nil {
				t.Fatal(err)
			}
		}
		sum, _, deletes, _ := w.run(t, baseVault())
		if want := []string{"old/one", "stray"}; !slices.Equal(deletes, want) || sum.Removed != 2 {
			t.Errorf("first import deleted %q (removed %d), want %q", deletes, sum.Removed, want)
		}
		if err := store.PutNote(ctx, ports.Note{ID: "later", Title: "later"}); err != nil {
			t.Fatal(err)
		}
		if _, _, deletes, _ := w.run(t, baseVault()); len(deletes) > 0 {
			t.Errorf("second import deleted %q", deletes)
		}
	})
}

// TestNewRules imports with a manifest recorded by rules of another
// version: every note is parsed again, and none rewritten when it comes
// out the same.
func TestNewRules(t *testing.T) {
	forEngines(t, func(t *testing.T, e engine) {
		w := watch(t, e, 0)
		w.run(t, baseVault())
		if _, err := w.db.Exec("UPDATE bounded_vault_meta SET value = '0' WHERE key = 'format'"); err != nil {
			t.Fatal(err)
		}
		sum, puts, deletes, _ := w.run(t, baseVault())
		if sum.Added+sum.Changed+sum.Relinked+sum.Removed != 0 || len(puts)+len(deletes) != 0 {
			t.Errorf("import under new rules: %+v, put %q, deleted %q", sum, puts, deletes)
		}
		var format string
		if err := w.db.NewRaw("SELECT value FROM bounded_vault_meta WHERE key = 'format'").Scan(context.Background(), &format); err != nil || format == "0" {
			t.Errorf("format after the import: %q, %v", format, err)
		}
	})
}

// TestProgressAndErrors checks the progress reports of an import and its
// errors: a vault that cannot be read, and a context that ends.
func TestProgressAndErrors(t *testing.T) {
	e := engines[0]
	w := watch(t, e, 2)
	var stages []string
	last := map[string]vault.Progress{}
	w.im.Progress = func(p vault.Progress) {
		if len(stages) == 0 || stages[len(stages)-1] != p.Stage {
			stages = append(stages, p.Stage)
		}
		if prev, ok := last[p.Stage]; ok && (p.Done < prev.Done || p.Elapsed < prev.Elapsed) {
			t.Errorf("progress went back: %+v after %+v", p, prev)
		}
		last[p.Stage] = p
	}
	fsys := baseVault()
	w.run(t, fsys)
	if want := []string{"scan", "write"}; !slices.Equal(stages, want) {
		t.Errorf("stages %q, want %q", stages, want)
	}
	if p := last["scan"]; p.Done != 9 || p.Total != 0 {
		t.Errorf("last scan progress %+v, want 9 files done", p)
	}
	if p := last["write"]; p.Done != 8 || p.Total != 8 {
		t.Errorf("last write progress %+v, want 8 of 8 notes", p)
	}
	stages, last = nil, map[string]vault.Progress{}
	delete(fsys, "Home.md")
	w.run(t, fsys)
	if want := []string{"scan", "remove", "write"}; !slices.Equal(stages, want) {
		t.Errorf("stages after a deletion %q, want %q", stages, want)
	}

	w.im.Progress = nil
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.im.Import(ctx, baseVault()); !errors.Is(err, context.Canceled) {
		t.Errorf("import with a canceled context: %v", err)
	}
	if _, err := w.im.Import(context.Background(), os.DirFS(filepath.Join(t.TempDir(), "missing"))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a vault that does not exist: %v", err)
	}
}
