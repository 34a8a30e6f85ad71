// Command bounded-mcp puts bounded in front of any MCP server: every tool
// result keeps to what the client shows whole, and the rest is read by
// one tool, read_result, exactly once.
//
//	bounded-mcp [flags] -- <command> [args...]   an upstream over stdio
//	bounded-mcp [flags] --url <http-url>         a streamable HTTP upstream
//
// It serves stdio, or streamable HTTP with -http. It forwards all the
// upstream offers: tools, resources, prompts, completions, logging,
// progress, cancellation and list changes. Each result's budget comes
// from the client's profile (package profile), chosen by the name the
// client gives at initialize. Cut results are kept as snapshots in a
// SQLite file in the user cache directory, or in Postgres (-store).
//
// If the upstream exits, calls get an isError result saying so, and it is
// restarted once after a backoff. When the client leaves, the upstream
// and the proxy exit. Run bounded-mcp -h for the flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded/profile"
	"github.com/boundedkit/bounded/result"
	"github.com/boundedkit/bounded/result/sqlresult"
)

// EnvKey names the environment variable holding the key that signs
// handles: instances sharing a Postgres store need the same one.
const EnvKey = "BOUNDED_MCP_KEY"

func main() { os.Exit(runMain(os.Args[1:])) }

// runMain runs the proxy until the client leaves or a signal stops it.
func runMain(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, os.Stdin, os.Stdout, os.Stderr)
}

// options are the flags.
type options struct {
	url, listen, store, client, budget, logLevel, readTool, protocol, principal string
	headers, profiles, tools                                                    multi
	ttl, callTimeout, backoff, grace                                            time.Duration
	maxResult, quotaTotal, quotaSession                                         size
	showProfiles                                                                bool
	command                                                                     []string
}

func parse(args []string, stderr io.Writer) (*options, error) {
	o := &options{maxResult: 32 << 20}
	fs := flag.NewFlagSet("bounded-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: bounded-mcp [flags] -- <command> [args...]\n       bounded-mcp [flags] --url <http-url>\n\nflags:\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&o.url, "url", "", "the upstream's streamable HTTP `endpoint`, instead of a command")
	fs.Var(&o.headers, "header", "an HTTP `header` (\"Name: value\") for the -url upstream; repeatable")
	fs.StringVar(&o.listen, "http", "", "serve streamable HTTP on this `address` (e.g. localhost:8080, path /mcp) instead of stdio")
	fs.StringVar(&o.budget, "budget", "", "`limits` over every client's profile: chars=N,tokens=N,lines=N,bytes=N,margin=F, or a number of characters")
	fs.Var(&o.profiles, "profile", "`name=limits` over one profile (see -profiles); repeatable")
	fs.StringVar(&o.client, "client", "", "use the profile `name` for every client, whatever name it gives")
	fs.Var(&o.tools, "tool", "`name=limits` of one tool over the client's profile, or name=skip to leave its results alone; repeatable")
	fs.StringVar(&o.store, "store", "", "where snapshots are kept: a SQLite `file`, a postgres:// DSN, or memory (default: results.db in the user cache directory)")
	fs.DurationVar(&o.ttl, "ttl", result.DefaultTTL, "how long a snapshot and its handle live")
	fs.Var(&o.maxResult, "max-result", "the largest result bounded, in bytes (KiB, MiB, GiB, KB, MB, GB); a larger one is an isError result")
	fs.Var(&o.quotaTotal, "quota", "the most the store keeps, all sessions together (default 512MiB)")
	fs.Var(&o.quotaSession, "session-quota", "the most the store keeps for one session (default 64MiB)")
	fs.DurationVar(&o.callTimeout, "call-timeout", 5*time.Minute, "the longest a forwarded call waits for the upstream; 0 for no limit")
	fs.DurationVar(&o.backoff, "backoff", time.Second, "the wait before restarting an upstream that exited, doubled after a short run")
	fs.DurationVar(&o.grace, "grace", 2*time.Second, "how long a stopping upstream has after its stdin closes, and after SIGTERM")
	fs.StringVar(&o.protocol, "upstream-protocol", "", "the MCP `version` asked of the upstream (default: the latest the proxy speaks)")
	fs.StringVar(&o.readTool, "read-tool", result.DefaultReadTool, "the read tool's `name`")
	fs.StringVar(&o.principal, "principal", "", "bind handles to this `name` instead of the client's session: with "+EnvKey+" set, a handle stays readable after the proxy restarts")
	fs.StringVar(&o.logLevel, "log-level", "warn", "the `level` of the proxy's log on stderr: debug, info, warn or error")
	fs.BoolVar(&o.showProfiles, "profiles", false, "print the client profiles and exit")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	o.command = fs.Args()
	switch {
	case o.showProfiles:
	case o.url == "" && len(o.command) == 0:
		fs.Usage()
		return nil, errors.New("no upstream: give a command after --, or -url")
	case o.url != "" && len(o.command) > 0:
		return nil, errors.New("give a command or -url, not both")
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "bounded-mcp:", err)
		return 2
	}
	if err := serve(ctx, o, stdin, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "bounded-mcp:", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, o *options, stdin io.Reader, stdout, stderr io.Writer) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return fmt.Errorf("-log-level: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	profiles, err := buildProfiles(o)
	if err != nil {
		return err
	}
	if o.showProfiles {
		for _, p := range profiles.Profiles() {
			clients := strings.Join(p.Clients, ", ")
			if clients == "" {
				clients = "any other"
			}
			fmt.Fprintf(stdout, "%s\n  clients: %s\n  source: %s\n", p.Describe(), clients, p.Source)
		}
		return nil
	}
	tools, err := toolPolicies(o.tools)
	if err != nil {
		return err
	}
	store, closeStore, err := openStore(ctx, o.store, result.Quota{Total: int64(o.quotaTotal), PerPrincipal: int64(o.quotaSession)})
	if err != nil {
		return err
	}
	defer closeStore()
	bounder := result.New(store, result.Options{Key: []byte(os.Getenv(EnvKey)), TTL: o.ttl, ReadTool: o.readTool, MaxBytes: int(o.maxResult)})
	cfg := config{profiles: profiles, client: o.client, principal: o.principal, tools: tools, bounder: bounder,
		callTimeout: o.callTimeout, backoff: o.backoff, logger: logger, protocol: o.protocol}
	// A frame may hold the largest result JSON-escaped, and its envelope.
	frame := 2*int(o.maxResult) + 1<<20
	if o.url != "" {
		cfg.dial = httpDialer(o.url, o.headers)
	} else {
		cfg.dial = commandDialer(o.command, frame, o.grace)
	}
	p, err := newProxy(ctx, cfg)
	if err != nil {
		return err
	}
	defer p.close()
	if o.listen == "" {
		p.splice = newSplicer(stdout)
		t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{p.splice}}
		err := p.server.Run(ctx, t)
		if ctx.Err() != nil || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	return serveHTTP(ctx, o.listen, p.server, logger)
}

// serveHTTP serves streamable HTTP at /mcp until ctx ends.
func serveHTTP(ctx context.Context, addr string, s *mcp.Server, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	logger.Warn("serving streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp")
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// buildProfiles returns the built-in profiles with the flags' limits.
func buildProfiles(o *options) (*profile.Set, error) {
	s := profile.Default()
	if o.budget != "" {
		l, err := profile.ParseLimits(o.budget)
		if err != nil {
			return nil, fmt.Errorf("-budget: %w", err)
		}
		s.Override("*", l)
	}
	for _, spec := range o.profiles {
		name, lim, ok := strings.Cut(spec, "=")
		if !ok {
			return nil, fmt.Errorf("-profile %q: want name=limits", spec)
		}
		l, err := profile.ParseLimits(lim)
		if err != nil {
			return nil, fmt.Errorf("-profile %q: %w", spec, err)
		}
		if err := s.Override(name, l); err != nil {
			return nil, fmt.Errorf("-profile %q: %w", spec, err)
		}
	}
	if o.client != "" {
		if _, ok := s.Named(o.client); !ok {
			return nil, fmt.Errorf("-client: no profile named %q", o.client)
		}
	}
	for _, p := range s.Profiles() {
		if err := checkBudget(p); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// checkBudget refuses a profile no cut result fits in.
func checkBudget(p profile.Profile) error {
	if err := p.Budget.Validate(); err != nil {
		return fmt.Errorf("profile %s: %w", p.Name, err)
	}
	if c, t := p.Budget.LimitChars(), p.Budget.LimitTokens(); c < result.MinChars || t < result.MinTokens {
		return fmt.Errorf("profile %s allows %d characters and %d tokens, under the least a cut result needs (%d and %d)",
			p.Name, c, t, result.MinChars, result.MinTokens)
	}
	return nil
}

// toolPolicies parses the -tool flags.
func toolPolicies(specs []string) (map[string]toolPolicy, error) {
	out := map[string]toolPolicy{}
	for _, spec := range specs {
		name, lim, ok := strings.Cut(spec, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("-tool %q: want name=limits or name=skip", spec)
		}
		if lim == "skip" {
			out[name] = toolPolicy{skip: true}
			continue
		}
		l, err := profile.ParseLimits(lim)
		if err != nil {
			return nil, fmt.Errorf("-tool %q: %w", spec, err)
		}
		if err := checkBudget(profile.Profile{Name: "of tool " + name}.With(l)); err != nil && l.Chars > 0 {
			return nil, err
		}
		out[name] = toolPolicy{limits: l}
	}
	return out, nil
}

// openStore opens the store -store names.
func openStore(ctx context.Context, where string, q result.Quota) (result.Store, func(), error) {
	switch {
	case where == "memory":
		return result.NewMemory(q), func() {}, nil
	case strings.HasPrefix(where, "postgres://"), strings.HasPrefix(where, "postgresql://"):
		s, err := sqlresult.OpenPostgres(ctx, where, q)
		if err != nil {
			return nil, nil, fmt.Errorf("-store: %w", err)
		}
		return s, func() { s.Close() }, nil
	}
	if where == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, nil, fmt.Errorf("no user cache directory (%v): give -store", err)
		}
		where = filepath.Join(dir, "bounded-mcp", "results.db")
	}
	if err := os.MkdirAll(filepath.Dir(where), 0o700); err != nil {
		return nil, nil, fmt.Errorf("-store: %w", err)
	}
	s, err := sqlresult.OpenSQLite(ctx, where, q)
	if err != nil {
		return nil, nil, fmt.Errorf("-store: %w", err)
	}
	return s, func() { s.Close() }, nil
}

// httpDialer connects to a streamable HTTP upstream, with headers.
func httpDialer(url string, headers []string) dialer {
	h := http.Header{}
	for _, kv := range headers {
		k, v, _ := strings.Cut(kv, ":")
		h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	client := &http.Client{Transport: headerTransport{h, http.DefaultTransport}}
	return func(ctx context.Context) (mcp.Transport, *process, error) {
		return &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client}, nil, nil
	}
}

// headerTransport adds headers to every request.
type headerTransport struct {
	h    http.Header
	next http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.h) > 0 {
		r = r.Clone(r.Context())
		for k, vs := range t.h {
			r.Header[k] = vs
		}
	}
	return t.next.RoundTrip(r)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ", ") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

// size is a flag of bytes: 1048576, 64KiB, 32MiB, 1GiB, 200MB.
type size int64

func (s *size) String() string {
	switch n := int64(*s); {
	case n == 0:
		return "0"
	case n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	default:
		return strconv.FormatInt(n, 10)
	}
}

func (s *size) Set(v string) error {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(v, u.suffix) {
			v, mult = strings.TrimSuffix(v, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("%q is not a positive size", v)
	}
	*s = size(n * mult)
	return nil
}

// version is the module's version, as go install built it.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
