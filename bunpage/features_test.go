package bunpage_test

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/bunpage"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/mcptools"
	"github.com/boundedkit/bounded/mcptools/mcptoolstest"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/uptrace/bun"
)

// purchase is a model whose Go names differ from its columns, with
// fields that may be NULL and a unique code.
type purchase struct {
	bun.BaseModel `bun:"table:purchases"`

	ID        int64           `bun:"id,pk" json:"id"`
	OrderedAt time.Time       `bun:"created_at,notnull" json:"-"`
	Amount    *float64        `bun:"amount" json:"-"`
	Note      sql.NullString  `bun:"note" json:"-"`
	Code      string          `bun:"code,unique,notnull" json:"-"`
	Score     sql.Null[int64] `bun:"score" json:"-"`
	Raw       []byte          `bun:"raw" json:"-"`
}

// purchases are ten purchases with ties on the time, NULL amounts, notes
// and scores.
func purchases() []purchase {
	var ps []purchase
	for i := range 10 {
		p := purchase{ID: int64(i*3%10 + 1), OrderedAt: baseTime.Add(time.Duration(i%4) * time.Hour), Code: fmt.Sprintf("c%02d", 9-i)}
		if i%3 != 0 {
			a := float64(i%5) * 1.5
			p.Amount = &a
		}
		if i%4 != 1 {
			p.Note = sql.NullString{String: []string{"b", "a", "c"}[i%3], Valid: true}
		}
		if i%2 == 0 {
			p.Score = sql.Null[int64]{V: int64(i % 3), Valid: true}
		}
		ps = append(ps, p)
	}
	return ps
}

func loadPurchases(t *testing.T, db *bun.DB) []purchase {
	t.Helper()
	exec(t, db, ddl(db, "CREATE TABLE purchases (id INTEGER PRIMARY KEY, created_at TIMESTAMP NOT NULL, amount REAL, note TEXT, code TEXT NOT NULL UNIQUE, score INTEGER, raw TEXT)"))
	ps := purchases()
	if _, err := db.NewInsert().Model(&ps).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	return ps
}

func purchaseIDs(ps []purchase) []int64 { return idsOf(ps, func(p purchase) int64 { return p.ID }) }

// nullsLast orders two optional values: NULLs last, values by c.
func nullsLast[V any](a, b V, aNull, bNull bool, c func(V, V) int) int {
	switch {
	case aNull && bNull:
		return 0
	case aNull:
		return 1
	case bNull:
		return -1
	}
	return c(a, b)
}

// TestField pages by keys named by Go field and by column, resolved
// through bun's model: their types, NULLs (pointers, sql.Null types)
// and uniqueness (the primary key, a field tagged unique) come from it,
// and every walk reads the rows in the order computed in Go.
func TestField(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		ps := loadPurchases(t, db)
		amount := func(a, b purchase) int {
			return nullsLast(a.Amount, b.Amount, a.Amount == nil, b.Amount == nil, func(x, y *float64) int { return cmp.Compare(*x, *y) })
		}
		for _, c := range []struct {
			name  string
			order []bunpage.Column[purchase]
			cmp   func(a, b purchase) int
		}{
			{"Go name, desc", []bunpage.Column[purchase]{bunpage.Field[purchase]("OrderedAt").Desc(), bunpage.Field[purchase]("ID").Desc()},
				func(a, b purchase) int { return cmp.Or(b.OrderedAt.Compare(a.OrderedAt), cmp.Compare(b.ID, a.ID)) }},
			{"column", []bunpage.Column[purchase]{bunpage.Field[purchase]("created_at"), bunpage.Field[purchase]("id")},
				func(a, b purchase) int { return cmp.Or(a.OrderedAt.Compare(b.OrderedAt), cmp.Compare(a.ID, b.ID)) }},
			{"pointer", []bunpage.Column[purchase]{bunpage.Field[purchase]("Amount"), bunpage.Field[purchase]("ID")},
				func(a, b purchase) int { return cmp.Or(amount(a, b), cmp.Compare(a.ID, b.ID)) }},
			{"sql.NullString desc", []bunpage.Column[purchase]{bunpage.Field[purchase]("note").Desc(), bunpage.Field[purchase]("code")},
				func(a, b purchase) int {
					return cmp.Or(nullsLast(b.Note.String, a.Note.String, !a.Note.Valid, !b.Note.Valid, strings.Compare), strings.Compare(a.Code, b.Code))
				}},
			{"sql.Null[int64], nulls first", []bunpage.Column[purchase]{bunpage.Field[purchase]("Score").NullsFirst(), bunpage.Field[purchase]("code").Desc()},
				func(a, b purchase) int {
					return cmp.Or(-nullsLast(b.Score.V, a.Score.V, !a.Score.Valid, !b.Score.Valid, cmp.Compare[int64]), strings.Compare(b.Code, a.Code))
				}},
			{"Col and Field", []bunpage.Column[purchase]{bunpage.Col("created_at", func(p purchase) time.Time { return p.OrderedAt }), bunpage.Field[purchase]("Code")},
				func(a, b purchase) int {
					return cmp.Or(a.OrderedAt.Compare(b.OrderedAt), strings.Compare(a.Code, b.Code))
				}},
		} {
			src, err := bunpage.New(db, db.NewSelect().Model((*purchase)(nil)), c.order...)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			want := slices.Clone(ps)
			slices.SortFunc(want, c.cmp)
			for _, size := range []int{1, 3} {
				for _, how := range walkHows {
					got, err := walkAll(ctx, src, size, how)
					if diff := gocmp.Diff(purchaseIDs(want), purchaseIDs(got)); err != nil || diff != "" {
						t.Errorf("%s, size %d, %s: error %v, ids (-want +got):\n%s", c.name, size, how, err, diff)
					}
				}
			}
		}
		q := db.NewSelect().Model((*purchase)(nil))
		id := bunpage.Field[purchase]("id")
		for _, c := range []struct {
			name  string
			order []bunpage.Column[purchase]
			msg   string
		}{
			{"unknown", []bunpage.Column[purchase]{bunpage.Field[purchase]("OrderedOn"), id}, `column "OrderedOn": bunpage_test.purchase has no field for it`},
			{"Go name under Col", []bunpage.Column[purchase]{bunpage.Col("OrderedAt", func(p purchase) time.Time { return p.OrderedAt }), id}, `OrderedAt is the Go name of column "created_at"`},
			{"unknown column under Col", []bunpage.Column[purchase]{bunpage.Col("ordered_at", func(p purchase) time.Time { return p.OrderedAt }), id}, "has no field for it"},
			{"bytes", []bunpage.Column[purchase]{bunpage.Field[purchase]("Raw"), id}, "field Raw of bunpage_test.purchase is a []uint8"},
			{"not unique", []bunpage.Column[purchase]{bunpage.Field[purchase]("created_at")}, `the last column, "created_at", is not Unique`},
			{"nullable last", []bunpage.Column[purchase]{bunpage.Field[purchase]("amount").Unique()}, `"amount", may be NULL`},
		} {
			_, err := bunpage.New(db, q, c.order...)
			if !errors.Is(err, bunpage.ErrInvalidSource) || !strings.Contains(fmt.Sprint(err), c.msg) {
				t.Errorf("%s: error %v, want ErrInvalidSource saying %q", c.name, err, c.msg)
			}
		}
	})
}

// person has a name compared without case and a remark that may be
// NULL, each keyed by an expression selected into a scanonly field.
type person struct {
	bun.BaseModel `bun:"table:people"`

	ID        int64   `bun:"id,pk" json:"id"`
	Name      string  `bun:"name,notnull" json:"-"`
	Remark    *string `bun:"remark" json:"-"`
	NameKey   string  `bun:"name_key,scanonly,notnull" json:"-"`
	RemarkKey string  `bun:"remark_key,scanonly" json:"-"`
}

// TestExprKeys pages by SQL expressions (lower(name), and COALESCE of a
// column that may be NULL, which is then never NULL), each walk in the
// order computed in Go; an index on the expression serves the order on
// SQLite and Postgres. An expression over a field the query selects is
// refused.
func TestExprKeys(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		exec(t, db, ddl(db, "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, remark TEXT)"))
		names := []string{"bob", "Alice", "alice", "Bob", "carol", "ALICE", "dave", "Carol"}
		var people []person
		for i, n := range names {
			p := person{ID: int64(len(names) - i), Name: n}
			if i%3 != 0 {
				r := []string{"x", "y"}[i%2]
				p.Remark = &r
			}
			people = append(people, p)
		}
		if _, err := db.NewInsert().Model(&people).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		remark := func(p person) string {
			if p.Remark == nil {
				return ""
			}
			return *p.Remark
		}
		for _, c := range []struct {
			name  string
			order []bunpage.Column[person]
			cmp   func(a, b person) int
		}{
			{"lower", []bunpage.Column[person]{bunpage.Field[person]("NameKey").Expr("lower(name)"), bunpage.Field[person]("id")},
				func(a, b person) int {
					return cmp.Or(strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), cmp.Compare(a.ID, b.ID))
				}},
			{"coalesce desc", []bunpage.Column[person]{
				bunpage.Col("remark_key", func(p person) string { return p.RemarkKey }).Expr("COALESCE(?, '')", bun.Ident("remark")).Desc(),
				bunpage.Field[person]("id")},
				func(a, b person) int { return cmp.Or(strings.Compare(remark(b), remark(a)), cmp.Compare(a.ID, b.ID)) }},
		} {
			src, err := bunpage.New(db, db.NewSelect().Model((*person)(nil)), c.order...)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			want := slices.Clone(people)
			slices.SortFunc(want, c.cmp)
			for _, size := range []int{1, 3} {
				for _, how := range walkHows {
					got, err := walkAll(ctx, src, size, how)
					if diff := gocmp.Diff(idsOf(want, func(p person) int64 { return p.ID }), idsOf(got, func(p person) int64 { return p.ID })); err != nil || diff != "" {
						t.Errorf("%s, size %d, %s: error %v, ids (-want +got):\n%s", c.name, size, how, err, diff)
					}
				}
			}
			if c.name == "lower" && !isMySQL(db) {
				exec(t, db, "CREATE INDEX people_lower ON people (lower(name), id)")
				if err := src.CheckIndex(ctx); err != nil {
					t.Errorf("%s: with an index on the expression: %v", c.name, err)
				}
			}
		}
		_, err := bunpage.New(db, db.NewSelect().Model((*person)(nil)), bunpage.Field[person]("name").Expr("lower(name)"), bunpage.Field[person]("id"))
		if !errors.Is(err, bunpage.ErrInvalidSource) || !strings.Contains(fmt.Sprint(err), "must be tagged scanonly") {
			t.Errorf("an expression into a field the query selects: %v, want ErrInvalidSource", err)
		}
	})
}

// TestBy pages books in one call of By, against the same order written
// column by column: the same rows every way, the primary key appended as
// the tie-breaker in the last key's direction (alone without keys), and
// counts.
func TestBy(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		books := loadBooks(t, db, 40)
		q := db.NewSelect().Model((*book)(nil)).Where("shelf = ?", "a")
		for _, c := range []struct {
			keys []string
			ref  order
		}{
			{[]string{"-year", "title"}, ord("year desc", "title", "id unique")},
			{[]string{"-Added"}, ord("added desc", "id desc unique")},
			{[]string{"rating", "-id"}, ord("rating", "id desc unique")},
			{nil, ord("id unique")},
		} {
			src, err := bunpage.By[book](db, q, c.keys...)
			if err != nil {
				t.Fatal(err)
			}
			want := ids(c.ref.sorted(books, "a"))
			for _, size := range []int{1, 4} {
				for _, how := range walkHows {
					got, err := walkAll(ctx, src, size, how)
					if diff := gocmp.Diff(want, ids(got)); err != nil || diff != "" {
						t.Errorf("%q, size %d, %s: error %v, ids (-want +got):\n%s", c.keys, size, how, err, diff)
					}
				}
			}
			rows, err := src.Fetch(ctx, driver.Request{Limit: 5})
			if err != nil || rows.Count != len(want) {
				t.Errorf("%q: count %d, %v; want %d", c.keys, rows.Count, err, len(want))
			}
		}
		// Pointers to the model page alike.
		ptrs, err := bunpage.By[*book](db, q, "-year", "title")
		if err != nil {
			t.Fatal(err)
		}
		got, err := walkAll(ctx, ptrs, 4, "cursor")
		if diff := gocmp.Diff(ids(ord("year desc", "title", "id unique").sorted(books, "a")), idsOf(got, func(b *book) int64 { return b.ID })); err != nil || diff != "" {
			t.Errorf("pointers: error %v, ids (-want +got):\n%s", err, diff)
		}
		for _, keys := range [][]string{{"shelf_no"}, {"-"}, {"title", ""}} {
			if _, err := bunpage.By[book](db, q, keys...); !errors.Is(err, bunpage.ErrInvalidSource) {
				t.Errorf("By %q: error %v, want ErrInvalidSource", keys, err)
			}
		}
	})
}

// bookOrders are the orders a list_books tool offers.
var bookOrders = bunpage.Orders[book]{
	{Name: "title", Columns: bunpage.Fields[book]("title")},
	{Name: "newest", Columns: bunpage.Fields[book]("-added")},
	{Name: "rating", Columns: []bunpage.Column[book]{bunpage.Col("rating", func(b book) float64 { return b.Rating }).Desc(), bunpage.Field[book]("year")}},
}

// TestOrders chooses an order per call by name: each pages as the same
// order written out, "" is the first, an unknown name is
// ErrUnknownOrder, and a cursor of one order, or of one reversed, is
// ErrCursorForeign to another, though the call is the same.
func TestOrders(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		books := loadBooks(t, db, 30)
		q := db.NewSelect().Model((*book)(nil)).Where("shelf = ?", "a")
		if diff := gocmp.Diff([]string{"title", "newest", "rating"}, bookOrders.Names()); diff != "" {
			t.Errorf("names (-want +got):\n%s", diff)
		}
		refs := map[string]order{
			"":               ord("title", "id unique"),
			"title":          ord("title", "id unique"),
			"newest":         ord("added desc", "id desc unique"),
			"rating":         ord("rating desc", "year", "id unique"),
			"title/reversed": ord("title desc", "id desc unique"),
		}
		call := bounded.Call{Tool: "list_books", Paging: bounded.ByCursor}
		opts := bounded.Options[book]{Limits: bounded.Limits{Default: 4, Max: 10}}
		cursors := map[string]string{}
		sources := map[string]*bunpage.Source[book]{}
		for name, ref := range refs {
			src, err := bookOrders.New(db, q, strings.TrimSuffix(name, "/reversed"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(name, "/reversed") {
				src = src.Reverse()
			}
			sources[name] = src
			for _, how := range walkHows {
				got, err := walkAll(ctx, src, 3, how)
				if diff := gocmp.Diff(ids(ref.sorted(books, "a")), ids(got)); err != nil || diff != "" {
					t.Errorf("%q, %s: error %v, ids (-want +got):\n%s", name, how, err, diff)
				}
			}
			out, err := bounded.Respond(ctx, src, call, bounded.Page{}, opts)
			if err != nil {
				t.Fatal(err)
			}
			cursors[name] = out.Page.NextCursor
		}
		for from, cur := range cursors {
			for to, src := range sources {
				// "" names the first order, "title".
				same := strings.TrimSuffix(from, "title") == strings.TrimSuffix(to, "title") && !strings.Contains(from+to, "reversed") || from == to
				_, err := bounded.Respond(ctx, src, call, bounded.Page{Cursor: cur}, opts)
				switch {
				case same && err != nil:
					t.Errorf("a cursor of %q in %q: %v", from, to, err)
				case !same && !errors.Is(err, driver.ErrCursorForeign):
					t.Errorf("a cursor of %q in %q: error %v, want ErrCursorForeign", from, to, err)
				}
			}
		}
		if _, err := bookOrders.New(db, q, "oldest"); !errors.Is(err, bunpage.ErrUnknownOrder) || !strings.Contains(fmt.Sprint(err), `"title" "newest" "rating"`) {
			t.Errorf("an unknown order: %v, want ErrUnknownOrder naming the orders", err)
		}
		for _, bad := range []bunpage.Orders[book]{nil, {{Name: "", Columns: bunpage.Fields[book]("title")}}, {bookOrders[0], bookOrders[0]}} {
			if _, err := bad.New(db, q, ""); !errors.Is(err, bunpage.ErrInvalidSource) {
				t.Errorf("orders %v: error %v, want ErrInvalidSource", bad.Names(), err)
			}
		}
	})
}

// TestCheckIndex checks that CheckIndex passes an order an index serves,
// for all events and for one kind's, and names the index an order needs
// when none serves it.
func TestCheckIndex(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		if err := loadEvents(ctx, db, 5_000); err != nil {
			t.Fatal(err)
		}
		all := db.NewSelect().Model((*event)(nil))
		kind := db.NewSelect().Model((*event)(nil)).Where("kind = ?", eventKinds[1])
		for _, c := range []struct {
			name string
			q    *bun.SelectQuery
			keys []string
			msg  string // "" when an index serves the order
		}{
			{"newest", all, []string{"-created"}, ""},
			{"oldest", all, []string{"created"}, ""},
			{"kind, newest", kind, []string{"-created"}, ""},
			{"title", all, []string{"title"}, "create an index on events (title, id)"},
			{"kind, newest, title", kind, []string{"-created", "title"}, "create an index on events (created DESC, title, id)"},
		} {
			src, err := bunpage.By[event](db, c.q, c.keys...)
			if err != nil {
				t.Fatal(err)
			}
			err = src.CheckIndex(ctx)
			switch {
			case c.msg == "" && err != nil:
				t.Errorf("%s: %v", c.name, err)
			case c.msg == "":
			case !errors.Is(err, bunpage.ErrNoIndex) || !strings.Contains(fmt.Sprint(err), c.msg):
				t.Errorf("%s: error %v, want ErrNoIndex saying %q", c.name, err, c.msg)
			}
		}
	})
}

// listBooks is the arguments of a list_books tool: the order's name.
type listBooks struct {
	Sort string `json:"sort,omitempty" jsonschema:"the order of the books: title (the default), newest, or rating"`
}

// TestOrdersTool serves a tool whose sort argument chooses among
// bookOrders, through the MCP SDK's client: the input schema lists the
// orders' names as an enum, a walk in each order reads every book of the
// shelf in that order, an unknown order is refused by the schema, and a
// cursor of one order is refused in another.
func TestOrdersTool(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		books := loadBooks(t, db, 30)
		q := db.NewSelect().Model((*book)(nil)).Where("shelf = ?", "a")
		schema, err := jsonschema.For[listBooks](nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range bookOrders.Names() {
			schema.Properties["sort"].Enum = append(schema.Properties["sort"].Enum, name)
		}
		server := mcp.NewServer(&mcp.Implementation{Name: "books", Version: "0.0.1"}, nil)
		mcptools.AddTool(server, &mcp.Tool{Name: "list_books", Description: "Lists the books of a shelf.", InputSchema: schema},
			mcptools.Options[book]{Limits: bounded.Limits{Default: 4, Max: 10}, Paging: bounded.ByCursor},
			func(ctx context.Context, _ *mcp.CallToolRequest, in listBooks) (bounded.Source[book], error) {
				return bookOrders.New(db, q, in.Sort)
			})
		c := mcptoolstest.Serve(t, server)
		in, err := json.Marshal(c.Tools["list_books"].InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(in), `"enum":["title","newest","rating"]`) {
			t.Errorf("the input schema does not list the orders: %s", in)
		}
		for name, ref := range map[string]order{
			"title":  ord("title", "id unique"),
			"newest": ord("added desc", "id desc unique"),
			"rating": ord("rating desc", "year", "id unique"),
		} {
			results, _ := c.Walk("list_books", `{"sort":"`+name+`","limit":3}`, 0, nil)
			var got []int64
			for _, r := range results {
				var b book
				if err := json.Unmarshal(r, &b); err != nil {
					t.Fatal(err)
				}
				got = append(got, b.ID)
			}
			if diff := gocmp.Diff(ids(ref.sorted(books, "a")), got); diff != "" {
				t.Errorf("%s: ids (-want +got):\n%s", name, diff)
			}
		}
		if msg := c.Error("list_books", `{"sort":"oldest"}`); !strings.Contains(msg, "not one of") {
			t.Errorf("an unknown order: %s", msg)
		}
		env, _ := c.Call("list_books", `{"sort":"title"}`)
		c.Error("list_books", `{"sort":"newest","cursor":"`+env.Pagination.NextCursor+`"}`)
	})
}
