package driver_test

import (
	"errors"
	"fmt"
	"slices"

	"github.com/boundedkit/bounded/driver"
)

// as an opaque cursor for the query it answered, and reads it back.
func ExampleCodec_Encode() {
	var codec driver.Codec // unsigned: a checksum only
	scope := `notes.search tag="rust"`
	s, err := codec.Encode(scope, driver.Cursor{Offset: 20, Keys: []any{"2024-05-01", int64(417)}})
	if err != nil {
		panic(err)
	}
	cur, err := codec.Decode(scope, s)
	fmt.Printf("%+v %v\n", cur, err)

	_, err = codec.Encode(scope, driver.Cursor{Keys: []any{[]byte("id")}})
	fmt.Println(err)
	// Output:
	// {Backward:false Offset:20 Keys:[2024-05-01 417]} <nil>
	// bounded: invalid cursor: key 0 has type []uint8; a cursor holds nil, bool, int, int64, float64 or string
}

// query it issued them for.
func ExampleCodec_Decode() {
	codec := driver.Codec{Key: []byte("a secret shared by every replica")}
	rust := `notes.search tag="rust"`
	s, _ := codec.Encode(rust, driver.Cursor{Offset: 20, Keys: []any{"2024-05-01", int64(417)}})

	cur, err := codec.Decode(rust, s)
	fmt.Println(cur.Offset, cur.Keys, err)

	// The same cursor replayed on another query is refused.
	_, err = codec.Decode(`notes.search tag="go"`, s)
	fmt.Println(errors.Is(err, driver.ErrInvalidCursor), errors.Is(err, driver.ErrCursorForeign))
	fmt.Println(err)

	// So is one signed with another key, or not at all.
	forged, _ := driver.Codec{Key: []byte("guessed")}.Encode(rust, driver.Cursor{Offset: 900, Keys: []any{"2020-01-01", int64(1)}})
	_, err = codec.Decode(rust, forged)
	fmt.Println(errors.Is(err, driver.ErrCursorTampered))
	unsigned, _ := driver.Codec{}.Encode(rust, driver.Cursor{Offset: 900, Keys: []any{"2020-01-01", int64(1)}})
	_, err = codec.Decode(rust, unsigned)
	fmt.Println(err)
	// Output:
	// 20 [2024-05-01 417] <nil>
	// true true
	// bounded: invalid cursor: bounded: cursor belongs to another query
	// true
	// bounded: invalid cursor: bounded: cursor checksum or signature mismatch: the cursor is not signed
}

// ties, and a result without a score (nil) comes last.
func ExampleCompareKeys() {
	results := [][]any{
		{0.75, "note-03"},
		{nil, "note-01"},
		{0.92, "note-20"},
		{0.92, "note-17"},
	}
	desc := []bool{true, false} // score descending, id ascending
	slices.SortFunc(results, func(a, b []any) int { return driver.CompareKeys(a, b, desc) })
	for _, r := range results {
		fmt.Println(r...)
	}
	fmt.Println(driver.CompareKeys([]any{0.75, "note-03"}, []any{0.92, "note-17"}, desc))
	// Output:
	// 0.92 note-17
	// 0.92 note-20
	// 0.75 note-03
	// <nil> note-01
	// 1
}

// Keys rotate without breaking walks: while every instance signs with the
// new key and keeps the old one in Previous, cursors of either read; once
// the old key is dropped, its cursors have expired.
func ExampleCodec_rotation() {
	oldKey, newKey := []byte("key of May"), []byte("key of June")
	issued, _ := driver.Codec{Key: oldKey}.Encode("q", driver.Cursor{Offset: 20, Keys: []any{"n/20"}})

	during := driver.Codec{Key: newKey, Previous: [][]byte{oldKey}}
	cur, err := during.Decode("q", issued)
	fmt.Println(cur.Offset, err)

	after := driver.Codec{Key: newKey}
	_, err = after.Decode("q", issued)
	fmt.Println(errors.Is(err, driver.ErrCursorExpired))
	fmt.Println(err)
	// Output:
	// 20 <nil>
	// true
	// bounded: invalid cursor: bounded: cursor expired: signed with a key this store no longer holds; start again without it
}
