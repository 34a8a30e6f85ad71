package boundedotel_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/boundedotel"
)

type note struct {
	ID   int    `json:"id"`
	Text string `json:"text"`
}

// TestMetrics fits three responses of one tool, two of them cut, through
// a budget with the Observer, and reads the metrics back from the SDK's
// in-memory reader.
func TestMetrics(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	obs, err := boundedotel.New(provider.Meter("bounded"))
	if err != nil {
		t.Fatal(err)
	}
	items := make([]note, 40)
	for i := range items {
		items[i] = note{ID: i, Text: strings.Repeat("word ", 20)}
	}
	src := bounded.FromSlice(items)
	call := bounded.Call{Tool: "list_notes"}
	ctx := context.Background()
	var kept []int
	for _, maxChars := range []int{100_000, 2000, 1500} {
		b := bounded.Budget{MaxChars: maxChars, Margin: 1, Observer: obs}
		out, err := bounded.Respond(ctx, src, call, bounded.Page{Limit: 40}, bounded.Options[note]{Limits: bounded.Limits{Default: 40, Max: 40}, Budget: b})
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, out.Kept)
	}
	if kept[0] != 40 || kept[1] >= 40 || kept[2] >= kept[1] {
		t.Fatalf("kept %v: want all, then fewer, then fewer still", kept)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			got[m.Name] = m.Data
		}
	}
	sum, ok := got[boundedotel.Responses].(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%s: %T, want a sum", boundedotel.Responses, got[boundedotel.Responses])
	}
	counts := map[string]int64{}
	for _, p := range sum.DataPoints {
		tool, _ := p.Attributes.Value(attribute.Key("tool"))
		truncated, _ := p.Attributes.Value(attribute.Key("truncated"))
		reason, _ := p.Attributes.Value(attribute.Key("reason"))
		counts[fmt.Sprintf("%s %v %s", tool.AsString(), truncated.AsBool(), reason.AsString())] += p.Value
	}
	want := map[string]int64{"list_notes false ": 1, "list_notes true character_limit": 2}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("responses %v, want %v", counts, want)
	}
	for _, name := range []string{boundedotel.CharsUsed, boundedotel.TokensUsed, boundedotel.ResultsCut} {
		h, ok := got[name].(metricdata.Histogram[float64])
		if !ok || len(h.DataPoints) != 1 {
			t.Fatalf("%s: %#v, want one histogram of list_notes", name, got[name])
		}
		p := h.DataPoints[0]
		lo, _ := p.Min.Value()
		hi, _ := p.Max.Value()
		if p.Count != 3 || lo < 0 || hi > 1 {
			t.Errorf("%s: %d values in [%v, %v], want 3 in [0, 1]", name, p.Count, lo, hi)
		}
		if name == boundedotel.ResultsCut {
			want := float64(40-kept[1])/40 + float64(40-kept[2])/40
			if d := p.Sum - want; d > 1e-9 || d < -1e-9 {
				t.Errorf("%s: sum %v, want %v", name, p.Sum, want)
			}
		}
	}
}
