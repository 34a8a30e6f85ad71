// Command notes imports a folder of Markdown notes into an embedded SQLite
// database, runs one agent tool call on it, and prints the bounded response:
// the JSON envelope an agent would get, never over its budget.
//
//	go run ./examples/notes search_by_links '{"hasLinksTo":["Home"]}'
//	go run ./examples/notes -vault ~/my-vault get_note '{"id":"projects/atlas/design","maxLines":20}'
//	go run ./examples/notes -db vault.db -mode private search_notes '{"query":"storage"}'
//	go run ./examples/notes -list
//
// Without -vault it imports the demo vault of examples/notes/demo-vault,
// embedded in the program, so the commands work from any directory right
// after cloning. See package vault for how files become notes: front
// matter, [[wikilinks]] with aliases and headings, external links, and
// folders as hierarchy (a folder's index.md is the parent of its notes).
//
// The database is a temporary file removed on exit, or the file given with
// -db, which keeps mirroring the vault: importing again updates changed
// notes and removes deleted ones. A file that cannot be parsed is reported
// on stderr with its path and skipped; the rest are imported.
//
// Flags:
//
//	-vault dir     the vault to import (default: the embedded demo vault)
//	-db file       the SQLite database (default: a temporary file)
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
	"log/slog"
	"os"
	"path/filepath"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/sqlite"
	demovault "github.com/boundedkit/bounded/examples/notes/demo-vault"
	"github.com/boundedkit/bounded/examples/notes/vault"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "notes:", err)
		}
		os.Exit(1)
	}
}

// run is the program: it parses args, imports the vault, calls the tool
// and writes its response to stdout; import problems go to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("notes", flag.ContinueOnError)
	fl.SetOutput(stderr)
	vaultDir := fl.String("vault", "", "the vault `dir`ectory to import (default: the embedded demo vault)")
	dbPath := fl.String("db", "", "the SQLite database `file` (default: a temporary file)")
	mode := fl.String("mode", string(ports.Balanced), "access `mode`: private, balanced or full")
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

	path := *dbPath
	if path == "" {
		dir, err := os.MkdirTemp("", "bounded-notes-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "notes.db")
	}
	store, db, err := sqlite.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()

	fsys := demovault.FS()
	if *vaultDir != "" {
		fsys = os.DirFS(*vaultDir)
	}
	rep, err := vault.Import(ctx, fsys, store)
	if err != nil {
		return err
	}
	for _, fe := range rep.Errors {
		fmt.Fprintf(stderr, "notes: skipped %s: %v\n", filepath.Join(*vaultDir, fe.Path), fe.Err)
	}

	set, err := tools.New(tools.Config{
		Notes: store, Mode: ports.Mode(*mode), Hints: bounded.HintFull,
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
