// Package boundedotel records the responses [bounded.Fit] writes as
// OpenTelemetry metrics: how many were cut, how much of the budget they
// use, and the share of results cut.
//
//	obs, err := boundedotel.New(otel.GetMeterProvider().Meter("bounded"))
//	if err != nil { ... }
//	budget := bounded.ClaudeCode()
//	budget.Observer = obs
//
// Every instrument carries the tool's name (attribute "tool"); the
// responses counter also whether it was cut ("truncated") and why
// ("reason").
package boundedotel

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/boundedkit/bounded"
)

// Instrument names.
const (
	// Responses counts responses, by tool, truncated and reason.
	Responses = "bounded.responses"
	// CharsUsed is a response's characters over its limit, in [0, 1].
	CharsUsed = "bounded.budget.chars.used"
	// TokensUsed is a response's tokens over its limit, in [0, 1].
	TokensUsed = "bounded.budget.tokens.used"
	// ResultsCut is the share of a page's results a response left out,
	// in [0, 1]: 0 for a response that kept them all.
	ResultsCut = "bounded.results.cut"
)

// Observer is a [bounded.Observer] that records metrics.
type Observer struct {
	responses                   metric.Int64Counter
	charsUsed, tokensUsed, cuts metric.Float64Histogram
}

// shares are the bucket bounds of the histograms of shares.
var shares = []float64{0.1, 0.25, 0.5, 0.7, 0.8, 0.9, 0.95, 1}

// New returns an Observer recording to m.
func New(m metric.Meter) (*Observer, error) {
	var o Observer
	var errs [4]error
	o.responses, errs[0] = m.Int64Counter(Responses, metric.WithUnit("{response}"),
		metric.WithDescription("Tool responses fitted into a budget."))
	o.charsUsed, errs[1] = m.Float64Histogram(CharsUsed, metric.WithUnit("1"),
		metric.WithDescription("Share of the character limit a response uses."), metric.WithExplicitBucketBoundaries(shares...))
	o.tokensUsed, errs[2] = m.Float64Histogram(TokensUsed, metric.WithUnit("1"),
		metric.WithDescription("Share of the token limit a response uses."), metric.WithExplicitBucketBoundaries(shares...))
	o.cuts, errs[3] = m.Float64Histogram(ResultsCut, metric.WithUnit("1"),
		metric.WithDescription("Share of a page's results a response left out."), metric.WithExplicitBucketBoundaries(shares...))
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	return &o, nil
}

// ObserveResponse records one response.
func (o *Observer) ObserveResponse(ctx context.Context, tool string, tr bounded.Truncation) {
	toolAttr := attribute.String("tool", tool)
	o.responses.Add(ctx, 1, metric.WithAttributes(toolAttr,
		attribute.Bool("truncated", tr.Reason != ""), attribute.String("reason", tr.Reason)))
	set := metric.WithAttributes(toolAttr)
	if tr.LimitChars > 0 {
		o.charsUsed.Record(ctx, float64(tr.EstimatedChars)/float64(tr.LimitChars), set)
	}
	if tr.LimitTokens > 0 {
		o.tokensUsed.Record(ctx, float64(tr.EstimatedTokens)/float64(tr.LimitTokens), set)
	}
	cut := 0.0
	if tr.OriginalCount > 0 {
		cut = float64(tr.OriginalCount-tr.ReturnedCount) / float64(tr.OriginalCount)
	}
	o.cuts.Record(ctx, cut, set)
}

var _ bounded.Observer = (*Observer)(nil)
