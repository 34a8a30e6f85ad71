package driver

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestKeyRotation(t *testing.T) {
	oldKey, newKey := []byte("the key of last month"), []byte("the key of this month")
	cur := Cursor{Offset: 40, Keys: []any{int64(7), "n/40"}}
	issued, err := Codec{Key: oldKey}.Encode("q", cur)
	if err != nil {
		t.Fatal(err)
	}

	// During the rotation the new key signs and the old one still reads.
	rotating := Codec{Key: newKey, Previous: [][]byte{[]byte("an older key"), oldKey}}
	got, err := rotating.Decode("q", issued)
	if err != nil || got.Offset != 40 || got.Keys[1] != "n/40" {
		t.Fatalf("a cursor of the previous key during the rotation: %+v, %v", got, err)
	}
	fresh, err := rotating.Encode("q", cur)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (Codec{Key: newKey}).Decode("q", fresh); err != nil {
		t.Errorf("a cursor signed during the rotation, after it: %v", err)
	}
	if _, err := (Codec{Key: oldKey}).Decode("q", fresh); !errors.Is(err, ErrCursorExpired) {
		t.Errorf("a cursor of the new key on a store that has only the old one: %v; want ErrCursorExpired", err)
	}

	// After it the old key's cursors have expired, and say so.
	_, err = Codec{Key: newKey}.Decode("q", issued)
	for _, want := range []error{ErrInvalidCursor, ErrCursorExpired, ErrCursorTampered} {
		if !errors.Is(err, want) {
			t.Errorf("a cursor of a retired key: %v; want one wrapping %v", err, want)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "expired") || !strings.Contains(err.Error(), "start again without it") {
		t.Errorf("a cursor of a retired key: message %q does not say it expired and what to do", err)
	}

	// Previous keys verify but never sign, and a previous key's cursor
	// altered is tampered with, not expired.
	b, _ := base64.RawURLEncoding.DecodeString(issued)
	b[len(b)-20] ^= 1
	_, err = rotating.Decode("q", base64.RawURLEncoding.EncodeToString(b))
	if !errors.Is(err, ErrCursorTampered) || errors.Is(err, ErrCursorExpired) {
		t.Errorf("an altered cursor of a previous key: %v; want ErrCursorTampered alone", err)
	}
}

func TestCursorTTL(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	for _, key := range [][]byte{nil, []byte("k")} {
		c := Codec{Key: key, TTL: 10 * time.Minute, Now: clock}
		s, err := c.Encode("q", Cursor{Offset: 3, Keys: []any{"x"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			after time.Duration
			ok    bool
		}{{0, true}, {10 * time.Minute, true}, {10*time.Minute + time.Second, false}, {time.Hour, false}} {
			at := now.Add(tc.after)
			// A codec without a TTL still checks the expiry a cursor
			// carries.
			for _, d := range []Codec{{Key: key, TTL: 10 * time.Minute, Now: func() time.Time { return at }}, {Key: key, Now: func() time.Time { return at }}} {
				cur, err := d.Decode("q", s)
				switch {
				case tc.ok && (err != nil || cur.Offset != 3):
					t.Errorf("key %q, %v after: %+v, %v; want the cursor", key, tc.after, cur, err)
				case !tc.ok && (!errors.Is(err, ErrCursorExpired) || !errors.Is(err, ErrInvalidCursor)):
					t.Errorf("key %q, %v after: %v; want ErrCursorExpired", key, tc.after, err)
				case !tc.ok && !strings.Contains(err.Error(), "2026-11-25T10:10:00Z"):
					t.Errorf("key %q, %v after: %q does not name the expiry", key, tc.after, err)
				}
			}
		}
		// The expiry is covered by the tag: moving it is tampering.
		b, _ := base64.RawURLEncoding.DecodeString(s)
		head := 10
		if key != nil {
			head = 14
		}
		b[head] ^= 1
		if _, err := c.Decode("q", base64.RawURLEncoding.EncodeToString(b)); !errors.Is(err, ErrCursorTampered) {
			t.Errorf("key %q: a cursor with its expiry moved: %v; want ErrCursorTampered", key, err)
		}
	}
	// Without a TTL a cursor carries no expiry: the format of earlier
	// cursors.
	plain, _ := Codec{}.Encode("q", Cursor{Offset: 3, Keys: []any{"x"}})
	timed, _ := Codec{TTL: time.Hour}.Encode("q", Cursor{Offset: 3, Keys: []any{"x"}})
	if len(timed) <= len(plain) {
		t.Errorf("a cursor with a TTL (%d bytes) is not longer than one without (%d)", len(timed), len(plain))
	}
}

func TestCodecClone(t *testing.T) {
	key, prev := []byte("key"), []byte("prev")
	c := Codec{Key: key, Previous: [][]byte{prev}}.Clone()
	key[0], prev[0] = 'X', 'X'
	if string(c.Key) != "key" || string(c.Previous[0]) != "prev" {
		t.Errorf("Clone shares bytes: %q %q", c.Key, c.Previous[0])
	}
}
