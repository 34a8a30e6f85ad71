package bounded

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/internal/jsonenc"
)

// TestClipKeepsEncoding: a result clipped to fit is written as
// encoding/json writes the result with its long string clipped: an invalid
// UTF-8 byte as \ufffd, in the clipped string, in the strings left whole
// and in keys, and a valid U+FFFD as itself.
func TestClipKeepsEncoding(t *testing.T) {
	type item struct {
		ID   string            `json:"id"`
		Body string            `json:"body"`
		Meta map[string]string `json:"meta"`
	}
	it := item{
		ID:   "n\xff1",
		Body: strings.Repeat("ab\xffc\uFFFDé \xe2\x82 ", 3000),
		Meta: map[string]string{"k\xfe": "v\xfd<&>"},
	}
	fd, err := Fit(Budget{MaxChars: 2000, Margin: 1}, FitInput[item]{
		Page: Paged[item]{Items: []item{it}, Page: pageInfo(driver.Request{Limit: 1}, 1, 1)},
		Call: Call{Tool: "t", DefaultLimit: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	if fd.Truncation.Reason != ReasonSingleResultTooLarge || len(fd.Truncation.ClippedFields) != 1 || fd.Truncation.ClippedFields[0] != "body" {
		t.Fatalf("reason %q, clipped %q; want body clipped", fd.Truncation.Reason, fd.Truncation.ClippedFields)
	}
	var env struct {
		Results []json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(fd.JSON, &env); err != nil || len(env.Results) != 1 {
		t.Fatalf("decoding %s: %v", fd.JSON, err)
	}
	var got item
	if err := json.Unmarshal(env.Results[0], &got); err != nil {
		t.Fatal(err)
	}
	// The clip Fit chose, of the string the item held: it has as many
	// runes as the string decoded, each invalid byte decoded as U+FFFD.
	want := it
	want.Body, _ = Clip(it.Body, utf8.RuneCountInString(got.Body))
	wantJSON, err := jsonenc.Marshal(&want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(env.Results[0], wantJSON) {
		t.Errorf("clipped result\n got %s\nwant %s", env.Results[0], wantJSON)
	}
}

// FuzzUnquoteJSON: unquoteJSON decodes what jsonenc.AppendString and
// encoding/json (with HTML escaping too) write as encoding/json decodes it,
// but for the escaped U+FFFD of an invalid byte, which it keeps as an
// invalid byte, so that jsonenc.AppendString writes a string back as it was.
func FuzzUnquoteJSON(f *testing.F) {
	f.Add("plain")
	f.Add("\b\f\n\r\t\x00\x1f\x7f\"\\/<>&\u2028\u2029\xff\xe2\x82\uFFFDé日👩‍👩‍👧")
	f.Fuzz(func(t *testing.T, s string) {
		enc := jsonenc.AppendString(nil, s)
		if back := jsonenc.AppendString(nil, unquoteJSON(enc)); !bytes.Equal(back, enc) {
			t.Fatalf("%q: written %s, unquoted and written again %s", s, enc, back)
		}
		escaped, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var want string
		if err := json.Unmarshal(escaped, &want); err != nil {
			t.Fatal(err)
		}
		// Each invalid byte as U+FFFD, as converting to runes does.
		if got := string([]rune(unquoteJSON(escaped))); got != want {
			t.Fatalf("unquoteJSON(%s) = %q, want %q", escaped, got, want)
		}
	})
}
