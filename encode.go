package bounded

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
	"unsafe"
)

// This file holds Fit's item encoder: for the item types tools return
// (structs of strings, numbers, booleans, times, slices and pointers of
// those), an encoder compiled once per type that appends exactly the bytes
// encoding/json's Encoder writes with HTML escaping off, two to three times
// as fast: it reads fields at their offsets instead of through
// reflect.Value, writes plain string fields inline, skips plain ASCII 32
// bytes at a time, and appends straight into Fit's buffer. Any type it is
// not certain to encode alike (maps, interfaces, arrays, embedded pointers,
// types with their own MarshalJSON or MarshalText other than time.Time and
// Args, json.Number, the ",string" and ",omitzero" options, invalid or
// repeated names, recursive types) gets no compiled encoder, and Fit uses
// encoding/json for it; a value it does not write (a NaN, Args holding
// other values) goes to encoding/json alone. TestFastEncoderMatchesEncodingJSON
// and FuzzFastEncoder hold the two to the same bytes.

// encFunc appends the JSON of the value at p. It returns false for a value
// encoding/json refuses (a NaN or infinite float, a time outside RFC 3339):
// the caller then asks encoding/json, for its error.
type encFunc func(b []byte, p unsafe.Pointer) ([]byte, bool)

// fastEncoders caches the compiled encoder of each type: an encFunc, or nil
// for a type encoding/json must encode.
var fastEncoders sync.Map // reflect.Type -> encFunc

// fastEncoderFor returns the compiled encoder of t, nil when t has none.
func fastEncoderFor(t reflect.Type) encFunc {
	if e, ok := fastEncoders.Load(t); ok {
		return e.(encFunc)
	}
	e, _ := compileEncoder(t, map[reflect.Type]bool{})
	fastEncoders.Store(t, e)
	return e
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	timeType          = reflect.TypeFor[time.Time]()
	argsType          = reflect.TypeFor[Args]()
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
func compileEncoder(t reflect.Type, visiting map[reflect.Type]bool) (e encFunc, ok bool) {
	if visiting[t] {
		return nil, false
	}
	if marshals(t) {
		switch {
		case t == argsType:
			return encodeArgs, true
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
	case reflect.Int:
		return encodeInt[int], true
	case reflect.Int8:
		return encodeInt[int8], true
	case reflect.Int16:
		return encodeInt[int16], true
	case reflect.Int32:
		return encodeInt[int32], true
	case reflect.Int64:
		return encodeInt[int64], true
	case reflect.Uint:
		return encodeUint[uint], true
	case reflect.Uint8:
		return encodeUint[uint8], true
	case reflect.Uint16:
		return encodeUint[uint16], true
	case reflect.Uint32:
		return encodeUint[uint32], true
	case reflect.Uint64:
		return encodeUint[uint64], true
	case reflect.Uintptr:
		return encodeUint[uintptr], true
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
		return sliceEncoder(elem, t.Elem().Size()), true
	case reflect.Struct:
		visiting[t] = true
		defer delete(visiting, t)
		return compileStruct(t, visiting)
	}
	return nil, false
}

// structField is one encoded field of a struct: its key, written as
// `"name":`, its offset, its encoder, and for omitempty the test of an
// empty value.
type structField struct {
	key    string
	offset uintptr
	enc    encFunc
	empty  func(p unsafe.Pointer) bool // nil without omitempty
	str    bool                        // a plain string: written inline
}

// compileStruct compiles a struct as encoding/json lays it out: its
// exported fields in order, the fields of an embedded struct (not a pointer
// to one) in its place. A name that two fields would take, which
// encoding/json resolves by depth and tags, is declined.
func compileStruct(t reflect.Type, visiting map[reflect.Type]bool) (encFunc, bool) {
	var fields []structField
	if !collectFields(t, 0, visiting, &fields, map[string]bool{}) {
		return nil, false
	}
	return func(b []byte, p unsafe.Pointer) ([]byte, bool) {
		next := byte('{')
		for i := range fields {
			f := &fields[i]
			fp := unsafe.Add(p, f.offset)
			if f.empty != nil && f.empty(fp) {
				continue
			}
			b = append(b, next)
			next = ','
			b = append(b, f.key...)
			if f.str {
				b = appendJSONString(b, *(*string)(fp))
				continue
			}
			var ok bool
			if b, ok = f.enc(b, fp); !ok {
				return b, false
			}
		}
		if next == '{' {
			return append(b, '{', '}'), true
		}
		return append(b, '}'), true
	}, true
}

// collectFields appends the encoded fields of struct t, at offset base in
// the outer struct, to fields; seen holds the names taken.
func collectFields(t reflect.Type, base uintptr, visiting map[reflect.Type]bool, fields *[]structField, seen map[string]bool) bool {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
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
			ok := collectFields(sf.Type, base+sf.Offset, visiting, fields, seen)
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
		f := structField{key: `"` + name + `":`, offset: base + sf.Offset, enc: enc}
		f.str = sf.Type.Kind() == reflect.String && !marshals(sf.Type) && sf.Type != numberType
		if omitEmpty {
			if f.empty = emptyTest(sf.Type); f.empty == nil {
				f.empty = func(unsafe.Pointer) bool { return false }
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
func emptyTest(t reflect.Type) func(p unsafe.Pointer) bool {
	switch t.Kind() {
	case reflect.Bool:
		return func(p unsafe.Pointer) bool { return !*(*bool)(p) }
	case reflect.String:
		return func(p unsafe.Pointer) bool { return len(*(*string)(p)) == 0 }
	case reflect.Slice:
		return func(p unsafe.Pointer) bool { return (*sliceHeader)(p).len == 0 }
	case reflect.Pointer:
		return func(p unsafe.Pointer) bool { return *(*unsafe.Pointer)(p) == nil }
	case reflect.Float32:
		return func(p unsafe.Pointer) bool { return *(*float32)(p) == 0 }
	case reflect.Float64:
		return func(p unsafe.Pointer) bool { return *(*float64)(p) == 0 }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		size := t.Size()
		return func(p unsafe.Pointer) bool {
			for _, c := range unsafe.Slice((*byte)(p), size) {
				if c != 0 {
					return false
				}
			}
			return true
		}
	}
	return nil
}

// sliceHeader is the layout of a slice value.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

func encodeBool(b []byte, p unsafe.Pointer) ([]byte, bool) {
	return strconv.AppendBool(b, *(*bool)(p)), true
}

func encodeInt[T int | int8 | int16 | int32 | int64](b []byte, p unsafe.Pointer) ([]byte, bool) {
	return strconv.AppendInt(b, int64(*(*T)(p)), 10), true
}

func encodeUint[T uint | uint8 | uint16 | uint32 | uint64 | uintptr](b []byte, p unsafe.Pointer) ([]byte, bool) {
	return strconv.AppendUint(b, uint64(*(*T)(p)), 10), true
}

func encodeFloat64(b []byte, p unsafe.Pointer) ([]byte, bool) {
	return appendFloat(b, *(*float64)(p), 64)
}

func encodeFloat32(b []byte, p unsafe.Pointer) ([]byte, bool) {
	return appendFloat(b, float64(*(*float32)(p)), 32)
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

func encodeString(b []byte, p unsafe.Pointer) ([]byte, bool) {
	return appendJSONString(b, *(*string)(p)), true
}

func encodeBytes(b []byte, p unsafe.Pointer) ([]byte, bool) {
	s := *(*[]byte)(p)
	if s == nil {
		return append(b, "null"...), true
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, s)
	return append(b, '"'), true
}

// encodeTime writes a time as its MarshalJSON does (RFC 3339 with
// nanoseconds, quoted), without allocating; a time MarshalJSON refuses
// (a year outside [0, 9999]) is refused.
func encodeTime(b []byte, p unsafe.Pointer) ([]byte, bool) {
	out, err := (*time.Time)(p).AppendText(append(b, '"'))
	if err != nil {
		return b, false
	}
	return append(out, '"'), true
}

// encodeArgs writes Args as their MarshalJSON does, for the values it
// writes itself (strings, ints, booleans, lists of strings); Args holding
// any other value are left to encoding/json.
func encodeArgs(b []byte, p unsafe.Pointer) ([]byte, bool) {
	a := *(*Args)(p)
	for _, arg := range a {
		switch arg.Value.(type) {
		case string, int, bool, []string:
		default:
			return b, false
		}
	}
	out, err := appendArgs(b, a)
	if err != nil {
		return b, false
	}
	return out, true
}

func ptrEncoder(elem encFunc) encFunc {
	return func(b []byte, p unsafe.Pointer) ([]byte, bool) {
		q := *(*unsafe.Pointer)(p)
		if q == nil {
			return append(b, "null"...), true
		}
		return elem(b, q)
	}
}

func sliceEncoder(elem encFunc, size uintptr) encFunc {
	return func(b []byte, p unsafe.Pointer) ([]byte, bool) {
		h := (*sliceHeader)(p)
		if h.data == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i := range h.len {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = elem(b, unsafe.Add(h.data, uintptr(i)*size)); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	}
}
