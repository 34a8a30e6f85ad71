package conformance

import (
	"context"
	"errors"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/memrepo"
	"github.com/boundedkit/bounded/ports"
)

// keysRefused reports that memrepo refused a cursor for its keys (or its
// contents), not for its scope or checksum.
func keysRefused(err error) bool {
	return errors.Is(err, bounded.ErrInvalidCursor) && !errors.Is(err, driver.ErrCursorForeign) && !errors.Is(err, driver.ErrCursorTampered)
}

// laxKeys reads a SearchCode cursor whose keys memrepo refuses from the
// start instead, as an engine does that compares a NaN score with every
// row and finds none smaller.
type laxKeys struct{ *memrepo.Store }

func (b laxKeys) SearchCode(ctx context.Context, q ports.CodeQuery, p bounded.Page) (bounded.Paged[ports.CodeMatch], error) {
	pg, err := b.Store.SearchCode(ctx, q, p)
	if p.Cursor != "" && keysRefused(err) {
		p.Cursor = ""
		return b.Store.SearchCode(ctx, q, p)
	}
	return pg, err
}

// rawKeyErrors fails a ListNotes cursor whose keys memrepo refuses with
// an error of its engine, as SQL does given a NUL byte.
type rawKeyErrors struct{ *memrepo.Store }

func (b rawKeyErrors) ListNotes(ctx context.Context, f ports.ListFilter, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
	pg, err := b.Store.ListNotes(ctx, f, p)
	if p.Cursor != "" && keysRefused(err) {
		return bounded.Paged[ports.NoteRef]{}, errors.New(`SQL logic error: unrecognized token: "!"`)
	}
	return pg, err
}

// TestForgedKeyChecks checks that the forged-key checks pass memrepo and
// catch stores that accept keys memrepo refuses or refuse them with an
// untyped error.
func TestForgedKeyChecks(t *testing.T) {
	for _, c := range []struct {
		name     string
		store    func(m *memrepo.Store) Store
		caughtBy string // "" for none
	}{
		{"memrepo", func(m *memrepo.Store) Store { return Store{Notes: m, Knowledge: m, History: m, Code: m} }, ""},
		{"lax", func(m *memrepo.Store) Store { return Store{Notes: m, Code: laxKeys{m}} }, "lax/Cursors/keys/SearchCode"},
		{"raw", func(m *memrepo.Store) Store { return Store{Notes: rawKeyErrors{m}} }, "raw/Cursors/keys/ListNotes"},
	} {
		rep := runRecorded(c.name, c.name+"/Cursors/keys", Harness{Name: c.name, Cursors: true, New: func(TB) Store { return c.store(memrepo.New()) }})
		if rep.subtests == 0 {
			t.Errorf("%s: no subtest ran", c.name)
		}
		switch {
		case c.caughtBy == "" && len(rep.failures) > 0:
			t.Errorf("%s: failures %v", c.name, rep.failures)
		case c.caughtBy != "" && !rep.caughtBy(c.caughtBy):
			t.Errorf("%s: not caught by %s; failing subtests %v", c.name, c.caughtBy, rep.failedTests())
		case c.caughtBy != "" && len(rep.failedTests()) != 1:
			t.Errorf("%s: caught by %v; want %s alone", c.name, rep.failedTests(), c.caughtBy)
		}
		for _, f := range rep.failures[:min(1, len(rep.failures))] {
			t.Logf("%s: first report: %s", c.name, f.msg)
		}
	}
}
