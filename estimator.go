package bounded

import "github.com/boundedkit/bounded/internal/estimate"

// Estimator counts tokens without a vocabulary, usually more than
// o200k_base and cl100k_base do; it undercounts JSON by at most
// [MaxEstimateError], raw source code possibly by more. It is safe for
// concurrent use.
type Estimator struct{}

// MaxEstimateError is the largest share by which the [Estimator]
// undercounts JSON (BENCHMARKS.md): lower by it a limit that must hold
// exactly.
const MaxEstimateError = 0.03

// CountTokens returns the estimated number of tokens of s: 0 for "".
func (Estimator) CountTokens(s string) int { return estimate.CountTokens(s) }
