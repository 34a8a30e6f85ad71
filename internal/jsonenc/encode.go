// Package jsonenc writes JSON exactly as encoding/json's Encoder does with
// HTML escaping off, faster: strings ([AppendString]), and values of the
// types tools return with an encoder compiled once per type ([For]). The
// writers can add up, for the token estimate, the runes not ASCII they
// write ([estimate.RuneSum]); [RuneCount] counts the characters of what
// they wrote.
package jsonenc

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/boundedkit/bounded/internal/estimate"
)

// The compiled encoder: for the item types tools return (structs of
// strings, numbers, booleans, times, slices and pointers of those), an
// encoder compiled once per type that appends exactly the bytes
// encoding/json's Encoder writes with HTML escaping off. Like encoding/json
// it reads values through reflect, with each struct's fields resolved
// once; unlike it, it appends straight into Fit's buffer, one item at a
// time, so that item boundaries are known without a second look, and it
// writes strings with AppendString. Any type it is not certain to encode
// alike (maps, interfaces, arrays, embedded pointers, types with their own
// MarshalJSON or MarshalText other than time.Time and those given to
// Register, json.Number, the ",string" and ",omitzero" options, invalid or
// repeated names, recursive types) gets no compiled encoder, and Fit uses
// encoding/json for it; a value it does not write (a NaN, a value a
// registered encoder declines) goes to encoding/json alone.
// TestFastEncoderMatchesEncodingJSON and FuzzFastEncoder hold the two to
// the same bytes.

// Func appends the JSON of v, an addressable value of the type it was
// compiled for. It returns false for a value encoding/json refuses (a NaN
// or infinite float, a time outside RFC 3339) or one it leaves to
// encoding/json: the caller then asks encoding/json. With sum set, it adds
// to sum the runes it writes (see estimate.RuneSum).
type Func func(sum *estimate.RuneSum, b []byte, v reflect.Value) ([]byte, bool)

// fastEncoders caches the compiled encoder of each type: a Func, or nil
// for a type encoding/json must encode.
var fastEncoders sync.Map // reflect.Type -> Func

// For returns the compiled encoder of t, nil when t has none.
func For(t reflect.Type) Func {
	if e, ok := fastEncoders.Load(t); ok {
		return e.(Func)
	}
	e, _ := compileEncoder(t, map[reflect.Type]bool{})
	fastEncoders.Store(t, e)
	return e
}

// registered holds the encoders of types that marshal themselves, given to
// Register.
var registered sync.Map // reflect.Type -> Func

// Register gives the type t, which has its own MarshalJSON, the encoder e:
// e must write what MarshalJSON does, or decline. Register must be called
// before For is first called with a type holding t (a package's init).
func Register(t reflect.Type, e Func) { registered.Store(t, e) }

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	timeType          = reflect.TypeFor[time.Time]()
	numberType        = reflect.TypeFor[json.Number]()
)

// marshals reports whether values of t, addressable as Fit's items and
// their fields are, encode through a method of their own.
func marshals(t reflect.Type) bool {
	return t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		(t.Kind() != reflect.Pointer && (reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)))
}

// compileEncoder returns the encoder of t, or ok false when t (or a type
// inside it) is not one it encodes exactly as encoding/json. visiting holds
// the types being compiled, to refuse recursive types.
func compileEncoder(t reflect.Type, visiting map[reflect.Type]bool) (e Func, ok bool) {
	if visiting[t] {
		return nil, false
	}
	if marshals(t) {
		if e, ok := registered.Load(t); ok {
			return e.(Func), true
		}
		switch {
		case t == timeType:
			return encodeTime, true
		case t.Kind() == reflect.Pointer && t.Elem() == timeType:
			return ptrEncoder(encodeTime), true
		}
		return nil, false
	}
	switch t.Kind() {
	case reflect.Bool:
		return encodeBool, true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return encodeInt, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return encodeUint, true
	case reflect.Float32:
		return encodeFloat32, true
	case reflect.Float64:
		return encodeFloat64, true
	case reflect.String:
		if t == numberType {
			return nil, false
		}
		return encodeString, true
	case reflect.Pointer:
		visiting[t] = true
		defer delete(visiting, t)
		elem, ok := compileEncoder(t.Elem(), visiting)
		if !ok {
			return nil, false
		}
		return ptrEncoder(elem), true
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !marshals(reflect.PointerTo(t.Elem())) {
			return encodeBytes, true
		}
		visiting[t] = true
		defer delete(visiting, t)
		elem, ok := compileEncoder(t.Elem(), visiting)
		if !ok {
			return nil, false
		}
		return sliceEncoder(elem), true
	case reflect.Struct:
		visiting[t] = true
		defer delete(visiting, t)
		return compileStruct(t, visiting)
	}
	return nil, false
}

// structField is one encoded field of a struct: its key, written as
// `"name":`, the path of field indexes that reaches it through embedded
// structs, its encoder, and for omitempty the test of an empty value.
type structField struct {
	key   string
	index []int
	enc   Func
	empty func(v reflect.Value) bool // nil without omitempty
	str   bool                       // a plain string: written inline
	// keyRunes: the key has runes not ASCII, whose costs and bytes past
	// the first are keyMilli and keyExtra.
	keyRunes bool
	keyMilli int64
	keyExtra int
}

// compileStruct compiles a struct as encoding/json lays it out: its
// exported fields in order, the fields of an embedded struct (not a pointer
// to one) in its place. A name that two fields would take, which
// encoding/json resolves by depth and tags, is declined.
func compileStruct(t reflect.Type, visiting map[reflect.Type]bool) (Func, bool) {
	var fields []structField
	if !collectFields(t, nil, visiting, &fields, map[string]bool{}) {
		return nil, false
	}
	return func(sum *estimate.RuneSum, b []byte, v reflect.Value) ([]byte, bool) {
		next := byte('{')
		for i := range fields {
			f := &fields[i]
			fv := v.Field(f.index[0])
			for _, j := range f.index[1:] {
				fv = fv.Field(j)
			}
			if f.empty != nil && f.empty(fv) {
				continue
			}
			b = append(b, next)
			next = ','
			b = append(b, f.key...)
			if f.keyRunes && sum != nil {
				sum.Milli += f.keyMilli
				sum.Extra += f.keyExtra
			}
			if f.str {
				b = AppendStringSum(b, fv.String(), sum)
				continue
			}
			var ok bool
			if b, ok = f.enc(sum, b, fv); !ok {
				return b, false
			}
		}
		if next == '{' {
			return append(b, '{', '}'), true
		}
		return append(b, '}'), true
	}, true
}

// collectFields appends the encoded fields of struct t, reached from the
// outer struct through the field indexes path, to fields; seen holds the
// names taken.
func collectFields(t reflect.Type, path []int, visiting map[reflect.Type]bool, fields *[]structField, seen map[string]bool) bool {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		index := append(path[:len(path):len(path)], i)
		if sf.Anonymous {
			if sf.Type.Kind() != reflect.Struct || name != "" || marshals(sf.Type) {
				// A pointer to a struct, a tagged or non-struct embedded
				// type, or one with its own methods: declined (an
				// unexported non-struct one encoding/json ignores).
				if !sf.IsExported() && sf.Type.Kind() != reflect.Struct && sf.Type.Kind() != reflect.Pointer {
					continue
				}
				return false
			}
			if visiting[sf.Type] {
				return false
			}
			visiting[sf.Type] = true
			ok := collectFields(sf.Type, index, visiting, fields, seen)
			delete(visiting, sf.Type)
			if !ok {
				return false
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		} else if !validTagName(name) {
			return false
		}
		omitEmpty := false
		for opts != "" {
			var o string
			o, opts, _ = strings.Cut(opts, ",")
			switch o {
			case "omitempty":
				omitEmpty = true
			case "string", "omitzero":
				return false
			}
		}
		if seen[name] {
			return false
		}
		seen[name] = true
		enc, ok := compileEncoder(sf.Type, visiting)
		if !ok {
			return false
		}
		f := structField{key: `"` + name + `":`, index: index, enc: enc}
		f.keyMilli, f.keyExtra = estimate.RuneCosts(f.key)
		f.keyRunes = f.keyExtra > 0
		f.str = sf.Type.Kind() == reflect.String && !marshals(sf.Type) && sf.Type != numberType
		if omitEmpty {
			if f.empty = emptyTest(sf.Type); f.empty == nil {
				f.empty = func(reflect.Value) bool { return false }
			}
		}
		*fields = append(*fields, f)
	}
	return true
}

// validTagName reports whether encoding/json takes name from a tag as it
// is: letters, digits and the punctuation it allows.
func validTagName(name string) bool {
	for _, c := range name {
		if !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return name != ""
}

// emptyTest returns the omitempty test of encoding/json for t: false, 0,
// a nil pointer, an empty string or slice (a float equal to 0, -0 too).
// nil for kinds never empty (structs).
func emptyTest(t reflect.Type) func(v reflect.Value) bool {
	switch t.Kind() {
	case reflect.Bool:
		return func(v reflect.Value) bool { return !v.Bool() }
	case reflect.String, reflect.Slice:
		return func(v reflect.Value) bool { return v.Len() == 0 }
	case reflect.Pointer:
		return func(v reflect.Value) bool { return v.IsNil() }
	case reflect.Float32, reflect.Float64:
		return func(v reflect.Value) bool { return v.Float() == 0 }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v reflect.Value) bool { return v.Int() == 0 }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(v reflect.Value) bool { return v.Uint() == 0 }
	}
	return nil
}

func encodeBool(sum *estimate.RuneSum, b []byte, v reflect.Value) ([]byte, bool) {
	return strconv.AppendBool(b, v.Bool()), true
}

func encodeInt(sum *estimate.RuneSum, b []byte, v reflect.Value) ([]byte, bool) {
	return strconv.AppendInt(b, v.Int(), 10), true
}

func encodeUint(sum *estimate.RuneSum, b []byte, v reflect.Value) ([]byte, bool) {
	return strconv.AppendUint(b, v.Uint(), 10), true
}

func encodeFloat64(sum *estimate.RuneSum, b []byte, v reflect.Value) ([]byte, bool) {
	return appendFloat(b, v.Float(), 64)
}

func encodeFloat32(sum *estimate.RuneSum, b []byte, v reflect.Value) ([]byte, bool) {
	return appendFloat(b, v.Float(), 32)
}

// appendFloat writes f as encoding/json does: like %g with the exponent
// only below 1e-6 and from 1e21, unpadded. NaN and infinities are refused.
func appendFloat(b []byte, f float64, bits int) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

func encodeString(sum *estimate.RuneSum, b []byte, v reflect.Value) ([]byte, bool) {
	return AppendStringSum(b, v.String(), sum), true
}

func encodeBytes(sum *estimate.RuneSum, b []byte, v reflect.Value) ([]byte, bool) {
	if v.IsNil() {
		return append(b, "null"...), true
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, v.Bytes())
	return append(b, '"'), true
}

// encodeTime writes a time as its MarshalJSON does (RFC 3339 with
// nanoseconds, quoted), without allocating; a time MarshalJSON refuses
// (a year outside [0, 9999]) is refused.
func encodeTime(sum *estimate.RuneSum, b []byte, v reflect.Value) ([]byte, bool) {
	out, err := v.Addr().Interface().(*time.Time).AppendText(append(b, '"'))
	if err != nil {
		return b, false
	}
	return append(out, '"'), true
}

func ptrEncoder(elem Func) Func {
	return func(sum *estimate.RuneSum, b []byte, v reflect.Value) ([]byte, bool) {
		if v.IsNil() {
			return append(b, "null"...), true
		}
		return elem(sum, b, v.Elem())
	}
}

func sliceEncoder(elem Func) Func {
	return func(sum *estimate.RuneSum, b []byte, v reflect.Value) ([]byte, bool) {
		if v.IsNil() {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = elem(sum, b, v.Index(i)); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	}
}
