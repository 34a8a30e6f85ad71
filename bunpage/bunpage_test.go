package bunpage_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/bunpage"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/internal/deeptest"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/uptrace/bun"
)

type genre string

// book is a user's model: nullable columns, ties on every column but the
// id, non-ASCII text, a time, a bool and a defined string type. Its
// fields of NOT NULL columns say so, which spares pages a look for NULLs.
type book struct {
	bun.BaseModel `bun:"table:books,alias:b"`

	ID       int64     `bun:"id,pk"`
	Shelf    string    `bun:"shelf,notnull"`
	Title    string    `bun:"title,notnull"`
	Genre    genre     `bun:"genre,notnull"`
	Year     *int64    `bun:"year"`
	Rating   float64   `bun:"rating,notnull"`
	Subtitle *string   `bun:"subtitle"`
	Added    time.Time `bun:"added,notnull"`
	Lent     bool      `bun:"lent,notnull"`
}

const booksDDL = `CREATE TABLE books (id INTEGER PRIMARY KEY, shelf TEXT NOT NULL, title TEXT NOT NULL, genre TEXT NOT NULL,
	year INTEGER, rating REAL NOT NULL, subtitle TEXT, added TIMESTAMP NOT NULL, lent BOOLEAN NOT NULL)`

var (
	titles    = []string{"Ærø", "Zoë", "東京物語", "ñandú", "apple", "Apple", "émile", "", "it's", "why?", "naïve café", "Ωmega"}
	genres    = []genre{"sf", "poésie", "史"}
	subtitles = []string{"première", "zweite", "третий", "?"}
	ratings   = []float64{-1.5, 0, 2.25, 3.5, 1e10}
	baseTime  = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
)

// makeBook returns the i'th book of the test data (i from 1): ids are not
// in insertion order, and every other column has ties.
func makeBook(i int) book {
	b := book{
		ID:     int64(i*37%1009 + 1),
		Shelf:  "a",
		Title:  titles[i*5%len(titles)],
		Genre:  genres[i%len(genres)],
		Rating: ratings[i%len(ratings)],
		Added:  baseTime.Add(time.Duration(i%6)*time.Hour + time.Duration(i%4)*time.Microsecond),
		Lent:   i%2 == 0,
	}
	if i%5 == 0 {
		b.Shelf = "b"
	}
	if i%4 != 0 {
		y := int64(1990 + i%3)
		b.Year = &y
	}
	if i%3 != 0 {
		s := subtitles[i%len(subtitles)]
		b.Subtitle = &s
	}
	return b
}

// loadBooks creates the books table on db with books 1 to n and returns
// them.
func loadBooks(t testing.TB, db bun.IDB, n int) []book {
	t.Helper()
	exec(t, db, ddl(db, booksDDL))
	books := make([]book, n)
	for i := range books {
		books[i] = makeBook(i + 1)
	}
	insertBooks(t, db, books...)
	return books
}

func insertBooks(t testing.TB, db bun.IDB, books ...book) {
	t.Helper()
	if _, err := db.NewInsert().Model(&books).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// field is a column of books: how to make its bunpage.Column and, for the
// reference order, its key computed independently.
type field struct {
	col func() bunpage.Column[book]
	key func(book) any
}

var fields = map[string]field{
	"id": {func() bunpage.Column[book] { return bunpage.Col("id", func(b book) int64 { return b.ID }) },
		func(b book) any { return b.ID }},
	"title": {func() bunpage.Column[book] { return bunpage.Col("title", func(b book) string { return b.Title }) },
		func(b book) any { return b.Title }},
	"genre": {func() bunpage.Column[book] { return bunpage.Col("genre", func(b book) genre { return b.Genre }) },
		func(b book) any { return string(b.Genre) }},
	"year": {func() bunpage.Column[book] { return bunpage.Nullable("year", func(b book) *int64 { return b.Year }) },
		func(b book) any {
			if b.Year == nil {
				return nil
			}
			return *b.Year
		}},
	"rating": {func() bunpage.Column[book] { return bunpage.Col("rating", func(b book) float64 { return b.Rating }) },
		func(b book) any { return b.Rating }},
	"subtitle": {func() bunpage.Column[book] {
		return bunpage.Nullable("subtitle", func(b book) *string { return b.Subtitle })
	},
		func(b book) any {
			if b.Subtitle == nil {
				return nil
			}
			return *b.Subtitle
		}},
	"added": {func() bunpage.Column[book] { return bunpage.Col("added", func(b book) time.Time { return b.Added }) },
		func(b book) any { return b.Added.UnixMicro() }},
	"lent": {func() bunpage.Column[book] { return bunpage.Col("lent", func(b book) bool { return b.Lent }) },
		func(b book) any { return b.Lent }},
}

// order is a test order: the source's columns and the reference's.
type order struct {
	name string
	cols []bunpage.Column[book]
	ref  []refCol
}

// refCol is a column of the reference order.
type refCol struct {
	key              func(book) any
	desc, nullsFirst bool
}

// ord builds an order from specs such as "year desc nullsfirst" and
// "id unique".
func ord(specs ...string) order {
	o := order{name: strings.Join(specs, ",")}
	for _, s := range specs {
		words := strings.Fields(s)
		f, ok := fields[words[0]]
		if !ok {
			panic("no field " + words[0])
		}
		c, r := f.col(), refCol{key: f.key}
		for _, w := range words[1:] {
			switch w {
			case "desc":
				c, r.desc = c.Desc(), true
			case "nullsfirst":
				c, r.nullsFirst = c.NullsFirst(), true
			case "unique":
				c = c.Unique()
			default:
				panic("unknown modifier " + w)
			}
		}
		o.cols = append(o.cols, c)
		o.ref = append(o.ref, r)
	}
	return o
}

// orders are the orders every walk is checked in: one direction (a row
// value) and mixed ones (a row value for each run of keys sorting one
// way, or the expanded form), with NULLs last and first.
var orders = []order{
	ord("title", "id unique"),
	ord("added desc", "id desc unique"),
	ord("year desc", "title", "id unique"),
	ord("year nullsfirst", "id desc unique"),
	ord("rating desc", "added", "id unique"),
	ord("lent", "subtitle desc nullsfirst", "genre", "id unique"),
	ord("subtitle", "id unique"),
	ord("year nullsfirst desc", "subtitle", "id unique"),
	ord("genre", "title", "id desc unique"),
	ord("year nullsfirst", "title", "added", "id unique"),
}

func (o order) keys(b book) []any {
	k := make([]any, len(o.ref))
	for i, r := range o.ref {
		k[i] = r.key(b)
	}
	return k
}

// compare orders two books as o does: driver.CompareKeys for values,
// NULLs last or, with nullsFirst, first in either direction.
func (o order) compare(a, b book) int {
	ka, kb := o.keys(a), o.keys(b)
	for i, r := range o.ref {
		x, y := ka[i], kb[i]
		if (x == nil) != (y == nil) {
			c := 1
			if y == nil {
				c = -1
			}
			if r.nullsFirst {
				c = -c
			}
			return c
		}
		if c := driver.CompareKeys([]any{x}, []any{y}, []bool{r.desc}); c != 0 {
			return c
		}
	}
	return 0
}

// sorted returns the books of shelf in o's order.
func (o order) sorted(books []book, shelf string) []book {
	var out []book
	for _, b := range books {
		if b.Shelf == shelf {
			out = append(out, b)
		}
	}
	slices.SortFunc(out, o.compare)
	for i := 1; i < len(out); i++ {
		if o.compare(out[i-1], out[i]) == 0 {
			panic("the reference order is not total")
		}
	}
	return out
}

func (o order) source(t testing.TB, db bun.IDB, shelf string) *bunpage.Source[book] {
	t.Helper()
	src, err := bunpage.New(db, db.NewSelect().Model((*book)(nil)).Where("shelf = ?", shelf), o.cols...)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func ids(books []book) []int64 {
	out := make([]int64, len(books))
	for i, b := range books {
		out[i] = b.ID
	}
	return out
}

// walkOffset reads src from offset 0 to the end in pages of size.
func walkOffset(ctx context.Context, src bounded.Source[book], size int) ([]book, error) {
	return walk(ctx, src, driver.Request{Limit: size, Count: bounded.CountNone}, func(rows driver.Rows[book], r *driver.Request) {
		r.Offset += len(rows.Items)
	})
}

// walkCursor reads src from its start to its end in pages of size: the
// first by offset, the rest after the keys of the last item read.
func walkCursor(ctx context.Context, src bounded.Source[book], size int) ([]book, error) {
	return walk(ctx, src, driver.Request{Limit: size, Count: bounded.CountNone}, func(rows driver.Rows[book], r *driver.Request) {
		r.At = &driver.Cursor{Keys: rows.Keys(rows.Items[len(rows.Items)-1])}
	})
}

// walkBack reads src backward from the item with keys from to its start
// in pages of size, and returns what it read in src's order.
func walkBack(ctx context.Context, src bounded.Source[book], size int, from []any) ([]book, error) {
	r := driver.Request{Limit: size, Count: bounded.CountNone, At: &driver.Cursor{Backward: true, Keys: from}}
	return walk(ctx, src, r, func(rows driver.Rows[book], r *driver.Request) {
		r.At = &driver.Cursor{Backward: true, Keys: rows.Keys(rows.Items[0])}
	})
}

// walk reads pages from r until one says no more follow, and returns
// their items in src's order; next turns the request of a page into the
// next one's.
func walk(ctx context.Context, src bounded.Source[book], r driver.Request, next func(driver.Rows[book], *driver.Request)) ([]book, error) {
	var all []book
	for range 10_000 {
		rows, err := src.Fetch(ctx, r)
		if err != nil {
			return nil, err
		}
		if err := checkPage(rows, r.Limit); err != nil {
			return nil, err
		}
		if r.Backward() {
			all = append(slices.Clone(rows.Items), all...)
		} else {
			all = append(all, rows.Items...)
		}
		if !rows.More {
			return all, nil
		}
		next(rows, &r)
	}
	return nil, errors.New("the walk does not end")
}

// checkPage checks a page read with limit size: at most size items, a
// full page when more follow, and keys.
func checkPage(rows driver.Rows[book], size int) error {
	switch {
	case len(rows.Items) > size:
		return fmt.Errorf("%d items for a limit of %d", len(rows.Items), size)
	case rows.More && len(rows.Items) < size:
		return fmt.Errorf("%d items for a limit of %d, and more follow", len(rows.Items), size)
	case rows.Keys == nil:
		return errors.New("no keys")
	}
	return nil
}

// TestWalks reads the books of one shelf in every order, in pages of 1,
// 2, 3 and 7, by offset, by cursor forward and backward, and through
// bounded.FetchPage's cursors both ways, and compares each walk with the
// same order computed in Go; each order with the engine's SQL and with
// the portable SQL. In the default run each order walks two of the sizes
// with its engine's SQL and the other two with the portable SQL; the deep
// run (deeptest) walks every size with both.
func TestWalks(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		books := loadBooks(t, db, 60)
		for oi, o := range orders {
			want := o.sorted(books, "a")
			src := o.source(t, db, "a")
			// portable: the SQL of engines without NULLS FIRST/LAST or
			// row values.
			for vi, v := range []struct {
				name string
				src  *bunpage.Source[book]
			}{{o.name, src}, {o.name + "/portable", bunpage.Portable(src)}} {
				src := v.src
				t.Run(v.name, func(t *testing.T) {
					for si, size := range []int{1, 2, 3, 7} {
						if !deeptest.On() && (oi+vi+si)%2 != 0 {
							continue
						}
						got, err := walkOffset(ctx, src, size)
						check(t, fmt.Sprintf("offset/size=%d", size), got, err, want)
						got, err = walkCursor(ctx, src, size)
						check(t, fmt.Sprintf("cursor/size=%d", size), got, err, want)
						last := want[len(want)-1]
						got, err = walkBack(ctx, src, size, o.keys(last))
						check(t, fmt.Sprintf("backward/size=%d", size), append(got, last), err, want)
						fwd, back, err := walkPages(ctx, src, size, len(want))
						check(t, fmt.Sprintf("FetchPage/next/size=%d", size), fwd, err, want)
						check(t, fmt.Sprintf("FetchPage/prev/size=%d", size), back, err, want)
					}
				})
			}
		}
		// Items come back whole, as the model scans them.
		got, err := walkOffset(ctx, orders[0].source(t, db, "a"), 7)
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(orders[0].sorted(books, "a"), got); diff != "" {
			t.Errorf("items (-want +got):\n%s", diff)
		}
	})
}

// walkPages walks src with bounded.FetchPage in pages of size: forward by
// NextCursor from the first page, then backward by PrevCursor from the
// last, checking that every page's total is total. It returns both walks
// in src's order.
func walkPages(ctx context.Context, src bounded.Source[book], size, total int) (fwd, back []book, err error) {
	const scope = "list_books"
	limits := bounded.Limits{Default: size, Max: size}
	var codec driver.Codec
	p := bounded.Page{}
	var pg bounded.Paged[book]
	for range 10_000 {
		if pg, err = bounded.FetchPage(ctx, src, scope, p, limits, codec); err != nil {
			return nil, nil, err
		}
		if pg.Page.Total != total || pg.Page.TotalKind != bounded.TotalExact {
			return nil, nil, fmt.Errorf("page at %d: total %d (%s), want %d", pg.Page.Offset, pg.Page.Total, pg.Page.TotalKind, total)
		}
		fwd = append(fwd, pg.Items...)
		if !pg.Page.HasMore {
			break
		}
		p = bounded.Page{Cursor: pg.Page.NextCursor}
	}
	for range 10_000 {
		back = append(slices.Clone(pg.Items), back...)
		if pg.Page.PrevCursor == "" {
			return fwd, back, nil
		}
		if pg, err = bounded.FetchPage(ctx, src, scope, bounded.Page{Cursor: pg.Page.PrevCursor}, limits, codec); err != nil {
			return nil, nil, err
		}
	}
	return nil, nil, errors.New("the walk does not end")
}

// check compares a walk's items with want by id.
func check(t *testing.T, name string, got []book, err error, want []book) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if diff := gocmp.Diff(ids(want), ids(got)); diff != "" {
		t.Errorf("%s: ids (-want +got):\n%s", name, diff)
	}
}

// TestCounts checks every count strategy against the shelf's size, by
// offset and by cursor both ways, and that the count is of the query's
// rows, not the table's or the page's.
func TestCounts(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		books := loadBooks(t, db, 60)
		o := orders[2]
		want := o.sorted(books, "a")
		n := len(want)
		src := o.source(t, db, "a")
		mid := &driver.Cursor{Keys: o.keys(want[n/2])}
		back := &driver.Cursor{Backward: true, Keys: o.keys(want[n/2])}
		for _, c := range []struct {
			name      string
			count     bounded.CountMode
			countCap  int
			wantCount int
		}{
			{"exact", bounded.CountExact, 0, n},
			{"capped/under", bounded.CountCapped, 5, 6},
			{"capped/at", bounded.CountCapped, n, n},
			{"capped/over", bounded.CountCapped, n - 1, n},
			{"capped/default", bounded.CountCapped, 0, n},
			{"none", bounded.CountNone, 0, -1},
		} {
			for _, at := range []struct {
				name string
				r    driver.Request
			}{
				{"first", driver.Request{Limit: 3}},
				{"offset", driver.Request{Limit: 3, Offset: 10}},
				{"past-end", driver.Request{Limit: 3, Offset: n + 5}},
				{"cursor", driver.Request{Limit: 3, At: mid}},
				{"backward", driver.Request{Limit: 3, At: back}},
			} {
				r := at.r
				r.Count, r.CountCap = c.count, c.countCap
				rows, err := src.Fetch(ctx, r)
				if err != nil {
					t.Fatalf("%s/%s: %v", c.name, at.name, err)
				}
				if rows.Count != c.wantCount {
					t.Errorf("%s/%s: count %d, want %d", c.name, at.name, rows.Count, c.wantCount)
				}
			}
		}
		// The default cap is bounded.DefaultCountCap(Limit): 100 for a
		// page of 3, so 100 books count as 100 and 101 as "over".
		more := make([]book, 0, 120)
		for i := 1000; len(more) < 100-n; i++ {
			if b := makeBook(i); b.Shelf == "a" {
				b.ID = int64(5000 + i)
				more = append(more, b)
			}
		}
		insertBooks(t, db, more...)
		for _, add := range []int{0, 1} {
			if add == 1 {
				b := makeBook(1)
				b.ID = 9999
				insertBooks(t, db, b)
			}
			rows, err := src.Fetch(ctx, driver.Request{Limit: 3, Count: bounded.CountCapped})
			if err != nil {
				t.Fatal(err)
			}
			if want := 100 + add; rows.Count != want {
				t.Errorf("default cap, %d books: count %d, want %d", 100+add, rows.Count, want)
			}
		}
	})
}

// TestStatements checks what runs for a page: one SELECT, with the count
// as a column when the request counts; and a second statement for the
// count of an empty page after the start, none for an empty set.
func TestStatements(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		books := loadBooks(t, db, 20)
		n := len(orders[0].sorted(books, "a"))
		ldb, log := logged(db)
		src := orders[0].source(t, ldb, "a")
		empty := orders[0].source(t, ldb, "none")
		log.take()
		for _, c := range []struct {
			name      string
			src       *bunpage.Source[book]
			r         driver.Request
			wantCount int
			want      []string // what each statement holds
		}{
			{"none", src, driver.Request{Limit: 5, Count: bounded.CountNone}, -1, []string{"LIMIT 6"}},
			{"exact", src, driver.Request{Limit: 5, Count: bounded.CountExact}, n, []string{`count(*) FROM (SELECT "b"."id"`}},
			{"capped", src, driver.Request{Limit: 5, Count: bounded.CountCapped, CountCap: 3}, 4, []string{`LIMIT 4) AS "bunpage_capped") AS "_bunpage_total"`}},
			{"cursor", src, driver.Request{Limit: 5, Count: bounded.CountExact, At: &driver.Cursor{Keys: orders[0].keys(books[0])}}, n, []string{`"_bunpage_total"`}},
			{"past the end", src, driver.Request{Limit: 5, Offset: 100, Count: bounded.CountExact}, n, []string{`"_bunpage_total"`, "SELECT count(*)"}},
			{"empty set", empty, driver.Request{Limit: 5, Count: bounded.CountCapped}, 0, []string{`"_bunpage_total"`}},
		} {
			rows, err := c.src.Fetch(ctx, c.r)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if rows.Count != c.wantCount {
				t.Errorf("%s: count %d, want %d", c.name, rows.Count, c.wantCount)
			}
			got := log.take()
			if len(got) != len(c.want) {
				t.Errorf("%s: ran %q, want %d statements", c.name, got, len(c.want))
				continue
			}
			for i, q := range got {
				q = strings.ReplaceAll(q, "`", `"`) // MySQL quotes identifiers with backticks
				if !strings.HasPrefix(q, "SELECT") || !strings.Contains(q, c.want[i]) {
					t.Errorf("%s: statement %d is %q, want a SELECT with %s", c.name, i, q, c.want[i])
				}
			}
		}
	})
}

// TestSnapshot reads the newest book with its exact count while another
// connection inserts books 1, 2, 3, ... one at a time: in one snapshot the
// newest id is the count, so every page must say so.
func TestSnapshot(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			ctx := t.Context()
			var db, other *bun.DB
			if e.name == "sqlite" {
				path := filepath.Join(t.TempDir(), "snap.db")
				db, other = openSQLiteFile(t, path), openSQLiteFile(t, path)
			} else {
				db = e.open(t)
				other = db // a pool: the writer takes a connection of its own
			}
			exec(t, db, ddl(db, booksDDL))
			add := func(id int64) error {
				b := makeBook(1)
				b.ID = id
				_, err := other.NewInsert().Model(&b).Exec(context.Background())
				return err
			}
			if err := add(1); err != nil {
				t.Fatal(err)
			}
			stop, done := make(chan struct{}), make(chan error, 1)
			go func() {
				for id := int64(2); ; id++ {
					select {
					case <-stop:
						done <- nil
						return
					default:
					}
					if err := add(id); err != nil {
						done <- err
						return
					}
				}
			}()
			stopWriter := sync.OnceValue(func() error { close(stop); return <-done })
			defer stopWriter()
			src, err := bunpage.New(db, db.NewSelect().Model((*book)(nil)), fields["id"].col().Desc().Unique())
			if err != nil {
				t.Fatal(err)
			}
			// At least 300 reads, and on until the writer has written 20
			// books during them, however busy the machine; two minutes
			// guard against a writer that hangs.
			first, last, reads := -1, -1, 0
			for hang := time.Now().Add(2 * time.Minute); (reads < 300 || last-first < 20) && time.Now().Before(hang); reads++ {
				rows, err := src.Fetch(ctx, driver.Request{Limit: 1, Count: bounded.CountExact})
				if err != nil {
					t.Fatal(err)
				}
				if len(rows.Items) != 1 || int(rows.Items[0].ID) != rows.Count {
					t.Fatalf("newest %v, count %d: not one snapshot", ids(rows.Items), rows.Count)
				}
				if first < 0 {
					first = rows.Count
				}
				last = rows.Count
			}
			if err := stopWriter(); err != nil {
				t.Fatal(err)
			}
			if last-first < 20 {
				t.Errorf("the count went from %d to %d in %d reads: the writer hardly wrote during them", first, last, reads)
			}
		})
	}
}

// TestInTx checks a source on the caller's transaction: it sees the
// transaction's own writes, with and without a count.
func TestInTx(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		books := loadBooks(t, db, 10)
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			b := makeBook(2)
			b.ID = 4242
			insertBooks(t, tx, b)
			want := orders[0].sorted(append(books, b), "a")
			src := orders[0].source(t, tx, "a")
			for _, c := range []bounded.CountMode{bounded.CountNone, bounded.CountExact} {
				rows, err := src.Fetch(ctx, driver.Request{Limit: 100, Count: c})
				if err != nil {
					return err
				}
				if diff := gocmp.Diff(ids(want), ids(rows.Items)); diff != "" {
					t.Errorf("%s: ids (-want +got):\n%s", c, diff)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// TestNew checks the orders and arguments New refuses, each with the
// error that names the problem.
func TestNew(t *testing.T) {
	db := openSQLite(t)
	q := db.NewSelect().Model((*book)(nil))
	id := bunpage.Col("id", func(b book) int64 { return b.ID })
	title := bunpage.Col("title", func(b book) string { return b.Title })
	year := bunpage.Nullable("year", func(b book) *int64 { return b.Year })
	for _, c := range []struct {
		name    string
		db      bun.IDB
		q       *bun.SelectQuery
		order   []bunpage.Column[book]
		wantErr error
		wantMsg string
	}{
		{"ok", db, q, []bunpage.Column[book]{title, id.Unique()}, nil, ""},
		{"no tie-breaker", db, q, []bunpage.Column[book]{title, id}, bunpage.ErrNoTieBreaker, `the last column, "id", is not Unique`},
		{"unique first", db, q, []bunpage.Column[book]{id.Unique(), title}, bunpage.ErrNoTieBreaker, `"title", is not Unique`},
		{"empty order", db, q, nil, bunpage.ErrNoTieBreaker, "the order is empty"},
		{"nullable tie-breaker", db, q, []bunpage.Column[book]{year.Unique()}, bunpage.ErrNoTieBreaker, `"year", may be NULL`},
		{"nil db", nil, q, []bunpage.Column[book]{id.Unique()}, bunpage.ErrInvalidSource, "nil database"},
		{"nil query", db, nil, []bunpage.Column[book]{id.Unique()}, bunpage.ErrInvalidSource, "nil query"},
		{"zero column", db, q, []bunpage.Column[book]{{}, id.Unique()}, bunpage.ErrInvalidSource, "no value function"},
		{"nil value", db, q, []bunpage.Column[book]{bunpage.Col[book, int64]("id", nil).Unique()}, bunpage.ErrInvalidSource, "no value function"},
		{"no name", db, q, []bunpage.Column[book]{bunpage.Col("", func(b book) int64 { return b.ID }).Unique()}, bunpage.ErrInvalidSource, "has no name"},
		{"qualified name", db, q, []bunpage.Column[book]{bunpage.Col("b.id", func(b book) int64 { return b.ID }).Unique()}, bunpage.ErrInvalidSource, "without its table"},
		{"repeated", db, q, []bunpage.Column[book]{id, title, id.Unique()}, bunpage.ErrInvalidSource, `"id" appears twice`},
		{"nulls first, not nullable", db, q, []bunpage.Column[book]{title.NullsFirst(), id.Unique()}, bunpage.ErrInvalidSource, "needs a Nullable column"},
	} {
		src, err := bunpage.New(c.db, c.q, c.order...)
		switch {
		case c.wantErr == nil && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.wantErr == nil && src == nil:
			t.Errorf("%s: nil source", c.name)
		case c.wantErr == nil:
		case !errors.Is(err, c.wantErr) || !errors.Is(err, bunpage.ErrInvalidSource):
			t.Errorf("%s: error %v, want %v (and %v)", c.name, err, c.wantErr, bunpage.ErrInvalidSource)
		case !strings.Contains(err.Error(), c.wantMsg):
			t.Errorf("%s: error %q does not say %q", c.name, err, c.wantMsg)
		case src != nil:
			t.Errorf("%s: a source with the error", c.name)
		}
	}
}

// TestNewItemType checks that items must be structs (or pointers to
// them), as bun scans rows by column name.
func TestNewItemType(t *testing.T) {
	db := openSQLite(t)
	_, err := bunpage.New(db, db.NewSelect().Model((*book)(nil)).Column("id"), bunpage.Col("id", func(id int64) int64 { return id }).Unique())
	if !errors.Is(err, bunpage.ErrInvalidSource) || !strings.Contains(err.Error(), "items of type int64: want a struct") {
		t.Errorf("error %v, want ErrInvalidSource for int64 items", err)
	}
}

// TestPointerItems pages into pointers to structs, with and without a
// count.
func TestPointerItems(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		books := loadBooks(t, db, 20)
		want := ids(orders[0].sorted(books, "a"))[:5]
		src, err := bunpage.New(db, db.NewSelect().Model((*book)(nil)).Where("shelf = ?", "a"),
			bunpage.Col("title", func(b *book) string { return b.Title }),
			bunpage.Col("id", func(b *book) int64 { return b.ID }).Unique())
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []bounded.CountMode{bounded.CountNone, bounded.CountExact} {
			rows, err := src.Fetch(t.Context(), driver.Request{Limit: 5, Count: c})
			if err != nil {
				t.Fatal(err)
			}
			got := make([]int64, len(rows.Items))
			for i, b := range rows.Items {
				got[i] = b.ID
			}
			if diff := gocmp.Diff(want, got); diff != "" || !rows.More {
				t.Errorf("%s: more %v, ids (-want +got):\n%s", c, rows.More, diff)
			}
		}
	})
}

// TestQueryCopied checks that changing the query after New does not
// change the source.
func TestQueryCopied(t *testing.T) {
	db := openSQLite(t)
	books := loadBooks(t, db, 20)
	q := db.NewSelect().Model((*book)(nil)).Where("shelf = ?", "a")
	src, err := bunpage.New(db, q, orders[0].cols...)
	if err != nil {
		t.Fatal(err)
	}
	q.Where("1 = 0")
	rows, err := src.Fetch(t.Context(), driver.Request{Limit: 100, Count: bounded.CountNone})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rows.Items), len(orders[0].sorted(books, "a")); got != want {
		t.Errorf("%d books, want %d", got, want)
	}
}

// TestBadRequest checks the requests Fetch refuses before any SQL runs.
func TestBadRequest(t *testing.T) {
	db := openSQLite(t)
	loadBooks(t, db, 5)
	ldb, log := logged(db)
	src := orders[0].source(t, ldb, "a")
	log.take()
	for _, r := range []driver.Request{{Limit: 0}, {Limit: -1}, {Limit: 5, Offset: -1}} {
		_, err := src.Fetch(t.Context(), r)
		if !errors.Is(err, bounded.ErrInvalidPage) {
			t.Errorf("%+v: error %v, want ErrInvalidPage", r, err)
		}
	}
	if q := log.take(); len(q) > 0 {
		t.Errorf("ran %q", q)
	}
}

// TestCanceled checks that a canceled context's error comes back
// recognisable.
func TestCanceled(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		loadBooks(t, db, 5)
		src := orders[0].source(t, db, "a")
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		for _, c := range []bounded.CountMode{bounded.CountNone, bounded.CountExact} {
			_, err := src.Fetch(ctx, driver.Request{Limit: 5, Count: c})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s: error %v, want context.Canceled", c, err)
			}
		}
	})
}

type author struct {
	ID   int64  `bun:"id,pk"`
	Name string `bun:"name"`
}

type post struct {
	ID       int64   `bun:"id,pk"`
	AuthorID int64   `bun:"author_id"`
	Author   *author `bun:"rel:belongs-to,join:author_id=id"`
}

// TestJoinedRelation checks that a query with a joined relation pages
// with the relation scanned, with and without a count.
func TestJoinedRelation(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		exec(t, db, ddl(db, "CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL)"),
			ddl(db, "CREATE TABLE posts (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL)"),
			"INSERT INTO authors VALUES (1, 'Zoë'), (2, 'Ærø')", "INSERT INTO posts VALUES (1, 2), (2, 1), (3, 2)")
		q := db.NewSelect().Model((*post)(nil)).Relation("Author")
		src, err := bunpage.New(db, q, bunpage.Col("id", func(p post) int64 { return p.ID }).Desc().Unique())
		if err != nil {
			t.Fatal(err)
		}
		want := []post{{ID: 2, AuthorID: 1, Author: &author{1, "Zoë"}}, {ID: 1, AuthorID: 2, Author: &author{2, "Ærø"}}}
		for _, c := range []struct {
			mode  bounded.CountMode
			count int
		}{{bounded.CountNone, -1}, {bounded.CountExact, 3}} {
			rows, err := src.Fetch(t.Context(), driver.Request{Limit: 2, Count: c.mode, At: &driver.Cursor{Keys: []any{int64(3)}}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := gocmp.Diff(want, rows.Items); diff != "" || rows.More || rows.Count != c.count {
				t.Errorf("%s: more %v, count %d, posts (-want +got):\n%s", c.mode, rows.More, rows.Count, diff)
			}
		}
	})
}
