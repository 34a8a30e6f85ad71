package bounded_test

import (
	"errors"
	"fmt"
	"slices"

	"github.com/boundedkit/bounded"
)

// A store writes the position after the last note of a page, (updated, id),
// as an opaque cursor for the query it answered, and reads it back.
func ExampleCursorCodec_Encode() {
	var codec bounded.CursorCodec // unsigned: a checksum only
	scope := `notes.search tag="rust"`
	s, err := codec.Encode(scope, bounded.Cursor{Offset: 20, Keys: []any{"2024-05-01", int64(417)}})
	if err != nil {
		panic(err)
	}
	cur, err := codec.Decode(scope, s)
	fmt.Printf("%+v %v\n", cur, err)

	_, err = codec.Encode(scope, bounded.Cursor{Keys: []any{[]byte("id")}})
	fmt.Println(err)
	// Output:
	// {Backward:false Offset:20 Keys:[2024-05-01 417]} <nil>
	// bounded: invalid cursor: key 0 has type []uint8
}

// With a Key, a store accepts only the cursors it signed, and only for the
// query it issued them for.
func ExampleCursorCodec_Decode() {
	codec := bounded.CursorCodec{Key: []byte("a secret shared by every replica")}
	rust := `notes.search tag="rust"`
	s, _ := codec.Encode(rust, bounded.Cursor{Offset: 20, Keys: []any{"2024-05-01", int64(417)}})

	cur, err := codec.Decode(rust, s)
	fmt.Println(cur.Offset, cur.Keys, err)

	// The same cursor replayed on another query is refused.
	_, err = codec.Decode(`notes.search tag="go"`, s)
	fmt.Println(errors.Is(err, bounded.ErrInvalidCursor), errors.Is(err, bounded.ErrCursorForeign))
	fmt.Println(err)

	// So is one signed with another key, or not at all.
	forged, _ := bounded.CursorCodec{Key: []byte("guessed")}.Encode(rust, bounded.Cursor{Offset: 900, Keys: []any{"2020-01-01", int64(1)}})
	_, err = codec.Decode(rust, forged)
	fmt.Println(errors.Is(err, bounded.ErrCursorTampered))
	unsigned, _ := bounded.CursorCodec{}.Encode(rust, bounded.Cursor{Offset: 900, Keys: []any{"2020-01-01", int64(1)}})
	_, err = codec.Decode(rust, unsigned)
	fmt.Println(err)
	// Output:
	// 20 [2024-05-01 417] <nil>
	// true true
	// bounded: invalid cursor: bounded: cursor belongs to another query
	// true
	// bounded: invalid cursor: bounded: cursor checksum or signature mismatch: the cursor is not signed
}

// A method that accepts cursors validates the page and decodes its cursor in
// one call: the request starts after the cursor's keys.
func ExampleLimits_NormalizeCursor() {
	limits := bounded.Limits{Default: 20, Max: 100}
	codec := bounded.CursorCodec{}
	scope := `tasks.list project="apollo"`
	next, _ := codec.Encode(scope, bounded.Cursor{Offset: 20, Keys: []any{int64(3), int64(1042)}})

	r, err := limits.NormalizeCursor(bounded.Page{Cursor: next}, codec, scope)
	fmt.Println(r.Limit, r.Offset, r.At.Keys, r.Backward(), err)

	// A request without a cursor is Normalize's.
	r, _ = limits.NormalizeCursor(bounded.Page{Limit: 5}, codec, scope)
	fmt.Println(r.Limit, r.Offset, r.At == nil)

	// A cursor is a position already: an offset with it is refused.
	_, err = limits.NormalizeCursor(bounded.Page{Cursor: next, Offset: 40}, codec, scope)
	fmt.Println(err)
	// Output:
	// 20 20 [3 1042] false <nil>
	// 5 0 true
	// bounded: invalid cursor: a cursor excludes an offset (offset 40 given)
}

// Search results ordered by score, highest first, then by id: the id breaks
// ties, and a result without a score (nil) comes last.
func ExampleCompareKeys() {
	results := [][]any{
		{0.75, "note-03"},
		{nil, "note-01"},
		{0.92, "note-20"},
		{0.92, "note-17"},
	}
	desc := []bool{true, false} // score descending, id ascending
	slices.SortFunc(results, func(a, b []any) int { return bounded.CompareKeys(a, b, desc) })
	for _, r := range results {
		fmt.Println(r...)
	}
	fmt.Println(bounded.CompareKeys([]any{0.75, "note-03"}, []any{0.92, "note-17"}, desc))
	// Output:
	// 0.92 note-17
	// 0.92 note-20
	// 0.75 note-03
	// <nil> note-01
	// 1
}

// A store hands Fit the cursor after any prefix of its page, so that a page
// cut by a budget continues by cursor right after the last note kept.
func ExampleCursorsAt() {
	type note struct {
		ID    int64
		Title string
	}
	page := []note{{101, "Grocery list"}, {102, "Über den Wolken"}, {107, "日本語のメモ"}, {110, "Trip plan"}}
	codec := bounded.CursorCodec{}
	scope := "notes.list"
	cursorAt := bounded.CursorsAt(codec, scope, 40, page, func(n note) []any { return []any{n.ID} })

	s, _ := cursorAt(2) // after "Über den Wolken"
	cur, _ := codec.Decode(scope, s)
	fmt.Printf("%+v\n", cur)

	_, err := cursorAt(5)
	fmt.Println(err)
	// Output:
	// {Backward:false Offset:42 Keys:[102]}
	// bounded: invalid page: cursor after 5 items of a page of 4
}
