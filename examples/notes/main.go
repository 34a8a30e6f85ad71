// Command notes imports a folder of Markdown notes into an embedded SQLite
// database, runs one agent tool call on it, and prints the bounded response:
// the JSON envelope an agent would get, never over its budget.
//
//	go run ./examples/notes search_by_links '{"hasLinksTo":["Home"]}'
//	go run ./examples/notes -vault ~/my-vault get_note '{"id":"projects/atlas/design","maxLines":20}'
//	go run ./examples/notes -vault ~/my-vault -mode private search_notes '{"query":"storage"}'
//	go run ./examples/notes -list
//
// Without -vault it imports the demo vault of examples/notes/demo-vault,
// embedded in the program, so the commands work from any directory right
// after cloning. See package vault for how files become notes: front
// matter, [[wikilinks]] resolved as Obsidian resolves them, embeds of
// attachments, external links, and folders as hierarchy (a folder's
// index.md is the parent of its notes).
//
// The database is kept between calls: by default a file in the user cache
// directory (bounded/notes/ under $XDG_CACHE_HOME or ~/.cache on Linux,
// ~/Library/Caches on macOS), one per vault, named after the vault's
// folder and keyed by its absolute path; with -db, the file given. Each
// call imports only what changed since the last one (see vault.Importer),
// so a second call on an unchanged vault of thousands of notes starts in
// a fraction of a second. Nothing is written to the working directory.
//
// On stderr, a terminal shows the import's progress (files scanned, notes
// written, and their rate), and every call ends its import with one line:
// the database, notes added, changed, relinked and removed, attachments,
// links, broken links and the time taken. -q leaves out both; a file that
// cannot be imported is always reported with its path, and skipped.
//
// Flags:
//
//	-vault dir     the vault to import (default: the embedded demo vault)
//	-db file       the SQLite database (default: one in the user cache directory)
//	-q             no progress or summary on stderr
//	-mode m        access mode: private, balanced (default) or full
//	-budget n      the response ceiling in characters (default 45,000)
//	-pretty        indent the JSON (the budget counts it compact)
//	-list          list the tools with their descriptions and exit
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/uptrace/bun"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/sqlite"
	demovault "github.com/boundedkit/bounded/examples/notes/demo-vault"
	"github.com/boundedkit/bounded/examples/notes/vault"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

func main() {
	// An interrupted import rolls its batch back; the next call goes on.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "notes:", err)
		}
		os.Exit(1)
	}
}

// run is the program: it parses args, imports the vault, calls the tool
// and writes its response to stdout; the import's report goes to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("notes", flag.ContinueOnError)
	fl.SetOutput(stderr)
	vaultDir := fl.String("vault", "", "the vault `dir`ectory to import (default: the embedded demo vault)")
	dbPath := fl.String("db", "", "the SQLite database `file` (default: one in the user cache directory)")
	quiet := fl.Bool("q", false, "no progress or summary on stderr")
	mode := fl.String("mode", string(tools.Balanced), "access `mode`: private, balanced or full")
	budget := fl.Int("budget", 0, "the response ceiling in `chars` (default 45,000)")
	pretty := fl.Bool("pretty", false, "indent the JSON response")
	list := fl.Bool("list", false, "list the tools and exit")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: notes [flags] <tool> ['<json arguments>']\n       notes -list")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return err
	}
	if !*list && (fl.NArg() < 1 || fl.NArg() > 2) {
		fl.Usage()
		return errors.New("want a tool name and at most one JSON argument object")
	}

	var store ports.Notes = memrepo.New() // the tool list needs no notes
	if !*list {
		src, err := openVault(*vaultDir)
		if err != nil {
			return err
		}
		path := *dbPath
		if path == "" {
			if path, err = cacheFile(src); err != nil {
				return err
			}
		}
		st, db, err := openDB(ctx, path)
		if err != nil {
			return err
		}
		defer db.Close()
		if err := importVault(ctx, db, src, path, *quiet, stderr); err != nil {
			return err
		}
		store = st
	}

	set, err := tools.New(tools.Config{
		Notes: store, Mode: tools.Mode(*mode), Hints: bounded.HintFull,
		Budget: bounded.Budget{MaxChars: *budget, Margin: margin(*budget), Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))},
	})
	if err != nil {
		return err
	}
	if *list {
		for _, t := range set.Tools() {
			fmt.Fprintf(stdout, "%s\n  %s\n  arguments: %s\n\n", t.Name, t.Description, t.InputSchema)
		}
		return nil
	}
	callArgs := "{}"
	if fl.NArg() == 2 {
		callArgs = fl.Arg(1)
	}
	out, err := set.Call(ctx, fl.Arg(0), json.RawMessage(callArgs))
	if err != nil {
		return err
	}
	if *pretty {
		var b bytes.Buffer
		if err := json.Indent(&b, out, "", "  "); err != nil {
			return err
		}
		out = b.Bytes()
	}
	_, err = fmt.Fprintf(stdout, "%s\n", out)
	return err
}

// margin is the budget's margin: with -budget the ceiling is exact (1), by
// default bounded's (0.9 of 50,000).
func margin(budget int) float64 {
	if budget > 0 {
		return 1
	}
	return 0
}

// source is a vault to import: its files, its folder as given ("" for the
// demo vault), and the key of its database in the cache.
type source struct {
	fsys      fs.FS
	dir       string
	name, key string
}

// openVault returns the vault in dir, or the demo vault for "". A vault
// that is missing, not a folder or unreadable is an error naming dir.
func openVault(dir string) (source, error) {
	if dir == "" {
		return source{fsys: demovault.FS(), name: "demo-vault", key: "embedded demo vault"}, nil
	}
	fsys, abs, err := vault.OpenDir(dir)
	if err != nil {
		return source{}, err
	}
	return source{fsys: fsys, dir: dir, name: filepath.Base(abs), key: abs}, nil
}

// cacheFile returns the database file of src in the user cache directory
// (see [vault.CacheFile]), creating its folder.
func cacheFile(src source) (string, error) {
	path, err := vault.CacheFile("notes", src.name, src.key)
	if err != nil {
		return "", fmt.Errorf("%w (give a database file with -db)", err)
	}
	return path, nil
}

// openDB opens the SQLite store at path. Its transactions take the write
// lock when they begin (BEGIN IMMEDIATE), so that two calls importing
// into one database at once wait for each other rather than fail.
func openDB(ctx context.Context, path string) (*sqlite.Store, *bun.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, err
	}
	u := url.URL{Path: filepath.ToSlash(abs)}
	return sqlite.Open(ctx, "file:"+u.EscapedPath()+"?_txlock=immediate")
}

// importVault imports src into the store of db (at path), reporting on
// stderr.
func importVault(ctx context.Context, db *bun.DB, src source, path string, quiet bool, stderr io.Writer) error {
	im := &vault.Importer{DB: db, Store: func(ctx context.Context, tx bun.Tx) (ports.Notes, error) {
		return sqlite.New(ctx, tx)
	}}
	var p *progress
	if !quiet && isTerminal(stderr) {
		p = &progress{w: stderr}
		im.Progress = p.report
	}
	sum, err := im.Import(ctx, src.fsys)
	p.clear()
	if err != nil {
		if src.dir != "" {
			return fmt.Errorf("importing %s: %w", src.dir, err)
		}
		return err
	}
	for _, fe := range sum.Errors {
		fmt.Fprintf(stderr, "notes: skipped %s: %v\n", filepath.Join(src.dir, filepath.FromSlash(fe.Path)), fe.Err)
	}
	if more := sum.Skipped - len(sum.Errors); more > 0 {
		fmt.Fprintf(stderr, "notes: skipped %d more files\n", more)
	}
	if !quiet {
		fmt.Fprintf(stderr, "notes: %s in %s: %v\n", cmpOr(src.dir, "the demo vault"), path, sum)
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// progress shows an import's progress on one terminal line, rewritten at
// most every progressEvery, from progressAfter into the import on (a
// quick import shows none).
type progress struct {
	w     io.Writer
	shown time.Duration // when the line was last written; 0 for never
}

const (
	progressAfter = 200 * time.Millisecond
	progressEvery = 100 * time.Millisecond
)

var stages = map[string]string{"scan": "scanning files", "remove": "looking for deleted files", "write": "writing notes"}

func (p *progress) report(pr vault.Progress) {
	if pr.Elapsed < progressAfter || p.shown != 0 && pr.Elapsed-p.shown < progressEvery {
		return
	}
	p.shown = pr.Elapsed
	of := ""
	if pr.Total > 0 {
		of = " of " + thousands(pr.Total)
	}
	fmt.Fprintf(p.w, "\rnotes: %s: %s%s (%s/s)\x1b[K", stages[pr.Stage], thousands(pr.Done), of,
		thousands(int(float64(pr.Done)/pr.Elapsed.Seconds())))
}

// clear erases the progress line, if one was written.
func (p *progress) clear() {
	if p != nil && p.shown != 0 {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// thousands formats n with commas: 12,345.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
