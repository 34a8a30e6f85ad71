package bounded

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

type finiteInner struct {
	Values []float64 `json:"values"`
}

type finiteEmbedded struct {
	Weight float32
}

type finiteItem struct {
	ID    int                    `json:"id"`
	Score float64                `json:"score,omitempty"`
	Skip  float64                `json:"-"`
	Inner *finiteInner           `json:"inner,omitempty"`
	Attrs map[string]any         `json:"a/b,omitempty"`
	Deep  map[string]finiteInner `json:"deep,omitempty"`
	finiteEmbedded
}

// TestRespondNonFinite: a result holding NaN or an infinity fails with
// ErrInvalidResult, naming the result and the field's JSON Pointer; a
// field encoding/json skips is not named.
func TestRespondNonFinite(t *testing.T) {
	for _, tc := range []struct {
		item finiteItem
		path string
	}{
		{finiteItem{ID: 1, Score: math.NaN()}, `"/score"`},
		{finiteItem{ID: 1, Skip: math.NaN(), Inner: &finiteInner{Values: []float64{1, math.Inf(1)}}}, `"/inner/values/1"`},
		{finiteItem{ID: 1, Attrs: map[string]any{"x": []any{math.Inf(-1)}}}, `"/a~1b/x/0"`},
		{finiteItem{ID: 1, Deep: map[string]finiteInner{"k~": {Values: []float64{math.NaN()}}}}, `"/deep/k~0/values/0"`},
		{finiteItem{ID: 1, finiteEmbedded: finiteEmbedded{Weight: float32(math.Inf(1))}}, `"/Weight"`},
	} {
		items := []finiteItem{{ID: 0}, tc.item}
		_, err := Respond(context.Background(), FromSlice(items), Call{Tool: "x"}, Page{}, Options[finiteItem]{Limits: Limits{Default: 5, Max: 5}})
		if !errors.Is(err, ErrInvalidResult) || !strings.Contains(err.Error(), "result 1: field "+tc.path) {
			t.Errorf("%+v: %v; want ErrInvalidResult naming result 1, field %s", tc.item, err, tc.path)
		}
	}
}
