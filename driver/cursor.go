package driver

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// Cursor is the position a cursor string carries, which a store reads in
// [Request.At].
type Cursor struct {
	// Backward reports that the cursor reads the items before Keys, not
	// after.
	Backward bool
	// Offset is the 0-based position of the first item after Keys, or for
	// a backward cursor of the item with Keys; it is reported, never used
	// to skip items, and stale after writes.
	Offset int
	// Keys are the edge item's sort keys, ending with its unique id: each
	// nil, bool, int64 (int decodes as int64), float64 or string.
	Keys []any
}

// Version is the version byte of the cursors [Codec] writes.
const Version = 1

// MaxCursorBytes is the longest cursor string [Codec.Decode] reads.
const MaxCursorBytes = 64 << 10

// Why [Codec.Decode] refused a cursor, wrapped with [ErrInvalidCursor].
var (
	// ErrCursorTampered: the cursor's checksum or signature does not match
	// its contents: it was altered, truncated, or signed with another key.
	ErrCursorTampered = errors.New("bounded: cursor checksum or signature mismatch")
	// ErrCursorForeign: the cursor was issued for another method or query
	// (another tool, other arguments, another filter).
	ErrCursorForeign = errors.New("bounded: cursor belongs to another query")
	// ErrCursorExpired: the cursor's [Codec.TTL] ran out, or its key is
	// neither Key nor in Previous (then it is [ErrCursorTampered] too).
	// The caller starts again without it.
	ErrCursorExpired = errors.New("bounded: cursor expired")
)

// ErrCursorTooLong is [Codec.Encode]'s error, wrapped with
// [ErrInvalidCursor], for keys whose cursor would be over
// [MaxCursorBytes]: a page continues without a cursor there.
var ErrCursorTooLong = errors.New("bounded: cursor over MaxCursorBytes")

// Codec encodes and decodes cursors: URL-safe base64, bound to a scope,
// checksummed, and signed with HMAC-SHA256 when Key is set. The zero value
// is ready to use.
//
// The scope names the query: the method and every argument that selects or
// orders the results, not the page. Without a Key, a caller can forge a
// cursor for the same query, never for another; with one, only signed
// cursors decode.
type Codec struct {
	// Key, when set, signs cursors; every instance that accepts them needs
	// it, or has it in Previous.
	Key []byte
	// Previous are earlier keys, which still verify but never sign; to
	// rotate, move the old Key here on every instance. Ignored without Key.
	Previous [][]byte
	// TTL, when positive, makes cursors expire that long after Encode, to
	// the second. A cursor's expiry is checked whatever TTL is.
	TTL time.Duration
	// Now is the clock of TTL; nil means time.Now.
	Now func() time.Time
}

const (
	cursorBackward = 1 << 0
	cursorSigned   = 1 << 1
	cursorExpires  = 1 << 2
	cursorFlags    = cursorBackward | cursorSigned | cursorExpires
)

const (
	keyNil byte = iota
	keyFalse
	keyTrue
	keyInt
	keyFloat
	keyString
)

// scopeHash is the first 8 bytes of SHA-256 of the scope.
func scopeHash(scope string) [8]byte {
	sum := sha256.Sum256([]byte(scope))
	var h [8]byte
	copy(h[:], sum[:8])
	return h
}

// Clone returns a copy of c that shares no key bytes with it.
func (c Codec) Clone() Codec {
	c.Key = append([]byte(nil), c.Key...)
	prev := make([][]byte, len(c.Previous))
	for i, k := range c.Previous {
		prev[i] = append([]byte(nil), k...)
	}
	c.Previous = prev
	return c
}

// unknownKey is the cause of a cursor signed with a key the codec does not
// hold: a retired key, or one that was never the store's. Either way its
// signature cannot be checked, so it is [ErrCursorTampered] too.
type unknownKey struct{}

func (unknownKey) Error() string {
	return "signed with a key this store no longer holds; start again without it"
}

func (unknownKey) Is(target error) bool { return target == ErrCursorTampered }

// tag is the checksum of payload, or its signature under key.
func tag(key, payload []byte) []byte {
	if len(key) > 0 {
		m := hmac.New(sha256.New, key)
		m.Write(payload)
		return m.Sum(nil)[:16]
	}
	sum := sha256.Sum256(payload)
	return sum[:8]
}

// keyID names a signing key in the cursors it signs without revealing it:
// the first 4 bytes of HMAC-SHA256 under the key of a fixed label.
func keyID(key []byte) [4]byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("bounded cursor key id"))
	var id [4]byte
	copy(id[:], m.Sum(nil))
	return id
}

// verifyKey returns the key of c whose id is id.
func (c Codec) verifyKey(id []byte) ([]byte, bool) {
	if k := keyID(c.Key); hmac.Equal(k[:], id) {
		return c.Key, true
	}
	for _, p := range c.Previous {
		if k := keyID(p); len(p) > 0 && hmac.Equal(k[:], id) {
			return p, true
		}
	}
	return nil, false
}

func (c Codec) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Encode returns the cursor string of cur for scope, or an error wrapping
// [ErrInvalidCursor] for a key type it cannot hold, an Offset outside
// [0, MaxOffset], or a cursor over MaxCursorBytes ([ErrCursorTooLong]).
func (c Codec) Encode(scope string, cur Cursor) (string, error) {
	if cur.Offset < 0 || cur.Offset > MaxOffset {
		return "", fmt.Errorf("%w: offset %d is outside [0, %d]", ErrInvalidCursor, cur.Offset, MaxOffset)
	}
	b := make([]byte, 0, 32+16*len(cur.Keys))
	var flags byte
	if cur.Backward {
		flags |= cursorBackward
	}
	if len(c.Key) > 0 {
		flags |= cursorSigned
	}
	if c.TTL > 0 {
		flags |= cursorExpires
	}
	h := scopeHash(scope)
	b = append(b, Version, flags)
	b = append(b, h[:]...)
	if len(c.Key) > 0 {
		id := keyID(c.Key)
		b = append(b, id[:]...)
	}
	if c.TTL > 0 {
		// Rounded up to the second: a cursor lives TTL at least.
		b = binary.AppendUvarint(b, uint64(c.now().Add(c.TTL+time.Second-1).Unix()))
	}
	b = binary.AppendUvarint(b, uint64(cur.Offset))
	b = binary.AppendUvarint(b, uint64(len(cur.Keys)))
	for i, k := range cur.Keys {
		switch v := k.(type) {
		case nil:
			b = append(b, keyNil)
		case bool:
			if v {
				b = append(b, keyTrue)
			} else {
				b = append(b, keyFalse)
			}
		case int64:
			b = append(b, keyInt)
			b = binary.AppendVarint(b, v)
		case int:
			b = append(b, keyInt)
			b = binary.AppendVarint(b, int64(v))
		case float64:
			b = append(b, keyFloat)
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(v))
		case string:
			b = append(b, keyString)
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
		default:
			return "", fmt.Errorf("%w: key %d has type %T; a cursor holds nil, bool, int, int64, float64 or string", ErrInvalidCursor, i, k)
		}
	}
	b = append(b, tag(c.Key, b)...)
	if n := base64.RawURLEncoding.EncodedLen(len(b)); n > MaxCursorBytes {
		return "", fmt.Errorf("%w: %w: %d bytes", ErrInvalidCursor, ErrCursorTooLong, n)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Decode returns the cursor s encodes for scope, accepting only strings
// Encode writes. Its errors wrap [ErrInvalidCursor] and, where they apply,
// [ErrCursorTampered], [ErrCursorExpired] or [ErrCursorForeign].
func (c Codec) Decode(scope, s string) (Cursor, error) {
	if s == "" {
		return Cursor{}, fmt.Errorf("%w: empty", ErrInvalidCursor)
	}
	if len(s) > MaxCursorBytes {
		return Cursor{}, fmt.Errorf("%w: %d bytes, over the maximum %d", ErrInvalidCursor, len(s), MaxCursorBytes)
	}
	for i := 0; i < len(s); i++ {
		if !isCursorByte(s[i]) {
			return Cursor{}, fmt.Errorf("%w: not a cursor: %w", ErrInvalidCursor, base64.CorruptInputError(i))
		}
	}
	// Strict: a string whose unused last bits are set decodes to the bytes
	// of another, and is refused, so that one cursor has one string.
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return Cursor{}, fmt.Errorf("%w: not a cursor: %w", ErrInvalidCursor, err)
	}
	if len(b) < 2 {
		return Cursor{}, fmt.Errorf("%w: too short", ErrInvalidCursor)
	}
	if b[0] != Version {
		return Cursor{}, fmt.Errorf("%w: not a cursor this library issued (version %d, want %d)", ErrInvalidCursor, b[0], Version)
	}
	flags := b[1]
	if flags&^cursorFlags != 0 {
		return Cursor{}, fmt.Errorf("%w: unknown flags %#x", ErrInvalidCursor, flags)
	}
	signed := flags&cursorSigned != 0
	switch {
	case signed && len(c.Key) == 0:
		return Cursor{}, fmt.Errorf("%w: %w: the cursor is signed and this store has no key", ErrInvalidCursor, ErrCursorTampered)
	case !signed && len(c.Key) > 0:
		return Cursor{}, fmt.Errorf("%w: %w: the cursor is not signed", ErrInvalidCursor, ErrCursorTampered)
	}
	tagLen, head := 8, 10
	var key []byte
	if signed {
		tagLen, head = 16, 14
		if len(b) < head+tagLen {
			return Cursor{}, fmt.Errorf("%w: too short", ErrInvalidCursor)
		}
		var ok bool
		if key, ok = c.verifyKey(b[10:14]); !ok {
			return Cursor{}, fmt.Errorf("%w: %w: %w", ErrInvalidCursor, ErrCursorExpired, unknownKey{})
		}
	}
	if len(b) < head+tagLen {
		return Cursor{}, fmt.Errorf("%w: too short", ErrInvalidCursor)
	}
	payload, sum := b[:len(b)-tagLen], b[len(b)-tagLen:]
	if !hmac.Equal(sum, tag(key, payload)) {
		return Cursor{}, fmt.Errorf("%w: %w", ErrInvalidCursor, ErrCursorTampered)
	}
	if h := scopeHash(scope); !hmac.Equal(payload[2:10], h[:]) {
		return Cursor{}, fmt.Errorf("%w: %w", ErrInvalidCursor, ErrCursorForeign)
	}
	cur := Cursor{Backward: flags&cursorBackward != 0}
	r := cursorReader{b: payload[head:]}
	if flags&cursorExpires != 0 {
		exp := r.uvarint()
		if r.err == nil && exp > math.MaxInt64 {
			r.fail("expiry %d out of range", exp)
		}
		if r.err == nil {
			if at := time.Unix(int64(exp), 0); c.now().After(at) {
				return Cursor{}, fmt.Errorf("%w: %w at %s; start again without it", ErrInvalidCursor, ErrCursorExpired, at.UTC().Format(time.RFC3339))
			}
		}
	}
	off := r.uvarint()
	n := r.uvarint()
	if r.err == nil && off > MaxOffset {
		r.fail("offset %d is over the maximum %d", off, uint64(MaxOffset))
	}
	if r.err == nil && n > uint64(len(r.b)) { // each key takes a byte at least
		r.fail("%d keys in %d bytes", n, len(r.b))
	}
	cur.Offset = int(off)
	if r.err == nil && n > 0 {
		cur.Keys = make([]any, 0, n)
	}
	for i := uint64(0); r.err == nil && i < n; i++ {
		cur.Keys = append(cur.Keys, r.key())
	}
	if r.err == nil && len(r.b) > 0 {
		r.fail("%d bytes after the keys", len(r.b))
	}
	if r.err != nil {
		return Cursor{}, fmt.Errorf("%w: %w", ErrInvalidCursor, r.err)
	}
	return cur, nil
}

// isCursorByte reports that c is a character of a cursor string, one of
// the URL-safe base64 alphabet. (The decoder alone would skip CR and LF.)
func isCursorByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// cursorReader reads a cursor's payload, keeping the first error.
type cursorReader struct {
	b   []byte
	err error
}

func (r *cursorReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("malformed: "+format, args...)
	}
}

func (r *cursorReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || !r.minimal(n) {
		r.fail("bad number")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// minimal reports that the varint in the first n bytes of r.b is written
// in as few bytes as [binary.AppendUvarint] writes it: only the one-byte
// form of 0 ends with a zero byte. A longer form of the same number would
// give one cursor another string.
func (r *cursorReader) minimal(n int) bool { return n == 1 || r.b[n-1] != 0 }

func (r *cursorReader) key() any {
	if len(r.b) == 0 {
		r.fail("missing key")
		return nil
	}
	t := r.b[0]
	r.b = r.b[1:]
	switch t {
	case keyNil:
		return nil
	case keyFalse:
		return false
	case keyTrue:
		return true
	case keyInt:
		v, n := binary.Varint(r.b)
		if n <= 0 || !r.minimal(n) {
			r.fail("bad integer key")
			return nil
		}
		r.b = r.b[n:]
		return v
	case keyFloat:
		if len(r.b) < 8 {
			r.fail("short float key")
			return nil
		}
		v := math.Float64frombits(binary.BigEndian.Uint64(r.b))
		r.b = r.b[8:]
		return v
	case keyString:
		n := r.uvarint()
		if r.err != nil {
			return nil
		}
		if n > uint64(len(r.b)) {
			r.fail("string key of %d bytes in %d", n, len(r.b))
			return nil
		}
		v := string(r.b[:n])
		r.b = r.b[n:]
		return v
	default:
		r.fail("unknown key type %d", t)
		return nil
	}
}

// CompareKeys returns -1, 0 or +1 as key tuple a sorts before, with or after
// b; desc[i] reports that key i sorts descending. nil sorts last either way;
// false before true; numbers by value; strings bytewise; keys of different
// kinds by kind; a shorter tuple first.
func CompareKeys(a, b []any, desc []bool) int {
	for i := range min(len(a), len(b)) {
		c := compareKey(a[i], b[i])
		if c == 0 {
			continue
		}
		if a[i] == nil || b[i] == nil {
			return c // NULLS LAST whatever the direction
		}
		if i < len(desc) && desc[i] {
			return -c
		}
		return c
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

func keyRank(k any) int {
	switch k.(type) {
	case bool:
		return 0
	case int64, int, float64:
		return 1
	case string:
		return 2
	case nil:
		return 4
	default:
		return 3
	}
}

func keyFloat64(k any) (float64, int64, bool) {
	switch v := k.(type) {
	case int64:
		return 0, v, true
	case int:
		return 0, int64(v), true
	case float64:
		return v, 0, false
	}
	return 0, 0, false
}

func compareKey(a, b any) int {
	ra, rb := keyRank(a), keyRank(b)
	if ra != rb {
		if ra < rb {
			return -1
		}
		return 1
	}
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case string:
		y := b.(string)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case nil:
		return 0
	}
	fa, ia, aInt := keyFloat64(a)
	fb, ib, bInt := keyFloat64(b)
	if aInt && bInt {
		switch {
		case ia < ib:
			return -1
		case ia > ib:
			return 1
		}
		return 0
	}
	if aInt {
		fa = float64(ia)
	}
	if bInt {
		fb = float64(ib)
	}
	switch {
	case fa < fb:
		return -1
	case fa > fb:
		return 1
	}
	return 0
}
