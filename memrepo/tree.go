package memrepo

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/boundedkit/bounded/ports"
)

// tree is the hierarchy of the notes (see [ports.Notes]): every node, the
// children of each and the parents of each, without repeats.
type tree struct {
	nodes    map[string]ports.NoteRef // notes and folders, by ID
	children map[string][]string
	parents  map[string][]string
}

// treeLocked returns the hierarchy of s.notes, building it on first use.
// s.mu must be held.
func (s *Store) treeLocked() *tree {
	s.treeMu.Lock()
	defer s.treeMu.Unlock()
	if s.tree != nil {
		return s.tree
	}
	t := &tree{nodes: make(map[string]ports.NoteRef), children: make(map[string][]string), parents: make(map[string][]string)}
	for id, n := range s.notes {
		t.nodes[id] = noteRef(n)
	}
	for id := range s.notes {
		for _, f := range ports.FoldersOf(id) {
			if _, ok := t.nodes[f]; !ok {
				t.nodes[f] = ports.NoteRef{ID: f, Title: ports.NodeName(f), Folder: true}
			}
		}
	}
	edges := make(map[[2]string]bool)
	link := func(child, parent string) {
		if _, ok := t.nodes[parent]; !ok || edges[[2]string{child, parent}] {
			return
		}
		edges[[2]string{child, parent}] = true
		t.children[parent] = append(t.children[parent], child)
		t.parents[child] = append(t.parents[child], parent)
	}
	for id := range t.nodes {
		if f := ports.FolderOf(id); f != "" {
			link(id, f)
		}
	}
	for id, n := range s.notes {
		for _, p := range n.Parents {
			link(id, p)
		}
	}
	s.tree = t
	return t
}

// refs returns the nodes of ids, each with its own copy of the tags,
// ordered by title, then ID.
func (t *tree) refs(ids []string) []ports.NoteRef {
	out := make([]ports.NoteRef, 0, len(ids))
	for _, id := range ids {
		out = append(out, t.ref(id))
	}
	slices.SortFunc(out, byTitleThenID)
	return out
}

// ref returns node id with its own copy of the tags.
func (t *tree) ref(id string) ports.NoteRef {
	r := t.nodes[id]
	r.Tags = clone(r.Tags)
	return r
}

// depthHit is a node below another, at its shortest depth.
type depthHit struct {
	ref   ports.NoteRef
	depth int
}

func (h depthHit) descendant() ports.Descendant {
	return ports.Descendant{NoteRef: h.ref, Depth: h.depth}
}

// below returns the nodes below root, found breadth first over children
// down to maxDepth levels, each once at its shortest depth (root never),
// ordered by depth, then title, then ID.
func (t *tree) below(root string, maxDepth int) []depthHit {
	var all []depthHit
	seen := map[string]bool{root: true}
	level := []string{root}
	for depth := 1; depth <= maxDepth && len(level) > 0; depth++ {
		var next []string
		for _, pid := range level {
			for _, cid := range t.children[pid] {
				if !seen[cid] {
					seen[cid] = true
					next = append(next, cid)
					all = append(all, depthHit{t.ref(cid), depth})
				}
			}
		}
		level = next
	}
	slices.SortFunc(all, func(a, b depthHit) int {
		if c := cmp.Compare(a.depth, b.depth); c != 0 {
			return c
		}
		return byTitleThenID(a.ref, b.ref)
	})
	return all
}

// ResolveNotes returns what each of names names, in order: the notes and
// folders of the best [ports.NameRank] among those it matches. See
// [ports.Notes].
func (s *Store) ResolveNotes(ctx context.Context, names []string) ([]ports.Resolution, error) {
	if err := ports.ValidateNames(names); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.treeLocked()
	out := make([]ports.Resolution, len(names))
	for i, name := range names {
		q := ports.ParseName(name)
		var best ports.NameRank
		var ids []string
		for id, n := range t.nodes {
			r, ok := q.Rank(id, n.Folder)
			if !ok {
				continue
			}
			switch c := r.Compare(best); {
			case len(ids) == 0 || c < 0:
				best, ids = r, []string{id}
			case c == 0:
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		out[i] = q.Resolve(ids[:min(len(ids), ports.MaxCandidates)], best.Class == 1, len(ids))
	}
	return out, nil
}

// byTitleThenID orders notes by title, then ID, both bytewise.
func byTitleThenID(a, b ports.NoteRef) int {
	if c := strings.Compare(a.Title, b.Title); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}
