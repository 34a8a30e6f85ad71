// Command history is an agent loop over response history: it records the
// runs of an endpoint, then pages through them with the
// get_response_history tool by limit and offset, newest first, printing
// each page, and follows each response's next arguments until there are
// none. Bodies over 1,000 characters come back clipped with a visible
// marker; bodyChars says how long they were.
//
//	go run ./examples/history
//	go run ./examples/history -runs 40 -limit 10 -budget 6000
//	go run ./examples/history -db history.db
//
// Flags:
//
//	-endpoint id   the endpoint whose runs are recorded and read (default orders-api)
//	-runs n        how many runs to record (default 12)
//	-limit n       runs per call (default 3; the tool's default is 2, its maximum 10)
//	-budget n      the response ceiling in characters (default 45,000)
//	-db file       record into this SQLite file instead of memory
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/adapters/sqlite"
	"github.com/boundedkit/bounded/examples/history/runlog"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "history:", err)
		os.Exit(1)
	}
}

// run records the runs and walks them, writing each call and its response
// to w.
func run(ctx context.Context, args []string, w io.Writer) error {
	fl := flag.NewFlagSet("history", flag.ContinueOnError)
	endpoint := fl.String("endpoint", "orders-api", "the endpoint `id`")
	runs := fl.Int("runs", 12, "how many runs to record")
	limit := fl.Int("limit", 3, "runs per call")
	budget := fl.Int("budget", 0, "the response ceiling in `chars` (default 45,000)")
	dbPath := fl.String("db", "", "record into this SQLite `file` instead of memory")
	if err := fl.Parse(args); err != nil {
		return err
	}

	var store ports.History = memrepo.New()
	if *dbPath != "" {
		s, db, err := sqlite.Open(ctx, *dbPath)
		if err != nil {
			return err
		}
		defer db.Close()
		store = s
	}
	if err := runlog.Record(ctx, store, runlog.Runs(*endpoint, *runs)); err != nil {
		return err
	}
	b := bounded.Budget{Logger: slog.New(slog.DiscardHandler)}
	if *budget > 0 {
		b.MaxChars, b.Margin = *budget, 1
	}
	set, err := tools.New(tools.Config{History: store, Budget: b})
	if err != nil {
		return err
	}

	// The agent's loop: call, read, and call again with next until the
	// response has none.
	next, err := json.Marshal(map[string]any{"endpointId": *endpoint, "limit": *limit})
	if err != nil {
		return err
	}
	for page := 1; next != nil; page++ {
		out, err := set.Call(ctx, "get_response_history", next)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "== page %d: get_response_history %s\n%s\n", page, next, out)
		var env struct {
			Next json.RawMessage `json:"next"`
		}
		if err := json.Unmarshal(out, &env); err != nil {
			return err
		}
		next = env.Next
	}
	return nil
}
