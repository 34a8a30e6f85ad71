package tools

import (
	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/toolargs"
)

// fitFields is bounded.Fit for a request: when the call gives fields, the
// results keep only those (and their id), validated against T's fields;
// while the data is being written, its pagination says so
// ([Config.Importing]).
func fitFields[T any](r *request, in bounded.FitInput[T]) (bounded.Fitted, error) {
	if r.importing {
		// The data is still being written: a total counted exactly is
		// a lower bound, and the pagination says why.
		if r.counted && in.Page.Page.TotalKind == bounded.TotalExact && in.Page.Page.Total > 0 {
			in.Page.Page.TotalKind = bounded.TotalAtLeast
		}
		in.Page.Page.Importing = true
	}
	in.Notes = append(in.Notes, r.notes...)
	fields := r.in.Fields
	if len(fields) == 0 {
		return bounded.FitContext(r.ctx, r.budget, in)
	}
	out, err := toolargs.Project(r.call.Tool, in, fields)
	if err != nil {
		return bounded.Fitted{}, err
	}
	return bounded.FitContext(r.ctx, r.budget, out)
}
