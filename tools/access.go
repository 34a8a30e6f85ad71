package tools

import (
	"fmt"
	"math"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// Mode is an access mode: how much of the store's content any tool may
// reveal to the agent.
type Mode string

const (
	// Private: ids and titles only, never content, from any tool. Pure
	// reference discovery.
	Private Mode = "private"
	// Balanced: content clipped progressively by result count: full under
	// 10 results, 500 characters up to 50, 250 above; listings show 200
	// characters.
	Balanced Mode = "balanced"
	// Full: whole content; above 100 results only the first SummaryLimit
	// items keep it whole and the rest are clipped to 250 characters.
	Full Mode = "full"
)

// Expansion is how much hierarchy context is attached to each result.
type Expansion struct {
	// Parent adds the result's parents.
	Parent bool
	// ChildLevels adds children down to this many levels (0: none).
	ChildLevels int
	// Chars clips each context item's content.
	Chars int
}

// Policy is the limits an access mode sets for every tool.
type Policy struct {
	Mode Mode
	// Limits bound the results of one call for mode-aware search tools.
	Limits bounded.Limits
	// Content reports whether any content may be returned. False in
	// Private mode: tools return ids and titles only.
	Content bool
	// Progressive chooses the per-item content limit from the result
	// count (0: whole content).
	Progressive bounded.ContentPolicy
	// ListingChars clips content shown in intermediate listings.
	ListingChars int
	// SummaryLimit is, in Full mode, how many results keep whole content
	// when more than 100 are returned.
	SummaryLimit int
}

// Policies of the three modes.
var (
	PrivatePolicy  = Policy{Mode: Private, Limits: bounded.Limits{Default: 500, Max: 10000}}
	BalancedPolicy = Policy{
		Mode: Balanced, Limits: bounded.Limits{Default: 500, Max: 10000}, Content: true,
		Progressive: bounded.DefaultContentPolicy, ListingChars: 200, SummaryLimit: 50,
	}
	FullPolicy = Policy{
		Mode: Full, Limits: bounded.Limits{Default: 500, Max: 10000}, Content: true,
		Progressive:  bounded.ContentPolicy{Steps: []bounded.ContentStep{{MaxResults: 100, MaxChars: 0}, {MaxResults: math.MaxInt, MaxChars: 250}}},
		SummaryLimit: 20,
	}
)

// PolicyFor returns the policy of mode m; an unknown mode is
// [ports.ErrInvalidQuery].
func PolicyFor(m Mode) (Policy, error) {
	switch m {
	case Private:
		return PrivatePolicy, nil
	case Balanced, "":
		return BalancedPolicy, nil
	case Full:
		return FullPolicy, nil
	}
	return Policy{}, fmt.Errorf("%w: unknown access mode %q (want private, balanced or full)", ports.ErrInvalidQuery, m)
}

// ContentChars is the content limit of the item at index i of n results:
// -1 when no content may be shown (Private), 0 for whole content, else a
// number of characters for [bounded.Clip].
func (p Policy) ContentChars(n, i int) int {
	if !p.Content {
		return -1
	}
	if p.Mode == Full && n > 100 && i < p.SummaryLimit {
		return 0
	}
	return p.Progressive.Limit(n)
}

// Expansion returns the hierarchy context attached to each of n results:
// Balanced adds the parent and two levels of children (250 characters each)
// under 10 results and immediate children up to 50; Full does the same
// under 30 and up to 100; Private attaches none.
func (p Policy) Expansion(n int) Expansion {
	small, medium := 10, 50
	switch p.Mode {
	case Private:
		return Expansion{}
	case Full:
		small, medium = 30, 100
	}
	switch {
	case n < small:
		return Expansion{Parent: true, ChildLevels: 2, Chars: 250}
	case n <= medium:
		return Expansion{ChildLevels: 1, Chars: 250}
	}
	return Expansion{}
}
