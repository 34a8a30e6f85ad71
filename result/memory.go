package result

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
)

// Memory is a Store in this process's memory: snapshots are lost when it
// ends, and other instances cannot read them.
type Memory struct {
	q     Quota
	mu    sync.Mutex
	snaps map[string]*memSnap
	used  map[string]int64 // by principal
	total int64
}

type memSnap struct {
	h    Header
	segs map[string][]Segment // by node, in Pos order
}

// NewMemory returns an empty Memory store with quota q.
func NewMemory(q Quota) *Memory {
	return &Memory{q: q.WithDefaults(), snaps: map[string]*memSnap{}, used: map[string]int64{}}
}

// Put implements [Store.Put].
func (m *Memory) Put(ctx context.Context, s *Snapshot) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.Bytes > m.q.PerPrincipal || s.Bytes > m.q.Total {
		return fmt.Errorf("%w: %d bytes, the quota is %d for a principal and %d in all", ErrQuota, s.Bytes, m.q.PerPrincipal, m.q.Total)
	}
	// Copies, made before the lock.
	ms := &memSnap{h: s.Header, segs: map[string][]Segment{}}
	ms.h.Args = bytes.Clone(s.Args)
	ms.h.Meta = bytes.Clone(s.Meta)
	for _, sg := range s.Segments {
		sg.Data = bytes.Clone(sg.Data)
		ms.segs[sg.Node] = append(ms.segs[sg.Node], sg)
	}
	for _, list := range ms.segs {
		slices.SortFunc(list, func(a, b Segment) int {
			return cmp.Or(cmp.Compare(a.Pos.A, b.Pos.A), cmp.Compare(a.Pos.B, b.Pos.B))
		})
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.snaps[s.ID]; dup {
		return fmt.Errorf("result: snapshot %s is already stored", s.ID)
	}
	for id, o := range m.snaps {
		if !o.h.Expires.After(s.Created) {
			m.drop(id)
		}
	}
	m.evict(s.Bytes, s.Principal)
	m.snaps[s.ID] = ms
	m.used[s.Principal] += s.Bytes
	m.total += s.Bytes
	return nil
}

// evict drops the oldest snapshots until n more bytes fit the quotas.
func (m *Memory) evict(n int64, principal string) {
	if m.used[principal]+n <= m.q.PerPrincipal && m.total+n <= m.q.Total {
		return
	}
	order := make([]*memSnap, 0, len(m.snaps))
	for _, o := range m.snaps {
		order = append(order, o)
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := order[i].h, order[j].h
		if !a.Created.Equal(b.Created) {
			return a.Created.Before(b.Created)
		}
		return a.ID < b.ID
	})
	for _, o := range order {
		if m.used[principal]+n <= m.q.PerPrincipal {
			break
		}
		if o.h.Principal == principal {
			m.drop(o.h.ID)
		}
	}
	for _, o := range order {
		if m.total+n <= m.q.Total {
			break
		}
		if _, ok := m.snaps[o.h.ID]; ok {
			m.drop(o.h.ID)
		}
	}
}

func (m *Memory) drop(id string) {
	o := m.snaps[id]
	delete(m.snaps, id)
	m.used[o.h.Principal] -= o.h.Bytes
	if m.used[o.h.Principal] == 0 {
		delete(m.used, o.h.Principal)
	}
	m.total -= o.h.Bytes
}

// Header implements [Store.Header].
func (m *Memory) Header(ctx context.Context, id string) (Header, error) {
	if err := ctx.Err(); err != nil {
		return Header{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.snaps[id]
	if !ok {
		return Header{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	h := o.h
	h.Args, h.Meta = bytes.Clone(h.Args), bytes.Clone(h.Meta)
	return h, nil
}

// Segments implements [Store.Segments].
func (m *Memory) Segments(ctx context.Context, id, node string, from Pos, n int) ([]Segment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.snaps[id]
	if !ok {
		return nil, nil
	}
	list := o.segs[node]
	// The first segment after from, less one.
	i := sort.Search(len(list), func(i int) bool { return from.Less(list[i].Pos) })
	i = max(i-1, 0)
	out := make([]Segment, 0, min(n, len(list)-i))
	for _, sg := range list[i:min(i+n, len(list))] {
		sg.Data = bytes.Clone(sg.Data)
		out = append(out, sg)
	}
	return out, nil
}

// Delete implements [Store.Delete].
func (m *Memory) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.snaps[id]; ok {
		m.drop(id)
	}
	return nil
}

// Quota implements [Store.Quota].
func (m *Memory) Quota() Quota { return m.q }
