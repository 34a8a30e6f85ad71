package conformance

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
)

// TestPropertiesCatchBrokenStores runs the property tests alone on the
// broken stores of TestBrokenStores: each must be caught there too.
func TestPropertiesCatchBrokenStores(t *testing.T) {
	// Two seeds, as in a build without the race detector: a single seed
	// may draw no request over the maximum.
	t.Setenv(PropertySeedsEnv, "2")
	for _, c := range []struct {
		name  string
		store func(m *memrepo.Store) Store
		port  string
	}{
		{"skips an item between pages (Backlinks)", func(m *memrepo.Store) Store { return Store{Notes: skipping{m}} }, "Notes"},
		{"repeats an item between pages (SearchNodes)", func(m *memrepo.Store) Store { return Store{Knowledge: repeating{m}} }, "Knowledge"},
		{"miscounts a total (ResponseHistory)", func(m *memrepo.Store) Store { return Store{History: miscounting{m}} }, "History"},
		{"breaks ties by ID descending (ListNotes)", func(m *memrepo.Store) Store { return Store{Notes: tieBreaking{m}} }, "Notes"},
		{"never stops saying more follow (Children)", func(m *memrepo.Store) Store { return Store{Notes: endless{m}} }, "Notes"},
		{"ignores the maximum (SearchCode)", func(m *memrepo.Store) Store { return Store{Code: unclamped{m}} }, "Code"},
	} {
		t.Run(c.name, func(t *testing.T) {
			only := "broken/Properties/" + c.port
			rep := runRecorded("broken", only, Harness{Name: "broken", New: func(TB) Store { return c.store(memrepo.New()) }})
			if len(rep.failures) == 0 {
				t.Fatalf("the property tests reported no failure for a store that %s", c.name)
			}
			t.Logf("caught by %d subtests; first report:\n%.600s", len(rep.failedTests()), rep.failures[0].msg)
		})
	}
}

// cursorStore issues and accepts cursors for ResponseHistory and
// SearchCode over memrepo: "method|argument|offset", base64. bound decides
// whether it checks that a cursor names its own method and argument.
type cursorStore struct {
	*memrepo.Store
	bound bool
}

func (c cursorStore) encode(method, arg string, off int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(method + "|" + arg + "|" + strconv.Itoa(off)))
}

// page turns a cursor into an offset page.
func (c cursorStore) page(method, arg string, p bounded.Page) (bounded.Page, error) {
	if p.Cursor == "" {
		return p, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(p.Cursor)
	parts := strings.Split(string(b), "|")
	if err != nil || len(parts) != 3 {
		return p, fmt.Errorf("%w: undecodable", bounded.ErrInvalidCursor)
	}
	if c.bound && (parts[0] != method || parts[1] != arg) {
		return p, fmt.Errorf("%w: issued by %s(%q)", bounded.ErrInvalidCursor, parts[0], parts[1])
	}
	off, err := strconv.Atoi(parts[2])
	if err != nil {
		return p, fmt.Errorf("%w: %v", bounded.ErrInvalidCursor, err)
	}
	return bounded.Page{Limit: p.Limit, Offset: off}, nil
}

func (c cursorStore) ResponseHistory(ctx context.Context, ep string, p bounded.Page) (bounded.Paged[ports.RunView], error) {
	p, err := c.page("ResponseHistory", ep, p)
	if err != nil {
		return bounded.Paged[ports.RunView]{}, err
	}
	pg, err := c.Store.ResponseHistory(ctx, ep, p)
	if pg.Page.HasMore {
		pg.Page.NextCursor = c.encode("ResponseHistory", ep, pg.Page.NextOffset)
	}
	return pg, err
}

func (c cursorStore) SearchCode(ctx context.Context, q ports.CodeQuery, p bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
	p, err := c.page("SearchCode", q.Query, p)
	if err != nil {
		return bounded.Paged[ports.CodeMatch]{}, err
	}
	pg, err := c.Store.SearchCode(ctx, q, p)
	if pg.Page.HasMore {
		pg.Page.NextCursor = c.encode("SearchCode", q.Query, pg.Page.NextOffset)
	}
	return pg, err
}

// ignoringCursors drops the cursor of ResponseHistory and answers from
// the offset: a store that "supports" cursors by ignoring them.
type ignoringCursors struct{ *memrepo.Store }

func (c ignoringCursors) ResponseHistory(ctx context.Context, ep string, p bounded.Page) (bounded.Paged[ports.RunView], error) {
	p.Cursor = ""
	return c.Store.ResponseHistory(ctx, ep, p)
}

// TestCursorChecks checks the cursor checks on stores that get cursors
// right and wrong.
func TestCursorChecks(t *testing.T) {
	run := func(name string, h Harness) *report {
		h.Name = name
		return runRecorded(name, name+"/Cursors", h)
	}
	bound := run("bound", Harness{Cursors: true, New: func(TB) Store {
		c := cursorStore{memrepo.New(), true}
		return Store{History: c, Code: c}
	}})
	if len(bound.failures) > 0 || bound.subtests == 0 {
		t.Errorf("a store with bound cursors: %d subtests, failures %v", bound.subtests, bound.failures)
	}
	unbound := run("unbound", Harness{Cursors: true, New: func(TB) Store {
		c := cursorStore{memrepo.New(), false}
		return Store{History: c, Code: c}
	}})
	if !unbound.caughtBy("unbound/Cursors/replay") {
		t.Errorf("a store whose cursors are not bound to their method was not caught: %v", unbound.failures)
	}
	ignoring := run("ignoring", Harness{New: func(TB) Store {
		m := memrepo.New()
		return Store{History: ignoringCursors{m}, Code: m}
	}})
	if !ignoring.caughtBy("ignoring/Cursors/ResponseHistory") || ignoring.caughtBy("ignoring/Cursors/SearchCode") {
		t.Errorf("a store ignoring ResponseHistory's cursors: failures %v", ignoring.failedTests())
	}
	for _, f := range ignoring.failures[:min(1, len(ignoring.failures))] {
		t.Logf("first report: %s", f.msg)
	}
}
