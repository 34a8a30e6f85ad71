package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
	"github.com/boundedkit/bounded/toolargs"
)

// Tool is one agent tool: what an MCP server (or any agent loop) lists, and
// the handler that answers a call.
type Tool struct {
	// Name is the tool's name, e.g. "search_knowledge".
	Name string
	// Description tells the agent what the tool does, its defaults and
	// maxima, and how to continue a response.
	Description string
	// InputSchema is the JSON Schema of the arguments: an object with no
	// additional properties, minimum, maximum and default on every
	// pagination argument.
	InputSchema json.RawMessage
	// Limits are the tool's page limits (default and maximum page size);
	// zero for tools that answer with one item (get_note).
	Limits bounded.Limits
	// Paging is how the tool takes pagination arguments and continues:
	// limit, offset and cursor, by cursor ([bounded.ByCursor]); limit and
	// offset, by offset ([bounded.ByOffset]); or page and pageSize, by page
	// number ([bounded.ByPage]).
	Paging bounded.Paging
	// Handler answers a call: args is the JSON object of the arguments,
	// the result one JSON envelope ([bounded.Envelope]) that fits the
	// budget. Bad arguments are an [*ArgumentError]; errors of the port
	// (ports.ErrNotFound, ports.ErrInvalidQuery, ...) are returned wrapped
	// with the tool's name.
	Handler func(ctx context.Context, args json.RawMessage) ([]byte, error)
	// store says the tool pages in its store (cursor argument, count
	// strategy), not in memory over what one call read.
	store bool
}

// Config is what a [Set] serves.
type Config struct {
	// Notes, Knowledge, History and Code are the stores; a nil port leaves
	// its tools out of the set. One store (memrepo.Store, sqlite.Store,
	// postgres.Store) can serve them all.
	Notes     ports.Notes
	Knowledge ports.Knowledge
	History   ports.History
	Code      ports.Code
	// Mode is the access mode of every tool: [Private] (ids and
	// titles only, never content), [Balanced] ("" means Balanced) or
	// [Full].
	Mode Mode
	// Budget is the ceiling of every response. A call's budget and
	// budgetTokens arguments may lower it, never raise it. The zero Budget
	// is bounded's default; bounded.ClaudeCode() is Claude Code's.
	Budget bounded.Budget
	// Hints sets how much the hint of each response says.
	Hints bounded.HintStyle
	// OffsetHints makes next calls (in next and in the hint) continue by
	// offset instead of by cursor. By default a tool that pages in its
	// store continues by cursor: after the page's last result, by its sort
	// keys (after the last result kept, when the budget cut the page), so
	// a walk stays exact while the data changes and a deep page costs what
	// the first does. get_response_history continues by offset and
	// search_knowledge by page number either way; get_notes and
	// get_note_links page in memory, by offset. Every tool that pages in
	// its store takes a cursor argument, and a call made with a cursor
	// continues by cursor.
	OffsetHints bool
	// Counts chooses, by tool name, how a paged tool counts its total
	// (see [bounded.CountMode]). Tools not named count capped, at
	// bounded.DefaultCountCap of the page's limit: exact for small
	// results, "1,000+" over larger ones, cheap at any depth. Name a tool
	// with Count{Mode: bounded.CountExact} for its exact total.
	// get_notes and get_note_links page in memory over what they read and
	// always count exactly: naming them, or a tool not in the set, is an
	// error.
	Counts map[string]Count
	// Importing, when set, reports whether the data the tool named reads
	// is still being written, an import in progress. While it is, the
	// tool's totals of items found are lower bounds (totalKind atLeast)
	// and its pagination says "importing": true. It is asked once per
	// call, before the call reads.
	Importing func(tool string) bool
}

// Count is a tool's count strategy: Mode, and for bounded.CountCapped the
// most results counted (0 means bounded.DefaultCountCap of the page's limit:
// ten pages' worth).
type Count struct {
	Mode bounded.CountMode
	Cap  int
}

// Set is the tool set built from a [Config]: every tool of each port given.
// A Set is safe for concurrent use if its ports are.
type Set struct {
	cfg    Config
	policy Policy
	tools  []Tool
}

// New returns the tool set of c: the notes tools (get_note, get_notes,
// list_notes, search_notes, search_by_links, find_broken_links,
// get_note_links, get_backlinks, get_children, get_parents,
// get_descendants, get_related_notes) when c.Notes is set, search_knowledge
// with c.Knowledge, get_response_history with c.History and search_code with
// c.Code. An unknown mode is an error wrapping ports.ErrInvalidQuery, an
// invalid budget one wrapping bounded.ErrInvalidBudget.
func New(c Config) (*Set, error) {
	policy, err := PolicyFor(c.Mode)
	if err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	if err := c.Budget.Validate(); err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	if c.Budget.LimitChars() < MinBudget {
		return nil, fmt.Errorf("tools: %w: the budget allows %d characters, under the minimum %d", bounded.ErrInvalidBudget, c.Budget.LimitChars(), MinBudget)
	}
	if c.Budget.LimitTokens() < MinBudgetTokens {
		return nil, fmt.Errorf("tools: %w: the budget allows %d tokens, under the minimum %d", bounded.ErrInvalidBudget, c.Budget.LimitTokens(), MinBudgetTokens)
	}
	for name, ct := range c.Counts {
		if _, err := (bounded.Limits{Default: 1, Max: 1}).Normalize(bounded.Page{Count: ct.Mode, CountCap: ct.Cap}); err != nil {
			return nil, fmt.Errorf("tools: count of %s: %w", name, err)
		}
	}
	s := &Set{cfg: c, policy: policy}
	if c.Notes != nil {
		s.addNotes()
	}
	if c.Knowledge != nil {
		s.addKnowledge()
	}
	if c.History != nil {
		s.addHistory()
	}
	if c.Code != nil {
		s.addCode()
	}
	for name := range c.Counts {
		if t, ok := s.Tool(name); !ok || !t.store {
			return nil, fmt.Errorf("tools: %w: Counts names %q, which is not a tool of this set that pages in its store", bounded.ErrInvalidPage, name)
		}
	}
	return s, nil
}

// Tools returns the set's tools, notes tools first, in the order New
// documents.
func (s *Set) Tools() []Tool { return append([]Tool(nil), s.tools...) }

// Tool returns the tool called name.
func (s *Set) Tool(name string) (Tool, bool) {
	for _, t := range s.tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// Call runs the tool called name with the JSON arguments args. An unknown
// name is [ErrUnknownTool].
func (s *Set) Call(ctx context.Context, name string, args json.RawMessage) ([]byte, error) {
	t, ok := s.Tool(name)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownTool, name)
	}
	return t.Handler(ctx, args)
}

// Budget returns the ceiling of every response: Config.Budget.
func (s *Set) Budget() bounded.Budget { return s.cfg.Budget }

// Policy returns the access-mode policy the set applies.
func (s *Set) Policy() Policy { return s.policy }

// MinBudget is the smallest budget, in characters, a call may ask for.
const MinBudget = toolargs.MinBudget

// MinBudgetTokens is the smallest budgetTokens a call may ask for (or the
// server's token limit, if lower).
const MinBudgetTokens = toolargs.MinBudgetTokens

// request is one parsed call: its arguments, the page asked for, the call
// that a hint continues, and the budget.
type request struct {
	ctx context.Context // the call's, for Fit
	in  *toolargs.Call
	// raw is the arguments as given, size their length in characters.
	raw      string
	size     int
	page     bounded.Page
	call     bounded.Call
	budget   bounded.Budget
	hints    bounded.HintStyle
	detailed bool
	// noContext turns hierarchy context off (the hierarchy tools).
	noContext bool
	// noCursor: the tool takes no cursor (it pages in memory), so its
	// responses carry none.
	noCursor bool
	// notes end the hint: the budgets clamped to their maxima, names
	// resolved, why a listing is empty.
	notes []string
	// importing: the data the tool reads is still being written
	// ([Config.Importing]). counted: the tool's totals count stored items
	// (every paged tool but get_notes, which pages over the ids given).
	importing, counted bool
}

// handler answers a parsed call.
type handler func(ctx context.Context, r *request) ([]byte, error)

// add registers the tool sp answered by h: toolargs parses its calls,
// with the common arguments (pagination by sp's paging style, budget,
// detail, fields), and h answers them.
func (s *Set) add(sp spec, h handler) {
	if sp.noCursor {
		sp.paging = bounded.ByOffset
	}
	parser, err := toolargs.NewParser(sp.decl(s.cfg.Budget, s.cfg.Counts[sp.name]))
	if err != nil {
		panic("tools: " + err.Error()) // the package's own declarations
	}
	t := Tool{Name: sp.name, Description: sp.desc, InputSchema: mustJSON(parser.Schema()), Paging: sp.paging}
	if sp.paged {
		t.Limits = sp.limits
		t.store = !sp.noCursor
	}
	t.Handler = func(ctx context.Context, raw json.RawMessage) ([]byte, error) {
		c, err := parser.Parse(ctx, raw)
		if err != nil {
			return nil, err
		}
		r := s.newRequest(&sp, c)
		r.ctx, r.raw, r.size = ctx, string(raw), utf8.RuneCount(raw)
		out, err := h(ctx, r)
		if err != nil {
			if _, ok := err.(*ArgumentError); ok {
				return nil, err
			}
			if errors.Is(err, bounded.ErrInvalidCursor) {
				return nil, cursorError(sp.name, err)
			}
			return nil, fmt.Errorf("%s: %w", sp.name, err)
		}
		return out, nil
	}
	s.tools = append(s.tools, t)
}

// cursorError is the argument error of a cursor the store refused, err,
// saying what to do instead; it matches err's sentinels.
func cursorError(tool string, err error) *ArgumentError {
	why := err.Error()
	for _, p := range []string{bounded.ErrInvalidCursor.Error() + ": ", "bounded: "} {
		why = strings.TrimPrefix(why, p)
	}
	return &ArgumentError{Tool: tool, Argument: "cursor", Kind: err,
		Reason: why + ". A cursor continues only the call that returned it (the same tool and arguments): pass that response's pagination.nextCursor, or omit cursor to start from the first result"}
}

// newRequest builds the request of a parsed call.
func (s *Set) newRequest(sp *spec, c *toolargs.Call) *request {
	r := &request{in: c, hints: s.cfg.Hints, detailed: c.Detail != "concise", budget: c.Budget, noCursor: sp.noCursor, notes: c.Notes}
	r.importing = s.cfg.Importing != nil && s.cfg.Importing(sp.name)
	r.counted = sp.paged && sp.name != "get_notes"
	r.call = c.Next
	if s.cfg.OffsetHints && sp.paging == bounded.ByCursor {
		r.call.Paging = bounded.ByOffset
	}
	r.page = c.Page
	return r
}

// tokenCounting says how a budget counts tokens, for the budgetTokens
// argument's description.
func tokenCounting(b bounded.Budget) string {
	switch {
	case b.Tokenizer != nil:
		return "Tokens are counted exactly."
	case b.CharsPerToken > 0:
		return fmt.Sprintf("Tokens are estimated at %v characters each.", b.CharsPerToken)
	}
	return fmt.Sprintf("Tokens are estimated, on the high side, and %v%% of a lower budgetTokens is used, for the estimate's error.", 100-100*bounded.MaxEstimateError)
}

// Instructions are what every tool of the set shares, said once: how
// responses are bounded, paged and continued, and the access mode. An MCP
// server sends them as its instructions; each tool's description says only
// what is its own.
func (s *Set) Instructions() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Every tool answers with one JSON object: results, pagination, truncation, hint and next. "+
		"A response is at most %s characters and %s tokens; the budget and budgetTokens arguments lower that. "+
		"%s Results that do not fit are cut at a result boundary and truncation says so; a result too large alone is clipped with a visible marker, and a budget too small for one result gets none and truncation.neededChars.\n",
		bounded.FormatCount(s.cfg.Budget.LimitChars()), bounded.FormatCount(s.cfg.Budget.LimitTokens()), tokenCounting(s.cfg.Budget))
	b.WriteString("To continue a listing, call the same tool with the arguments in next, and those nextKeeps names as you sent them (the hint names the call; <as before> stands for your own argument, <pagination.nextCursor> for that cursor). ")
	if s.cfg.OffsetHints {
		b.WriteString("next continues by offset; to page deep or while results change, pass cursor=pagination.nextCursor instead, and a call made with a cursor continues by cursor. ")
	} else {
		b.WriteString("next continues by cursor where a tool takes one, which stays exact while results change; get_response_history continues by offset, search_knowledge by page. ")
	}
	b.WriteString("Paged tools take limit and offset (search_knowledge: 0-based page and pageSize), and cursor; larger limits are clamped to the maximum. pagination has total (totalKind exact, atLeast or unknown), hasMore and nextOffset.\n")
	b.WriteString("detail=concise returns fewer fields per result; fields=[...] only the fields named (and id).\n")
	b.WriteString("A note id is the note's vault path without extension; a name as an Obsidian link gives it (a basename, other case, .md) is resolved as the link is, and the hint says to what. Folders are the hierarchy's nodes (folder: true).\n")
	b.WriteString("Notes' text comes in windows of lines: contentMetadata has totalLines, returnedLines and nextOffset, and the get_note call that reads on (with charOffset inside a long line) is get_note's next, each note's nextLines in get_notes.\n")
	switch s.policy.Mode {
	case Private:
		b.WriteString("Private mode: only ids, titles and other identifiers are returned, never content; withheld lists what was left out.")
	case Full:
		b.WriteString("Full mode: whole content, clipped to 250 characters after the first 20 results when a page has more than 100.")
	default:
		b.WriteString("Balanced mode: content is whole for fewer than 10 results, clipped to 500 characters each up to 50 results and to 250 beyond.")
	}
	return b.String()
}

// fit fits a page into the request's budget and returns the envelope.
// relevance, when set, scores the items (most relevant first); window, when
// set, becomes the envelope's contentMetadata.
func fit[T any](r *request, page bounded.Paged[T], relevance func(T) float64, window *bounded.WindowInfo) ([]byte, error) {
	out, err := fitted(r, page, relevance, window)
	if err != nil {
		return nil, err
	}
	return out.JSON, nil
}

// fitted is fit, returning the whole [bounded.Fitted].
func fitted[T any](r *request, page bounded.Paged[T], relevance func(T) float64, window *bounded.WindowInfo) (bounded.Fitted, error) {
	if r.noCursor {
		// A cursor the store issued that this tool cannot take back.
		page.Page.NextCursor, page.Page.PrevCursor, page.CursorAt = "", "", nil
	}
	return fitFields(r, bounded.FitInput[T]{
		Page: page, Call: r.call, Hints: r.hints, Relevance: relevance, Window: window, Unclipped: unclipped,
	})
}

// unclipped are the fields of results that name them: an id clipped is an
// id lost.
var unclipped = []string{"id", "sourceId"}

// fitNoteItems fits a page of notes. When its first note does not fit whole,
// the notes' hierarchy context gives way before any of their fields is
// clipped (contextOmitted).
func fitNoteItems[T any](r *request, page bounded.Paged[T], relevance func(T) float64, note func(*T) *NoteItem) ([]byte, error) {
	out, err := fitted(r, page, relevance, nil)
	if err != nil {
		return nil, err
	}
	tr := out.Truncation.Reason
	if tr != bounded.ReasonSingleResultTooLarge && tr != bounded.ReasonBudgetTooSmall || note(&page.Items[0]).Context == nil {
		return out.JSON, nil
	}
	items := slices.Clone(page.Items)
	for i := range items {
		if n := note(&items[i]); n.Context != nil {
			n.Context, n.ContextOmitted = nil, true
		}
	}
	page.Items = items
	return fit(r, page, relevance, nil)
}

// mapPage converts the items of a page one for one, in order, keeping its
// page info and its CursorAt (the cursor after n items is the same).
func mapPage[S, T any](p bounded.Paged[S], f func(i int, x S) T) bounded.Paged[T] {
	out := bounded.Paged[T]{Page: p.Page, CursorAt: p.CursorAt}
	if len(p.Items) > 0 {
		out.Items = make([]T, len(p.Items))
		for i, x := range p.Items {
			out.Items[i] = f(i, x)
		}
	}
	return out
}
