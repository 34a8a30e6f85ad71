package conformance

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/ports"
)

// The forged-key checks: a caller can compute an unsigned cursor for any
// keys (the checksum is public), so every key of a cursor is validated
// before any query, alike everywhere. For each paged method, cursors are
// forged with [driver.Codec] (no key) for memrepo's scope of the
// query, holding the keys of a real item with one key replaced: by NULL,
// by a value of another type, by strings with NUL bytes or invalid UTF-8,
// by NaN and infinities, by integers at and past the ends of their range,
// by scores off the grid the method computes, and with a key too few or
// too many. Each is read forward and backward, on the store and on
// memrepo: both must refuse it with [bounded.ErrInvalidCursor] or both
// return the same page. NULL, other types, NUL bytes, invalid UTF-8, NaN,
// infinities and a wrong number of keys must be refused.
//
// A store that refuses a forged cursor holding a real item's keys (it
// signs its cursors, or encodes them its own way) cannot be reached by
// forged keys: the checks are skipped. Subtests are named
// "Cursors/keys/<method>".

// forgedKey is one replacement of one key of a real item's keys.
type forgedKey struct {
	name string
	keys []any
	// refuse: every store must refuse the cursor.
	refuse bool
}

// forgedKeys returns the forgeries of keys, the keys of a real item.
func forgedKeys(keys []any) []forgedKey {
	var out []forgedKey
	with := func(i int, name string, v any, refuse bool) {
		k := append([]any(nil), keys...)
		k[i] = v
		out = append(out, forgedKey{fmt.Sprintf("key %d replaced by %s", i, name), k, refuse})
	}
	for i, k := range keys {
		with(i, "NULL", nil, true)
		with(i, "true", true, true)
		switch k := k.(type) {
		case string:
			with(i, "an integer", int64(1), true)
			with(i, "a float", 0.5, true)
			with(i, "itself and NUL", k+"\x00", true)
			with(i, "NUL", "\x00", true)
			with(i, "itself and an invalid byte", k+"\xff", true)
			with(i, "a lone lead byte", "\xc3", true)
			with(i, "the empty string", "", false)
			with(i, "itself and ~", k+"~", false)
		case int64:
			with(i, "a string", "1", true)
			with(i, "a float", float64(k), true)
			for _, v := range []int64{math.MinInt64, math.MaxInt64, -1, 0, k - 1, k + 1, ports.MinTime.UnixMicro() - 1, ports.MaxTime.UnixMicro() + 1} {
				with(i, fmt.Sprint(v), v, false)
			}
		case float64:
			with(i, "a string", "0.5", true)
			with(i, "an integer", int64(1), true)
			with(i, "NaN", math.NaN(), true)
			with(i, "+Inf", math.Inf(1), true)
			with(i, "-Inf", math.Inf(-1), true)
			for _, v := range []float64{0, 1, math.Nextafter(1, 2), -k, 0.55, math.Nextafter(k, 2), float64(math.Nextafter32(float32(k), 2))} {
				with(i, fmt.Sprint(v), v, false)
			}
		}
	}
	out = append(out, forgedKey{"a key too few", keys[:len(keys)-1], true}, forgedKey{"a key too many", append(append([]any(nil), keys...), "x"), true})
	return out
}

// checkForgedKeys runs the forged-key checks of p on st and ref, which
// hold cursorFixture.
func (s *suite) checkForgedKeys(t TB, p cursorProbe, st, ref Store) {
	ctx := t.Context()
	first, _, err := p.fetch(ctx, ref, bounded.Page{Limit: 2})
	if err != nil || len(first) == 0 {
		t.Fatalf("memrepo: %s(limit 2): %d items, %v; want 1 at least (a bug of the suite)", p.name, len(first), err)
	}
	n := len(first)
	item := first[n-1]
	// cursor forges the cursor of keys as if they were item's: forward, it
	// stands for the items after item; backward, for those before it.
	cursor := func(keys []any, backward bool) string {
		off := n
		if backward {
			off = n - 1
		}
		c, err := driver.Codec{}.Encode(p.scope, driver.Cursor{Backward: backward, Offset: off, Keys: keys})
		if err != nil {
			t.Fatalf("forge a cursor of %s: %v", keysString(keys), err)
		}
		return c
	}
	control := bounded.Page{Limit: 2, Cursor: cursor(item, false)}
	if _, _, err := p.fetch(ctx, ref, control); err != nil {
		t.Fatalf("memrepo refuses a cursor forged for %s with the keys of a real item %s: %v (a bug of the suite or of memrepo)", p.name, keysString(item), err)
	}
	if _, _, err := p.fetch(ctx, st, control); err != nil {
		t.Skipf("%s: %s refuses a cursor forged (unsigned, memrepo's scope) with the keys of a real item %s: %v; its cursors are signed or its own, and forged keys cannot reach it: skipping",
			s.store(), p.name, keysString(item), err)
	}
	for _, f := range append([]forgedKey{{name: "an item's own keys"}}, forgedKeys(item)...) {
		keys := f.keys
		if keys == nil {
			keys = item
		}
		for _, backward := range []bool{false, true} {
			if backward && f.refuse {
				continue // refused before its direction matters
			}
			page := bounded.Page{Limit: 2, Cursor: cursor(keys, backward)}
			at := fmt.Sprintf("%s(cursor of keys %s: %s, backward %v)", p.name, keysString(keys), f.name, backward)
			wk, wi, werr := p.fetch(ctx, ref, page)
			gk, gi, gerr := p.fetch(ctx, st, page)
			if errors.Is(werr, driver.ErrCursorForeign) || errors.Is(werr, driver.ErrCursorTampered) {
				t.Fatalf("memrepo: %s: %v (a bug of the suite: the forged cursor does not fit the query)", at, werr)
			}
			if f.refuse && !errors.Is(werr, bounded.ErrInvalidCursor) {
				t.Fatalf("memrepo: %s: %d items, %v; want an error wrapping %q (a bug of the suite or of memrepo)", at, len(wk), werr, bounded.ErrInvalidCursor)
			}
			if f.refuse && gerr == nil {
				t.Errorf("%s: accepted and returned %d items; want an error wrapping %q", at, len(gk), bounded.ErrInvalidCursor)
				continue
			}
			if !sameErr(t, at, werr, gerr) || werr != nil {
				continue
			}
			if d := cmp.Diff(wk, gk); d != "" {
				t.Errorf("%s: the items' keys differ from memrepo's (-memrepo +%s):\n%s", at, s.store(), d)
			}
			if d := s.diff(wi, gi); d != "" {
				t.Errorf("%s: page info differs from memrepo's (-memrepo +%s):\n%s", at, s.store(), d)
			}
		}
	}
}

// keysString writes keys for a message, strings quoted.
func keysString(keys []any) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		if s, ok := k.(string); ok {
			b.WriteString(strconv.Quote(s))
		} else {
			fmt.Fprint(&b, k)
		}
	}
	b.WriteByte(']')
	return b.String()
}
