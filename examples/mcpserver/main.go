// Command mcpserver serves bounded's agent tool set over the Model Context
// Protocol on stdio, with the official MCP Go SDK: get_note, get_notes,
// list_notes, search_notes, search_by_links, find_broken_links,
// get_note_links, get_backlinks, get_children, get_parents,
// get_descendants, get_related_notes, search_knowledge,
// get_response_history and search_code. Every response is one bounded JSON
// envelope that fits the budget, with a hint and the next call's arguments.
//
//	go run ./examples/mcpserver                       # SQLite in a temporary file
//	go run ./examples/mcpserver -db bounded.db        # SQLite in a file that stays
//	go run ./examples/mcpserver -pg 'postgres://postgres@127.0.0.1:5432/test?sslmode=disable'
//
// Register it with an MCP client as a stdio server, for example
//
//	{"mcpServers": {"bounded": {"command": "go", "args": ["run", "./examples/mcpserver", "-db", "bounded.db"]}}}
//
// On start it loads demo data into the store: the notes of the vault (-vault,
// default the demo vault of examples/notes), a knowledge graph of one entity
// per note, the response history of two endpoints (orders-api, 30 runs, and
// billing-api, 8), and a code index of -code (default this repository,
// found from the current directory up; "-" for none). Loading is
// idempotent: a database given with -db or -pg keeps mirroring the vault.
//
// Flags:
//
//	-db file      the SQLite database (default: a temporary file)
//	-pg dsn       use Postgres at dsn instead of SQLite
//	-vault dir    the vault to load (default: the embedded demo vault)
//	-code dir     the tree to index for search_code (default: this repository; - for none)
//	-mode m       access mode: private, balanced (default) or full
//	-budget n     the response ceiling in characters (default 45,000)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/uptrace/bun"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/examples/codesearch/index"
	"github.com/boundedkit/bounded/examples/history/runlog"
	demovault "github.com/boundedkit/bounded/examples/notes/demo-vault"
	"github.com/boundedkit/bounded/examples/notes/vault"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
		os.Exit(1)
	}
}

// run serves on stdin and stdout until the client disconnects; logs go to
// stderr.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	server, closeStore, err := newServer(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	return server.Run(ctx, &mcp.StdioTransport{})
}

// config is the server's flags.
type config struct {
	db, pg, vault, code, mode string
	budget                    int
	cursorHints               bool
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fl := flag.NewFlagSet("mcpserver", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&c.db, "db", "", "the SQLite database `file` (default: a temporary file)")
	fl.StringVar(&c.pg, "pg", "", "use Postgres at `dsn` instead of SQLite")
	fl.StringVar(&c.vault, "vault", "", "the vault `dir`ectory to load (default: the embedded demo vault)")
	fl.StringVar(&c.code, "code", "", "the tree to index for search_code (default: this repository; - for none)")
	fl.StringVar(&c.mode, "mode", string(ports.Balanced), "access `mode`: private, balanced or full")
	fl.IntVar(&c.budget, "budget", 0, "the response ceiling in `chars` (default 45,000)")
	fl.BoolVar(&c.cursorHints, "cursor-hints", false, "continue every paged tool by cursor in next and the hint (exact while data changes)")
	if err := fl.Parse(args); err != nil {
		return c, err
	}
	if fl.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fl.Args())
	}
	return c, nil
}

// store is what the server needs of an adapter: every port.
type store interface {
	ports.Notes
	ports.Knowledge
	ports.History
	ports.Code
}

// newServer opens the store, loads the demo data and returns the MCP server
// with every tool, and the function that closes the store.
func newServer(ctx context.Context, cfg config, stderr io.Writer) (*mcp.Server, func() error, error) {
	st, closeStore, err := open(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	if err := load(ctx, st, cfg, stderr); err != nil {
		closeStore()
		return nil, nil, err
	}
	b := bounded.Budget{Logger: slog.New(slog.NewTextHandler(stderr, nil))}
	if cfg.budget > 0 {
		b.MaxChars, b.Margin = cfg.budget, 1
	}
	set, err := tools.New(tools.Config{Notes: st, Knowledge: st, History: st, Code: st, Mode: ports.Mode(cfg.mode), Budget: b, CursorHints: cfg.cursorHints})
	if err != nil {
		closeStore()
		return nil, nil, err
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "bounded", Title: "bounded agent tools", Version: "0.1.0"}, &mcp.ServerOptions{
		Instructions: set.Instructions(),
	})
	register(server, set)
	return server, closeStore, nil
}

// register adds every tool of set to server. The arguments go to the
// tool's handler as they came (the SDK's low-level AddTool validates
// nothing, so the tool's own strict parsing answers bad input, and a limit
// over its maximum is clamped and reported rather than rejected). A tool
// error is returned as a tool result with IsError, so that the agent reads
// it and corrects its call.
func register(server *mcp.Server, set *tools.Set) {
	for _, t := range set.Tools() {
		server.AddTool(&mcp.Tool{
			Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			out, err := t.Handler(ctx, req.Params.Arguments)
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}}, nil
		})
	}
}

// open opens the SQLite or Postgres store of cfg.
func open(ctx context.Context, cfg config) (store, func() error, error) {
	var (
		st  store
		db  *bun.DB
		err error
		tmp string
	)
	switch {
	case cfg.pg != "":
		st, db, err = postgres.Open(ctx, cfg.pg)
	default:
		path := cfg.db
		if path == "" {
			if tmp, err = os.MkdirTemp("", "bounded-mcp-"); err != nil {
				return nil, nil, err
			}
			path = filepath.Join(tmp, "bounded.db")
		}
		st, db, err = sqlite.Open(ctx, path)
	}
	if err != nil {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		return nil, nil, err
	}
	return st, func() error {
		err := db.Close()
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		return err
	}, nil
}

// History endpoints loaded on start, and their number of runs.
var endpoints = []struct {
	id   string
	runs int
}{{"orders-api", 30}, {"billing-api", 8}}

// load writes the demo data: the vault's notes, a knowledge graph derived
// from them, the runs of the endpoints, and the code index.
func load(ctx context.Context, st store, cfg config, stderr io.Writer) error {
	fsys := demovault.FS()
	if cfg.vault != "" {
		fsys = os.DirFS(cfg.vault)
	}
	rep, err := vault.Import(ctx, fsys, st)
	if err != nil {
		return err
	}
	for _, fe := range rep.Errors {
		fmt.Fprintf(stderr, "mcpserver: skipped %s: %v\n", filepath.Join(cfg.vault, fe.Path), fe.Err)
	}
	files, _, err := vault.Load(fsys)
	if err != nil {
		return err
	}
	for _, e := range vault.Entities(files) {
		if err := st.PutEntity(ctx, e); err != nil {
			return err
		}
	}
	for _, ep := range endpoints {
		if err := runlog.Record(ctx, st, runlog.Runs(ep.id, ep.runs)); err != nil {
			return err
		}
	}
	return indexCode(ctx, st, cfg.code, stderr)
}

// indexCode indexes the tree dir ("" for this repository, "-" for none).
func indexCode(ctx context.Context, st ports.Code, dir string, stderr io.Writer) error {
	if dir == "-" {
		return nil
	}
	if dir == "" {
		var err error
		if dir, err = moduleRoot(); err != nil {
			fmt.Fprintln(stderr, "mcpserver: no code indexed:", err)
			return nil
		}
	}
	chunks, _, err := index.Tree(os.DirFS(dir), index.Options{})
	if err != nil {
		return err
	}
	return st.PutChunks(ctx, chunks)
}

// moduleRoot returns the folder of the nearest go.mod at or above the
// current directory.
func moduleRoot() (string, error) {
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
			return "", fs.ErrNotExist
		}
		dir = parent
	}
}
