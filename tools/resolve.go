package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// Names given for notes. Every tool that takes a note id also takes what
// an Obsidian link takes: a basename, a path without ".md", other case.
// The store's id is tried first; a name it does not find is resolved as a
// link from the vault root is (ports.Notes.ResolveNotes), so that an exact
// id costs no statement more.

// maxSuggestions is the most names a name that names nothing suggests.
const maxSuggestions = 5

// suggestThreshold is the least trigram similarity of a suggestion: low,
// since a basename shares few trigrams with a whole path.
const suggestThreshold = 0.1

// named calls read with the note id of the argument arg. When the store
// finds no note or folder of that id, the id is resolved as a link is, and
// read called again with the node it names, which the call's next and hint
// then use. A name that names several nodes equally, or none, is an error
// listing the candidates, or the closest names.
func (s *Set) named(ctx context.Context, r *request, arg string, read func(id string) error) error {
	id := r.in.Str(arg)
	err := read(id)
	if !errors.Is(err, ports.ErrNotFound) {
		return err
	}
	res, rerr := s.cfg.Notes.ResolveNotes(ctx, []string{id})
	if rerr != nil {
		return rerr
	}
	to := res[0]
	if to.ID == "" {
		return s.unresolved(ctx, err, to)
	}
	if to.ID != id {
		r.resolved(arg, id, to.ID)
		err = read(to.ID)
	}
	if errors.Is(err, ports.ErrNotFound) && to.Folder {
		return fmt.Errorf("%w: %s is a folder, not a note: get_children(id=%s) lists what it holds", err, strconv.Quote(to.ID), strconv.Quote(to.ID))
	}
	return err
}

// resolved records that the argument arg, given as name, resolved to id:
// the next call names id, and the hint says so.
func (r *request) resolved(arg, name, id string) {
	for i, a := range r.call.Args {
		if a.Name == arg {
			r.call.Args[i].Value = id
		}
	}
	r.notes = append(r.notes, fmt.Sprintf("%s %s resolved, as a link does, to %s.", arg, strconv.Quote(name), strconv.Quote(id)))
}

// unresolved is the error of a name that resolves to no single node: err,
// the store's, with the candidates of an ambiguous name, or else the
// closest names the fuzzy index knows.
func (s *Set) unresolved(ctx context.Context, err error, to ports.Resolution) error {
	if to.Matches > 1 {
		return fmt.Errorf("%w: %s. Call again with one of these ids, or a path that tells them apart", ports.ErrAmbiguous, ambiguity(to))
	}
	near, serr := s.suggest(ctx, to.Name)
	if serr != nil {
		return errors.Join(err, serr)
	}
	if len(near) == 0 {
		return fmt.Errorf("%w: no note or folder has that name, path or basename", err)
	}
	return fmt.Errorf("%w: no note or folder has that name, path or basename; the closest names: %s", err, strings.Join(quoteAll(near), ", "))
}

// ambiguity says which nodes an ambiguous name names.
func ambiguity(to ports.Resolution) string {
	what := "notes"
	if to.Folder {
		what = "folders"
	}
	list := strings.Join(quoteAll(to.Candidates), ", ")
	if more := to.Matches - len(to.Candidates); more > 0 {
		list += fmt.Sprintf(" and %s more", bounded.FormatCount(more))
	}
	return fmt.Sprintf("%s names %s %s equally (as near the vault root): %s", strconv.Quote(to.Name), bounded.FormatCount(to.Matches), what, list)
}

// suggest returns the ids of the notes whose entities' names are most
// similar to name in the knowledge graph's fuzzy index, most similar
// first, at most maxSuggestions: none without a knowledge graph. Entities
// that name no note are left out.
func (s *Set) suggest(ctx context.Context, name string) ([]string, error) {
	if s.cfg.Knowledge == nil {
		return nil, nil
	}
	q := ports.NodeQuery{Queries: []string{name}, Mode: ports.Fuzzy, Threshold: suggestThreshold}
	page, err := s.cfg.Knowledge.SearchNodes(ctx, q, bounded.Page{Limit: maxSuggestions, Count: bounded.CountNone})
	if err != nil || len(page.Items) == 0 {
		return nil, err
	}
	names := make([]string, len(page.Items))
	for i, m := range page.Items {
		names[i] = m.Name
	}
	res, err := s.cfg.Notes.ResolveNotes(ctx, names)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range res {
		if r.ID == r.Name && !r.Folder {
			out = append(out, r.ID)
		}
	}
	return out, nil
}

// resolveAll resolves the names of the note ids asked (get_notes) that
// name no note: for each, the note it names, "" for none (the hint says
// why: ambiguous, a folder, or no such name).
func (s *Set) resolveAll(ctx context.Context, r *request, names []string) (map[string]string, error) {
	out := make(map[string]string)
	const said = 5 // names whose failure the hint explains; the rest are counted
	failed := 0
	for i := 0; i < len(names); i += ports.MaxGetNotes {
		res, err := s.cfg.Notes.ResolveNotes(ctx, names[i:min(len(names), i+ports.MaxGetNotes)])
		if err != nil {
			return nil, err
		}
		for _, to := range res {
			var why string
			switch {
			case to.ID != "" && !to.Folder:
				out[to.Name] = to.ID
				r.notes = append(r.notes, fmt.Sprintf("%s resolved, as a link does, to %s.", strconv.Quote(to.Name), strconv.Quote(to.ID)))
				continue
			case to.ID != "":
				why = fmt.Sprintf("%s is the folder %s: get_children lists what it holds.", strconv.Quote(to.Name), strconv.Quote(to.ID))
			case to.Matches > 1:
				why = ambiguity(to) + "."
			}
			if failed++; why != "" && failed <= said {
				r.notes = append(r.notes, why)
			}
		}
	}
	return out, nil
}
