package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

// The regression tests of this file hold, on memrepo, SQLite and Postgres,
// that no response loses data or strands it: a call that came by cursor
// continues by cursor, a note's text is never advanced past unseen, every
// character of a line longer than any budget is reachable, and a budget at
// the documented minimum answers.

func putNote(t *testing.T, s store, n ports.Note) {
	t.Helper()
	if n.CreatedAt.IsZero() {
		n.CreatedAt = base
	}
	if n.UpdatedAt.IsZero() {
		n.UpdatedAt = base
	}
	if err := s.PutNote(context.Background(), n); err != nil {
		t.Fatal(err)
	}
}

func noteSet(t *testing.T, s store, b bounded.Budget) *tools.Set {
	t.Helper()
	if b == (bounded.Budget{}) {
		b = quiet
	}
	set, err := tools.New(tools.Config{Notes: s, Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// nextArgs is the JSON arguments of the call after env, a response to a
// call with args: the arguments next keeps (nextKeeps) as they were, then
// next.
func nextArgs(t testing.TB, env envelope, args string) string {
	t.Helper()
	if len(env.NextKeeps) == 0 {
		return string(env.Next)
	}
	var out bounded.Args
	for _, a := range orderedArgs(t, json.RawMessage(args)) {
		if slices.Contains(env.NextKeeps, a.Name) {
			out = append(out, a)
		}
	}
	out = append(out, orderedArgs(t, env.Next)...)
	b, err := out.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCursorCallContinuesByCursor: under OffsetHints, a call made with a
// cursor after earlier notes were deleted continues by cursor: the walk
// sees every note that existed throughout exactly once. Its hints state
// the positions of the cursor's issue, never one past the total.
func TestCursorCallContinuesByCursor(t *testing.T) {
	for _, st := range adapterStores {
		t.Run(st.name, func(t *testing.T) {
			s := st.open(t)
			for i := range 30 {
				putNote(t, s, ports.Note{ID: fmt.Sprintf("n/%02d", i), Title: fmt.Sprintf("Note %d", i), UpdatedAt: base.Add(-time.Duration(i) * time.Hour)})
			}
			set, err := tools.New(tools.Config{Notes: s, Budget: quiet, OffsetHints: true})
			if err != nil {
				t.Fatal(err)
			}
			first, _ := call(t, set, "list_notes", `{"limit":10}`)
			seen := map[string]int{}
			for _, id := range keys(t, first) {
				seen[id]++
			}
			for i := range 6 { // six notes of the first page go
				if err := s.DeleteNote(context.Background(), fmt.Sprintf("n/%02d", i)); err != nil {
					t.Fatal(err)
				}
			}
			args := fmt.Sprintf(`{"limit":10,"cursor":%q}`, first.Pagination.NextCursor)
			for calls := 0; args != ""; calls++ {
				if calls > 10 {
					t.Fatal("no end after 10 calls")
				}
				env, _ := call(t, set, "list_notes", args)
				for _, id := range keys(t, env) {
					seen[id]++
				}
				var from, to int
				if _, err := fmt.Sscanf(env.Hint[strings.Index(env.Hint, "showing ")+len("showing "):], "%d-%d", &from, &to); err == nil && to > env.Pagination.Total {
					t.Errorf("%s: hint %q states positions past the total %d", args, env.Hint, env.Pagination.Total)
				}
				if !env.Pagination.HasMore && !strings.Contains(env.Hint, "after the cursor") {
					t.Errorf("%s: hint %q; want the last page, whose positions the deletes made stale, stated after the cursor", args, env.Hint)
				}
				if env.Next == nil {
					break
				}
				next := orderedArgs(t, env.Next)
				if _, ok := next.Get("offset"); ok {
					t.Fatalf("%s: a call by cursor continues by offset: next %s", args, env.Next)
				}
				args = nextArgs(t, env, args)
			}
			for i := range 30 {
				id := fmt.Sprintf("n/%02d", i)
				if seen[id] != 1 {
					t.Errorf("%s seen %d times, want once", id, seen[id])
				}
			}
		})
	}
}

// readNote follows next from args to the end and returns the text
// read, checking every response against the budget and that each one
// returns something of the note.
func readNote(t *testing.T, set *tools.Set, args string, budget int) string {
	t.Helper()
	var text strings.Builder
	for calls := 0; ; calls++ {
		if calls > 400 {
			t.Fatalf("%s: no end after 400 calls", args)
		}
		env, out := call(t, set, "get_note", args)
		if n := utf8.RuneCount(out); budget > 0 && n > budget {
			t.Fatalf("%s: %d characters, over the budget %d", args, n, budget)
		}
		if len(env.Results) != 1 {
			t.Fatalf("%s: %d results: %s", args, len(env.Results), out)
		}
		var n struct {
			Content     *string
			ContentClip *bounded.ClipInfo
			NextLines   json.RawMessage
		}
		if err := json.Unmarshal(env.Results[0], &n); err != nil {
			t.Fatal(err)
		}
		if n.Content == nil {
			t.Fatalf("%s: no content: %s", args, out)
		}
		got := *n.Content
		if n.ContentClip != nil {
			i := strings.LastIndex(got, "…[truncated ")
			if i < 0 {
				t.Fatalf("%s: a clip without its marker: %q", args, got)
			}
			got = got[:i]
		}
		if got == "" {
			t.Fatalf("%s: a response with none of the note's text: %s", args, out)
		}
		text.WriteString(got)
		// The envelope says so too: a clip truncates, and the call that
		// reads on is its next call, which the hint names.
		if n.ContentClip != nil && n.ContentClip.Clipped && !env.Truncated {
			t.Fatalf("%s: the text is clipped but truncated is false: %s", args, out)
		}
		if n.NextLines != nil {
			t.Fatalf("%s: nextLines %s in the note: want it as the envelope's next", args, n.NextLines)
		}
		if env.Next == nil {
			return text.String()
		}
		// The hint gives way to the text under small budgets only.
		if (env.Hint != "" || budget == 0 || budget >= 4*tools.MinBudget) && !strings.Contains(env.Hint, "get_note(") {
			t.Fatalf("%s: the hint %q does not name the next call", args, env.Hint)
		}
		args = string(env.Next)
	}
}

// TestNoteTextNeverSkipped: a long title and a hierarchy context give way
// to the text, which is read from its first line to its last.
func TestNoteTextNeverSkipped(t *testing.T) {
	for _, st := range adapterStores {
		t.Run(st.name, func(t *testing.T) {
			s := st.open(t)
			putNote(t, s, ports.Note{ID: "long-title", Title: strings.Repeat("Überschrift ", 334)[:4000], Content: "line 0\nline 1\nline 2\n"})
			var lines []string
			for i := range 30 {
				lines = append(lines, fmt.Sprintf("line %d of the parent, with some words", i))
			}
			parent := strings.Join(lines, "\n") + "\n"
			putNote(t, s, ports.Note{ID: "parent", Title: "Parent", Content: parent})
			for i := range 12 {
				putNote(t, s, ports.Note{ID: fmt.Sprintf("parent/child-%02d", i), Title: fmt.Sprintf("Child %d", i),
					Content: strings.Repeat("child text ", 40), Parents: []string{"parent"}})
			}
			for _, c := range []struct {
				id, want string
				budget   int
			}{
				{"long-title", "line 0\nline 1\nline 2\n", 4000},
				{"long-title", "line 0\nline 1\nline 2\n", tools.MinBudget},
				{"parent", parent, 2500},
				{"parent", parent, tools.MinBudget},
			} {
				set := noteSet(t, s, bounded.Budget{})
				got := readNote(t, set, fmt.Sprintf(`{"id":%q,"budget":%d}`, c.id, c.budget), c.budget)
				if got != c.want {
					t.Errorf("%s at budget %d: read %q, want %q", c.id, c.budget, got, c.want)
				}
			}
		})
	}
}

// TestLongLineReachable: every character of a line of 65,316 characters
// is read, by charOffset, under the default budget and a small one.
func TestLongLineReachable(t *testing.T) {
	for _, st := range adapterStores {
		t.Run(st.name, func(t *testing.T) {
			s := st.open(t)
			var b strings.Builder
			for i := range 7 {
				fmt.Fprintf(&b, "line %d\n", i)
			}
			long := strings.Repeat("日本語のテキストと\"引用\" ", 65316/15+1)[:0]
			for utf8.RuneCountInString(long) < 65316 {
				long += "日本語のテキストと\"引用\" and ASCII "
			}
			long = string([]rune(long)[:65316])
			b.WriteString(long + "\nline 8\n")
			putNote(t, s, ports.Note{ID: "wide", Title: "Wide", Content: b.String()})
			set := noteSet(t, s, bounded.Budget{})
			for _, budget := range []int{0, 3000} {
				args := `{"id":"wide"}`
				if budget > 0 {
					args = fmt.Sprintf(`{"id":"wide","budget":%d}`, budget)
				}
				if got := readNote(t, set, args, budget); got != b.String() {
					t.Errorf("budget %d: read %d characters, want the note's %d", budget, utf8.RuneCountInString(got), utf8.RuneCountInString(b.String()))
				}
			}
		})
	}
}

// TestMinimumBudgetAnswers: at the documented minimum budget, a listing
// answers every call. Continued by offset, notes with ids of ~150 bytes
// and a note with ten children come back whole, one a call (cursors the
// next call does not use and the hierarchy context give way first),
// walking to the end. Continued by cursor, such a note's keys are in the
// response twice (nextCursor and next): the first call names the budget
// it needs, and with it goes on by cursor. A note
// whose id of ~1,000 bytes does not fit even clipped answers without
// failing: no result, the budget it needs, the page going on at the same
// note and no next call; with the budget it names, the note comes back.
func TestMinimumBudgetAnswers(t *testing.T) {
	for _, st := range adapterStores {
		t.Run(st.name, func(t *testing.T) {
			s := st.open(t)
			mid := strings.Repeat("lång-ïd/", 19)
			var want []string
			for i := range 3 {
				id := fmt.Sprintf("%s%02d", mid, i)
				putNote(t, s, ports.Note{ID: id, Title: "L", Content: "x", UpdatedAt: base.Add(time.Duration(i) * time.Hour)})
				want = append([]string{id}, want...)
			}
			putNote(t, s, ports.Note{ID: "top", Title: "Top", Content: "top text", UpdatedAt: base.Add(-time.Hour)})
			want = append(want, "top")
			for i := range 10 {
				putNote(t, s, ports.Note{ID: fmt.Sprintf("top/child-%02d", i), Title: fmt.Sprintf("Child %d", i),
					Content: strings.Repeat("child text ", 40), Parents: []string{"top"}, UpdatedAt: base.Add(-2 * time.Hour)})
			}
			byCursor := noteSet(t, s, bounded.Budget{})
			first, _ := call(t, byCursor, "list_notes", fmt.Sprintf(`{"limit":1,"budget":%d}`, tools.MinBudget))
			if tr := first.Truncation; tr.Reason != bounded.ReasonBudgetTooSmall || tr.NeededChars <= tools.MinBudget {
				t.Fatalf("by cursor: truncation %+v: want the budget needed", tr)
			} else if env, _ := call(t, byCursor, "list_notes", fmt.Sprintf(`{"limit":1,"budget":%d}`, tr.NeededChars)); len(env.Results) != 1 || env.Pagination.NextCursor == "" || !strings.Contains(string(env.Next), `"cursor":`) {
				t.Errorf("by cursor, with the %d characters needed: %d results, next %s; want one, continued by cursor", tr.NeededChars, len(env.Results), env.Next)
			}
			set, err := tools.New(tools.Config{Notes: s, Budget: quiet, OffsetHints: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			args := fmt.Sprintf(`{"limit":1,"budget":%d}`, tools.MinBudget)
			for calls := 0; len(got) < len(want); calls++ {
				if calls > 20 {
					t.Fatal("no end after 20 calls")
				}
				env, out := call(t, set, "list_notes", args)
				if n := utf8.RuneCount(out); n > tools.MinBudget {
					t.Fatalf("%s: %d characters, over the budget", args, n)
				}
				if len(env.Results) != 1 || env.Truncation.Reason != "" {
					t.Fatalf("%s: %d results, truncation %+v: want one note whole: %s", args, len(env.Results), env.Truncation, out)
				}
				got = append(got, keys(t, env)...)
				args = nextArgs(t, env, args)
			}
			if !slices.Equal(got, want) {
				t.Errorf("walked %q, want %q", got, want)
			}

			long := strings.Repeat("lång-ïd/", 100)
			putNote(t, s, ports.Note{ID: long + "x", Title: "L", Content: "x"})
			args = fmt.Sprintf(`{"folder":"lång-ïd/lång-ïd/lång-ïd/lång-ïd/lång-ïd/lång-ïd/lång-ïd/lång-ïd/lång-ïd/lång-ïd/lång-ïd/lång-ïd/lång-ïd/lång-ïd/lång-ïd/lång-ïd/lång-ïd/lång-ïd/lång-ïd/lång-ïd","limit":1,"budget":%d}`, tools.MinBudget)
			env, out := call(t, set, "list_notes", args)
			if n := utf8.RuneCount(out); n > tools.MinBudget {
				t.Fatalf("%d characters, over the budget", n)
			}
			tr := env.Truncation
			if len(env.Results) != 0 || tr.Reason != bounded.ReasonBudgetTooSmall || tr.NeededChars <= tools.MinBudget || !env.Pagination.HasMore || !strings.Contains(env.Hint, "larger budget") {
				t.Fatalf("%d results, truncation %+v, hint %q: want none and the budget needed", len(env.Results), tr, env.Hint)
			}
			if env.Next != nil || env.Pagination.NextOffset != 0 {
				t.Errorf("next %s, nextOffset %d: want no next call (the same call answers the same) and the page going on at the same note", env.Next, env.Pagination.NextOffset)
			}
			more, _ := call(t, set, "list_notes", strings.Replace(args, fmt.Sprint(tools.MinBudget), fmt.Sprint(tr.NeededChars), 1))
			if len(more.Results) != 1 {
				t.Errorf("with the %d characters needed: %d results, want 1", tr.NeededChars, len(more.Results))
			}
		})
	}
}

// TestCursorErrorSaysWhatToDo: a cursor the store refuses is an argument
// error on cursor that says how to go on, and still matches the cause.
func TestCursorErrorSaysWhatToDo(t *testing.T) {
	s := fixtures(t)
	set := noteSet(t, s, bounded.Budget{})
	first, _ := call(t, set, "get_backlinks", `{"id":"Home","limit":1}`)
	for _, c := range []struct {
		tool, args string
		is         error
	}{
		{"list_notes", `{"cursor":"garbage!"}`, bounded.ErrInvalidCursor},
		{"list_notes", `{"cursor":"gAAAAAAAAAAAAAAAAAAAAAAAA"}`, bounded.ErrInvalidCursor},
		{"list_notes", fmt.Sprintf(`{"cursor":%q}`, first.Pagination.NextCursor), driver.ErrCursorForeign},
		{"get_backlinks", fmt.Sprintf(`{"id":"Inbox","cursor":%q}`, first.Pagination.NextCursor), driver.ErrCursorForeign},
	} {
		_, err := set.Call(context.Background(), c.tool, json.RawMessage(c.args))
		var ae *tools.ArgumentError
		if !errors.As(err, &ae) || ae.Argument != "cursor" || !errors.Is(err, c.is) || !errors.Is(err, tools.ErrInvalidArguments) || !strings.Contains(err.Error(), "omit cursor to start") {
			t.Errorf("%s(%s): %v; want an argument error on cursor matching %v that says to omit it", c.tool, c.args, err, c.is)
		}
	}
}

// TestGetNotesMinimumBudget: get_notes with 100 ids answers at the
// documented minimum budget: its next does not repeat the ids (nextKeeps
// says to pass them again), and following it reads every note once.
func TestGetNotesMinimumBudget(t *testing.T) {
	for _, st := range adapterStores {
		t.Run(st.name, func(t *testing.T) {
			s := st.open(t)
			var ids, quoted []string
			for i := range 100 {
				id := fmt.Sprintf("projects/notes-%03d", i)
				ids = append(ids, id)
				quoted = append(quoted, strconv.Quote(id))
				putNote(t, s, ports.Note{ID: id, Title: "T", Content: "line\n"})
			}
			set := noteSet(t, s, bounded.Budget{})
			args := fmt.Sprintf(`{"ids":[%s],"maxLines":1,"budget":%d}`, strings.Join(quoted, ","), tools.MinBudget)
			var got []string
			for calls := 0; ; calls++ {
				if calls > 200 {
					t.Fatal("no end after 200 calls")
				}
				env, out := call(t, set, "get_notes", args)
				if n := utf8.RuneCount(out); n > tools.MinBudget {
					t.Fatalf("%d characters, over the budget", n)
				}
				if len(env.Results) == 0 {
					t.Fatalf("no result: %s", out)
				}
				got = append(got, keys(t, env)...)
				if env.Next == nil {
					break
				}
				if !slices.Equal(env.NextKeeps, []string{"ids"}) || strings.Contains(string(env.Next), "notes-0") {
					t.Fatalf("next %s, nextKeeps %v: want the ids kept, not repeated", env.Next, env.NextKeeps)
				}
				args = nextArgs(t, env, args)
			}
			if !slices.Equal(got, ids) {
				t.Errorf("read %d notes %v, want the 100 in order", len(got), got)
			}
		})
	}
}
