package postgres_test

import (
	"context"
	"testing"

	"github.com/boundedkit/bounded/adapters/internal/adaptertest"
	"github.com/boundedkit/bounded/adapters/postgres"
)

// FuzzSearch sends fuzzed strings (adaptertest.FuzzQuery: as given, 1 MB,
// over 1 MB, upper-cased, wrapped in LIKE wildcards) through every method
// that takes a string from the caller, with fuzzed pages and windows: no
// panic, and each answer is memrepo's, or an error wrapping the same
// sentinel as memrepo's (never an untyped driver error); every note is
// still there afterwards. Each fuzzing process works in a schema of its
// own. The seed corpus, testdata/fuzz/FuzzSearch, holds SQL, LIKE
// wildcards, quotes, backslashes, bun and Postgres placeholders, dollar
// quotes, NUL, invalid UTF-8 and 1 MB queries. A long run:
//
//	BOUNDED_PG_DSN=... go test ./adapters/postgres -run '^$' -fuzz '^FuzzSearch$' -fuzztime 60s -fuzzminimizetime 2s
func FuzzSearch(f *testing.F) {
	s, err := postgres.New(context.Background(), openDB(f))
	if err != nil {
		f.Fatal(err)
	}
	fz := adaptertest.NewFuzzer(f, s)
	f.Fuzz(func(t *testing.T, q string, mode uint8, limit int8, offset uint16) {
		fz.Check(t, adaptertest.FuzzQuery(q, mode), mode, int(limit), adaptertest.FuzzOffset(offset))
	})
}

// TestInjection sends the strings that break SQL built from input (quotes,
// comments, DROP TABLE, LIKE wildcards and escapes, placeholders, dollar
// quotes) through every string-taking method: each answer is memrepo's,
// and every table of the schema is still there, with every note.
func TestInjection(t *testing.T) {
	db := openDB(t)
	s, err := postgres.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	tables := func() int {
		var n int
		if err := db.QueryRow("SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name LIKE 'bounded!_%' ESCAPE '!'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := tables()
	f := adaptertest.NewFuzzer(t, s)
	for _, q := range adaptertest.InjectionQueries {
		for _, mode := range []uint8{0, 3, 4}[:adaptertest.Scaled(3, 1)] {
			f.Check(t, adaptertest.FuzzQuery(q, mode), mode, 7, 0)
		}
	}
	if after := tables(); after != before || before < 10 {
		t.Errorf("%d bounded_ tables before the queries, %d after", before, after)
	}
	t.Logf("%d calls compared with memrepo; the %d tables intact", f.Calls, before)
}

// TestHugeFuzzyQuery times fuzzy SearchNodes with five 1 MB queries
// against memrepo's (see adaptertest.HugeFuzzyQuery): queries too long to
// match any name are skipped, not sent to the database.
func TestHugeFuzzyQuery(t *testing.T) { adaptertest.HugeFuzzyQuery(t, open(t)) }
