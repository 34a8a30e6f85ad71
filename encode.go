package bounded

import (
	"reflect"

	"github.com/boundedkit/bounded/internal/estimate"
	"github.com/boundedkit/bounded/internal/jsonenc"
)

func init() { jsonenc.Register(reflect.TypeFor[Args](), encodeArgs) }

// encodeArgs writes Args as their MarshalJSON does, for the values it
// writes itself (strings, ints, booleans, lists of strings); Args holding
// any other value are left to encoding/json.
func encodeArgs(sum *estimate.RuneSum, b []byte, v reflect.Value) ([]byte, bool) {
	if sum != nil {
		sum.Partial = true // their runes are not summed
	}
	a := *v.Addr().Interface().(*Args)
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
