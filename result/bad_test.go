package result

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/boundedkit/bounded"
)

// TestBadInput bounds or refuses each input with a typed error, never a
// panic.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	dup := `{"a":1,"a":"` + strings.Repeat("x", 60_000) + `"}`
	badUTF8 := `{"a":"` + strings.Repeat("\xff", 60_000) + `"}`
	big := 200 << 20
	if raceEnabled {
		big = 20 << 20
	}
	huge := bytes.Repeat([]byte(`{"id":12345,"name":"a name that is long enough"},`), big/50)
	huge = append(append([]byte{'['}, huge[:len(huge)-1]...), ']')
	for _, tc := range []struct {
		name string
		r    Result
		err  error
	}{
		{"deep structured", JSON([]byte(deep)), ErrTooDeep},
		{"deep text", Text(deep), nil},
		{"duplicate keys structured", JSON([]byte(dup)), ErrDuplicateKey},
		{"duplicate keys text", Text(dup), nil},
		{"invalid UTF-8 structured", JSON([]byte(badUTF8)), ErrInvalidJSON},
		{"invalid UTF-8 text", Text(badUTF8), nil},
		{"invalid structured with text", Result{Structured: []byte(dup), Content: []Block{{Type: TypeText, Text: dup}}}, nil},
		{"not JSON", JSON([]byte("{" + strings.Repeat("x", 60_000))), ErrInvalidJSON},
		{"empty", Result{}, nil},
		{"empty JSON", JSON([]byte{}), nil},
		{"empty text", Text(""), nil},
		{"200 MB", JSON(huge), nil},
		{"20 MB image", Result{Content: []Block{{Type: TypeImage, MIMEType: "image/png", Data: make([]byte, 20<<20)}}}, nil},
		{"400 digits", JSON([]byte("[" + strings.Repeat(strings.Repeat("7", 400)+",", 200) + "1]")), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := New(NewMemory(Quota{}), Options{})
			bd, err := b.Bound(ctx, bounded.Budget{}, Call{Tool: "t", Principal: "p"}, tc.r)
			if !errors.Is(err, tc.err) {
				t.Fatalf("Bound: %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			checkBudget(t, bounded.Budget{}, bd)
			if bd.Report != nil && bd.Report.Handle == "" && bd.Report.NotKept == "" {
				t.Errorf("cut, not kept, and not said why")
			}
		})
	}
}

func TestNotKept(t *testing.T) {
	ctx := context.Background()
	doc := marshal(records(3000, 3))
	for _, tc := range []struct {
		name  string
		store Store
		want  string
	}{
		{"no store", nil, "no store"},
		{"over quota", NewMemory(Quota{PerPrincipal: 1000}), "over the store's quota"},
		{"store fails", failingStore{NewMemory(Quota{})}, "the store failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := New(tc.store, Options{})
			bd, err := b.Bound(ctx, bounded.Budget{}, Call{Tool: "list_runs", Principal: "p"}, JSON(doc))
			if err != nil {
				t.Fatal(err)
			}
			checkBudget(t, bounded.Budget{}, bd)
			rep := bd.Report
			if rep.Handle != "" || rep.Next != nil || !strings.Contains(rep.NotKept, tc.want) || !strings.Contains(rep.Note, rep.NotKept) {
				t.Errorf("report %+v", rep)
			}
			if !strings.Contains(rep.Note, "list_runs") {
				t.Errorf("note does not name the tool: %s", rep.Note)
			}
		})
	}
}

type failingStore struct{ *Memory }

func (failingStore) Put(context.Context, *Snapshot) error { return errors.New("disk full") }

func TestLimits(t *testing.T) {
	ctx := context.Background()
	b := New(NewMemory(Quota{}), Options{MaxBytes: 1000})
	if _, err := b.Bound(ctx, bounded.Budget{MaxChars: 500}, Call{}, Text("x")); !errors.Is(err, bounded.ErrInvalidBudget) {
		t.Errorf("small budget: %v", err)
	}
	if _, err := b.Bound(ctx, bounded.Budget{}, Call{}, Text(strings.Repeat("x", 1001))); !errors.Is(err, ErrTooLarge) {
		t.Errorf("too large: %v", err)
	}
}

func TestPassThrough(t *testing.T) {
	ctx := context.Background()
	b := New(NewMemory(Quota{}), Options{})
	doc := marshal(records(10, 1))
	r := Result{Structured: doc, Content: []Block{{Type: TypeText, Text: string(doc)}}}
	bd, err := b.Bound(ctx, bounded.Budget{}, Call{}, r)
	if err != nil || bd.Report != nil || &bd.Result.Structured[0] != &doc[0] {
		t.Fatalf("passed result changed: %v %+v", err, bd.Report)
	}
}
