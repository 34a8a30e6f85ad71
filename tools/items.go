package tools

import (
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// The results of the tools, as they encode in an envelope's "results".
// Fields marked "detailed" are left out with detail="concise"; content
// fields are left out in private mode, and listed in Withheld instead.

// NoteItem is a note as the listing tools return it (list_notes,
// search_notes, search_by_links, get_backlinks, get_children, get_parents).
type NoteItem struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Folder marks a folder no note stands for (the hierarchy tools):
	// get_children lists what it holds; get_note finds no note there.
	Folder bool `json:"folder,omitempty"`
	// Tags and UpdatedAt: detailed.
	Tags      []string   `json:"tags,omitempty"`
	UpdatedAt *time.Time `json:"updatedAt,omitempty"`
	// Context is the hierarchy around the note, attached (detailed) when
	// the access mode expands context for a page this small.
	Context *Context `json:"context,omitempty"`
	// ContextOmitted: the context was left out to fit the budget
	// (get_parents and get_descendants list it).
	ContextOmitted bool `json:"contextOmitted,omitempty"`
}

// DescendantItem is a result of get_descendants.
type DescendantItem struct {
	NoteItem
	// Depth is 1 for a child, 2 for a grandchild, ...
	Depth int `json:"depth"`
}

// RelatedItem is a result of get_related_notes.
type RelatedItem struct {
	NoteItem
	Score       int  `json:"score"`
	SharedTags  int  `json:"sharedTags"`
	SharedLinks int  `json:"sharedLinks"`
	LinksTo     bool `json:"linksTo"`
	LinkedFrom  bool `json:"linkedFrom"`
}

// NoteContentItem is a note with a window of its content, as get_note and
// get_notes return it.
type NoteContentItem struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	// Missing is true when get_notes was given an id that names no note;
	// the other fields are then empty.
	Missing bool `json:"missing,omitempty"`
	// Tags, CreatedAt and UpdatedAt: detailed.
	Tags      []string   `json:"tags,omitempty"`
	CreatedAt *time.Time `json:"createdAt,omitempty"`
	UpdatedAt *time.Time `json:"updatedAt,omitempty"`
	// Content is the window of lines, clipped by the access mode and the
	// budget; nil in private mode.
	Content *string `json:"content,omitempty"`
	// ContentMetadata describes the lines returned: totalLines,
	// returnedLines, offset, isTruncated and nextOffset. After a clip it
	// counts the lines actually returned (a clipped last line included).
	ContentMetadata *bounded.WindowInfo `json:"contentMetadata,omitempty"`
	// ContentClip reports a character clip of the window's text.
	ContentClip *bounded.ClipInfo `json:"contentClip,omitempty"`
	// NextLines is the whole argument list of the get_note call that
	// returns the lines after these, when any remain; get_note writes it
	// as the envelope's next instead.
	NextLines bounded.Args `json:"nextLines,omitempty"`
	Withheld  []string     `json:"withheld,omitempty"`
	Context   *Context     `json:"context,omitempty"`
	// ContextOmitted: the hierarchy context was left out to fit the
	// budget (get_parents and get_descendants list it).
	ContextOmitted bool `json:"contextOmitted,omitempty"`
}

// LinkItem is one link, as find_broken_links and get_note_links return it.
type LinkItem struct {
	// Category is "internal", "external" or "incoming" (get_note_links).
	Category string `json:"category,omitempty"`
	SourceID string `json:"sourceId"`
	// Position is the link's 0-based index among its source's links
	// (detailed).
	Position *int `json:"position,omitempty"`
	// Target is the note id of an internal link, or the URL of an
	// external one (withheld in private mode: Domain remains).
	Target   string `json:"target,omitempty"`
	Domain   string `json:"domain,omitempty"`
	External bool   `json:"external,omitempty"`
	// Text is the link's alias or display text (detailed; withheld in
	// private mode).
	Text string `json:"text,omitempty"`
	// Exists reports whether an internal link's target note exists.
	Exists   *bool    `json:"exists,omitempty"`
	Withheld []string `json:"withheld,omitempty"`
}

// EntityItem is a knowledge-graph entity, as search_knowledge returns it.
type EntityItem struct {
	Name  string  `json:"name"`
	Type  string  `json:"type"`
	Score float64 `json:"score"`
	// Tags, Observations and UpdatedAt: detailed.
	Tags []string `json:"tags,omitempty"`
	// Observations are kept in order within the access mode's content
	// limit for the item (the one crossing it clipped, the rest left out);
	// ObservationsTotal counts them all when some were left out or
	// clipped.
	Observations      []string   `json:"observations,omitempty"`
	ObservationsTotal int        `json:"observationsTotal,omitempty"`
	UpdatedAt         *time.Time `json:"updatedAt,omitempty"`
	Withheld          []string   `json:"withheld,omitempty"`
}

// RunItem is one recorded run, as get_response_history returns it.
type RunItem struct {
	ID string `json:"id"`
	// EndpointID and FinishedAt: detailed.
	EndpointID string     `json:"endpointId,omitempty"`
	StartedAt  time.Time  `json:"startedAt"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
	Status     string     `json:"status"`
	StatusCode int        `json:"statusCode"`
	// Body is the response body, clipped to 1,000 characters by the port
	// and further by the budget; nil in private mode. BodyChars is the
	// whole body's length, BodyTruncated says whether Body was clipped.
	Body          *string  `json:"body,omitempty"`
	BodyChars     int      `json:"bodyChars"`
	BodyTruncated bool     `json:"bodyTruncated,omitempty"`
	Withheld      []string `json:"withheld,omitempty"`
}

// CodeItem is a chunk of code, as search_code returns it.
type CodeItem struct {
	FilePath  string  `json:"filePath"`
	StartLine int     `json:"startLine"`
	EndLine   int     `json:"endLine"`
	Score     float64 `json:"score"`
	// ID and Language: detailed.
	ID       string `json:"id,omitempty"`
	Language string `json:"language,omitempty"`
	// Content, ContextBefore and ContextAfter are the lines and their
	// context (the context detailed); nil or empty in private mode.
	Content       *string           `json:"content,omitempty"`
	ContextBefore string            `json:"contextBefore,omitempty"`
	ContextAfter  string            `json:"contextAfter,omitempty"`
	ContentClip   *bounded.ClipInfo `json:"contentClip,omitempty"`
	Withheld      []string          `json:"withheld,omitempty"`
}

// Context is the hierarchy around a result: its parents and the notes and
// folders below it, each note with a short snippet of content.
type Context struct {
	Parents []ContextNote `json:"parents,omitempty"`
	// MoreParents names the call that lists the parents left out.
	MoreParents string        `json:"moreParents,omitempty"`
	Children    []ContextNote `json:"children,omitempty"`
	// MoreChildren names the call that lists the descendants left out.
	MoreChildren string `json:"moreChildren,omitempty"`
}

// ContextNote is a note or folder of a [Context].
type ContextNote struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Folder marks a folder no note stands for.
	Folder bool `json:"folder,omitempty"`
	// Depth is 1 for a child, 2 for a grandchild; 0 for a parent.
	Depth int `json:"depth,omitempty"`
	// Snippet is the start of the note's content, clipped with a visible
	// marker.
	Snippet string `json:"snippet,omitempty"`
}

// noteItem is the listing view of a note.
func (r *request) noteItem(n ports.NoteRef) NoteItem {
	it := NoteItem{ID: n.ID, Title: n.Title, Folder: n.Folder}
	if r.detailed {
		it.Tags = n.Tags
		it.UpdatedAt = timePtr(n.UpdatedAt)
	}
	return it
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
