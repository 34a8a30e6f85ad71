package keyset_test

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"

	"github.com/boundedkit/bounded/internal/deeptest"
	"github.com/boundedkit/bounded/internal/keyset"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// TestForms checks which form each order and style takes.
func TestForms(t *testing.T) {
	a, b, c, d := bun.Safe("a"), bun.Safe("b"), bun.Safe("c"), bun.Safe("d")
	cases := []struct {
		name string
		keys []keyset.Key
		at   []any
		back bool
		st   keyset.Style
		want string
	}{
		{"one way", []keyset.Key{{Expr: a}, {Expr: b}}, []any{int64(1), "x"}, false, keyset.Style{},
			"(a, b) > (1, 'x')"},
		{"one way backward", []keyset.Key{{Expr: a, Desc: true}, {Expr: b, Desc: true}}, []any{int64(1), "x"}, true, keyset.Style{},
			"(a, b) > (1, 'x')"},
		{"mixed, negated", []keyset.Key{{Expr: a, Desc: true, Num: true}, {Expr: b}}, []any{int64(5), "x"}, false, keyset.Style{Negate: true},
			"a <= 5 AND (-(a), b) > (-5, 'x')"},
		{"mixed, not negated", []keyset.Key{{Expr: a, Desc: true, Num: true}, {Expr: b}}, []any{int64(5), "x"}, false, keyset.Style{},
			"a <= 5 AND (a <> 5 OR b > 'x')"},
		{"mixed text keys", []keyset.Key{{Expr: a, Desc: true}, {Expr: b}}, []any{"m", "x"}, false, keyset.Style{Negate: true},
			"a <= 'm' AND (a <> 'm' OR b > 'x')"},
		{"no exact negation", []keyset.Key{{Expr: a, Desc: true, Num: true}, {Expr: b}}, []any{int64(-1 << 63), "x"}, false, keyset.Style{Negate: true},
			"a <= -9223372036854775808 AND (a <> -9223372036854775808 OR b > 'x')"},
		{"runs", []keyset.Key{{Expr: a}, {Expr: b}, {Expr: c, Desc: true}, {Expr: d, Desc: true}}, []any{int64(1), "x", int64(2), int64(3)}, false, keyset.Style{},
			"(a, b) >= (1, 'x') AND ((a, b) <> (1, 'x') OR (c, d) < (2, 3))"},
		{"three runs", []keyset.Key{{Expr: a}, {Expr: b, Desc: true}, {Expr: c}}, []any{int64(1), "x", int64(2)}, true, keyset.Style{},
			"a <= 1 AND (a <> 1 OR (b >= 'x' AND (b <> 'x' OR c < 2)))"},
		{"mixed, expanded", []keyset.Key{{Expr: a, Desc: true}, {Expr: b}}, []any{"m", "x"}, false, keyset.Style{Expand: true},
			"a <= 'm' AND ((a < 'm') OR (a = 'm' AND b > 'x'))"},
		{"expanded", []keyset.Key{{Expr: a}, {Expr: b}}, []any{int64(1), "x"}, false, keyset.Style{Expand: true},
			"a >= 1 AND ((a > 1) OR (a = 1 AND b > 'x'))"},
		{"nullable value", []keyset.Key{{Expr: a, Nullable: true}, {Expr: b}}, []any{int64(1), "x"}, false, keyset.Style{},
			"(a > 1 OR a IS NULL OR (a = 1 AND b > 'x'))"},
		{"nullable value, NULLs first", []keyset.Key{{Expr: a, Nullable: true, NullsFirst: true}, {Expr: b}}, []any{int64(1), "x"}, false, keyset.Style{},
			"(a, b) > (1, 'x')"},
		{"nullable value, NULLs first, mixed", []keyset.Key{{Expr: a, Nullable: true, NullsFirst: true}, {Expr: b, Desc: true}}, []any{int64(1), "x"}, false, keyset.Style{},
			"a >= 1 AND (a <> 1 OR b < 'x')"},
		{"nullable value, expanded", []keyset.Key{{Expr: a, Nullable: true}, {Expr: b}}, []any{int64(1), "x"}, false, keyset.Style{Expand: true},
			"(((a > 1 OR a IS NULL)) OR (a = 1 AND b > 'x'))"},
		{"nullable value, NULLs first, expanded", []keyset.Key{{Expr: a, Nullable: true, NullsFirst: true}, {Expr: b}}, []any{int64(1), "x"}, false, keyset.Style{Expand: true},
			"a >= 1 AND ((a > 1) OR (a = 1 AND b > 'x'))"},
		{"nullable NULL", []keyset.Key{{Expr: a, Nullable: true}, {Expr: b}}, []any{nil, "x"}, false, keyset.Style{},
			"a IS NULL AND b > 'x'"},
		{"nullable NULL, then runs", []keyset.Key{{Expr: a, Nullable: true}, {Expr: b}, {Expr: c, Desc: true}}, []any{nil, "x", int64(2)}, false, keyset.Style{},
			"a IS NULL AND (b >= 'x' AND (b <> 'x' OR c < 2))"},
		{"nullable NULL backward", []keyset.Key{{Expr: a, Nullable: true}, {Expr: b}}, []any{nil, "x"}, true, keyset.Style{},
			"(a IS NOT NULL OR b < 'x')"},
		{"nullable NULL backward, expanded", []keyset.Key{{Expr: a, Nullable: true}, {Expr: b}}, []any{nil, "x"}, true, keyset.Style{Expand: true},
			"((a IS NOT NULL) OR (a IS NULL AND b < 'x'))"},
		{"nullable NULL, null-safe", []keyset.Key{{Expr: a, Nullable: true}, {Expr: b}}, []any{nil, "x"}, false, keyset.Style{Expand: true, NullSafe: true},
			"((a <=> NULL AND b > 'x'))"},
		{"computed", []keyset.Key{{Expr: a, Computed: true}, {Expr: b}}, []any{"m", int64(1)}, false, keyset.Style{},
			"a >= 'm' AND (a <> 'm' OR b > 1)"},
		{"computed last", []keyset.Key{{Expr: a}, {Expr: b}, {Expr: c, Computed: true}}, []any{"m", "x", int64(1)}, false, keyset.Style{},
			"(a, b) >= ('m', 'x') AND ((a, b) <> ('m', 'x') OR c > 1)"},
		{"band", []keyset.Key{{Expr: a, Desc: true}, {Expr: b, Desc: true}}, []any{keyset.Band{Lo: 0.25, Hi: 0.5}, "x"}, false, keyset.Style{},
			"a <= 0.5 AND (a NOT BETWEEN 0.25 AND 0.5 OR b < 'x')"},
		{"band backward", []keyset.Key{{Expr: a, Desc: true}, {Expr: b, Desc: true}}, []any{keyset.Band{Lo: 0.25, Hi: 0.5}, "x"}, true, keyset.Style{},
			"a >= 0.25 AND (a NOT BETWEEN 0.25 AND 0.5 OR b > 'x')"},
		{"band last", []keyset.Key{{Expr: a}, {Expr: b}}, []any{"x", keyset.Band{Lo: 0.25, Hi: 0.5}}, false, keyset.Style{},
			"a >= 'x' AND (a <> 'x' OR b > 0.5)"},
		{"band, expanded", []keyset.Key{{Expr: a}, {Expr: b}}, []any{keyset.Band{Lo: 0.25, Hi: 0.5}, "x"}, false, keyset.Style{Expand: true},
			"a >= 0.25 AND ((a > 0.5) OR (a BETWEEN 0.25 AND 0.5 AND b > 'x'))"},
	}
	gen := bun.NewDB(nil, sqlitedialect.New()).QueryGen()
	for _, c := range cases {
		pred, args, err := keyset.After(c.keys, c.at, c.back, c.st)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := gen.FormatQuery(pred, args...); got != c.want {
			t.Errorf("%s:\ngot  %s\nwant %s", c.name, got, c.want)
		}
	}
	if _, _, err := keyset.After([]keyset.Key{{Expr: a}}, []any{nil}, false, keyset.Style{}); err == nil {
		t.Error("NULL for a key never NULL: no error")
	}
	if _, _, err := keyset.After([]keyset.Key{{Expr: a}}, nil, false, keyset.Style{}); err == nil {
		t.Error("no values: no error")
	}
}

// row is a row of the table the predicates are evaluated on.
type row struct {
	N  *int64
	S  *string
	ID int64
}

// TestAfterSelectsTheRest evaluates every predicate form on SQLite, for
// every order of two nullable keys and the id, each in either direction,
// and every row as the cursor (its first value also as a band of one
// value), forward and backward: the predicate and the ORDER BY select
// exactly the rows that follow the cursor's in the order computed in Go.
// The default run tries a quarter of the orders with a descending id or
// a band, the deep run all.
func TestAfterSelectsTheRest(t *testing.T) {
	ctx := context.Background()
	sqldb, err := sql.Open(sqliteshim.ShimName, "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	sqldb.SetMaxOpenConns(1)
	db := bun.NewDB(sqldb, sqlitedialect.New())
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER, s TEXT)"); err != nil {
		t.Fatal(err)
	}
	var rows []row
	for i := range 24 {
		r := row{ID: int64(i)}
		if i%5 != 0 {
			n := int64(i%3 - 1)
			r.N = &n
		}
		if i%4 != 1 {
			s := string(rune('a' + i%2))
			r.S = &s
		}
		rows = append(rows, r)
		if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES (?, ?, ?)", r.ID, r.N, r.S); err != nil {
			t.Fatal(err)
		}
	}
	values := func(r row) []any {
		vals := []any{nil, nil, r.ID}
		if r.N != nil {
			vals[0] = *r.N
		}
		if r.S != nil {
			vals[1] = *r.S
		}
		return vals
	}
	for si, st := range []keyset.Style{{}, {Negate: true}, {Expand: true}, {CaseNulls: true}, {Expand: true, CaseNulls: true}, {Expand: true, CaseNulls: true, LowNulls: true}} {
		for mask := range 1 << 8 {
			if !deeptest.On() && mask >= 64 && (mask+si)%4 != 0 {
				continue
			}
			keys := []keyset.Key{
				{Expr: bun.Ident("n"), Desc: mask&1 != 0, Nullable: mask&4 != 0, NullsFirst: mask&4 != 0 && mask&8 != 0, Num: true},
				{Expr: bun.Ident("s"), Desc: mask&2 != 0, Nullable: mask&16 != 0, NullsFirst: mask&16 != 0 && mask&32 != 0, Computed: mask&128 != 0},
				{Expr: bun.Ident("id"), Desc: mask&64 != 0},
			}
			set := rows
			if !keys[0].Nullable || !keys[1].Nullable {
				set = nil // keys never NULL hold no NULLs
				for _, r := range rows {
					if (keys[0].Nullable || r.N != nil) && (keys[1].Nullable || r.S != nil) {
						set = append(set, r)
					}
				}
			}
			want := slices.Clone(set)
			slices.SortFunc(want, func(x, y row) int { return compare(keys, values(x), values(y)) })
			for back := range 2 {
				for i, cur := range want {
					name := fmt.Sprintf("style %+v, keys %d, back %d, at %d", st, mask, back, cur.ID)
					at := values(cur)
					if mask&128 != 0 {
						if at[0] == nil {
							continue
						}
						// A band of one value is that value; s is
						// compared as if an expression.
						at[0] = keyset.Band{Lo: at[0], Hi: at[0]}
					}
					pred, args, err := keyset.After(keys, at, back == 1, st)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					order, oargs := keyset.OrderBy(keys, back == 1, st)
					var ids []int64
					q := db.NewSelect().Table("t").Column("id").Where(pred, args...).OrderExpr(order, oargs...)
					if !keys[0].Nullable {
						q = q.Where("n IS NOT NULL")
					}
					if !keys[1].Nullable {
						q = q.Where("s IS NOT NULL")
					}
					if err := q.Scan(ctx, &ids); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					var exp []int64
					if back == 0 {
						for _, r := range want[i+1:] {
							exp = append(exp, r.ID)
						}
					} else {
						for j := i - 1; j >= 0; j-- {
							exp = append(exp, want[j].ID)
						}
					}
					if !slices.Equal(ids, exp) {
						t.Fatalf("%s: %s\ngot  %v\nwant %v", name, db.QueryGen().FormatQuery(pred, args...), ids, exp)
					}
				}
			}
		}
	}
}

// compare orders value lists as keys declares.
func compare(keys []keyset.Key, x, y []any) int {
	for i, k := range keys {
		a, b := x[i], y[i]
		var c int
		switch {
		case a == nil && b == nil:
			continue
		case a == nil || b == nil:
			c = 1 // NULL after values
			if b == nil {
				c = -1
			}
			if k.NullsFirst {
				c = -c
			}
			return c
		}
		switch a := a.(type) {
		case int64:
			c = cmp.Compare(a, b.(int64))
		case string:
			c = cmp.Compare(a, b.(string))
		}
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}
