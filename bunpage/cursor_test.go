package bunpage_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/bunpage"
	"github.com/boundedkit/bounded/driver"
	"github.com/uptrace/bun"
)

// keyed is an order with a column of every kind: string, nullable
// integer, float, time, bool, and the id.
var keyed = ord("title", "year", "rating desc", "added", "lent", "id unique")

// Positions of keyed's columns in a cursor's keys.
const (
	kTitle = iota
	kYear
	kRating
	kAdded
	kLent
	kID
)

// forged is a cursor's keys with one changed: key i set to v.
type forged struct {
	name string
	i    int
	v    any
	// msg is what the error must say.
	msg string
}

var forgedKeys = []forged{
	{"title/int", kTitle, int64(1), `"title" is int64, want a string`},
	{"title/float", kTitle, 1.5, `"title" is float64`},
	{"title/bool", kTitle, true, `"title" is bool`},
	{"title/nil", kTitle, nil, `"title" is NULL, and the column is never NULL`},
	{"title/NUL", kTitle, "a\x00b", `"title" holds a NUL byte`},
	{"title/invalid UTF-8", kTitle, "caf\xe9", `"title" is not valid UTF-8`},
	{"title/lone continuation", kTitle, "\x80", `"title" is not valid UTF-8`},
	{"year/string", kYear, "1990", `"year" is string, want an integer`},
	{"year/float", kYear, 1990.0, `"year" is float64, want an integer`},
	{"year/bool", kYear, true, `"year" is bool`},
	{"rating/int", kRating, int64(2), `"rating" is int64, want a float`},
	{"rating/NaN", kRating, math.NaN(), `"rating" is NaN`},
	{"rating/+Inf", kRating, math.Inf(1), `"rating" is +Inf`},
	{"rating/-Inf", kRating, math.Inf(-1), `"rating" is -Inf`},
	{"rating/nil", kRating, nil, `"rating" is NULL`},
	{"rating/string", kRating, "2.25", `"rating" is string`},
	{"added/max int", kAdded, int64(math.MaxInt64), `"added" is a time outside the years 1 to 9999`},
	{"added/min int", kAdded, int64(math.MinInt64), `"added" is a time outside`},
	{"added/year 10000", kAdded, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro(), `"added" is a time outside`},
	{"added/year 0", kAdded, time.Date(0, 12, 31, 23, 59, 59, 0, time.UTC).UnixMicro(), `"added" is a time outside`},
	{"added/string", kAdded, "2024-03-01 12:00:00+00:00", `"added" is string, want a time`},
	{"added/float", kAdded, 1e15, `"added" is float64`},
	{"lent/int", kLent, int64(1), `"lent" is int64, want a bool`},
	{"lent/string", kLent, "true", `"lent" is string`},
	{"lent/nil", kLent, nil, `"lent" is NULL`},
	{"id/nil", kID, nil, `"id" is NULL`},
	{"id/string", kID, "1", `"id" is string, want an integer`},
	{"id/float", kID, 1.0, `"id" is float64`},
	{"id/bool", kID, false, `"id" is bool`},
	{"id/other type", kID, int32(1), `"id" is int32`},
}

// TestForgedCursors checks that every cursor whose keys do not fit the
// columns is ErrInvalidCursor, naming the column and the problem, forward
// and backward, with and without a count, before any SQL runs; and that
// the edge values that do fit run.
func TestForgedCursors(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		books := loadBooks(t, db, 20)
		ldb, log := logged(db)
		src := keyed.source(t, ldb, "a")
		valid := keyed.keys(books[0])
		refused := func(name string, keys []any, msg string) {
			t.Helper()
			for _, back := range []bool{false, true} {
				for _, count := range []bounded.CountMode{bounded.CountNone, bounded.CountExact} {
					log.take()
					r := driver.Request{Limit: 3, Count: count, At: &driver.Cursor{Backward: back, Keys: keys}}
					rows, err := src.Fetch(ctx, r)
					switch {
					case !errors.Is(err, bounded.ErrInvalidCursor):
						t.Errorf("%s (backward %v, %s): error %v, want ErrInvalidCursor", name, back, count, err)
					case !strings.Contains(err.Error(), msg):
						t.Errorf("%s: error %q does not say %q", name, err, msg)
					case rows.Items != nil:
						t.Errorf("%s: items with the error", name)
					}
					if q := log.take(); len(q) > 0 {
						t.Errorf("%s: ran %q", name, q)
					}
				}
			}
		}
		for _, f := range forgedKeys {
			keys := slices.Clone(valid)
			keys[f.i] = f.v
			refused(f.name, keys, f.msg)
		}
		refused("no keys", nil, "0 keys, want 6")
		refused("one key short", valid[:5], "5 keys, want 6")
		refused("one key more", append(slices.Clone(valid), int64(1)), "7 keys, want 6")

		// Values at the edges of what fits run, and find what follows them.
		for _, c := range []struct {
			name string
			i    int
			v    any
		}{
			{"year/nil", kYear, nil},
			{"title/empty", kTitle, ""},
			{"title/quote and placeholder", kTitle, `it's ? a "test" ?0 ?name`},
			{"rating/-0", kRating, math.Copysign(0, -1)},
			{"rating/max", kRating, math.MaxFloat64},
			{"rating/smallest", kRating, math.SmallestNonzeroFloat64},
			{"added/year 1", kAdded, time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()},
			{"added/year 9999", kAdded, time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC).UnixMicro()},
			{"id/min", kID, int64(math.MinInt64)},
			{"id/max", kID, int64(math.MaxInt64)},
			{"id/int", kID, 5},
		} {
			keys := slices.Clone(valid)
			keys[c.i] = c.v
			for _, back := range []bool{false, true} {
				r := driver.Request{Limit: 3, Count: bounded.CountExact, At: &driver.Cursor{Backward: back, Keys: keys}}
				if _, err := src.Fetch(ctx, r); err != nil {
					t.Errorf("%s (backward %v): %v", c.name, back, err)
				}
			}
		}
	})
}

// TestForgedThroughRespond forges cursors as a caller can without a
// signing key: the header (version, scope) of a cursor Respond issued, new
// keys, the checksum recomputed. Through bounded.Respond each is
// ErrInvalidCursor and runs no SQL.
func TestForgedThroughRespond(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		loadBooks(t, db, 20)
		ldb, log := logged(db)
		src := keyed.source(t, ldb, "a")
		call := bounded.Call{Tool: "list_books"}
		opts := bounded.Options[book]{Limits: bounded.Limits{Default: 3, Max: 10}}
		first, err := bounded.Respond(ctx, src, call, bounded.Page{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		real := first.Page.NextCursor
		// The forger writes the codec's format: the real cursor's own keys
		// forged again read the same page.
		scope, _ := call.Scope()
		pg, err := bounded.FetchPage(ctx, src, scope, bounded.Page{}, opts.Limits, driver.Codec{})
		if err != nil {
			t.Fatal(err)
		}
		keys := keyed.keys(pg.Items[len(pg.Items)-1])
		want, err := bounded.Respond(ctx, src, call, bounded.Page{Cursor: real}, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := bounded.Respond(ctx, src, call, bounded.Page{Cursor: forge(t, real, 3, keys)}, opts)
		if err != nil || got.Page != want.Page {
			t.Fatalf("a cursor forged with the real keys: %v, page %+v, want %+v (has the cursor format changed?)", err, got.Page, want.Page)
		}
		for _, f := range forgedKeys {
			if f.name == "id/other type" {
				continue // no cursor holds an int32
			}
			k := slices.Clone(keys)
			k[f.i] = f.v
			log.take()
			_, err = bounded.Respond(ctx, src, call, bounded.Page{Cursor: forge(t, real, 3, k)}, opts)
			if !errors.Is(err, bounded.ErrInvalidCursor) || !strings.Contains(err.Error(), f.msg) {
				t.Errorf("%s: error %v, want ErrInvalidCursor saying %q", f.name, err, f.msg)
			}
			if q := log.take(); len(q) > 0 {
				t.Errorf("%s: ran %q", f.name, q)
			}
		}
	})
}

// forge returns an unsigned cursor with the version and scope of real
// (its first 10 bytes), offset and keys, and the checksum anyone can
// compute (driver.Codec documents the format).
func forge(t *testing.T, real string, offset int, keys []any) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(real)
	if err != nil || len(b) < 10 {
		t.Fatalf("cursor %q: %v", real, err)
	}
	p := append([]byte(nil), b[:10]...)
	p = binary.AppendUvarint(p, uint64(offset))
	p = binary.AppendUvarint(p, uint64(len(keys)))
	for _, k := range keys {
		switch v := k.(type) {
		case nil:
			p = append(p, 0)
		case bool:
			p = append(p, map[bool]byte{false: 1, true: 2}[v])
		case int64:
			p = binary.AppendVarint(append(p, 3), v)
		case float64:
			p = binary.BigEndian.AppendUint64(append(p, 4), math.Float64bits(v))
		case string:
			p = append(binary.AppendUvarint(append(p, 5), uint64(len(v))), v...)
		default:
			t.Fatalf("no cursor holds a %T", k)
		}
	}
	sum := sha256.Sum256(p)
	return base64.RawURLEncoding.EncodeToString(append(p, sum[:8]...))
}

// TestCursorBoundToQuery checks that a cursor holds only for the query and
// order that issued it: another shelf's query, or the same query in
// another order, refuses it as foreign, though the tool and arguments are
// the same; the same query built again accepts it.
func TestCursorBoundToQuery(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		loadBooks(t, db, 20)
		call := bounded.Call{Tool: "list_books"}
		opts := bounded.Options[book]{Limits: bounded.Limits{Default: 3, Max: 10}}
		first, err := bounded.Respond(ctx, keyed.source(t, db, "a"), call, bounded.Page{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		cur := first.Page.NextCursor
		if _, err := bounded.Respond(ctx, keyed.source(t, db, "a"), call, bounded.Page{Cursor: cur}, opts); err != nil {
			t.Errorf("the same query built again: %v", err)
		}
		for name, src := range map[string]*bunpage.Source[book]{
			"another shelf": keyed.source(t, db, "b"),
			"another order": ord("title desc", "year", "rating desc", "added", "lent", "id unique").source(t, db, "a"),
		} {
			_, err := bounded.Respond(ctx, src, call, bounded.Page{Cursor: cur}, opts)
			if !errors.Is(err, driver.ErrCursorForeign) {
				t.Errorf("%s: error %v, want ErrCursorForeign", name, err)
			}
		}
	})
}
