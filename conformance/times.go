package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// The time checks: every time an item holds can be encoded in a response
// and stored as microseconds by every engine. Each write method, given a
// time outside [ports.MinTime, ports.MaxTime] in any of its item's time
// fields (years 0, -1, 10000 and ±300,000, one microsecond past either
// end, a zone that moves the time past the end), refuses the item with
// [ports.ErrInvalidItem]; times at both ends (and a zone that moves one
// inside) are stored. Reads then equal memrepo's and encode as JSON.
//
// Subtests are named "Times/<method>(<field>)".

// timeField is one time field of an item of a write method.
type timeField struct {
	name string // e.g. "PutNote(UpdatedAt)"
	port port
	// write writes an item with id whose field holds at.
	write func(ctx context.Context, s Store, id string, at time.Time) error
	// read reads every item written by write.
	read func(ctx context.Context, s Store) (any, error)
}

func timeFields() []timeField {
	note := func(field string, set func(n *ports.Note, at time.Time)) timeField {
		return timeField{name: "PutNote(" + field + ")", port: notesPort,
			write: func(ctx context.Context, s Store, id string, at time.Time) error {
				n := ports.Note{ID: "timed/" + id, Title: "timed", Content: "a time at the edge", CreatedAt: Epoch, UpdatedAt: Epoch}
				set(&n, at)
				return s.Notes.PutNote(ctx, n)
			},
			read: func(ctx context.Context, s Store) (any, error) {
				return s.Notes.ListNotes(ctx, ports.ListFilter{Folder: "timed"}, bounded.Page{Limit: ports.ListNotesLimits.Max})
			}}
	}
	run := func(field string, set func(r *ports.Run, at time.Time)) timeField {
		return timeField{name: "RecordRun(" + field + ")", port: historyPort,
			write: func(ctx context.Context, s Store, id string, at time.Time) error {
				r := ports.Run{ID: "timed/" + id, EndpointID: "timed", StartedAt: Epoch, FinishedAt: Epoch, Status: "ok", Body: "{}"}
				set(&r, at)
				return s.History.RecordRun(ctx, r)
			},
			read: func(ctx context.Context, s Store) (any, error) {
				return s.History.ResponseHistory(ctx, "timed", bounded.Page{Limit: ports.ResponseHistoryLimits.Max})
			}}
	}
	return []timeField{
		note("CreatedAt", func(n *ports.Note, at time.Time) { n.CreatedAt = at }),
		note("UpdatedAt", func(n *ports.Note, at time.Time) { n.UpdatedAt = at }),
		{name: "PutEntity(UpdatedAt)", port: knowledgePort,
			write: func(ctx context.Context, s Store, id string, at time.Time) error {
				return s.Knowledge.PutEntity(ctx, ports.Entity{Name: "timed " + id, Type: "timed", UpdatedAt: at})
			},
			read: func(ctx context.Context, s Store) (any, error) {
				return s.Knowledge.SearchNodes(ctx, ports.NodeQuery{Queries: []string{"timed"}}, bounded.Page{Limit: ports.SearchNodesLimits.Max})
			}},
		run("StartedAt", func(r *ports.Run, at time.Time) { r.StartedAt = at }),
		run("FinishedAt", func(r *ports.Run, at time.Time) { r.FinishedAt = at }),
	}
}

// edgeTimes are times outside [ports.MinTime, ports.MaxTime] (bad) and
// inside it, at its ends (good).
func edgeTimes() (bad, good []struct {
	name string
	at   time.Time
}) {
	type named = struct {
		name string
		at   time.Time
	}
	east := time.FixedZone("UTC+1", 3600)
	west := time.FixedZone("UTC-1", -3600)
	bad = []named{
		{"year 10000", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"a microsecond past the last", ports.MaxTime.Add(time.Microsecond)},
		{"year 0", time.Date(0, 6, 1, 0, 0, 0, 0, time.UTC)},
		{"a microsecond before the first", ports.MinTime.Add(-time.Microsecond)},
		{"year -1", time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"year 300000", time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"year -300000", time.Date(-300000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"year 9999 west of UTC, 10000 in UTC", time.Date(9999, 12, 31, 23, 30, 0, 0, west)},
	}
	good = []named{
		{"the first", ports.MinTime},
		{"the last", ports.MaxTime},
		{"the last and 999 ns", ports.MaxTime.Add(999)},
		{"year 10000 east of UTC, 9999 in UTC", time.Date(10000, 1, 1, 0, 30, 0, 0, east)},
		{"year 1 east of UTC, 1 in UTC", time.Date(1, 1, 1, 1, 0, 0, 0, east)},
	}
	return bad, good
}

// runTimeChecks runs the time checks on stores of their own.
func (s *suite) runTimeChecks(t TB) {
	t.Run("Times", func(t TB) {
		bad, good := edgeTimes()
		for _, f := range timeFields() {
			t.Run(f.name, func(t TB) {
				st := s.h.New(t)
				if !st.has(f.port) {
					t.Skipf("%s: Store.%s is nil: skipping the time checks of %s", s.store(), f.port, f.name)
				}
				ctx := t.Context()
				st, ref := s.fill(t, st, fixture{})
				for i, b := range bad {
					id := fmt.Sprintf("bad%d", i)
					if err := f.write(ctx, ref, id, b.at); err == nil {
						t.Fatalf("memrepo: %s stores %s (%v) (a bug of the suite or of memrepo)", f.name, b.name, b.at)
					}
					expectErr(t, fmt.Sprintf("%s, %s (%v)", f.name, b.name, b.at), f.write(ctx, st, id, b.at), ports.ErrInvalidItem)
				}
				for i, g := range good {
					id := fmt.Sprintf("good%d", i)
					if err := f.write(ctx, ref, id, g.at); err != nil {
						t.Fatalf("memrepo: %s, %s (%v): %v (a bug of the suite or of memrepo)", f.name, g.name, g.at, err)
					}
					if err := f.write(ctx, st, id, g.at); err != nil {
						t.Errorf("%s, %s (%v): %v", f.name, g.name, g.at, err)
					}
				}
				want, werr := f.read(ctx, ref)
				got, gerr := f.read(ctx, st)
				if werr != nil || gerr != nil {
					t.Fatalf("reading back what %s stored: %v; memrepo: %v", f.name, gerr, werr)
				}
				if d := s.diff(want, got); d != "" {
					t.Errorf("what %s stored at the ends of the time range differs from memrepo's, read back (-memrepo +%s):\n%s", f.name, s.store(), d)
				}
				if _, err := json.Marshal(got); err != nil {
					t.Errorf("what %s stored at the ends of the time range does not encode as JSON: %v", f.name, err)
				}
			})
		}
	})
}
