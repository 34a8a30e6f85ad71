package bounded_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/tools"
)

// TestFastEncoderCoversResultTypes: every result type the ports and the
// tool set hand to Fit takes the compiled encoder, so that the speed
// BENCHMARKS.md reports is the speed tools get.
func TestFastEncoderCoversResultTypes(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[ports.NoteRef](),
		reflect.TypeFor[ports.NoteContent](),
		reflect.TypeFor[ports.LinkRef](),
		reflect.TypeFor[ports.Descendant](),
		reflect.TypeFor[ports.Related](),
		reflect.TypeFor[ports.RunView](),
		reflect.TypeFor[ports.NodeMatch](),
		reflect.TypeFor[ports.CodeMatch](),
		reflect.TypeFor[tools.NoteItem](),
		reflect.TypeFor[tools.DescendantItem](),
		reflect.TypeFor[tools.RelatedItem](),
		reflect.TypeFor[tools.NoteContentItem](),
		reflect.TypeFor[tools.LinkItem](),
		reflect.TypeFor[tools.EntityItem](),
		reflect.TypeFor[tools.RunItem](),
		reflect.TypeFor[tools.CodeItem](),
	} {
		if !bounded.FastEncodes(typ) {
			t.Errorf("%v is encoded by encoding/json, not the compiled encoder", typ)
			continue
		}
		// Every field set, every pointer and slice filled: the same bytes
		// as encoding/json.
		v := reflect.New(typ)
		fill(v.Elem(), 0)
		got, ok := bounded.FastEncode(v.Interface())
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v.Interface()); err != nil || !ok {
			t.Fatalf("%v: encoding/json: %v; compiled encoder ok %v", typ, err, ok)
		}
		if w := bytes.TrimSuffix(want.Bytes(), []byte("\n")); !bytes.Equal(got, w) {
			t.Errorf("%v:\n got %s\nwant %s", typ, got, w)
		}
	}
}

// fill sets every settable field of v to a value that is not empty:
// strings that need escaping, numbers, allocated pointers, two-element
// slices, a time with a zone.
func fill(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x \"é\" \u2028")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(-3)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(3)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(0.125)
	case reflect.Pointer:
		if depth < 4 {
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem(), depth+1)
		}
	case reflect.Slice:
		if depth < 4 {
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
			for i := range 2 {
				fill(v.Index(i), depth+1)
			}
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 24, 1, 2, 3, 4000, time.FixedZone("", 5400))))
			return
		}
		for i := range v.NumField() {
			if v.Field(i).CanSet() {
				fill(v.Field(i), depth+1)
			}
		}
	case reflect.Interface:
		v.Set(reflect.ValueOf("any"))
	}
}
