package bunpage_test

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/bunpage"
	"github.com/boundedkit/bounded/driver"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/uptrace/bun"
)

// score is a row with a float32 key.
type score struct {
	bun.BaseModel `bun:"table:scores"`

	ID    int64   `bun:"id,pk" json:"id"`
	Score float32 `bun:"score,notnull" json:"-"`
}

// scores32 are float32 values: thirds and tenths, whose shortest decimal
// is not their value as a float64, ties, the extremes, and 2^24+1, which
// rounds.
var scores32 = []float32{1.0 / 3, 1.0 / 3, 0.1, 2.0 / 3, -1.0 / 3, 1e-3, 0, 0.5, 0.5,
	math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 1 << 24, 1<<24 + 1}

// TestFloat32Keys walks float32 keys over double columns (and real ones
// on Postgres), written by bun, as the float32's shortest decimal, and
// with the float32's exact value as a float64: every walk, every way and
// page size, reads every row once in order, ascending and descending.
func TestFloat32Keys(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		types := []string{"REAL"} // a double: DOUBLE PRECISION on Postgres, DOUBLE on MariaDB
		if isPG(db) {
			types = append(types, "real")
		}
		rows := make([]score, len(scores32))
		for i, v := range scores32 {
			rows[i] = score{ID: int64(i*5%len(scores32) + 1), Score: v}
		}
		for _, typ := range types {
			for _, writer := range []string{"bun", "decimal", "exact"} {
				exec(t, db, "DROP TABLE IF EXISTS scores", strings.Replace(ddl(db, "CREATE TABLE scores (id INTEGER PRIMARY KEY, score TYPE NOT NULL)"), "TYPE", typ, 1))
				if writer == "bun" {
					if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
						t.Fatal(err)
					}
				}
				for _, r := range rows {
					switch writer {
					case "decimal": // as a SQL client, a JSON import or bun on SQLite and MariaDB write it
						exec(t, db, fmt.Sprintf("INSERT INTO scores (id, score) VALUES (%d, %s)", r.ID, strconv.FormatFloat(float64(r.Score), 'e', -1, 32)))
					case "exact": // as database/sql writes a float32 argument
						exec(t, db, fmt.Sprintf("INSERT INTO scores (id, score) VALUES (%d, %s)", r.ID, strconv.FormatFloat(float64(r.Score), 'e', -1, 64)))
					}
				}
				for _, desc := range []bool{false, true} {
					want := slices.Clone(rows)
					slices.SortFunc(want, func(a, b score) int {
						if desc {
							return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(b.ID, a.ID))
						}
						return cmp.Or(cmp.Compare(a.Score, b.Score), cmp.Compare(a.ID, b.ID))
					})
					v := bunpage.Col("score", func(s score) float32 { return s.Score })
					id := bunpage.Col("id", func(s score) int64 { return s.ID }).Unique()
					if desc {
						v, id = v.Desc(), id.Desc()
					}
					src, err := bunpage.New(db, db.NewSelect().Model((*score)(nil)), v, id)
					if err != nil {
						t.Fatal(err)
					}
					for _, src := range []*bunpage.Source[score]{src, bunpage.Portable(src)} {
						for size := 1; size <= 3; size++ {
							for _, how := range walkHows {
								got, err := walkAll(ctx, src, size, how)
								if diff := gocmp.Diff(scoreIDs(want), scoreIDs(got)); err != nil || diff != "" {
									t.Errorf("%s written by %s, desc %v, size %d, %s: error %v, ids (-want +got):\n%s", typ, writer, desc, size, how, err, diff)
								}
							}
						}
					}
				}
			}
		}
	})
}

func scoreIDs(s []score) []int64 { return idsOf(s, func(s score) int64 { return s.ID }) }

// measure is a row with a float64 key.
type measure struct {
	bun.BaseModel `bun:"table:measures"`

	ID    int64   `bun:"id,pk" json:"id"`
	Value float64 `bun:"value,notnull" json:"-"`
}

// extremes are doubles of every magnitude a double column holds, written
// by anything but bun: MariaDB reads bun's literal of one over about
// 1e65, or under about 1e-30, as a DECIMAL, clamped.
var extremes = []float64{1e300, -1e300, math.MaxFloat64, -math.MaxFloat64, 1e-300, -1e-300,
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 2.2250738585072014e-308, 1e81, 1e-80,
	0, 1.5, 1.5, 1.0 / 3, 123456789.123456789}

// TestExtremeDoubles walks doubles of every magnitude, written as a
// double literal, every way and page size, and reads pages after cursors
// at each value, forged: each page holds the rows after the cursor's
// keys, on every engine.
func TestExtremeDoubles(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		exec(t, db, ddl(db, "CREATE TABLE measures (id INTEGER PRIMARY KEY, value REAL NOT NULL)"))
		rows := make([]measure, len(extremes))
		for i, v := range extremes {
			rows[i] = measure{ID: int64(i + 1), Value: v}
			exec(t, db, fmt.Sprintf("INSERT INTO measures (id, value) VALUES (%d, %s)", i+1, strconv.FormatFloat(v, 'e', -1, 64)))
		}
		want := slices.Clone(rows)
		slices.SortFunc(want, func(a, b measure) int { return cmp.Or(cmp.Compare(a.Value, b.Value), cmp.Compare(a.ID, b.ID)) })
		src, err := bunpage.New(db, db.NewSelect().Model((*measure)(nil)),
			bunpage.Col("value", func(m measure) float64 { return m.Value }),
			bunpage.Col("id", func(m measure) int64 { return m.ID }).Unique())
		if err != nil {
			t.Fatal(err)
		}
		ids := func(ms []measure) []int64 { return idsOf(ms, func(m measure) int64 { return m.ID }) }
		for size := 1; size <= 3; size++ {
			for _, how := range walkHows {
				got, err := walkAll(ctx, src, size, how)
				if diff := gocmp.Diff(ids(want), ids(got)); err != nil || diff != "" {
					t.Errorf("size %d, %s: error %v, ids (-want +got):\n%s", size, how, err, diff)
				}
			}
		}
		for i, m := range want {
			for _, back := range []bool{false, true} {
				r := driver.Request{Limit: len(want), Count: bounded.CountNone, At: &driver.Cursor{Backward: back, Keys: []any{m.Value, m.ID}}}
				rows, err := src.Fetch(ctx, r)
				wantPage := want[i+1:]
				if back {
					wantPage = want[:i]
				}
				if diff := gocmp.Diff(ids(wantPage), ids(rows.Items)); err != nil || diff != "" {
					t.Errorf("after %v (backward %v): error %v, ids (-want +got):\n%s", m.Value, back, err, diff)
				}
			}
		}
	})
}

// TestBunFloatWrites pins what bun writes for doubles, which bunpage's
// doc and tests rely on: on MariaDB, bun's literal of 1e300 is stored as
// 1e65 and one of 5e-324 or 1e-300 as 0, while the model keeps the value
// written; on SQLite, ±Inf and NaN are stored as TEXT, which sorts after
// every number ('-Infinity' < 'Infinity' < 'NaN'); on Postgres, they are
// doubles, NaN after +Inf.
func TestBunFloatWrites(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		exec(t, db, ddl(db, "CREATE TABLE measures (id INTEGER PRIMARY KEY, value REAL NOT NULL)"))
		values := []float64{1e300, math.SmallestNonzeroFloat64, 1e-300, 2.5}
		if !isMySQL(db) {
			values = append(values, math.Inf(-1), math.Inf(1), math.NaN())
		}
		rows := make([]measure, len(values))
		for i, v := range values {
			rows[i] = measure{ID: int64(i + 1), Value: v}
		}
		if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		for i, r := range rows {
			if v := values[i]; r.Value != v && !math.IsNaN(v) {
				t.Errorf("the model holds %v after the insert of %v", r.Value, v)
			}
		}
		var read []measure
		if err := db.NewSelect().Model(&read).OrderExpr("value, id").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(read))
		for i, m := range read {
			got[i] = fmt.Sprint(m.Value)
		}
		want := map[string][]string{
			"sqlite":   {"5e-324", "1e-300", "2.5", "1e+300", "-Inf", "+Inf", "NaN"},
			"postgres": {"-Inf", "5e-324", "1e-300", "2.5", "1e+300", "+Inf", "NaN"},
			"mysql":    {"0", "0", "2.5", "1e+65"},
		}[engineOf(db)]
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Errorf("values read in the database's order (-want +got):\n%s", diff)
		}
		if engineOf(db) == "sqlite" {
			var types []string
			if err := db.NewRaw("SELECT typeof(value) FROM measures ORDER BY id").Scan(ctx, &types); err != nil {
				t.Fatal(err)
			}
			if diff := gocmp.Diff([]string{"real", "real", "real", "real", "text", "text", "text"}, types); diff != "" {
				t.Errorf("SQLite's types (-want +got):\n%s", diff)
			}
		}
	})
}

// engineOf returns the name of db's engine in engines.
func engineOf(db bun.IDB) string {
	switch {
	case isPG(db):
		return "postgres"
	case isMySQL(db):
		return "mysql"
	}
	return "sqlite"
}

// odd is a row with keys no cursor can hold on some engines.
type odd struct {
	bun.BaseModel `bun:"table:odds"`

	ID    int64   `bun:"id,pk" json:"id"`
	Value float64 `bun:"value,notnull" json:"-"`
	Name  string  `bun:"name,notnull" json:"-"`
}

// TestUnusableKeys reads rows whose keys no cursor can hold: NaN and
// ±Inf (Postgres and SQLite: real infinities, and bun's NaN as TEXT), a
// string with NUL or not UTF-8 (SQLite TEXT, MariaDB VARBINARY). Keys is
// nil for them and only them; a walk by cursor through bounded.Respond,
// which continues around them, reads every row exactly once.
func TestUnusableKeys(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		name := "name TEXT NOT NULL"
		if isMySQL(db) {
			name = "name VARBINARY(64) NOT NULL"
		}
		exec(t, db, ddl(db, "CREATE TABLE odds (id INTEGER PRIMARY KEY, value REAL NOT NULL, "+name+")"))
		insert := func(id int64, value, name string) {
			exec(t, db, fmt.Sprintf("INSERT INTO odds (id, value, name) VALUES (%d, %s, %s)", id, value, name))
		}
		text := func(s string) string { return "'" + s + "'" }
		for i := range 12 {
			insert(int64(i+1), strconv.Itoa(i%4), text(fmt.Sprint("n", i%3)))
		}
		switch engineOf(db) {
		case "postgres":
			insert(20, "'NaN'", text("a"))
			insert(21, "'Infinity'", text("a"))
			insert(22, "'-Infinity'", text("b"))
			insert(23, "'NaN'", text("n1"))
		case "sqlite":
			insert(20, "9e999", text("a"))
			insert(21, "-9e999", text("a"))
			insert(22, "1", "CAST(X'6E3100' AS TEXT)") // "n1\x00"
			insert(23, "2", "CAST(X'6E31FF' AS TEXT)") // "n1\xff"
			m := odd{ID: 24, Value: math.NaN(), Name: "z"}
			if _, err := db.NewInsert().Model(&m).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		case "mysql":
			insert(22, "1", "X'6E3100'")
			insert(23, "2", "X'6E31FF'")
			insert(24, "2", "X'00'")
		}
		tested := 0
		for _, o := range []struct {
			name  string
			order []bunpage.Column[odd]
			bad   func(odd) bool // no cursor holds its keys
		}{
			{"value", []bunpage.Column[odd]{bunpage.Col("value", func(o odd) float64 { return o.Value }), bunpage.Col("id", func(o odd) int64 { return o.ID }).Unique()},
				func(o odd) bool { return math.IsNaN(o.Value) || math.IsInf(o.Value, 0) }},
			{"name", []bunpage.Column[odd]{bunpage.Col("name", func(o odd) string { return o.Name }).Desc(), bunpage.Col("id", func(o odd) int64 { return o.ID }).Desc().Unique()},
				func(o odd) bool { return !utf8.ValidString(o.Name) || strings.Contains(o.Name, "\x00") }},
		} {
			src, err := bunpage.New(db, db.NewSelect().Model((*odd)(nil)), o.order...)
			if err != nil {
				t.Fatal(err)
			}
			all, err := src.Fetch(ctx, driver.Request{Limit: 100, Count: bounded.CountNone})
			if err != nil {
				t.Fatal(err)
			}
			var ids, nilKeys, wantNil []int64
			for _, it := range all.Items {
				ids = append(ids, it.ID)
				if all.Keys(it) == nil {
					nilKeys = append(nilKeys, it.ID)
				}
				if o.bad(it) {
					wantNil = append(wantNil, it.ID)
				}
			}
			if len(wantNil) == 0 {
				continue // the engine stores no such key of this column
			}
			tested++
			if diff := gocmp.Diff(wantNil, nilKeys); diff != "" {
				t.Errorf("%s: ids of the items without keys (-want +got):\n%s", o.name, diff)
			}
			for size := 1; size <= 3; size++ {
				got, err := respondWalk(ctx, bounded.Source[odd](src), size)
				if diff := gocmp.Diff(ids, idsOf(got, func(o odd) int64 { return o.ID })); err != nil || diff != "" {
					t.Errorf("%s, size %d, by Respond: error %v, ids (-want +got):\n%s", o.name, size, err, diff)
				}
			}
		}
		if tested == 0 {
			t.Error("no row has a key no cursor holds")
		}
	})
}
