package conformance

import (
	"context"
	"fmt"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// historyTests checks ports.History: ResponseHistory and RecordRun; st and
// ref hold Runs(Seed).
func (s *suite) historyTests(t TB, st, ref Store) {
	runMethod(t, s, responseHistoryMethod(), st, ref)
	t.Run("RecordRun", s.recordRunTests)
}

func runKey(r ports.RunView) string { return r.ID }

func historyQuery(endpoint string) query[ports.RunView] {
	return query[ports.RunView]{args: bounded.Args{{Name: "endpointId", Value: endpoint}},
		fetch: func(ctx context.Context, s Store, p bounded.Page) (bounded.Paged[ports.RunView], error) {
			return s.History.ResponseHistory(ctx, endpoint, p)
		}}
}

func responseHistoryMethod() method[ports.RunView] {
	m := method[ports.RunView]{
		name: "ResponseHistory", call: "ResponseHistory", tool: "get_response_history", port: historyPort,
		limits: ports.ResponseHistoryLimits, paging: bounded.ByOffset, key: runKey,
		queries: []query[ports.RunView]{
			historyQuery(EndpointA), historyQuery(EndpointB), historyQuery(EndpointUni),
			historyQuery(EndpointLike), historyQuery("ep_alpha"), historyQuery("EP-ALPHA"),
			historyQuery(EmptyEndpoint),
		},
		sized: func(n int) (fixture, query[ports.RunView]) {
			var runs []ports.Run
			for i, id := range tieIDs("run-", n) {
				runs = append(runs, ports.Run{ID: id, EndpointID: "tie-ep", StartedAt: Epoch, FinishedAt: Epoch,
					Status: "ok", StatusCode: 200, Body: body(bodyUnits[i%len(bodyUnits)], 1001)})
			}
			runs = append(runs, ports.Run{ID: "decoy", EndpointID: "tie-ep2", StartedAt: Epoch})
			return fixture{runs: runs}, historyQuery("tie-ep")
		},
	}
	for _, b := range badQueries() {
		m.errs = append(m.errs, errCase{"endpoint-" + b.name, func(ctx context.Context, s Store) error {
			_, err := s.History.ResponseHistory(ctx, b.q, bounded.Page{})
			return err
		}, []error{ports.ErrInvalidQuery}})
	}
	return m
}

// recordRunTests checks RecordRun: invalid runs are refused with
// ErrInvalidItem and leave nothing behind; recording a run again replaces
// it.
func (s *suite) recordRunTests(t TB) {
	t.Run("invalid", func(t TB) {
		keep := ports.Run{ID: "keep", EndpointID: "ep", StartedAt: Epoch, Body: "kept"}
		st, ref := s.open(t, historyPort, fixture{runs: []ports.Run{keep}})
		bad := func(f func(r *ports.Run)) ports.Run {
			r := ports.Run{ID: "bad", EndpointID: "ep", StartedAt: Epoch.Add(1e9), Status: "ok", Body: "bad"}
			f(&r)
			return r
		}
		cases := []struct {
			name string
			r    ports.Run
		}{
			{"empty-id", bad(func(r *ports.Run) { r.ID = "" })},
			{"empty-endpoint", bad(func(r *ports.Run) { r.EndpointID = "" })},
			{"invalid-utf8-endpoint", bad(func(r *ports.Run) { r.EndpointID = "ep\xff" })},
			{"nul-status", bad(func(r *ports.Run) { r.Status = "\x00" })},
			{"invalid-utf8-body", bad(func(r *ports.Run) { r.Body = strings.Repeat("é", 600) + "\xff" })},
			{"invalid-replacement", func() ports.Run { r := keep; r.Body = "\x00"; return r }()},
		}
		for _, c := range cases {
			t.Run(c.name, func(t TB) {
				if err := ref.History.RecordRun(t.Context(), c.r); err == nil {
					t.Fatalf("memrepo accepts the invalid run %q (a bug of the suite or of memrepo)", c.r.ID)
				}
				expectErr(t, fmt.Sprintf("RecordRun(%s run)", c.name), st.History.RecordRun(t.Context(), c.r), ports.ErrInvalidItem)
			})
		}
		m := responseHistoryMethod()
		m.queries = []query[ports.RunView]{historyQuery("ep")}
		readsOf(m).check(t, s, st, ref)
	})
	t.Run("replace", func(t TB) {
		data := fixture{runs: Runs(Seed)}
		st, ref := s.open(t, historyPort, data)
		for i, r := range data.runs {
			if i%3 != 0 {
				continue
			}
			r.Body = body("😀", 999+i%3)
			r.Status = "replaced"
			r.StartedAt = r.StartedAt.Add(90 * 1e9)
			if i%2 == 0 {
				r.EndpointID = EndpointB // moves to another endpoint
			}
			for range 2 {
				for _, st := range []Store{ref, st} {
					if err := st.History.RecordRun(t.Context(), r); err != nil {
						t.Fatalf("RecordRun(%q) again: %v", r.ID, err)
					}
				}
			}
		}
		readsOf(responseHistoryMethod()).check(t, s, st, ref)
	})
}
