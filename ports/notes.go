package ports

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/boundedkit/bounded"
)

// Page limits of the notes methods.
var (
	ListNotesLimits       = bounded.Limits{Default: 50, Max: 200}
	SearchNotesLimits     = bounded.Limits{Default: 20, Max: 100}
	SearchByLinksLimits   = bounded.Limits{Default: 50, Max: 200}
	FindBrokenLinksLimits = bounded.Limits{Default: 100, Max: 500}
	NoteLinksLimits       = bounded.Limits{Default: 100, Max: 500} // per category
	BacklinksLimits       = bounded.Limits{Default: 100, Max: 500}
	ChildrenLimits        = bounded.Limits{Default: 100, Max: 200}
	ParentsLimits         = bounded.Limits{Default: 100, Max: 200}
	DescendantsLimits     = bounded.Limits{Default: 100, Max: 500}
	RelatedNotesLimits    = bounded.Limits{Default: 50, Max: 200}
)

// Descendants depth: the default when the caller passes 0, and the maximum.
const (
	DefaultDescendantDepth = 3
	MaxDescendantDepth     = 20
)

// DescendantDepth returns the depth a Descendants call walks for
// maxDepth: [DefaultDescendantDepth] for 0, maxDepth itself up to
// [MaxDescendantDepth]; a negative or larger maxDepth is [ErrInvalidQuery].
func DescendantDepth(maxDepth int) (int, error) {
	switch {
	case maxDepth == 0:
		return DefaultDescendantDepth, nil
	case maxDepth < 0 || maxDepth > MaxDescendantDepth:
		return 0, fmt.Errorf("%w: maxDepth %d is not in [0, %d]", ErrInvalidQuery, maxDepth, MaxDescendantDepth)
	}
	return maxDepth, nil
}

// MaxGetNotes is the most ids one GetNotes call takes.
const MaxGetNotes = 100

// Note is one note of a vault, as written.
type Note struct {
	// ID identifies the note: its vault path without extension, e.g.
	// "projects/alpha". Internal links name notes by ID.
	ID      string
	Title   string
	Content string
	// Tags are stored deduplicated and sorted bytewise.
	Tags []string
	// Links are the note's outgoing links, in the order they appear.
	Links []Link
	// Parents are the IDs of the note's parents in the hierarchy, stored
	// deduplicated and sorted. A parent need not exist.
	Parents   []string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Link is one outgoing link of a note.
type Link struct {
	// Target is a note ID for an internal link (the note may not exist:
	// then the link is broken) and an absolute URL for an external one.
	Target   string
	External bool
	// Text is the link's alias or display text; may be empty.
	Text string
}

// Domain returns the lowercase host of an external link's URL, without port
// ("" for internal links and unparsable URLs). ExternalDomains filters match
// it.
func (l Link) Domain() string {
	if !l.External {
		return ""
	}
	u, err := url.Parse(l.Target)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// Normalize validates a note and returns the form every implementation
// stores: tags and parents deduplicated and sorted, times normalized with
// [Time], links kept in order. Errors wrap [ErrInvalidItem].
func (n Note) Normalize() (Note, error) {
	if err := ValidateID("note id", n.ID); err != nil {
		return Note{}, err
	}
	for field, s := range map[string]string{"title": n.Title, "content": n.Content} {
		if err := ValidateText(field, s); err != nil {
			return Note{}, fmt.Errorf("note %q: %w", n.ID, err)
		}
	}
	out := n
	out.Tags = sortedSet(n.Tags)
	out.Parents = sortedSet(n.Parents)
	for _, s := range out.Tags {
		if err := ValidateID("tag", s); err != nil {
			return Note{}, fmt.Errorf("note %q: %w", n.ID, err)
		}
	}
	for _, s := range out.Parents {
		if err := ValidateID("parent", s); err != nil {
			return Note{}, fmt.Errorf("note %q: %w", n.ID, err)
		}
		if s == n.ID {
			return Note{}, fmt.Errorf("note %q: %w: a note cannot be its own parent", n.ID, ErrInvalidItem)
		}
	}
	out.Links = append([]Link(nil), n.Links...)
	for i, l := range out.Links {
		if err := ValidateID("link target", l.Target); err != nil {
			return Note{}, fmt.Errorf("note %q link %d: %w", n.ID, i, err)
		}
		if err := ValidateText("link text", l.Text); err != nil {
			return Note{}, fmt.Errorf("note %q link %d: %w", n.ID, i, err)
		}
	}
	out.CreatedAt = Time(n.CreatedAt)
	out.UpdatedAt = Time(n.UpdatedAt)
	return out, nil
}

// ValidateGetNotes checks a GetNotes request, in the order every
// implementation reports it: 1 to [MaxGetNotes] ids ([ErrInvalidQuery]),
// each a valid id ([ValidateQuery]), then the window
// ([bounded.ErrInvalidWindow]).
func ValidateGetNotes(ids []string, w bounded.Window) error {
	if err := validateIDs(ids, MaxGetNotes); err != nil {
		return err
	}
	_, _, err := w.Normalize()
	return err
}

// NoteRef is a note as lists return it: no content.
type NoteRef struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Tags      []string  `json:"tags,omitempty"` // sorted; nil when none
	UpdatedAt time.Time `json:"updatedAt"`
	// Folder reports a folder no note stands for, which the hierarchy
	// methods return: Title is its name ([NodeName]), Tags and UpdatedAt
	// are zero.
	Folder bool `json:"folder,omitempty"`
}

// NoteContent is a note with one window of its content.
type NoteContent struct {
	NoteRef
	CreatedAt time.Time `json:"createdAt"`
	// Content is the window of lines asked for, exactly as stored.
	Content string `json:"content"`
	// Window describes the window: total and returned lines, and the next
	// offset when lines remain.
	Window bounded.WindowInfo `json:"contentMetadata"`
}

// GetNotesResult is the answer of GetNotes: the notes found, in the order
// asked, and the ids not found.
type GetNotesResult struct {
	Notes   []NoteContent `json:"notes"`
	Missing []string      `json:"missing,omitempty"`
}

// ListFilter narrows ListNotes. The zero value lists every note.
type ListFilter struct {
	// Tag, when set, keeps notes that have it.
	Tag string
	// Folder, when set, keeps notes whose ID starts with Folder + "/".
	Folder string
}

// LinkQuery selects notes by their links for SearchByLinks. A note matches
// when it meets every criterion that is set (AND), and a list criterion when
// it meets any element of the list (OR). At least one criterion must be set.
type LinkQuery struct {
	// HasLinksTo: notes with an internal link to any of these IDs.
	HasLinksTo []string
	// LinkedFrom: existing notes that any of these notes links to.
	LinkedFrom []string
	// ExternalDomains: notes with an external link whose [Link.Domain] is
	// one of these or a subdomain of one (compared case-insensitively).
	ExternalDomains []string
	// BrokenLinks: notes with at least one internal link to a missing note.
	BrokenLinks bool
}

// Validate checks the query: at least one criterion, every string a valid
// query. Errors wrap [ErrInvalidQuery].
func (q LinkQuery) Validate() error {
	if len(q.HasLinksTo)+len(q.LinkedFrom)+len(q.ExternalDomains) == 0 && !q.BrokenLinks {
		return fmt.Errorf("%w: no link criterion given (hasLinksTo, linkedFrom, externalDomains or brokenLinks)", ErrInvalidQuery)
	}
	for _, l := range []struct {
		name string
		v    []string
	}{{"hasLinksTo", q.HasLinksTo}, {"linkedFrom", q.LinkedFrom}, {"externalDomains", q.ExternalDomains}} {
		if len(l.v) > MaxGetNotes {
			return fmt.Errorf("%w: %s has %d entries, over the maximum %d", ErrInvalidQuery, l.name, len(l.v), MaxGetNotes)
		}
		for _, s := range l.v {
			if err := ValidateQuery(l.name, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// LinkRef is one link, seen from its source note.
type LinkRef struct {
	SourceID string `json:"sourceId"`
	// Position is the link's 0-based index in its source note's links.
	Position int    `json:"position"`
	Target   string `json:"target"`
	External bool   `json:"external,omitempty"`
	Text     string `json:"text,omitempty"`
	// Exists reports, for an internal link, that its target note exists.
	Exists bool `json:"exists"`
}

// NoteLinksPages are the pages asked of NoteLinks, one per category.
type NoteLinksPages struct {
	Internal, External, Incoming bounded.Page
}

// Check returns the error of the first page that [NoteLinksLimits] refuses
// (Internal, External, Incoming), or of an invalid id
// ([ErrInvalidQuery]): what NoteLinks checks before reading anything.
func (p NoteLinksPages) Check(id string) error {
	for _, pg := range [3]bounded.Page{p.Internal, p.External, p.Incoming} {
		if _, err := NoteLinksLimits.Normalize(pg); err != nil {
			return err
		}
	}
	return ValidateQuery("id", id)
}

// NoteLinks are a note's links by category, each paged on its own.
type NoteLinks struct {
	Internal bounded.Paged[LinkRef] `json:"internal"`
	External bounded.Paged[LinkRef] `json:"external"`
	Incoming bounded.Paged[LinkRef] `json:"incoming"`
}

// Descendant is a note or folder reached down the hierarchy, at its
// shortest depth.
type Descendant struct {
	NoteRef
	// Depth is 1 for a child, 2 for a grandchild, ...
	Depth int `json:"depth"`
}

// Related is a note related to another, with why.
type Related struct {
	NoteRef
	// Score = SharedTags + SharedLinks + 2 if the notes link to each other
	// in either direction (LinksTo or LinkedFrom).
	Score       int  `json:"score"`
	SharedTags  int  `json:"sharedTags"`
	SharedLinks int  `json:"sharedLinks"`
	LinksTo     bool `json:"linksTo"`
	LinkedFrom  bool `json:"linkedFrom"`
}

// Notes is a vault of notes with links and hierarchy.
//
// Every paged method pages as the package documentation says, with its
// Limits (ListNotesLimits, ...) and its [Order] (ByUpdatedDesc, ...), and
// returns no items, HasMore false and the total for an offset past the
// end. Methods that take a note ID return an error wrapping
// [ErrNotFound] when it names no note, unless documented otherwise.
//
// The hierarchy's nodes are the notes and their folders ([FoldersOf]):
// "a/b/c" is in folder "a/b", itself in "a". A note whose ID is a
// folder's (a folder's index note) stands for that folder. A node's
// parents are its folder and, for a note, the nodes its Parents name;
// its children are the nodes naming it so. The hierarchy methods return
// a folder no note stands for as a NoteRef with Folder set, and take a
// folder's ID where they take a note's.
type Notes interface {
	// PutNote stores n, replacing any note with the same ID together with
	// its links and parents. It stores n.Normalize() and returns its error
	// (wrapping [ErrInvalidItem]) without writing anything when n is
	// invalid. Putting the same note twice leaves one copy.
	PutNote(ctx context.Context, n Note) error

	// DeleteNote removes the note with its links and parent edges; links
	// to it from other notes become broken. Deleting a missing note is
	// [ErrNotFound].
	DeleteNote(ctx context.Context, id string) error

	// GetNote returns one note with the window w of its content lines
	// (see [bounded.ApplyWindow]: default 500 lines, maximum 2,000; a
	// window past the end returns no lines and the exact total).
	// An invalid window is an error wrapping [bounded.ErrInvalidWindow].
	GetNote(ctx context.Context, id string, w bounded.Window) (NoteContent, error)

	// GetNotes returns the notes named by ids, each with the window w, in
	// the order of ids (duplicates once, at their first place); ids that
	// name no note are listed in Missing, not an error. More than
	// [MaxGetNotes] ids, or none, is [ErrInvalidQuery].
	GetNotes(ctx context.Context, ids []string, w bounded.Window) (GetNotesResult, error)

	// ListNotes pages the notes that pass f, ordered by UpdatedAt
	// descending, then ID ascending. Limits: [ListNotesLimits].
	ListNotes(ctx context.Context, f ListFilter, p bounded.Page) (bounded.Paged[NoteRef], error)

	// SearchNotes pages the notes whose title or content contains query,
	// compared after [Fold]; LIKE wildcards and quotes match literally.
	// Order: notes whose title matches first, then those matching in
	// content only; within each, UpdatedAt descending, then ID ascending.
	// Limits: [SearchNotesLimits]. An invalid query ([ValidateQuery]) is
	// [ErrInvalidQuery].
	SearchNotes(ctx context.Context, query string, p bounded.Page) (bounded.Paged[NoteRef], error)

	// SearchByLinks pages the notes matching q (see [LinkQuery]), each
	// once, ordered by UpdatedAt descending, then ID ascending. Limits:
	// [SearchByLinksLimits]. An invalid q is [ErrInvalidQuery].
	SearchByLinks(ctx context.Context, q LinkQuery, p bounded.Page) (bounded.Paged[NoteRef], error)

	// FindBrokenLinks pages every internal link whose target note does not
	// exist, ordered by source ID, then position. Limits:
	// [FindBrokenLinksLimits].
	FindBrokenLinks(ctx context.Context, p bounded.Page) (bounded.Paged[LinkRef], error)

	// NoteLinks pages the note's internal and external outgoing links
	// (ordered by position) and its incoming links (ordered by source ID,
	// then position), each category with its own page and
	// [NoteLinksLimits].
	NoteLinks(ctx context.Context, id string, p NoteLinksPages) (NoteLinks, error)

	// Backlinks pages the notes with at least one internal link to id,
	// each once, ordered by UpdatedAt descending, then ID ascending.
	// Limits: [BacklinksLimits]. id need not exist: the backlinks of a
	// missing note are the notes whose links to it are broken.
	Backlinks(ctx context.Context, id string, p bounded.Page) (bounded.Paged[NoteRef], error)

	// Children pages the nodes that name node id as a parent: the notes
	// and folders in folder id, and the notes whose Parents name id; each
	// once, ordered by title, then ID. Limits: [ChildrenLimits]. An id
	// naming no note or folder is [ErrNotFound].
	Children(ctx context.Context, id string, p bounded.Page) (bounded.Paged[NoteRef], error)

	// Parents pages the parents of node id: its folder and, for a note,
	// the nodes its Parents name (those that exist); each once, ordered by
	// title, then ID. Limits: [ParentsLimits]. An id naming no note or
	// folder is [ErrNotFound].
	Parents(ctx context.Context, id string, p bounded.Page) (bounded.Paged[NoteRef], error)

	// Descendants pages the nodes below node id down to maxDepth levels (0
	// means [DefaultDescendantDepth]; over [MaxDescendantDepth] or negative
	// is [ErrInvalidQuery]), each once at its shortest depth (cycles are
	// harmless; id itself is never its own descendant), ordered by depth,
	// then title, then ID. Limits: [DescendantsLimits].
	Descendants(ctx context.Context, id string, maxDepth int, p bounded.Page) (bounded.Paged[Descendant], error)

	// ParentsOf returns, for each node of ids, the start of its Parents
	// list: the first perNote parents in the order of Parents (title, then
	// ID) and their exact total, as [Batch] documents (lists in the order
	// of ids, duplicates once, ids naming no node in Missing, not an
	// error).
	// perNote 0 returns totals only. An SQL adapter answers in one
	// statement. Limits: 1 to [MaxBatchIDs] ids, perNote 0 to
	// [MaxBatchPerNote]; anything else, or an invalid id, is
	// [ErrInvalidQuery] ([ValidateBatch]).
	ParentsOf(ctx context.Context, ids []string, perNote int) (Batch[NoteRef], error)

	// DescendantsOf returns, for each node of ids, the start of its
	// Descendants list down to maxDepth levels: the first perNote
	// descendants in the order of Descendants (depth, title, then ID) and
	// their exact total, as ParentsOf does. maxDepth is as Descendants
	// takes it ([DescendantDepth]), checked after [ValidateBatch]. An SQL
	// adapter answers in one statement, whose work grows with the edges
	// below the ids times maxDepth.
	DescendantsOf(ctx context.Context, ids []string, maxDepth, perNote int) (Batch[Descendant], error)

	// NoteHeads returns the first maxLines lines of the notes named by
	// ids: what GetNotes(ctx, ids, bounded.Window{MaxLines: maxLines})
	// returns, for up to [MaxNoteHeads] ids, in one statement of an SQL
	// adapter. maxLines is 1 to [MaxHeadLines]; other values, no ids or an
	// invalid id are [ErrInvalidQuery] ([ValidateNoteHeads]).
	NoteHeads(ctx context.Context, ids []string, maxLines int) (GetNotesResult, error)

	// ContextOf returns the hierarchy context of a page of notes: what
	// [ReadContext] returns from ParentsOf, DescendantsOf and NoteHeads,
	// as q asks. An SQL adapter answers in one statement. Limits:
	// [ContextQuery.Validate]; anything else is [ErrInvalidQuery].
	ContextOf(ctx context.Context, ids []string, q ContextQuery) (NoteContext, error)

	// ResolveNotes returns, for each of names in order, the note or folder
	// it names, as an Obsidian link from the vault root resolves it
	// ([ParseName]): a node whose ID is the name as given; else, for a
	// name with a "/", the node at that path, compared after [Fold]; else
	// the nodes whose folded ID ends with "/" + the name, or equals it.
	// Notes come before folders, then the fewest folders above the node
	// ([NameRank]). The nodes of the best rank are the answer: one is the
	// Resolution's ID; several make the name ambiguous, listed by ID in
	// Candidates. An SQL adapter answers in one statement, through an
	// index of the nodes' folded names. Limits: 1 to [MaxGetNotes] names
	// ([ValidateNames]).
	ResolveNotes(ctx context.Context, names []string) ([]Resolution, error)

	// RelatedNotes pages the other notes related to id: those sharing a
	// tag, sharing an internal link target (existing or not), or linking
	// with it in either direction; scored as [Related] documents and
	// ordered by score descending, then ID ascending. Limits:
	// [RelatedNotesLimits].
	RelatedNotes(ctx context.Context, id string, p bounded.Page) (bounded.Paged[Related], error)
}
