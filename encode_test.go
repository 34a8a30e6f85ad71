package bounded

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/internal/jsonenc"
)

// TestFitFastAndEncodingJSONAgree: Fit writes the same response whether its
// items go through the compiled encoder or encoding/json (a type the
// compiler declines because of one map field, empty in every item, encodes
// the same bytes).
func TestFitFastAndEncodingJSONAgree(t *testing.T) {
	type fast struct {
		ID   string  `json:"id"`
		Body string  `json:"body"`
		S    float64 `json:"s"`
	}
	type slow struct {
		ID   string         `json:"id"`
		Body string         `json:"body"`
		S    float64        `json:"s"`
		M    map[string]int `json:"m,omitempty"`
	}
	if jsonenc.For(reflect.TypeFor[fast]()) == nil || jsonenc.For(reflect.TypeFor[slow]()) != nil {
		t.Fatal("the test's types no longer split between the two encoders")
	}
	for _, max := range []int{200, 700, 5000, 100_000} {
		var fs []fast
		var ss []slow
		for i := range 40 {
			body := strings.Repeat("body \"é\" ", i%9) + "\u2028\xff"
			fs = append(fs, fast{ID: string(rune('a' + i%26)), Body: body, S: float64(i) / 3})
			ss = append(ss, slow{ID: fs[i].ID, Body: body, S: fs[i].S})
		}
		call := Call{Tool: "t", DefaultLimit: 40}
		b := Budget{MaxChars: max, Margin: 1}
		pf, err1 := Fit(b, FitInput[fast]{Page: Paged[fast]{Items: fs, Page: pageInfo(driver.Request{Limit: 40}, 100, 40)}, Call: call})
		ps, err2 := Fit(b, FitInput[slow]{Page: Paged[slow]{Items: ss, Page: pageInfo(driver.Request{Limit: 40}, 100, 40)}, Call: call})
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("budget %d: errors differ: %v / %v", max, err1, err2)
		}
		if !bytes.Equal(pf.JSON, ps.JSON) || pf.Kept != ps.Kept {
			t.Errorf("budget %d: responses differ (kept %d / %d):\n%s\n%s", max, pf.Kept, ps.Kept, pf.JSON, ps.JSON)
		}
	}
}

// TestFastEncoderArgs: the compiled encoder writes Args, alone and inside
// embedded structs, as encoding/json does, and leaves to encoding/json
// Args holding values it does not write; and it encodes the benchmarks'
// results.
func TestFastEncoderArgs(t *testing.T) {
	check := func(name string, ptr any) {
		t.Helper()
		fe := jsonenc.For(reflect.TypeOf(ptr).Elem())
		if fe == nil {
			t.Fatalf("%s: %T has no compiled encoder", name, ptr)
		}
		want, err := jsonenc.Marshal(ptr)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := fe(nil, nil, reflect.ValueOf(ptr).Elem()); !ok || !bytes.Equal(got, want) {
			t.Errorf("%s: compiled encoder wrote %s, %v; want %s", name, got, ok, want)
		}
	}
	type inner struct {
		At   time.Time `json:"at"`
		Args Args      `json:"args"`
	}
	type outer struct {
		B string `json:"b"`
		inner
	}
	check("embedded", &outer{B: "b", inner: inner{At: time.Date(2026, 11, 24, 22, 44, 38, 123456789, time.UTC), Args: Args{{"q", "é\""}}}})
	args := struct {
		A Args `json:"a"`
		B Args `json:"b,omitempty"`
		C Args `json:"c"`
	}{A: Args{{"query", "q \"x\" é"}, {"page", 3}, {"exact", true}, {"tags", []string{"a", "b\n"}}}}
	check("Args", &args)
	odd := struct{ A Args }{Args{{"n", json.Number("1e3")}, {"m", map[string]int{"z": 1, "a": 2}}, {"f", 1.5}}}
	if got, ok := jsonenc.For(reflect.TypeOf(odd))(nil, nil, reflect.ValueOf(&odd).Elem()); ok {
		t.Errorf("Args holding other values: compiled encoder wrote %s; want encoding/json to", got)
	}
	docs := benchDocs(3)
	check("benchDoc", &docs[1])
	check("[]benchDoc", &docs)
}
