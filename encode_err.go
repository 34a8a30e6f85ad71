package bounded

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/boundedkit/bounded/internal/jsonenc"
)

// ErrInvalidResult is the error of a result JSON cannot hold: a NaN or
// infinite float, or a value whose MarshalJSON fails.
var ErrInvalidResult = errors.New("bounded: result does not encode as JSON")

// encodeError returns the error of result i, v, that encoding/json
// refused with err: it wraps [ErrInvalidResult] and err, and names the JSON
// Pointer of the first NaN or infinite float in v, when there is one.
func encodeError(i int, v reflect.Value, err error) error {
	var uv *json.UnsupportedValueError
	if errors.As(err, &uv) {
		if p, ok := jsonenc.NonFinite(v); ok && p != "" {
			return fmt.Errorf("%w: result %d: field %q: %w", ErrInvalidResult, i, p, err)
		}
	}
	return fmt.Errorf("%w: result %d: %w", ErrInvalidResult, i, err)
}
