package bunpage_test

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded/bunpage"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/uptrace/bun"
)

// stamp is a row whose creation time is declared unique, and is not.
type stamp struct {
	bun.BaseModel `bun:"table:stamps"`

	ID      int64     `bun:"id,pk" json:"id"`
	Created time.Time `bun:"created,notnull" json:"-"`
}

// TestUniqueTies walks five rows by a time declared Unique, two of which
// are equal, in both directions, every way and page size: each walk is an
// error wrapping ErrInvalidSource, caught on the page where the tie shows
// (inside it, or between its last row and the row read past it), never
// a walk that skips one of the two.
func TestUniqueTies(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		exec(t, db, ddl(db, "CREATE TABLE stamps (id INTEGER PRIMARY KEY, created TIMESTAMP NOT NULL)"))
		h := func(n int) time.Time { return baseTime.Add(time.Duration(n) * time.Hour) }
		rows := []stamp{{ID: 1, Created: h(0)}, {ID: 2, Created: h(1)}, {ID: 3, Created: h(1)}, {ID: 4, Created: h(3)}, {ID: 5, Created: h(4)}}
		if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		for _, desc := range []bool{false, true} {
			col := bunpage.Col("created", func(s stamp) time.Time { return s.Created }).Unique()
			if desc {
				col = col.Desc()
			}
			src, err := bunpage.New(db, db.NewSelect().Model((*stamp)(nil)), col)
			if err != nil {
				t.Fatal(err)
			}
			for size := 1; size <= 4; size++ {
				for _, how := range walkHows {
					got, err := walkAll(ctx, src, size, how)
					if !errors.Is(err, bunpage.ErrInvalidSource) {
						t.Errorf("desc %v, size %d, %s: read %v, error %v; want ErrInvalidSource", desc, size, how, stampIDs(got), err)
					}
				}
			}
		}
	})
}

func stampIDs(s []stamp) []int64 { return idsOf(s, func(s stamp) int64 { return s.ID }) }

// remark is a row with a column that may be NULL, read into a field that
// cannot hold NULL (bun scans NULL as "" and 0).
type remark struct {
	bun.BaseModel `bun:"table:remarks"`

	ID     int64  `bun:"id,pk" json:"id"`
	Remark string `bun:"remark" json:"-"`
	Rank   int64  `bun:"rank" json:"-"`
}

// TestNullUnderCol reads rows holding NULL in a column declared with Col
// (never NULL), in orders where the NULLs sort first or last: every walk,
// every way and page size, is an error wrapping ErrInvalidSource, never a
// walk that skips the NULL rows, on a page that reads one or, for a walk
// by cursor, at its end.
func TestNullUnderCol(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		exec(t, db, ddl(db, "CREATE TABLE remarks (id INTEGER PRIMARY KEY, remark TEXT, rank INTEGER)"),
			"INSERT INTO remarks (id, remark, rank) VALUES (1, 'b', 2), (2, NULL, NULL), (3, 'a', 1), (4, NULL, NULL), (5, 'c', 3)")
		id := bunpage.Col("id", func(r remark) int64 { return r.ID }).Unique()
		for _, c := range []struct {
			name string
			col  bunpage.Column[remark]
		}{
			{"string", bunpage.Col("remark", func(r remark) string { return r.Remark })},
			{"string desc", bunpage.Col("remark", func(r remark) string { return r.Remark }).Desc()},
			{"int", bunpage.Col("rank", func(r remark) int64 { return r.Rank })},
			{"int desc", bunpage.Col("rank", func(r remark) int64 { return r.Rank }).Desc()},
		} {
			src, err := bunpage.New(db, db.NewSelect().Model((*remark)(nil)), c.col, id)
			if err != nil {
				t.Fatal(err)
			}
			for size := 1; size <= 3; size++ {
				for _, how := range walkHows {
					got, err := walkAll(ctx, src, size, how)
					if !errors.Is(err, bunpage.ErrInvalidSource) || !strings.Contains(fmt.Sprint(err), "NULL") {
						t.Errorf("%s, size %d, %s: read %v, error %v; want ErrInvalidSource naming NULL", c.name, size, how, remarkIDs(got), err)
					}
				}
			}
		}
		// Without NULLs, the same order walks.
		exec(t, db, "UPDATE remarks SET remark = 'z', rank = 9 WHERE remark IS NULL")
		src, err := bunpage.New(db, db.NewSelect().Model((*remark)(nil)), bunpage.Col("remark", func(r remark) string { return r.Remark }), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, how := range walkHows {
			got, err := walkAll(ctx, src, 2, how)
			if diff := gocmp.Diff([]int64{3, 1, 5, 2, 4}, remarkIDs(got)); err != nil || diff != "" {
				t.Errorf("no NULLs, %s: error %v, ids (-want +got):\n%s", how, err, diff)
			}
		}
	})
}

func remarkIDs(r []remark) []int64 { return idsOf(r, func(r remark) int64 { return r.ID }) }

// nullables holds fields that may hold NULL, and one that may not.
type nullables struct {
	bun.BaseModel `bun:"table:remarks"`

	ID       int64          `bun:"id,pk"`
	Ptr      *string        `bun:"remark"`
	Null     sql.NullString `bun:"null_remark"`
	NullTime sql.Null[time.Time]
	Zero     int64   `bun:"zero,nullzero"`
	Declared *string `bun:"declared,notnull"`
	Plain    string  `bun:"plain"`
}

// TestColOverNullableField checks that New refuses Col (never NULL) over
// a field that may hold NULL, naming it, and accepts Nullable there, and
// Col over a field tagged notnull.
func TestColOverNullableField(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		q := db.NewSelect().Model((*nullables)(nil))
		id := bunpage.Col("id", func(n nullables) int64 { return n.ID }).Unique()
		str := func(p *string) string {
			if p == nil {
				return ""
			}
			return *p
		}
		for _, c := range []struct {
			name string
			col  bunpage.Column[nullables]
			msg  string // "" for a column New accepts
		}{
			{"pointer", bunpage.Col("remark", func(n nullables) string { return str(n.Ptr) }), "field Ptr (*string) may hold NULL"},
			{"sql.NullString", bunpage.Col("null_remark", func(n nullables) string { return n.Null.String }), "field Null (sql.NullString) may hold NULL"},
			{"sql.Null", bunpage.Col("null_time", func(n nullables) time.Time { return n.NullTime.V }), "field NullTime"},
			{"nullzero", bunpage.Col("zero", func(n nullables) int64 { return n.Zero }), "field Zero (int64) may hold NULL"},
			{"pointer, Nullable", bunpage.Nullable("remark", func(n nullables) *string { return n.Ptr }), ""},
			{"notnull", bunpage.Col("declared", func(n nullables) string { return str(n.Declared) }), ""},
			{"plain", bunpage.Col("plain", func(n nullables) string { return n.Plain }), ""},
		} {
			_, err := bunpage.New(db, q, c.col, id)
			switch {
			case c.msg == "" && err != nil:
				t.Errorf("%s: %v", c.name, err)
			case c.msg == "":
			case !errors.Is(err, bunpage.ErrInvalidSource) || !strings.Contains(fmt.Sprint(err), c.msg):
				t.Errorf("%s: error %v, want ErrInvalidSource saying %q", c.name, err, c.msg)
			}
		}
	})
}
