package jsonenc

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/boundedkit/bounded/internal/estimate"
)

// checkFastEncoding compares the compiled encoder of *ptr's type with
// encoding/json on *ptr: the same bytes, or both refusing.
func checkFastEncoding(t *testing.T, name string, ptr any) {
	t.Helper()
	rv := reflect.ValueOf(ptr)
	fe := For(rv.Type().Elem())
	if fe == nil {
		t.Fatalf("%s: %v has no compiled encoder", name, rv.Type().Elem())
	}
	// encoding/json with HTML escaping off, of a pointer (Fit's items are
	// addressable), without the newline.
	want, wantErr := Marshal(ptr)
	prefix := []byte("prefix,")
	got, ok := fe(nil, append([]byte(nil), prefix...), rv.Elem())
	switch {
	case wantErr != nil && ok:
		t.Errorf("%s: compiled encoder wrote %s; encoding/json refuses: %v", name, got, wantErr)
	case wantErr == nil && !ok:
		t.Errorf("%s: compiled encoder refused; encoding/json writes %s", name, want)
	case wantErr == nil && !bytes.Equal(got, append(prefix, want...)):
		t.Errorf("%s:\n got %s\nwant %s%s", name, got, prefix, want)
	}
}

type encInner struct {
	A string  `json:"a"`
	B *int    `json:"b,omitempty"`
	C []int64 `json:"c"`
}

type encAll struct {
	S      string      `json:"s"`
	SE     string      `json:"se,omitempty"`
	B      bool        `json:"b"`
	BE     bool        `json:",omitempty"`
	I      int         `json:"i"`
	I8     int8        `json:"i8"`
	I16    int16       `json:"i16"`
	I32    int32       `json:"i32"`
	I64    int64       `json:"i64,omitempty"`
	U      uint        `json:"u"`
	U8     uint8       `json:"u8"`
	U16    uint16      `json:"u16"`
	U32    uint32      `json:"u32"`
	U64    uint64      `json:"u64,omitempty"`
	UP     uintptr     `json:"up"`
	F32    float32     `json:"f32"`
	F64    float64     `json:"f64,omitempty"`
	Bytes  []byte      `json:"bytes"`
	BytesE []byte      `json:"bytesE,omitempty"`
	Strs   []string    `json:"strs"`
	StrsE  []string    `json:"strsE,omitempty"`
	Ptr    *string     `json:"ptr"`
	PtrE   *string     `json:"ptrE,omitempty"`
	Inner  encInner    `json:"inner"`
	Inners []encInner  `json:"inners"`
	PInner *encInner   `json:"pInner,omitempty"`
	When   time.Time   `json:"when"`
	WhenP  *time.Time  `json:"whenP"`
	Matrix [][]float64 `json:"matrix"`
	//lint:ignore SA5008 "-," names the field "-": encoding/json's rule under test
	Dash    string            `json:"-,"`
	Skip    string            `json:"-"`
	Punct   string            `json:"a-b.c/d:e"`
	Untaged string            //nolint
	Spaced  string            `json:"with space"`
	Unicode string            `json:"naïve"`
	private string            // not encoded
	Named   encNamedString    `json:"named"`
	Bools   []encNamedBoolish `json:"bools"`
}

type encNamedString string
type encNamedBoolish bool

func TestFastEncoderMatchesEncodingJSON(t *testing.T) {
	seven := 7
	str := "pointed \"at\""
	when := time.Date(2026, 11, 24, 22, 44, 38, 123456789, time.FixedZone("x", -(3*3600+30*60)))
	strs := []string{
		"", "plain ascii that is long enough to take the eight byte path twice",
		"quote \" backslash \\ slash / tab \t newline \n return \r bs \b ff \f",
		"controls \x00\x01\x1f and DEL \x7f",
		"html <b>&amp;</b> stays as is",
		"naïve café 日本語 🙂 👩‍👩‍👧 e\u0301",
		"separators \u2028 and \u2029 in text",
		"invalid \xff\xfe utf-8 \xc3( and a lone \xe2\x82",
		strings.Repeat("a\"", 40) + "\xff",
		"1234567\"", "12345678\\", "\u00e9\u00e9\u00e9\u00e9x",
		strings.Repeat("abcdefgh", 4), strings.Repeat("x", 64), strings.Repeat("y", 31), strings.Repeat("z", 33),
		strings.Repeat("w", 32) + "\"", strings.Repeat("v", 40) + "\u00e9",
	}
	floats := []float64{0, math.Copysign(0, -1), 1, -1.5, 0.1, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 1.5e300, -2.5e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, 123456789.125}
	for i, s := range strs {
		f := floats[i%len(floats)]
		v := encAll{
			S: s, SE: s, B: i%2 == 0, I: -i * 1000003, I8: math.MinInt8, I16: math.MaxInt16, I32: math.MinInt32, I64: int64(i) * math.MaxInt64 / 13,
			U: uint(i), U8: math.MaxUint8, U16: math.MaxUint16, U32: math.MaxUint32, U64: math.MaxUint64 - uint64(i), UP: uintptr(i),
			F32: float32(f), F64: f, Bytes: []byte(s), Strs: strs[:i], Inner: encInner{A: s, C: []int64{}},
			When: when.Add(time.Duration(i) * time.Hour), Matrix: [][]float64{{f, -f}, nil, {}},
			Dash: s, Skip: s, Punct: s, Untaged: s, Spaced: s, Unicode: s, private: s, Named: encNamedString(s), Bools: []encNamedBoolish{true, false},
		}
		if i%3 == 0 {
			v.Ptr, v.PtrE, v.WhenP = &str, &str, &when
			v.Inners = []encInner{{A: "x", B: &seven}, {}}
			v.PInner = &encInner{B: new(int)}
			v.BytesE, v.StrsE = []byte{}, []string{}
		}
		if i%3 == 1 {
			v.BytesE, v.StrsE = []byte{0}, []string{""}
			v.When = time.Time{}
		}
		checkFastEncoding(t, "encAll "+s, &v)
	}
	for _, f := range floats {
		checkFastEncoding(t, "float64", &f)
		f32 := float32(f)
		checkFastEncoding(t, "float32", &f32)
	}
	for _, s := range strs {
		checkFastEncoding(t, "string", &s)
	}
	var empty struct{}
	checkFastEncoding(t, "empty struct", &empty)
	allOmitted := struct {
		A string `json:"a,omitempty"`
		B int    `json:"b,omitempty"`
	}{}
	checkFastEncoding(t, "every field omitted", &allOmitted)
	emb := encEmbedded{encInner: encInner{A: "a", C: []int64{1}}, B: "b", encDeeper: encDeeper{D: 2.5, encTimes: encTimes{At: when, AtP: &when, Reg: encRegistered{"q", "é\""}}}, unexportedInt: 3}
	checkFastEncoding(t, "embedded", &emb)
	reg := struct {
		A encRegistered `json:"a"`
		B encRegistered `json:"b,omitempty"`
		C encRegistered `json:"c"`
	}{A: encRegistered{"q \"x\" é", "b\n"}}
	checkFastEncoding(t, "registered", &reg)
	declined := struct{ A encRegistered }{encRegistered{"decline"}}
	if got, ok := For(reflect.TypeOf(declined))(nil, nil, reflect.ValueOf(&declined).Elem()); ok {
		t.Errorf("a value the registered encoder declines: compiled encoder wrote %s; want encoding/json to", got)
	}
}

// TestFastEncoderRefuses: values encoding/json refuses are refused, so that
// Fit asks encoding/json for its error.
func TestFastEncoderRefuses(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		v := struct{ F float64 }{f}
		checkFastEncoding(t, "NaN or infinity", &v)
		f32 := struct{ F []float32 }{[]float32{1, float32(f)}}
		checkFastEncoding(t, "float32 NaN or infinity", &f32)
	}
	for _, y := range []int{-1, 10000} {
		v := struct{ T time.Time }{time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)}
		checkFastEncoding(t, "year out of range", &v)
	}
	odd := struct{ T time.Time }{time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("odd", 24*3600+60))}
	checkFastEncoding(t, "zone hour out of range", &odd)
}

type encMarshaler struct{ A string }

func (encMarshaler) MarshalJSON() ([]byte, error) { return []byte(`"m"`), nil }

type encPtrMarshaler struct{ A string }

func (*encPtrMarshaler) MarshalJSON() ([]byte, error) { return []byte(`"m"`), nil }

type encTextMarshaler int

func (encTextMarshaler) MarshalText() ([]byte, error) { return []byte("t"), nil }

type encRecursive struct {
	Next *encRecursive `json:"next"`
}

type encEmbedded struct {
	encInner
	B string
	encDeeper
	unexportedInt
}

type encDeeper struct {
	D  float64 `json:"d,omitempty"`
	E2 encInner
	encTimes
}

// encTimes holds the values written through their address (times, a
// registered type), reached through unexported embedded structs.
type encTimes struct {
	At  time.Time     `json:"at"`
	AtP *time.Time    `json:"atP,omitempty"`
	Reg encRegistered `json:"reg"`
}

type unexportedInt int

type encShadow struct {
	encInner
	A string `json:"a"`
}

type encEmbeddedPtr struct {
	*encInner
}

type encEmbeddedNamed struct {
	encInner `json:"inner"`
}

type encEmbeddedMarshaler struct {
	encMarshaler
	X int
}

// TestFastEncoderDeclines: every type the compiled encoder could encode
// differently from encoding/json gets none, and Fit uses encoding/json.
func TestFastEncoderDeclines(t *testing.T) {
	types := map[string]reflect.Type{
		"map":                 reflect.TypeFor[map[string]int](),
		"interface":           reflect.TypeFor[struct{ A any }](),
		"array":               reflect.TypeFor[[2]int](),
		"MarshalJSON":         reflect.TypeFor[struct{ M encMarshaler }](),
		"pointer MarshalJSON": reflect.TypeFor[[]encPtrMarshaler](),
		"MarshalText":         reflect.TypeFor[struct{ T encTextMarshaler }](),
		"json.Number":         reflect.TypeFor[struct{ N json.Number }](),
		"string option": reflect.TypeFor[struct {
			N int `json:"n,string"`
		}](),
		"omitzero": reflect.TypeFor[struct {
			N int `json:"n,omitzero"`
		}](),
		"repeated name": reflect.TypeFor[struct {
			X string `json:"Y"`
			Y string
		}](),
		"name repeated by an embedded field": reflect.TypeFor[encShadow](),
		"embedded pointer":                   reflect.TypeFor[encEmbeddedPtr](),
		"embedded with a name":               reflect.TypeFor[encEmbeddedNamed](),
		"embedded MarshalJSON":               reflect.TypeFor[encEmbeddedMarshaler](),
		"invalid tag name": reflect.TypeFor[struct {
			//lint:ignore SA5008 a tag name encoding/json rejects, under test
			A string `json:"a\"b"`
		}](),
		"recursive": reflect.TypeFor[encRecursive](),
		"complex":   reflect.TypeFor[complex128](),
		"chan":      reflect.TypeFor[struct{ C chan int }](),
	}
	for name, typ := range types {
		if For(typ) != nil {
			t.Errorf("%s: %v has a compiled encoder; want encoding/json", name, typ)
		}
	}
}

// FuzzFastEncoder holds the compiled encoder to encoding/json's bytes on
// any string, number and time.
func FuzzFastEncoder(f *testing.F) {
	f.Add("plain", "ümlaut \u2028", 1.5, int64(-3), uint32(7), int64(0), true)
	f.Add("\xff\x00\"\\", "", math.Copysign(0, -1), int64(math.MinInt64), uint32(math.MaxUint32), int64(1<<62), false)
	f.Add(strings.Repeat("é", 9), "\t\n", 1e21, int64(0), uint32(0), int64(-1<<62), true)
	f.Fuzz(func(t *testing.T, s, s2 string, fl float64, i int64, u uint32, nanos int64, b bool) {
		type item struct {
			S  string     `json:"s"`
			S2 []string   `json:"s2,omitempty"`
			F  float64    `json:"f"`
			F3 float32    `json:"f3,omitempty"`
			I  int64      `json:"i"`
			U  uint32     `json:"u"`
			B  bool       `json:"b,omitempty"`
			T  time.Time  `json:"t"`
			P  *string    `json:"p"`
			Bs []byte     `json:"bs,omitempty"`
			N  []encInner `json:"n"`
		}
		v := item{S: s, F: fl, F3: float32(fl), I: i, U: u, B: b, T: time.Unix(0, nanos).In(time.FixedZone("z", int(u%86400)-43200)), Bs: []byte(s2), N: []encInner{{A: s2}}}
		if b {
			v.S2, v.P = []string{s2, s}, &s2
		}
		checkFastEncoding(t, "fuzz", &v)
	})
}

// encRegistered marshals itself as a JSON array of strings; its encoder,
// given to Register, writes the same but declines a value holding
// "decline".
type encRegistered []string

func (r encRegistered) MarshalJSON() ([]byte, error) { return json.Marshal([]string(r)) }

func init() {
	Register(reflect.TypeFor[encRegistered](), func(sum *estimate.RuneSum, b []byte, v reflect.Value) ([]byte, bool) {
		r := v.Interface().(encRegistered)
		if r == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, s := range r {
			if s == "decline" {
				return b, false
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendStringSum(b, s, sum)
		}
		return append(b, ']'), true
	})
}
