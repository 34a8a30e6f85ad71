// Command mcpserver serves bounded's agent tool set over the Model Context
// Protocol on stdio, with the official MCP Go SDK and package mcptools:
// get_note, get_notes, list_notes, search_notes, search_by_links,
// find_broken_links, get_note_links, get_backlinks, get_children,
// get_parents, get_descendants, get_related_notes, search_knowledge,
// get_response_history and search_code, and beside them list_deploys, a
// tool of the application's own: its deploys table, paged in the database
// by bunpage. Every response is one bounded JSON envelope that fits the
// budget, with a hint and the next call's arguments, as text and as
// structuredContent.
//
//	go run ./examples/mcpserver                       # SQLite in a temporary file
//	go run ./examples/mcpserver -db bounded.db        # SQLite in a file that stays
//	go run ./examples/mcpserver -pg 'postgres://postgres@127.0.0.1:5432/test?sslmode=disable'
//
// Register it with an MCP client as a stdio server, for example
//
//	{"mcpServers": {"bounded": {"command": "go", "args": ["run", "./examples/mcpserver", "-db", "bounded.db"]}}}
//
// or try it by hand with the MCP Inspector's command line:
//
//	go build -o /tmp/mcpserver ./examples/mcpserver
//	npx @modelcontextprotocol/inspector --cli /tmp/mcpserver --method tools/list
//	npx @modelcontextprotocol/inspector --cli /tmp/mcpserver --method tools/call --tool-name list_deploys --tool-arg status=failed
//
// On start it loads demo data into the store: the notes of the vault (-vault,
// default the demo vault of examples/notes), a knowledge graph of one entity
// per note, the response history of two endpoints (orders-api, 30 runs, and
// billing-api, 8), 60 deploys of three services, and a code index of -code
// (default this repository, found from the current directory up; "-" for
// none). Loading is idempotent: a database given with -db or -pg keeps
// mirroring the vault.
//
// The whole of list_deploys is one call of mcptools.AddTool: its
// arguments are a struct, whose schema is inferred as mcp.AddTool infers
// one and extended with limit, offset, cursor, budget and budgetTokens;
// its handler returns a bunpage source over the filtered query.
//
// A client's MAX_MCP_OUTPUT_TOKENS, inherited from its environment, lowers
// every tool's token budget; each tool declares its largest response in
// _meta (anthropic/maxResultSizeChars).
//
// Flags:
//
//	-db file      the SQLite database (default: a temporary file)
//	-pg dsn       use Postgres at dsn instead of SQLite
//	-vault dir    the vault to load (default: the embedded demo vault)
//	-code dir     the tree to index for search_code (default: this repository; - for none)
//	-mode m       access mode: private, balanced (default) or full
//	-budget n     the response ceiling in characters (default 45,000)
//	-cursor-hints continue every paged tool by cursor in next and the hint
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
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/uptrace/bun"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/bunpage"
	"github.com/boundedkit/bounded/examples/codesearch/index"
	"github.com/boundedkit/bounded/examples/history/runlog"
	demovault "github.com/boundedkit/bounded/examples/notes/demo-vault"
	"github.com/boundedkit/bounded/examples/notes/vault"
	"github.com/boundedkit/bounded/mcptools"
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
	server, st, err := newServer(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer st.close()
	fmt.Fprintln(stderr, "mcpserver: serving the MCP protocol on stdin and stdout: waiting for a client (an MCP client starts this command; Ctrl-C stops it)")
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

// opened is an open store, its database, and the function that closes
// both.
type opened struct {
	store store
	db    *bun.DB
	close func() error
}

// newServer opens the store, loads the demo data and returns the MCP server
// with every tool, and the store.
func newServer(ctx context.Context, cfg config, stderr io.Writer) (*mcp.Server, *opened, error) {
	st, err := open(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	if err := load(ctx, st, cfg, stderr); err != nil {
		st.close()
		return nil, nil, err
	}
	b := bounded.Budget{Logger: slog.New(slog.NewTextHandler(stderr, nil))}
	if cfg.budget > 0 {
		b.MaxChars, b.Margin = cfg.budget, 1
	}
	b = mcptools.ClientBudget(b) // MAX_MCP_OUTPUT_TOKENS
	set, err := tools.New(tools.Config{Notes: st.store, Knowledge: st.store, History: st.store, Code: st.store,
		Mode: ports.Mode(cfg.mode), Budget: b, CursorHints: cfg.cursorHints})
	if err != nil {
		st.close()
		return nil, nil, err
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "bounded", Title: "bounded agent tools", Version: "0.1.0"},
		&mcp.ServerOptions{Instructions: set.Instructions()})
	mcptools.AddSet(server, set)
	paging := bounded.ByOffset
	if cfg.cursorHints {
		paging = bounded.ByCursor
	}
	addDeploys(server, st.db, mcptools.Options[Deploy]{Limits: bounded.Limits{Default: 20, Max: 100}, Paging: paging, Budget: b})
	return server, st, nil
}

// Deploy is a row of the deploys table: the application's own data.
type Deploy struct {
	bun.BaseModel `bun:"table:deploys"`

	ID      int64     `bun:"id,pk" json:"id"`
	Service string    `bun:"service,notnull" json:"service"`
	Version string    `bun:"version,notnull" json:"version"`
	Status  string    `bun:"status,notnull" json:"status"`
	Started time.Time `bun:"started,notnull" json:"started"`
}

// listDeploys are list_deploys' arguments besides the paging ones.
type listDeploys struct {
	Service string `json:"service,omitempty" jsonschema:"only the deploys of this service, e.g. orders-api"`
	Status  string `json:"status,omitempty" jsonschema:"only the deploys with this status: succeeded, failed or rolled-back"`
}

// addDeploys adds list_deploys, the deploys in db, latest first, to server.
func addDeploys(server *mcp.Server, db *bun.DB, o mcptools.Options[Deploy]) {
	mcptools.AddTool(server, &mcp.Tool{Name: "list_deploys", Description: "Lists the deploys of every service, latest first.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}}, o,
		func(ctx context.Context, req *mcp.CallToolRequest, in listDeploys) (bounded.Source[Deploy], error) {
			q := db.NewSelect().Model((*Deploy)(nil))
			if in.Service != "" {
				q = q.Where("service = ?", in.Service)
			}
			if in.Status != "" {
				q = q.Where("status = ?", in.Status)
			}
			return bunpage.New(db, q,
				bunpage.Col("started", func(d Deploy) time.Time { return d.Started }).Desc(),
				bunpage.Col("id", func(d Deploy) int64 { return d.ID }).Desc().Unique())
		})
}

// open opens the SQLite or Postgres store of cfg.
func open(ctx context.Context, cfg config) (*opened, error) {
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
				return nil, err
			}
			path = filepath.Join(tmp, "bounded.db")
		}
		st, db, err = sqlite.Open(ctx, path)
	}
	if err != nil {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		return nil, err
	}
	return &opened{store: st, db: db, close: func() error {
		err := db.Close()
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		return err
	}}, nil
}

// History endpoints loaded on start, and their number of runs.
var endpoints = []struct {
	id   string
	runs int
}{{"orders-api", 30}, {"billing-api", 8}}

// load writes the demo data: the vault's notes, a knowledge graph derived
// from them, the runs of the endpoints, the deploys and the code index.
func load(ctx context.Context, o *opened, cfg config, stderr io.Writer) error {
	st := o.store
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
	if err := loadDeploys(ctx, o.db); err != nil {
		return err
	}
	return indexCode(ctx, st, cfg.code, stderr)
}

// loadDeploys creates the deploys table, if missing, with 60 deploys of
// three services, a day apart, every seventh failed and every eleventh
// rolled back.
func loadDeploys(ctx context.Context, db *bun.DB) error {
	if _, err := db.NewCreateTable().Model((*Deploy)(nil)).IfNotExists().Exec(ctx); err != nil {
		return err
	}
	services := []string{"orders-api", "billing-api", "web"}
	first := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	var deploys []Deploy
	for i := range 60 {
		status := "succeeded"
		switch {
		case i%11 == 10:
			status = "rolled-back"
		case i%7 == 6:
			status = "failed"
		}
		deploys = append(deploys, Deploy{ID: int64(i + 1), Service: services[i%3], Version: fmt.Sprintf("1.%d.0", i/3),
			Status: status, Started: first.Add(time.Duration(i) * 24 * time.Hour)})
	}
	_, err := db.NewInsert().Model(&deploys).Ignore().Exec(ctx)
	return err
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
