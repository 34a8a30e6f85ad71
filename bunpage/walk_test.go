package bunpage_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
)

// walkHows are the ways walkAll reads a source.
var walkHows = []string{"offset", "cursor", "backward", "respond"}

// walkAll reads src from start to end in pages of size, how says: by
// offset, by cursor forward (the first page by offset), by cursor
// backward from the end (the first page the last by offset), or by
// following bounded.Respond's next calls with cursors (ByCursor), its
// results decoded from the response. It returns the items in src's
// order, or the first error.
func walkAll[T any](ctx context.Context, src bounded.Source[T], size int, how string) ([]T, error) {
	if how == "respond" {
		return respondWalk(ctx, src, size)
	}
	r := driver.Request{Limit: size, Count: bounded.CountNone}
	if how == "backward" {
		// The last page: count, then read from the end.
		rows, err := src.Fetch(ctx, driver.Request{Limit: 1, Count: bounded.CountExact})
		if err != nil {
			return nil, err
		}
		r.Offset = max(0, rows.Count-size)
	}
	var all []T
	for range 1000 {
		rows, err := src.Fetch(ctx, r)
		if err != nil {
			return all, err
		}
		if how == "backward" {
			all = append(slices.Clone(rows.Items), all...)
		} else {
			all = append(all, rows.Items...)
		}
		more := rows.More
		if how == "backward" && r.At == nil {
			more = r.Offset > 0
		}
		if !more || len(rows.Items) == 0 {
			return all, nil
		}
		switch how {
		case "offset":
			r.Offset += len(rows.Items)
		case "cursor":
			keys := rows.Keys(rows.Items[len(rows.Items)-1])
			if keys == nil {
				return all, errors.New("no keys for a cursor")
			}
			r.At = &driver.Cursor{Keys: keys}
		case "backward":
			keys := rows.Keys(rows.Items[0])
			if keys == nil {
				return all, errors.New("no keys for a cursor")
			}
			r.At = &driver.Cursor{Backward: true, Keys: keys}
		}
	}
	return all, errors.New("the walk does not end")
}

// respondWalk follows bounded.Respond's next calls over src from the
// first page, as an agent does, with pages of size continued by cursor.
func respondWalk[T any](ctx context.Context, src bounded.Source[T], size int) ([]T, error) {
	call := bounded.Call{Tool: "list", Paging: bounded.ByCursor}
	opts := bounded.Options[T]{Limits: bounded.Limits{Default: size, Max: size}}
	var all []T
	p := bounded.Page{}
	for range 1000 {
		out, err := bounded.Respond(ctx, src, call, p, opts)
		if err != nil {
			return all, err
		}
		var env struct {
			Results []T `json:"results"`
		}
		if err := json.Unmarshal(out.JSON, &env); err != nil {
			return all, err
		}
		all = append(all, env.Results...)
		if out.Next == nil {
			return all, nil
		}
		p = bounded.Page{}
		for _, a := range out.Next {
			switch a.Name {
			case "cursor":
				p.Cursor = a.Value.(string)
			case "offset":
				p.Offset = a.Value.(int)
			case "limit":
				p.Limit = a.Value.(int)
			default:
				return all, fmt.Errorf("next call with argument %q", a.Name)
			}
		}
	}
	return all, errors.New("the walk does not end")
}

// idsOf returns the ids of items, id reading one.
func idsOf[T any](items []T, id func(T) int64) []int64 {
	out := make([]int64, len(items))
	for i, it := range items {
		out[i] = id(it)
	}
	return out
}
