package ports

import (
	"context"
	"fmt"
	"time"

	"github.com/boundedkit/bounded"
)

// ResponseHistoryLimits: 2 runs by default, 10 at most (bodies are large;
// an agent asks for more by offset).
var ResponseHistoryLimits = bounded.Limits{Default: 2, Max: 10}

// HistoryBodyChars is the most characters (runes) of a response body
// ResponseHistory returns, marker included ([bounded.Clip]).
const HistoryBodyChars = 1000

// Run is one recorded execution of an endpoint and its response.
type Run struct {
	ID         string
	EndpointID string
	StartedAt  time.Time
	FinishedAt time.Time
	Status     string
	StatusCode int
	Body       string
}

// Normalize validates a run and returns the form every implementation
// stores (times normalized with [Time]). Errors wrap [ErrInvalidItem].
func (r Run) Normalize() (Run, error) {
	if err := ValidateID("run id", r.ID); err != nil {
		return Run{}, err
	}
	if err := ValidateID("endpoint id", r.EndpointID); err != nil {
		return Run{}, fmt.Errorf("run %q: %w", r.ID, err)
	}
	for field, s := range map[string]string{"status": r.Status, "body": r.Body} {
		if err := ValidateText(field, s); err != nil {
			return Run{}, fmt.Errorf("run %q: %w", r.ID, err)
		}
	}
	r.StartedAt = Time(r.StartedAt)
	r.FinishedAt = Time(r.FinishedAt)
	return r, nil
}

// RunView is a run as ResponseHistory returns it: the body clipped.
type RunView struct {
	ID         string    `json:"id"`
	EndpointID string    `json:"endpointId"`
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	Status     string    `json:"status"`
	StatusCode int       `json:"statusCode"`
	// Body is the response body clipped to [HistoryBodyChars] with
	// [bounded.Clip]: a clipped body ends with a visible marker.
	Body string `json:"body"`
	// BodyChars is the whole body's length in runes; BodyTruncated says
	// whether Body was clipped.
	BodyChars     int  `json:"bodyChars"`
	BodyTruncated bool `json:"bodyTruncated"`
}

// ViewRun clips a stored run for ResponseHistory. SQL adapters that fetch
// only a prefix of the body use [bounded.ClipPrefix] to the same effect.
func ViewRun(r Run) RunView {
	body, info := bounded.Clip(r.Body, HistoryBodyChars)
	return RunView{
		ID: r.ID, EndpointID: r.EndpointID, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt,
		Status: r.Status, StatusCode: r.StatusCode,
		Body: body, BodyChars: info.OriginalChars, BodyTruncated: info.Clipped,
	}
}

// History records endpoint runs and pages their responses.
type History interface {
	// RecordRun stores r, replacing any run with the same ID (recording a
	// run twice leaves one copy). It stores r.Normalize() and returns its
	// error ([ErrInvalidItem]) without writing when r is invalid.
	RecordRun(ctx context.Context, r Run) error

	// ResponseHistory pages the runs of endpointID, newest first:
	// StartedAt descending, then ID descending. Bodies are clipped as
	// [ViewRun] does, and the clip is done where the data lives: a SQL
	// adapter never fetches more than the first HistoryBodyChars runes of
	// a body. Limits: [ResponseHistoryLimits]. An endpoint with no runs
	// is an empty page, not an error. An invalid endpointID is
	// [ErrInvalidQuery].
	ResponseHistory(ctx context.Context, endpointID string, p bounded.Page) (bounded.Paged[RunView], error)
}
