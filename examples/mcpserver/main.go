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
//	go run ./examples/mcpserver                       # the demo vault, SQLite in the user cache directory
//	go run ./examples/mcpserver -vault ~/my-vault     # your vault
//	go run ./examples/mcpserver -db /tmp/bounded.db   # SQLite in a file of your choice
//	go run ./examples/mcpserver -pg 'postgres://postgres@127.0.0.1:5432/test?sslmode=disable'
//
// Register it with an MCP client as a stdio server, for example
//
//	{"mcpServers": {"bounded": {"command": "go", "args": ["run", "./examples/mcpserver", "-vault", "/path/to/vault"]}}}
//
// or try it by hand with the MCP Inspector's command line (README.md has
// the figures of a vault of 6,400 notes):
//
//	go build -o /tmp/mcpserver ./examples/mcpserver
//	npx @modelcontextprotocol/inspector --cli /tmp/mcpserver --method tools/list
//	npx @modelcontextprotocol/inspector --cli /tmp/mcpserver --method tools/call --tool-name list_deploys --tool-arg status=failed
//
// It answers at once: initialize and tools/list before any data is
// loaded. The vault (-vault, default the demo vault of examples/notes) is
// imported in the background by vault.Importer, with a knowledge graph of
// one entity per note written beside each note, then this repository's
// code (-code) is indexed. A tool call made before its data is loaded
// waits for it up to -wait (2 s; a client that sent a progress token gets
// progress notifications), then answers from what is loaded so far, and
// its hint begins by saying so ("Vault import in progress (1,200 of 6,280
// notes written): results may be incomplete ..."; see
// mcptools.AddNotice), its pagination says "importing": true and its
// totals are lower bounds (totalKind "atLeast"; tools.Config.Importing). The database is kept between runs (by
// default a file in the user cache directory, bounded/mcpserver/ under
// $XDG_CACHE_HOME or ~/.cache on Linux, one per vault), so a restart
// imports only the files that changed. The response history of two
// endpoints (orders-api, 30 runs, and billing-api, 8) and 60 deploys of
// three services are written before the server answers.
//
// The server ends when its client leaves (stdin closes) or on Ctrl-C: the
// import stops at its batch, which is rolled back, the database is
// closed, and the next start goes on from there.
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
//	-vault dir    the vault to import (default: the embedded demo vault)
//	-db file      the SQLite database (default: one in the user cache directory, kept)
//	-pg dsn       use Postgres at dsn instead of SQLite
//	-code dir     the tree to index for search_code (default: this repository; - for none)
//	-mode m       access mode: private, balanced (default) or full
//	-budget n     the response ceiling in characters (default 45,000)
//	-wait d       how long a tool call waits for data still loading (default 2s)
//	-offset-hints continue every paged tool by offset in next and the hint, not by cursor
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
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/uptrace/bun"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/bunpage"
	"github.com/boundedkit/bounded/examples/history/runlog"
	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/mcptools/mcpset"
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
// stderr. It then stops the loading, if still going, and closes the
// database.
func run(ctx context.Context, args []string, stderr io.Writer) (err error) {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	srv, err := newServer(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, srv.close()) }()
	fmt.Fprintln(stderr, "mcpserver: serving the MCP protocol on stdin and stdout: waiting for a client (an MCP client starts this command; Ctrl-C stops it)")
	err = srv.mcp.Run(ctx, &mcp.StdioTransport{})
	if ctx.Err() != nil {
		err = nil // Ctrl-C
	}
	return err
}

// config is the server's flags.
type config struct {
	db, pg, vault, code, mode string
	budget                    int
	offsetHints               bool
	// wait is how long a tool call waits for the data it reads to load
	// before it answers from what is loaded.
	wait time.Duration
	// vaultFS, when set, is the vault's files instead of -vault's
	// (tests).
	vaultFS fs.FS
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fl := flag.NewFlagSet("mcpserver", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&c.db, "db", "", "the SQLite database `file` (default: one in the user cache directory, kept between runs)")
	fl.StringVar(&c.pg, "pg", "", "use Postgres at `dsn` instead of SQLite")
	fl.StringVar(&c.vault, "vault", "", "the vault `dir`ectory to import (default: the embedded demo vault)")
	fl.StringVar(&c.code, "code", "", "the tree to index for search_code (default: this repository; - for none)")
	fl.StringVar(&c.mode, "mode", string(tools.Balanced), "access `mode`: private, balanced or full")
	fl.IntVar(&c.budget, "budget", 0, "the response ceiling in `chars` (default 45,000)")
	fl.DurationVar(&c.wait, "wait", 2*time.Second, "how long a tool call waits for data still loading before it answers from what is loaded, and says so")
	fl.BoolVar(&c.offsetHints, "offset-hints", false, "continue every paged tool by offset in next and the hint, not by cursor (exact while data changes)")
	if err := fl.Parse(args); err != nil {
		return c, err
	}
	if fl.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fl.Args())
	}
	return c, nil
}

// server is the MCP server, its store and the loading of its data.
type server struct {
	mcp  *mcp.Server
	st   *opened
	load *loader
}

// close stops the loading, waiting for it, and closes the store.
func (s *server) close() error {
	s.load.stop()
	return s.st.close()
}

// newServer opens the store, writes the history and deploys, starts
// loading the vault and the code in the background, and returns the MCP
// server with every tool. A vault that cannot be read is an error naming
// it.
func newServer(ctx context.Context, cfg config, stderr io.Writer) (*server, error) {
	src, err := openVault(cfg.vault)
	if err != nil {
		return nil, err
	}
	if cfg.vaultFS != nil {
		src.fsys = cfg.vaultFS
	}
	st, err := open(ctx, cfg, src)
	if err != nil {
		return nil, err
	}
	if err := loadSmall(ctx, st); err != nil {
		st.close()
		return nil, err
	}
	b := bounded.Budget{Logger: slog.New(slog.NewTextHandler(stderr, nil))}
	if cfg.budget > 0 {
		b.MaxChars, b.Margin = cfg.budget, 1
	}
	b = mcptools.ClientBudget(b) // MAX_MCP_OUTPUT_TOKENS
	l := newLoader()
	set, err := tools.New(tools.Config{Notes: st.store, Knowledge: st.store, History: st.store, Code: st.store,
		Mode: tools.Mode(cfg.mode), Budget: b, OffsetHints: cfg.offsetHints, Importing: l.importing})
	if err != nil {
		st.close()
		return nil, err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "bounded", Title: "bounded agent tools", Version: "0.1.0"},
		&mcp.ServerOptions{Instructions: set.Instructions() + " " + loadingInstructions})
	mcpset.Add(s, set)
	var paging bounded.Paging // by cursor
	if cfg.offsetHints {
		paging = bounded.ByOffset
	}
	addDeploys(s, st.db, mcptools.Options[Deploy]{Limits: bounded.Limits{Default: 20, Max: 100}, Paging: paging, Budget: b})
	l.start(ctx, st, src, cfg.code, stderr)
	mcptools.AddNotice(s, b, l.notice)
	s.AddReceivingMiddleware(l.waiting(cfg.wait)) // before the notice is read
	return &server{mcp: s, st: st, load: l}, nil
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

// History endpoints written on start, and their number of runs.
var endpoints = []struct {
	id   string
	runs int
}{{"orders-api", 30}, {"billing-api", 8}}

// loadSmall writes the data that takes no time: the runs of the endpoints
// and the deploys. It is idempotent.
func loadSmall(ctx context.Context, o *opened) error {
	for _, ep := range endpoints {
		if err := runlog.Record(ctx, o.store, runlog.Runs(ep.id, ep.runs)); err != nil {
			return err
		}
	}
	return loadDeploys(ctx, o.db)
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
