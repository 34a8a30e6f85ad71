package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/examples/notes/vault"
	"github.com/boundedkit/bounded/internal/deeptest"
	"github.com/boundedkit/bounded/mcptools/mcptoolstest"
	"github.com/boundedkit/bounded/ports"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// genVault writes a generated vault of n notes (genvault: four language
// folders, links, embeds) once per test binary, and returns its folder
// and its number of notes.
func genVault(t *testing.T, n int) (string, int) {
	t.Helper()
	vaults.Lock()
	defer vaults.Unlock()
	if v, ok := vaults.m[n]; ok {
		return v.dir, v.notes
	}
	dir, err := os.MkdirTemp("", "mcpserver-vault-")
	if err != nil {
		t.Fatal(err)
	}
	vaults.dirs = append(vaults.dirs, dir)
	bin := filepath.Join(dir, "genvault")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/boundedkit/bounded/examples/notes/internal/genvault/cmd/genvault").CombinedOutput()
	if err != nil {
		t.Fatalf("go build genvault: %v\n%s", err, out)
	}
	vault := filepath.Join(dir, "vault")
	if out, err := exec.Command(bin, "-notes", strconv.Itoa(n), vault).CombinedOutput(); err != nil {
		t.Fatalf("genvault: %v\n%s", err, out)
	}
	notes := 0
	err = filepath.WalkDir(vault, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			notes++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if vaults.m == nil {
		vaults.m = map[int]struct {
			dir   string
			notes int
		}{}
	}
	vaults.m[n] = struct {
		dir   string
		notes int
	}{vault, notes}
	return vault, notes
}

// vaultNotes is the number of notes of the tests' generated vault: 300
// in the default run (over a batch of the import, whose last note,
// ko/topics/t000/Note 74, is past the first batch), 600 in the deep run
// (deeptest).
func vaultNotes() int { return deeptest.Size(300, 600) }

// vaults are the vaults genVault wrote, by number of notes, and their
// folders, removed by TestMain.
var vaults struct {
	sync.Mutex
	m map[int]struct {
		dir   string
		notes int
	}
	dirs []string
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range vaults.dirs {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// gate holds the import at a note file: it lets through the first
// opens of .md files and holds the next until released.
type gate struct {
	fs.FS
	left    atomic.Int64
	held    chan struct{} // closed when an open is held
	release chan struct{} // closed to let the opens through
	once    [2]sync.Once
}

func newGate(fsys fs.FS, opens int) *gate {
	g := &gate{FS: fsys, held: make(chan struct{}), release: make(chan struct{})}
	g.left.Store(int64(opens))
	return g
}

func (g *gate) Open(name string) (fs.File, error) {
	if strings.HasSuffix(name, ".md") && g.left.Add(-1) < 0 {
		g.once[0].Do(func() { close(g.held) })
		<-g.release
	}
	return g.FS.Open(name)
}

func (g *gate) open() { g.once[1].Do(func() { close(g.release) }) }

// TestAnswersDuringImport holds the import of a generated vault after its
// first batch: initialize and tools/list are answered while it is held, a
// call answers from the first batch and says the answer is partial, and
// the same call after the import is complete and does not.
func TestAnswersDuringImport(t *testing.T) {
	dir, notes := genVault(t, vaultNotes())
	const batch = vault.DefaultBatchSize // 256 notes: de/ and en/, and in the default run ja/ and some of ko/
	g := newGate(os.DirFS(dir), batch)   // held after the first batch
	var events []string
	srv := newTestServer(t, config{db: filepath.Join(t.TempDir(), "b.db"), code: "-", mode: "balanced", vaultFS: g})
	t.Cleanup(g.open) // before the server stops: cleanups run last first
	<-g.held
	events = append(events, "import held")
	c := mcptoolstest.Serve(t, srv.mcp) // initialize, then tools/list
	if len(c.Tools) != len(wantTools) {
		t.Errorf("tools/list: %d tools, want %d", len(c.Tools), len(wantTools))
	}
	events = append(events, "tools listed")
	if isClosed(srv.load.done) {
		events = append(events, "import done")
	}

	partial := fmt.Sprintf("Vault import in progress (%d of ", batch)
	during, text := importingCall(t, c, "list_notes", `{"limit":30}`)
	if !strings.HasPrefix(during.Hint, partial+fmt.Sprintf("%s notes written): results may be incomplete", thousands(notes))) {
		t.Errorf("during the import, hint %q; want it to begin with %q", during.Hint, partial)
	}
	// The total is a lower bound, and the pagination says why.
	if p := during.Pagination; p.Total != batch || p.TotalKind != bounded.TotalAtLeast || !p.Importing {
		t.Errorf("during the import, total %v (%v), importing %v; want at least the %d notes of the first batch, importing: %.500s",
			p.Total, p.TotalKind, p.Importing, batch, text)
	}
	// The last note of ko/, the last of the four language folders: not in
	// the first batch.
	k := notes/4 - 1
	last := fmt.Sprintf("ko/topics/t%03d/Note %d", k/100, k)
	if got := c.Error("get_note", fmt.Sprintf(`{"id":%q}`, last)); !strings.Contains(got, "not found") || !strings.Contains(got, partial) {
		t.Errorf("get_note(%s) during the import: %q; want not found, and the import in progress", last, got)
	}
	if _, text := c.Call("get_response_history", `{"endpointId":"billing-api","limit":1}`); strings.Contains(text, "in progress") {
		t.Errorf("get_response_history, loaded before serving, says the import is in progress: %.300s", text)
	}

	g.open()
	<-srv.load.done
	events = append(events, "import done")
	if want := []string{"import held", "tools listed", "import done"}; !slices.Equal(events, want) {
		t.Errorf("events %q; want %q", events, want)
	}
	after, text := c.Call("list_notes", `{"limit":30}`)
	if strings.Contains(after.Hint, "in progress") || strings.Contains(text, "incomplete") || strings.Contains(text, "importing") {
		t.Errorf("after the import, %.500s still says it is partial", text)
	}
	if after.Pagination.Total != notes || after.Pagination.TotalKind != bounded.TotalExact {
		t.Errorf("after the import, total %v (%v); want %d, exact", after.Pagination.Total, after.Pagination.TotalKind, notes)
	}
	env, _ := c.Call("get_note", fmt.Sprintf(`{"id":%q,"maxLines":2}`, last))
	if len(env.Results) != 1 || strings.Contains(env.Hint, "in progress") {
		t.Errorf("get_note(%s) after the import: %d results, hint %q", last, len(env.Results), env.Hint)
	}
}

// importingEnvelope is a response read while the vault is imported: its
// pagination says so, which mcptoolstest.Envelope does not decode.
type importingEnvelope struct {
	Results    []json.RawMessage `json:"results"`
	Pagination struct {
		bounded.PageInfo
		Importing bool `json:"importing"`
	} `json:"pagination"`
	Truncation bounded.Truncation `json:"truncation"`
	Hint       string             `json:"hint"`
	Next       json.RawMessage    `json:"next"`
}

// importingCall calls a tool while the vault is imported: a result
// within its limits.
func importingCall(t *testing.T, c *mcptoolstest.Client, name, args string) (importingEnvelope, string) {
	t.Helper()
	res := c.Raw(name, args)
	text := mcptoolstest.Text(res)
	var env importingEnvelope
	if res.IsError || json.Unmarshal([]byte(text), &env) != nil {
		t.Fatalf("%s(%s): %.500s; want an envelope", name, args, text)
	}
	if n := len([]rune(text)); n > env.Truncation.LimitChars || n != env.Truncation.EstimatedChars {
		t.Errorf("%s(%s): %d characters, truncation %+v", name, args, n, env.Truncation)
	}
	return env, text
}

// thousands formats n with commas, as the notice does.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestUnreadableVault: a vault that cannot be read is an error naming its
// path, before the server answers anything.
func TestUnreadableVault(t *testing.T) {
	file := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(file, []byte("# a note, not a vault\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(t.TempDir(), "missing"), "no such file or directory"},
		{file, "not a directory"},
	} {
		err := run(t.Context(), []string{"-vault", tc.path, "-db", filepath.Join(t.TempDir(), "b.db"), "-code", "-"}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("-vault %s: %v; want an error naming the path: %s", tc.path, err, tc.want)
		}
	}
}

// TestClientLeaves runs the built server on a generated vault, answers
// initialize and tools/list, then closes its stdin as a client leaving
// does: the process ends, stopping the import, and leaves its database
// closed; the next start goes on with the import.
func TestClientLeaves(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := build(t)
	dir, notes := genVault(t, vaultNotes())
	db := filepath.Join(t.TempDir(), "b.db")

	cmd := exec.Command(bin, "-vault", dir, "-db", db, "-code", "-")
	stderr := newLines("mcpserver: loading done")
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr)
		}
	})

	replies := bufio.NewScanner(stdout)
	replies.Buffer(nil, 4<<20)
	send := func(msg string) {
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	reply := func(id int) json.RawMessage {
		if !replies.Scan() {
			t.Fatalf("no reply to request %d: %v", id, replies.Err())
		}
		var r struct {
			ID     int
			Result json.RawMessage
		}
		if err := json.Unmarshal(replies.Bytes(), &r); err != nil || r.ID != id || r.Result == nil {
			t.Fatalf("want the result of request %d: %.300s (%v)", id, replies.Bytes(), err)
		}
		return r.Result
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`)
	reply(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var list struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal(reply(2), &list); err != nil || len(list.Tools) != len(wantTools) {
		t.Errorf("tools/list: %d tools (%v), want %d", len(list.Tools), err, len(wantTools))
	}
	loaded := isClosed(stderr.seen)

	stdin.Close() // the client leaves
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the server exited with %v", err)
		}
	case <-ctx.Done():
		cmd.Process.Kill()
		t.Fatalf("the server did not exit after its stdin closed: %v", ctx.Err())
	}
	stopped := strings.Contains(stderr.String(), "import of "+dir+" stopped")
	t.Logf("loaded when tools/list was answered: %v; import stopped by the exit: %v", loaded, stopped)
	if _, err := os.Stat(db + "-wal"); !os.IsNotExist(err) {
		t.Errorf("%s-wal is left (%v): the database was not closed", db, err)
	}

	// The next start writes only the notes the first did not.
	st, err := open(t.Context(), config{db: db}, source{})
	if err != nil {
		t.Fatal(err)
	}
	kept, err := st.store.ListNotes(t.Context(), ports.ListFilter{}, bounded.Page{Limit: 1})
	if err := errors.Join(err, st.close()); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	srv, err := newServer(t.Context(), config{db: db, vault: dir, code: "-", mode: "balanced"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	<-srv.load.done
	if err := srv.close(); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(\d+) notes \((\d+) added`).FindStringSubmatch(out.String())
	if m == nil || m[1] != strconv.Itoa(notes) {
		t.Fatalf("second start: %q; want a summary of %d notes", out.String(), notes)
	}
	t.Logf("the first start wrote %d notes; the second %s", kept.Page.Total, m[2])
	if added, _ := strconv.Atoi(m[2]); added != notes-kept.Page.Total {
		t.Errorf("second start added %d notes; want the %d of %d the first did not write", added, notes-kept.Page.Total, notes)
	}
}

// TestWaitsForImport: with -wait longer than the import, a call made
// while the import is held waits, notifying its progress, and answers
// complete once the import ends.
func TestWaitsForImport(t *testing.T) {
	dir, notes := genVault(t, vaultNotes())
	g := newGate(os.DirFS(dir), vault.DefaultBatchSize)
	srv := newTestServer(t, config{db: filepath.Join(t.TempDir(), "b.db"), code: "-", mode: "balanced", vaultFS: g, wait: time.Hour})
	t.Cleanup(g.open) // before the server stops: cleanups run last first
	progress := make(chan string, 100)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- fmt.Sprintf("%s: %v of %v", req.Params.Message, req.Params.Progress, req.Params.Total):
			default:
			}
		}})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.mcp.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := client.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	<-g.held

	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "list_notes", Arguments: map[string]any{"limit": 30}}
		params.SetProgressToken("t1")
		res, err := cs.CallTool(context.Background(), params)
		answered <- answer{res, err}
	}()
	var events []string
	select {
	case p := <-progress:
		events = append(events, "progress")
		if want := fmt.Sprintf("vault import: %d of %s notes written: %d of %d", vault.DefaultBatchSize, thousands(notes), vault.DefaultBatchSize, notes); p != want {
			t.Errorf("progress %q; want %q", p, want)
		}
	case a := <-answered:
		t.Fatalf("the call answered while the import was held: %v %v", a.res, a.err)
	}
	g.open()
	events = append(events, "import released")
	a := <-answered
	events = append(events, "answered")
	if want := []string{"progress", "import released", "answered"}; !slices.Equal(events, want) {
		t.Errorf("events %q; want %q", events, want)
	}
	if a.err != nil || a.res.IsError {
		t.Fatalf("list_notes: %v %v", a.err, a.res)
	}
	text := mcptoolstest.Text(a.res)
	if strings.Contains(text, "in progress") || !strings.Contains(text, fmt.Sprintf(`"total":%d,`, notes)) {
		t.Errorf("list_notes after waiting: %.400s; want all %d notes, and no notice", text, notes)
	}
}
