// Command codesearch indexes a source tree into chunks of 40 lines with 5
// lines of context, and answers one search_code call within a budget: the
// chunks most similar to the query first, cut at a chunk boundary when the
// budget is spent, with the call that continues.
//
//	go run ./examples/codesearch Fit budget
//	go run ./examples/codesearch -budget 4000 -lang go "cursor offset"
//	go run ./examples/codesearch -root ~/src/project -db index.db "parse config"
//
// By default it indexes this repository (the folder holding go.mod, found
// from the current directory up) into memory.
//
// Flags:
//
//	-root dir      the tree to index (default: this repository)
//	-db file       index into this SQLite file instead of memory
//	-budget n      the response ceiling in characters (default 12,000)
//	-limit n       chunks asked for (default 10, at most 50)
//	-offset n      chunks to skip, to continue after a cut
//	-path prefix   only files whose path starts with prefix
//	-lang name     only chunks of this language (go, markdown, ...)
//	-concise       fewer fields per chunk
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/examples/codesearch/index"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "codesearch:", err)
		}
		os.Exit(1)
	}
}

// run indexes the tree and writes the response of one search_code call.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("codesearch", flag.ContinueOnError)
	fl.SetOutput(stderr)
	root := fl.String("root", "", "the tree to index (default: this repository)")
	dbPath := fl.String("db", "", "index into this SQLite `file` instead of memory")
	budget := fl.Int("budget", 12000, "the response ceiling in `chars`")
	limit := fl.Int("limit", 0, "chunks asked for (default 10, at most 50)")
	offset := fl.Int("offset", 0, "chunks to skip, to continue after a cut")
	prefix := fl.String("path", "", "only files whose path starts with `prefix`")
	lang := fl.String("lang", "", "only chunks of this `language`")
	concise := fl.Bool("concise", false, "fewer fields per chunk")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: codesearch [flags] <query words>")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() == 0 {
		fl.Usage()
		return errors.New("no query")
	}
	dir := *root
	if dir == "" {
		var err error
		if dir, err = ModuleRoot(); err != nil {
			return err
		}
	}

	var store ports.Code = memrepo.New()
	if *dbPath != "" {
		s, db, err := sqlite.Open(ctx, *dbPath)
		if err != nil {
			return err
		}
		defer db.Close()
		store = s
	}
	chunks, skipped, err := index.Tree(os.DirFS(dir), index.Options{})
	if err != nil {
		return err
	}
	for _, s := range skipped {
		fmt.Fprintln(stderr, "codesearch: skipped", s)
	}
	if err := store.PutChunks(ctx, chunks); err != nil {
		return err
	}

	// The command continues by -offset: so do its hints.
	set, err := tools.New(tools.Config{Code: store, Budget: bounded.Budget{MaxChars: *budget, Margin: 1, Logger: slog.New(slog.DiscardHandler)}, OffsetHints: true})
	if err != nil {
		return err
	}
	call := bounded.Args{{Name: "query", Value: strings.Join(fl.Args(), " ")}}
	for _, a := range []struct {
		name string
		set  bool
		v    any
	}{{"pathPrefix", *prefix != "", *prefix}, {"language", *lang != "", *lang}, {"detail", *concise, "concise"},
		{"limit", *limit != 0, *limit}, {"offset", *offset != 0, *offset}} {
		if a.set {
			call = append(call, bounded.Arg{Name: a.name, Value: a.v})
		}
	}
	callArgs, err := json.Marshal(call)
	if err != nil {
		return err
	}
	out, err := set.Call(ctx, "search_code", callArgs)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", out)
	return err
}

// ModuleRoot returns the folder of the nearest go.mod at or above the
// current directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the current directory: give -root")
		}
		dir = parent
	}
}
