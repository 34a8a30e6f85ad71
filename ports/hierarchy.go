package ports

import (
	"errors"
	"strings"
)

// ErrAmbiguous: a name given for a note names several notes or folders
// equally (see [Notes.ResolveNotes]).
var ErrAmbiguous = errors.New("ports: ambiguous name")

// FolderOf returns the folder of the note or folder id: the part of id
// before its last "/". It is "" at the vault root: when id has no "/" or
// that part is blank.
func FolderOf(id string) string {
	i := strings.LastIndexByte(id, '/')
	if i < 0 || strings.TrimSpace(id[:i]) == "" {
		return ""
	}
	return id[:i]
}

// FoldersOf returns the folders above id, nearest first: "a/b/c" is in
// "a/b", itself in "a".
func FoldersOf(id string) []string {
	var out []string
	for f := FolderOf(id); f != ""; f = FolderOf(f) {
		out = append(out, f)
	}
	return out
}

// NodeName returns the last element of id: the part after its last "/".
// A folder's title is its name.
func NodeName(id string) string { return id[strings.LastIndexByte(id, '/')+1:] }

// MaxCandidates is the most candidates a [Resolution] lists.
const MaxCandidates = 20

// Resolution is what a name given for a note resolves to.
type Resolution struct {
	// Name is the name as given.
	Name string `json:"name"`
	// ID is the note or folder Name names; "" when it names none, or
	// several equally.
	ID string `json:"id,omitempty"`
	// Folder reports that ID, or every candidate, is a folder no note
	// stands for.
	Folder bool `json:"folder,omitempty"`
	// Candidates are the nodes an ambiguous Name names equally, by ID:
	// the first MaxCandidates of Matches.
	Candidates []string `json:"candidates,omitempty"`
	// Matches is how many nodes Name names equally: 1 when resolved, 0
	// when none.
	Matches int `json:"matches"`
}

// NameQuery is a name given for a note, as [Notes.ResolveNotes] matches
// it: spaces around it, one leading "/" and a ".md" extension (any case)
// are dropped, then it is folded ([Fold]).
type NameQuery struct {
	// Name is the name as given.
	Name string
	// Path is the folded name; Base its last element ([NodeName]).
	Path, Base string
	// Slash reports that Path names folders: it holds a "/".
	Slash bool
}

// ParseName returns the NameQuery of name.
func ParseName(name string) NameQuery {
	p := strings.TrimPrefix(strings.TrimSpace(name), "/")
	if n := len(p) - len(".md"); n > 0 && strings.EqualFold(p[n:], ".md") {
		p = p[:n]
	}
	p = Fold(p)
	return NameQuery{Name: name, Path: p, Base: NodeName(p), Slash: strings.Contains(p, "/")}
}

// NameRank ranks a node a name matches; lower ranks first.
type NameRank struct {
	// Tier is 0 for the node whose ID is the name as given, 1 for a node
	// whose folded ID is Path when Path holds a "/", and 2 for a node
	// whose folded ID ends with "/" + Path or equals it.
	Tier int
	// Class is 0 for a note, 1 for a folder no note stands for.
	Class int
	// Depth is the number of folders above the node ([FoldersOf]).
	Depth int
}

// Compare orders ranks by Tier, then Class, then Depth.
func (r NameRank) Compare(o NameRank) int {
	switch {
	case r.Tier != o.Tier:
		return r.Tier - o.Tier
	case r.Class != o.Class:
		return r.Class - o.Class
	}
	return r.Depth - o.Depth
}

// Rank returns the rank of node id (a folder no note stands for when
// folder is set) for q; ok is false when q does not name it.
func (q NameQuery) Rank(id string, folder bool) (r NameRank, ok bool) {
	if folder {
		r.Class = 1
	}
	r.Depth = len(FoldersOf(id))
	if id == q.Name {
		return r, true
	}
	if q.Path == "" {
		return r, false
	}
	f := Fold(id)
	switch {
	case f == q.Path && q.Slash:
		r.Tier = 1
	case f == q.Path || strings.HasSuffix(f, "/"+q.Path):
		r.Tier = 2
	default:
		return r, false
	}
	return r, true
}

// Resolve returns the Resolution of q from the nodes of its best rank:
// the first ids of them by ID (at most [MaxCandidates]), whether they are
// folders, and how many there are.
func (q NameQuery) Resolve(ids []string, folder bool, matches int) Resolution {
	r := Resolution{Name: q.Name, Matches: matches}
	switch {
	case matches == 1 && len(ids) == 1:
		r.ID, r.Folder = ids[0], folder
	case matches > 1:
		r.Candidates, r.Folder = ids[:min(len(ids), MaxCandidates)], folder
	}
	return r
}

// ValidateNames checks the names of a ResolveNotes call: 1 to
// [MaxGetNotes], each a valid query ([ValidateQuery]). Errors wrap
// [ErrInvalidQuery].
func ValidateNames(names []string) error { return validateIDs(names, MaxGetNotes) }
