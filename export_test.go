package bounded

import (
	"reflect"

	"github.com/boundedkit/bounded/internal/jsonenc"
)

// FastEncodes reports whether Fit encodes items of type t with its
// compiled encoder rather than encoding/json.
func FastEncodes(t reflect.Type) bool { return jsonenc.For(t) != nil }

// FastEncode encodes *ptr with the compiled encoder of its type; ok is
// false when it declines the type or the value.
func FastEncode(ptr any) (b []byte, ok bool) {
	v := reflect.ValueOf(ptr)
	fe := jsonenc.For(v.Type().Elem())
	if fe == nil {
		return nil, false
	}
	return fe(nil, nil, v.Elem())
}

// EncodeToCeiling makes Fit with a Tokenizer encode items up to the
// character ceiling, not stopping at the token limit, until the returned
// function is called.
func EncodeToCeiling() (restore func()) {
	tokenStop = false
	return func() { tokenStop = true }
}
