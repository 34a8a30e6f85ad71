// Package conformance is the suite every storage adapter runs to prove that
// it pages exactly like memrepo, the in-memory reference.
//
// An adapter's test opens a new, empty store for each subtest and hands it
// to [Run]:
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, conformance.Harness{
//			Name: "mystore",
//			New: func(t conformance.TB) conformance.Store {
//				db, err := mystore.Open(filepath.Join(t.TempDir(), "test.db"))
//				if err != nil {
//					t.Fatalf("open: %v", err)
//				}
//				t.Cleanup(func() { db.Close() })
//				return conformance.Store{Notes: db, Knowledge: db, History: db, Code: db}
//			},
//		})
//	}
//
// The suite loads its fixtures ([Notes], [Entities], [Runs], [Chunks] and
// the edge cases of [HugeNotes]) into the store and into a fresh
// memrepo.Store through the ports' write methods, then checks every read
// method of every port the store has:
//
//   - Identical everywhere: for page sizes 1, 2, 3, 7, the default and the
//     maximum, every page (items and [bounded.PageInfo]) equals memrepo's
//     (each query at some of the sizes, at all of them in the deep run:
//     see [DeepEnv]),
//     compared with go-cmp; a limit over the maximum is clamped and
//     reported.
//   - Exactly once: walks by NextOffset, by page number
//     ([bounded.Limits.FromPageNumber]), by hints alone
//     ([bounded.Call.Next]) and with [bounded.All] each return the whole
//     answer, every item once, in order; Total, HasMore and NextOffset are
//     exact on every page.
//   - Edges: empty answers, one item, exactly one page, offsets at and far
//     past the end, ties on every sort key, notes of 10,000+ lines read
//     through line windows, CRLF, non-ASCII text.
//   - Bad input is named: invalid pages ([bounded.ErrInvalidPage]), garbage
//     cursors ([bounded.ErrInvalidCursor]), invalid queries
//     ([ports.ErrInvalidQuery]), missing ids ([ports.ErrNotFound]), invalid
//     items and times outside [ports.MinTime, ports.MaxTime]
//     ([ports.ErrInvalidItem], with nothing stored); LIKE wildcards,
//     quotes and backslashes match literally.
//   - Properties: random data sets (ties, items written twice or replaced,
//     Unicode), walked with random page sizes and fitted into random
//     budgets by following the fitted next calls: no item skipped or
//     repeated, never over budget (see [PropertySeedsEnv] for longer
//     runs).
//   - Cursors: every paged method rejects cursors it did not issue with
//     [bounded.ErrInvalidCursor]. With [Harness.Cursors], cursors forged
//     with keys no item can have (NULL, NUL bytes, invalid UTF-8, NaN,
//     scores off the method's grid, integers out of range) are refused as
//     memrepo refuses them, walks by
//     NextCursor equal memrepo's cursor walks page by page and the offset
//     walk item by item, walks back by PrevCursor return the same pages,
//     every page's [bounded.Paged.CursorAt] (the cursor a budget's cut
//     continues by) leads to memrepo's page after the items it is given,
//     a cursor replayed on another method is rejected, and walks stay
//     exact while items are inserted and deleted between pages, by
//     NextCursor and by CursorAt of pages cut as a budget cuts them.
//   - Batches: ParentsOf, DescendantsOf and NoteHeads answer as memrepo
//     does for every cap (perNote 0 to [ports.MaxBatchPerNote], a note
//     with more children than the cap) and depth, ids in any order, with
//     duplicates and missing ids; bad ids, caps and depths are
//     [ports.ErrInvalidQuery].
//   - Hierarchy: folders are nodes; Children, Parents and Descendants of
//     folders (nested, with an index note, named as a parent) answer as
//     memrepo does.
//   - Names: ResolveNotes answers as memrepo does for every note and
//     folder by its ID, its ID in other case, its last element and
//     longer paths; for names several nodes share (in other case, at one
//     depth, more than [ports.MaxCandidates]); before and after writes.
//   - Counts: every method under each count strategy (exact, capped
//     under, at and over the total, none) answers as memrepo does.
//
// Subtests are named after the port, the method and the property, e.g.
// "Notes/Backlinks/pagesize=7" or "Knowledge/SearchNodes/fuzzy/exactly-once/hint",
// so `go test -run 'TestConformance/Notes/Backlinks'` reruns one method. A
// failure names the call (arguments and page) and prints the difference
// from memrepo as a go-cmp diff (-memrepo +store).
//
// A deep run makes about 13,910 read calls and 2,350 write calls to the
// store under test, the same on every run: the fixtures are generated from
// fixed seeds. The default run makes fewer reads.
//
// The suite is itself tested against deliberately broken stores (that skip
// or repeat an item between pages, miscount a total, break ties otherwise,
// treat LIKE wildcards as wildcards, ignore the maximum, never stop saying
// more items follow, or issue CursorAt one item late or early), each of
// which it must catch.
package conformance

import (
	"testing"

	"github.com/boundedkit/bounded/ports"
)

// Store is the store under test, as a harness opens it: one value per port.
// Any port may be nil; the tests of a nil port are skipped with a message
// naming it.
type Store struct {
	Notes     ports.Notes
	Knowledge ports.Knowledge
	History   ports.History
	Code      ports.Code
}

// Harness describes the store under test to [Run].
type Harness struct {
	// Name names the store in failure messages, e.g. "sqlite".
	Name string

	// New opens a new, empty store, with the TB of the subtest it is for:
	// register the store's cleanup with t.Cleanup, and end the test with
	// t.Fatalf if the store cannot be opened. It is called by each port's
	// subtest ("Notes", ...), whose store holds the port's main fixture
	// and is shared by the read-only subtests of its methods, and by every
	// subtest that loads data of its own (edges, writes).
	New func(t TB) Store

	// Cursors declares that the store's paged methods issue and accept
	// NextCursor and PrevCursor, and set Paged.CursorAt on every page with
	// items. Tests of cursor walks are skipped, with a message naming the
	// capability, when it is false (and the pages' cursor fields and
	// CursorAt are not compared); with it, cursor values are the store's
	// own and are compared with memrepo's by presence only (CursorAt too),
	// and the pages they lead to are compared in full.
	Cursors bool
}

// Run runs the conformance suite against the stores h opens, as subtests
// of t named after each port ("Notes", "Knowledge", "History", "Code").
func Run(t *testing.T, h Harness) {
	t.Helper()
	run(testingT{t}, h)
}

// run is Run on any TB: the suite's own tests run it on a recorder.
func run(t TB, h Harness) {
	t.Helper()
	if h.New == nil {
		t.Fatalf("conformance: Harness.New is nil")
	}
	s := newSuite(h)
	s.runPort(t, notesPort, fixture{notes: Notes(Seed)}, s.notesTests)
	s.runPort(t, knowledgePort, fixture{entities: Entities(Seed)}, s.knowledgeTests)
	s.runPort(t, historyPort, fixture{runs: Runs(Seed)}, s.historyTests)
	s.runPort(t, codePort, fixture{chunks: Chunks(Seed)}, s.codeTests)
	s.runProperties(t)
	s.runCursorChecks(t)
	s.runCursorWrites(t)
	s.runTimeChecks(t)
}
