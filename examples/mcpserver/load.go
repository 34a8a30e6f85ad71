package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/uptrace/bun"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/postgres"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/examples/codesearch/index"
	demovault "github.com/boundedkit/bounded/examples/notes/demo-vault"
	"github.com/boundedkit/bounded/examples/notes/vault"
	"github.com/boundedkit/bounded/ports"
)

// store is what the server needs of an adapter: every port.
type store interface {
	ports.Notes
	ports.Knowledge
	ports.History
	ports.Code
}

// opened is an open store and its database, where the tools read; the
// importer, which writes to the same database on a connection of its own
// (with SQLite) so that the tools' reads never wait for its batches; and
// the function that closes them.
type opened struct {
	store    store
	db       *bun.DB
	importer *vault.Importer
	close    func() error
}

// open opens the SQLite or Postgres store of cfg, for the vault src.
func open(ctx context.Context, cfg config, src source) (*opened, error) {
	if cfg.pg != "" {
		st, db, err := postgres.Open(ctx, cfg.pg)
		if err != nil {
			return nil, err
		}
		return &opened{store: st, db: db, close: db.Close, importer: &vault.Importer{DB: db,
			Store: func(ctx context.Context, tx bun.Tx) (ports.Notes, error) {
				st, err := postgres.New(ctx, tx)
				return withEntities{st, st}, err
			}}}, nil
	}
	path := cfg.db
	if path == "" {
		var err error
		if path, err = vault.CacheFile("mcpserver", src.name, src.key); err != nil {
			return nil, fmt.Errorf("%w (give one with -db)", err)
		}
	}
	st, db, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	_, wdb, err := openImmediate(ctx, path)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &opened{store: st, db: db, close: func() error { return errors.Join(wdb.Close(), db.Close()) },
		importer: &vault.Importer{DB: wdb, Store: func(ctx context.Context, tx bun.Tx) (ports.Notes, error) {
			st, err := sqlite.New(ctx, tx)
			return withEntities{st, st}, err
		}}}, nil
}

// openImmediate opens the SQLite store at path, whose transactions take
// the write lock when they begin (BEGIN IMMEDIATE): another connection
// writing at the same time then waits for the import's batch rather than
// fail. Reads never wait (WAL).
func openImmediate(ctx context.Context, path string) (*sqlite.Store, *bun.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, err
	}
	u := url.URL{Path: filepath.ToSlash(abs)}
	return sqlite.Open(ctx, "file:"+u.EscapedPath()+"?_txlock=immediate")
}

// withEntities is the store of one batch of the import: it writes, with
// each note, the note's entity in the knowledge graph (see
// vault.Entities; a folder's index note is of type "note").
type withEntities struct {
	ports.Notes
	kn ports.Knowledge
}

func (s withEntities) PutNote(ctx context.Context, n ports.Note) error {
	if err := s.Notes.PutNote(ctx, n); err != nil {
		return err
	}
	err := s.kn.PutEntity(ctx, vault.Entities([]vault.File{{Note: n}})[0])
	if errors.Is(err, ports.ErrInvalidItem) {
		return nil // the note without an entity
	}
	return err
}

// source is a vault to import: its files, its folder as given ("" for the
// demo vault), and the name and key of its database in the cache.
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

// loader loads the vault and the code in the background, and says how
// far it is.
type loader struct {
	cancel    context.CancelFunc
	vaultDone chan struct{} // closed when the import ends
	done      chan struct{} // closed when loading ends

	mu       sync.Mutex
	prior    bool           // the store held notes before the import
	progress vault.Progress // the import's, while it runs
	imported bool           // the import ended without an error
	importErr,
	codeErr error
	indexed bool // the code is indexed
}

// loadingInstructions tell the agent what a hint's first sentence means
// while the data loads.
const loadingInstructions = "While the server is still importing its data, a hint begins by saying so: the results then come from what is imported so far."

// newLoader returns a loader that has not started.
func newLoader() *loader {
	return &loader{cancel: func() {}, vaultDone: make(chan struct{}), done: make(chan struct{})}
}

// start imports the vault src into st, then indexes the tree code ("" for
// this repository, "-" for none), in the background until done or ctx
// ends, reporting on stderr.
func (l *loader) start(ctx context.Context, st *opened, src source, code string, stderr io.Writer) {
	ctx, l.cancel = context.WithCancel(ctx)
	what := cmpOr(src.dir, "the demo vault")
	fmt.Fprintf(stderr, "mcpserver: importing %s in the background; until it ends, tools answer from what is imported and say so\n", what)
	go func() {
		defer close(l.done)
		held, err := st.store.ListNotes(ctx, ports.ListFilter{}, bounded.Page{Limit: 1})
		l.mu.Lock()
		l.prior = err == nil && len(held.Items) > 0
		l.mu.Unlock()
		im := *st.importer
		im.Progress = func(p vault.Progress) {
			l.mu.Lock()
			l.progress = p
			l.mu.Unlock()
		}
		sum, err := im.Import(ctx, src.fsys)
		for _, fe := range sum.Errors {
			fmt.Fprintf(stderr, "mcpserver: skipped %s: %v\n", filepath.Join(src.dir, filepath.FromSlash(fe.Path)), fe.Err)
		}
		l.mu.Lock()
		l.imported, l.importErr = err == nil, err
		l.mu.Unlock()
		close(l.vaultDone)
		switch {
		case ctx.Err() != nil:
			fmt.Fprintf(stderr, "mcpserver: import of %s stopped; the next start goes on from there\n", what)
			return
		case err != nil:
			fmt.Fprintf(stderr, "mcpserver: importing %s: %v\n", what, err)
		default:
			fmt.Fprintf(stderr, "mcpserver: imported %s: %v\n", what, sum)
		}
		err = indexCode(ctx, st.store, code, stderr)
		l.mu.Lock()
		l.indexed, l.codeErr = err == nil, err
		l.mu.Unlock()
		if err != nil {
			fmt.Fprintln(stderr, "mcpserver: indexing the code:", err)
		}
		if ctx.Err() == nil {
			fmt.Fprintln(stderr, "mcpserver: loading done")
		}
	}()
}

// stop stops loading and waits for it to end.
func (l *loader) stop() {
	l.cancel()
	<-l.done
}

// loaded returns the channel closed when the data tool reads is loaded,
// or nil for the data written before serving.
func (l *loader) loaded(tool string) <-chan struct{} {
	switch tool {
	case "get_response_history", "list_deploys":
		return nil
	case "search_code":
		return l.done
	}
	return l.vaultDone
}

// importing reports whether the data tool reads is being written: the
// vault's notes and entities while the import runs, the code until it is
// indexed (tools.Config.Importing).
func (l *loader) importing(tool string) bool {
	loaded := l.loaded(tool)
	return loaded != nil && !isClosed(loaded)
}

// progressEvery is how often a call waiting for data notifies progress.
const progressEvery = 250 * time.Millisecond

// waiting returns a middleware that holds a tool call, up to grace, while
// the data it reads loads; a call with a progress token gets a progress
// notification every progressEvery meanwhile. The call then answers from
// what is loaded, and says so (see notice).
func (l *loader) waiting(grace time.Duration) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if method != "tools/call" || !ok || call.Params == nil || grace <= 0 {
				return next(ctx, method, req)
			}
			loaded := l.loaded(call.Params.Name)
			if loaded == nil || isClosed(loaded) {
				return next(ctx, method, req)
			}
			timeout := time.NewTimer(grace)
			defer timeout.Stop()
			tick := time.NewTicker(progressEvery)
			defer tick.Stop()
			token := call.Params.GetProgressToken()
			for {
				select {
				case <-tick.C:
					if token != nil && call.Session != nil {
						p := l.progressNow()
						call.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
							Progress: float64(p.Done), Total: float64(p.Total), Message: "vault import: " + p.String()})
					}
					continue
				case <-loaded:
				case <-timeout.C:
				case <-ctx.Done():
				}
				return next(ctx, method, req)
			}
		}
	}
}

// progressNow is the import's progress.
func (l *loader) progressNow() progress {
	l.mu.Lock()
	defer l.mu.Unlock()
	return progress(l.progress)
}

// progress is an import's progress, as the notice words it.
type progress vault.Progress

func (p progress) String() string {
	switch p.Stage {
	case "write":
		return fmt.Sprintf("%s of %s notes written", bounded.FormatCount(p.Done), bounded.FormatCount(p.Total))
	case "remove":
		return fmt.Sprintf("looking for deleted files: %s of %s checked", bounded.FormatCount(p.Done), bounded.FormatCount(p.Total))
	}
	return fmt.Sprintf("scanning files: %s so far", bounded.FormatCount(p.Done))
}

// isClosed reports whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// notice is the sentence that begins the hint of tool while the data it
// reads is loading or failed to load, or "".
func (l *loader) notice(tool string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch tool {
	case "get_response_history", "list_deploys": // written before serving
		return ""
	case "search_code":
		switch {
		case l.indexed:
			return ""
		case l.codeErr != nil:
			return fmt.Sprintf("Indexing the code failed (%v): results may be incomplete.", l.codeErr)
		}
		return "The code is not indexed yet (the vault is imported first): results may be incomplete until it is; call again later for complete results."
	}
	switch {
	case l.imported:
		return ""
	case l.importErr != nil:
		return fmt.Sprintf("The vault import failed (%v): results come from the notes imported before it, and may be incomplete.", l.importErr)
	}
	how := progress(l.progress).String()
	if l.prior {
		return "Vault update in progress (" + how + "): results come from the last import and what changed since, so far; call again later for up-to-date results."
	}
	return "Vault import in progress (" + how + "): results may be incomplete until it ends; call again later for complete results."
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// indexCode indexes the tree dir ("" for this repository, "-" for none).
func indexCode(ctx context.Context, st ports.Code, dir string, stderr io.Writer) error {
	if dir == "-" {
		return nil
	}
	if dir == "" {
		var err error
		if dir, err = moduleRoot(); err != nil {
			fmt.Fprintf(stderr, "mcpserver: no code indexed: %v (give the tree to index with -code)\n", err)
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
// current directory; the error of none names the directory.
func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod in %s or a folder above it: %w", wd, fs.ErrNotExist)
		}
		dir = parent
	}
}
