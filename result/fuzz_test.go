package result

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/internal/jtree"
)

// FuzzBound bounds any bytes as structured content and as text at a small
// budget, and walks what was left out by next alone: every result within
// the budget, every walk giving back the input.
func FuzzBound(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,2,3],"b":"` + strings.Repeat("xy\n", 700) + `"}`,
		`[` + strings.Repeat(`{"k":"`+strings.Repeat("é", 40)+`"},`, 60) + `0]`,
		strings.Repeat("line\n", 400),
		strings.Repeat(`"\u00e9\n",`, 300),
		`{"x": NaN}` + strings.Repeat(" ", 2000),
	} {
		f.Add([]byte(s), uint16(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, extra uint16) {
		budget := bounded.Budget{MaxChars: MinChars + int(extra%4000), Margin: 1}
		call := Call{Tool: "t", Principal: "p"}
		b := New(NewMemory(Quota{}), Options{})
		tr, perr := jtree.Parse(in, MaxDepth)
		_, _, bd := walkOrFail(t, b, budget, call, JSON(in), in, perr)
		if perr == nil && bd.Report != nil {
			got, _, _ := walk(t, b, budget, call, JSON(in), tr.Src)
			if !bytes.Equal(got, tr.Src) {
				t.Fatalf("reassembled %q, want %q", got, tr.Src)
			}
		}
		if strings.ContainsAny(string(in), "{[") && parseText(string(in)) != nil {
			return
		}
		got, _, bd := walk(t, b, budget, call, Text(string(in)), nil)
		if bd.Report != nil && string(got) != string(in) {
			t.Fatalf("reassembled text %q, want %q", got, in)
		}
	})
}

// walkOrFail bounds structured content that may not be JSON: an error is
// fine only for input Parse refuses.
func walkOrFail(t *testing.T, b *Bounder, budget bounded.Budget, call Call, r Result, in []byte, perr error) ([]byte, int, Bounded) {
	t.Helper()
	bd, err := b.Bound(t.Context(), budget, call, r)
	if err != nil {
		if perr == nil || !errors.Is(err, ErrInvalidJSON) {
			t.Fatalf("Bound(%q): %v (parse: %v)", in, err, perr)
		}
		return nil, 0, Bounded{}
	}
	checkBudget(t, budget, bd)
	return nil, 0, bd
}
