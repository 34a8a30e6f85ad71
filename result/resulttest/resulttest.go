// Package resulttest checks that a result.Store keeps snapshots as the
// package's Bounder needs: segments by position, expiry, quotas and
// eviction, and handles that only their principal can use, across two
// instances of the store.
//
//	func TestStore(t *testing.T) {
//		resulttest.Run(t, resulttest.Harness{
//			New: func(t testing.TB, q result.Quota) result.Store { return open(t, q) },
//		})
//	}
package resulttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/boundedkit/bounded/result"
)

// Harness opens the stores of the suite.
type Harness struct {
	// New returns a new, empty store with quota q, closed when t ends.
	New func(t testing.TB, q result.Quota) result.Store
	// Share returns a second instance of s: another process's view of
	// the same data (for a SQL store, a store opened on the same
	// database). Nil means s itself.
	Share func(t testing.TB, s result.Store) result.Store
}

// Case is one check of the suite: nil when the store passes.
type Case struct {
	Name  string
	Check func(t testing.TB, h Harness) error
}

// Cases returns the checks Run runs, for a test that runs some of them or
// expects a broken store to fail them.
func Cases() []Case {
	return []Case{
		{"Segments", checkSegments},
		{"Bytes", checkBytes},
		{"NotFound", checkNotFound},
		{"Delete", checkDelete},
		{"Expiry", checkExpiry},
		{"QuotaPerPrincipal", checkQuotaPerPrincipal},
		{"QuotaTotal", checkQuotaTotal},
		{"TooLarge", checkTooLarge},
		{"ConcurrentPuts", checkConcurrent},
		{"Walk", checkWalk},
		{"Handles", checkHandles},
		{"TwoInstances", checkTwoInstances},
		{"Evicted", checkEvicted},
	}
}

// Run runs every check of Cases on stores h opens, each in a subtest with
// stores of its own.
func Run(t *testing.T, h Harness) {
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			if err := c.Check(t, h); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func pos(a, b int64) result.Pos { return result.Pos{A: a, B: b} }

var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// snap returns a snapshot of bytes bytes in all, created at created.
func snap(id, principal string, created time.Time, bytes int, segs ...result.Segment) *result.Snapshot {
	s := &result.Snapshot{Header: result.Header{ID: id, Principal: principal, Tool: "tool", Args: []byte(`{"a":1}`),
		Created: created, Expires: created.Add(time.Hour), Meta: []byte("meta")}, Segments: segs}
	n := int64(len(s.Meta))
	for _, sg := range segs {
		n += int64(len(sg.Data))
	}
	s.Bytes = max(n, int64(bytes))
	return s
}

func ids(ctx context.Context, s result.Store, all ...string) (have []string, err error) {
	for _, id := range all {
		_, err := s.Header(ctx, id)
		switch {
		case err == nil:
			have = append(have, id)
		case !errors.Is(err, result.ErrNotFound):
			return nil, fmt.Errorf("header(%s): %w", id, err)
		}
	}
	return have, nil
}

func checkSegments(t testing.TB, h Harness) error {
	ctx := context.Background()
	s := h.New(t, result.Quota{})
	var segs []result.Segment
	for _, p := range []result.Pos{pos(0, 0), pos(3, 0), pos(3, 7), pos(10, 0), pos(10, 2), pos(1<<40, 0)} {
		segs = append(segs, result.Segment{Node: "/a", Pos: p, Data: []byte(fmt.Sprint(p))})
	}
	segs = append(segs, result.Segment{Node: "", Pos: result.Pos{}, Data: []byte("root")},
		result.Segment{Node: "/a~1b/é", Pos: result.Pos{A: 5}, Data: []byte{0, 0xff, 1}})
	// Out of order on purpose.
	slices.Reverse(segs)
	if err := s.Put(ctx, snap("s1", "p", t0, 0, segs...)); err != nil {
		return fmt.Errorf("put: %w", err)
	}
	want := func(from result.Pos, n int, node string, wantPos ...result.Pos) error {
		got, err := s.Segments(ctx, "s1", node, from, n)
		if err != nil {
			return fmt.Errorf("segments(%q, %v, %d): %w", node, from, n, err)
		}
		var gotPos []result.Pos
		for _, g := range got {
			gotPos = append(gotPos, g.Pos)
			if g.Node != node {
				return fmt.Errorf("segments(%q, %v, %d): a segment of node %q", node, from, n, g.Node)
			}
		}
		if !slices.Equal(gotPos, wantPos) {
			return fmt.Errorf("segments(%q, %v, %d) = %v, want %v", node, from, n, gotPos, wantPos)
		}
		return nil
	}
	return errors.Join(
		want(result.Pos{}, 2, "/a", pos(0, 0), pos(3, 0)),
		want(pos(3, 0), 3, "/a", pos(3, 0), pos(3, 7), pos(10, 0)),
		want(pos(3, 5), 1, "/a", pos(3, 0)),
		want(pos(9, 99), 2, "/a", pos(3, 7), pos(10, 0)),
		want(pos(10, 1), 10, "/a", pos(10, 0), pos(10, 2), pos(1<<40, 0)),
		want(pos(1<<50, 0), 2, "/a", pos(1<<40, 0)),
		want(result.Pos{}, 5, "", result.Pos{}),
		want(pos(1, 0), 5, "/a~1b/é", result.Pos{A: 5}),
		want(result.Pos{}, 5, "/none"),
		func() error {
			got, err := s.Segments(ctx, "s1", "/a~1b/é", result.Pos{}, 1)
			if err != nil || len(got) != 1 || !bytes.Equal(got[0].Data, []byte{0, 0xff, 1}) {
				return fmt.Errorf("binary data read back as %v, %v", got, err)
			}
			got[0].Data[0] = 9 // the store's copy must not change
			again, _ := s.Segments(ctx, "s1", "/a~1b/é", result.Pos{}, 1)
			if len(again) != 1 || again[0].Data[0] != 0 {
				return errors.New("a segment read back shares memory with the store")
			}
			return nil
		}(),
	)
}

func checkBytes(t testing.TB, h Harness) error {
	ctx := context.Background()
	s := h.New(t, result.Quota{})
	in := snap("s1", "principal é", t0, 0)
	in.Args = []byte(`{"q":"naïve","n":1}`)
	in.Meta = []byte{0, 1, 2, 0xff, 'x'}
	in.Bytes = 12345
	if err := s.Put(ctx, in); err != nil {
		return fmt.Errorf("put: %w", err)
	}
	got, err := s.Header(ctx, "s1")
	if err != nil {
		return fmt.Errorf("header: %w", err)
	}
	switch {
	case got.ID != in.ID, got.Principal != in.Principal, got.Tool != in.Tool, got.Bytes != in.Bytes:
		return fmt.Errorf("header = %+v, want %+v", got, in.Header)
	case !got.Created.Equal(in.Created), !got.Expires.Equal(in.Expires):
		return fmt.Errorf("times %v %v, want %v %v", got.Created, got.Expires, in.Created, in.Expires)
	case !bytes.Equal(got.Meta, in.Meta):
		return fmt.Errorf("meta = %v, want %v", got.Meta, in.Meta)
	case !jsonEqual(got.Args, in.Args):
		return fmt.Errorf("args = %s, want %s", got.Args, in.Args)
	}
	if q := s.Quota(); q.PerPrincipal <= 0 || q.Total <= 0 {
		return fmt.Errorf("quota() = %+v: defaults not applied", q)
	}
	return nil
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

func checkNotFound(t testing.TB, h Harness) error {
	ctx := context.Background()
	s := h.New(t, result.Quota{})
	if _, err := s.Header(ctx, "nope"); !errors.Is(err, result.ErrNotFound) {
		return fmt.Errorf("header of an unknown id: %v, want ErrNotFound", err)
	}
	if segs, err := s.Segments(ctx, "nope", "", result.Pos{}, 3); err != nil || len(segs) != 0 {
		return fmt.Errorf("segments of an unknown id: %v, %v", segs, err)
	}
	return nil
}

func checkDelete(t testing.TB, h Harness) error {
	ctx := context.Background()
	s := h.New(t, result.Quota{PerPrincipal: 1000, Total: 1000})
	seg := result.Segment{Node: "", Data: []byte("x")}
	if err := s.Put(ctx, snap("a", "p", t0, 600, seg)); err != nil {
		return err
	}
	if err := errors.Join(s.Delete(ctx, "a"), s.Delete(ctx, "never")); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	if segs, _ := s.Segments(ctx, "a", "", result.Pos{}, 1); len(segs) != 0 {
		return errors.New("segments outlive Delete")
	}
	// The bytes it held are free again.
	if err := s.Put(ctx, snap("b", "p", t0, 600)); err != nil {
		return fmt.Errorf("put after Delete: %w", err)
	}
	if have, err := ids(ctx, s, "a", "b"); err != nil || !slices.Equal(have, []string{"b"}) {
		return fmt.Errorf("after Delete: have %v, %v", have, err)
	}
	return nil
}

func checkExpiry(t testing.TB, h Harness) error {
	ctx := context.Background()
	s := h.New(t, result.Quota{})
	if err := errors.Join(
		s.Put(ctx, snap("old", "p", t0, 10)),
		s.Put(ctx, snap("other", "q", t0.Add(30*time.Minute), 10)),
		s.Put(ctx, snap("new", "p", t0.Add(time.Hour), 10)),
	); err != nil {
		return fmt.Errorf("put: %w", err)
	}
	// Expired snapshots are deleted by the next Put, whoever's.
	have, err := ids(ctx, s, "old", "other", "new")
	if err != nil || !slices.Equal(have, []string{"other", "new"}) {
		return fmt.Errorf("after expiry: have %v, want [other new] (%v)", have, err)
	}
	return nil
}

func checkQuotaPerPrincipal(t testing.TB, h Harness) error {
	ctx := context.Background()
	s := h.New(t, result.Quota{PerPrincipal: 1000, Total: 10_000})
	for i, p := range []string{"p", "q", "p", "p"} {
		if err := s.Put(ctx, snap(p+strconv.Itoa(i), p, t0.Add(time.Duration(i)*time.Second), 400)); err != nil {
			return fmt.Errorf("put %d: %w", i, err)
		}
	}
	// p's third snapshot evicts p's oldest, not q's older one.
	have, err := ids(ctx, s, "p0", "q1", "p2", "p3")
	if err != nil || !slices.Equal(have, []string{"q1", "p2", "p3"}) {
		return fmt.Errorf("per-principal quota: have %v, want [q1 p2 p3] (%v)", have, err)
	}
	return nil
}

func checkQuotaTotal(t testing.TB, h Harness) error {
	ctx := context.Background()
	s := h.New(t, result.Quota{PerPrincipal: 1000, Total: 1000})
	for i, p := range []string{"a", "b", "c", "d"} {
		if err := s.Put(ctx, snap(p, p, t0.Add(time.Duration(i)*time.Second), 300)); err != nil {
			return fmt.Errorf("put %s: %w", p, err)
		}
	}
	have, err := ids(ctx, s, "a", "b", "c", "d")
	if err != nil || !slices.Equal(have, []string{"b", "c", "d"}) {
		return fmt.Errorf("total quota: have %v, want [b c d] (%v)", have, err)
	}
	// Ties in Created evict by ID.
	s2 := h.New(t, result.Quota{PerPrincipal: 1000, Total: 1000})
	for _, id := range []string{"z", "y", "x", "w"} {
		if err := s2.Put(ctx, snap(id, id, t0, 300)); err != nil {
			return fmt.Errorf("put %s: %w", id, err)
		}
	}
	have, err = ids(ctx, s2, "w", "x", "y", "z")
	if err != nil || !slices.Equal(have, []string{"w", "y", "z"}) {
		return fmt.Errorf("total quota, same times: have %v, want [w y z] (%v)", have, err)
	}
	return nil
}

func checkTooLarge(t testing.TB, h Harness) error {
	ctx := context.Background()
	s := h.New(t, result.Quota{PerPrincipal: 1000, Total: 2000})
	if err := s.Put(ctx, snap("a", "p", t0, 900)); err != nil {
		return err
	}
	err := s.Put(ctx, snap("big", "p", t0.Add(time.Second), 1001, result.Segment{Data: []byte("x")}))
	if !errors.Is(err, result.ErrQuota) {
		return fmt.Errorf("put over the quota: %v, want ErrQuota", err)
	}
	if have, _ := ids(ctx, s, "a", "big"); !slices.Equal(have, []string{"a"}) {
		return fmt.Errorf("a refused Put changed the store: have %v", have)
	}
	return nil
}

func checkConcurrent(t testing.TB, h Harness) error {
	ctx := context.Background()
	const n, size, total = 24, 100, 1000
	s := h.New(t, result.Quota{PerPrincipal: total, Total: total})
	other := s
	if h.Share != nil {
		other = h.Share(t, s)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			st := s
			if i%2 == 1 {
				st = other
			}
			errs[i] = st.Put(ctx, snap("c"+strconv.Itoa(i), "p"+strconv.Itoa(i%3), t0.Add(time.Duration(i)*time.Millisecond), size,
				result.Segment{Node: "", Data: bytes.Repeat([]byte{'x'}, 10)}))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("concurrent Put: %w", err)
	}
	var all []string
	for i := range n {
		all = append(all, "c"+strconv.Itoa(i))
	}
	have, err := ids(ctx, s, all...)
	if err != nil {
		return err
	}
	if len(have)*size > total || len(have) < total/size-2 {
		return fmt.Errorf("after %d concurrent puts of %d bytes under a quota of %d: %d kept", n, size, total, len(have))
	}
	return nil
}

// bounder returns a Bounder over s whose clock is *now.
func bounder(s result.Store, key string, now *time.Time) *result.Bounder {
	return result.New(s, result.Options{Key: []byte(key), Now: func() time.Time { return *now }})
}

// doc is a result that a small budget cuts at many places.
func doc() []byte {
	items := make([]map[string]any, 300)
	for i := range items {
		items[i] = map[string]any{"id": i, "text": strings.Repeat("word ", 20+i%50)}
	}
	b, _ := json.Marshal(map[string]any{"items": items, "note": strings.Repeat("a long line of text\n", 3000)})
	return b
}

var budget = bounded.Budget{MaxChars: 4000}

// walk follows next from a report to the end, reading with r, and
// returns the reads and the ids of the elements of /items read.
func walk(r *result.Bounder, principal string, next bounded.Args) (n int, ids []int, err error) {
	for next != nil {
		raw, _ := next.MarshalJSON()
		var a result.ReadArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			return n, nil, err
		}
		ans, err := r.Read(context.Background(), budget, principal, a)
		if err != nil {
			return n, nil, fmt.Errorf("read %d, %s: %w", n, raw, err)
		}
		n++
		if ans.Pointer == "/items" {
			for _, it := range ans.Items {
				var v struct{ ID int }
				json.Unmarshal(it, &v)
				ids = append(ids, v.ID)
			}
		}
		next = ans.Next
	}
	return n, ids, nil
}

// walkAll walks all a bounded result left out and checks that every
// element of /items was read once, in order.
func walkAll(r *result.Bounder, principal string, rep *result.Report) error {
	if rep == nil || rep.Handle == "" {
		return fmt.Errorf("not kept: %+v", rep)
	}
	n, ids, err := walk(r, principal, rep.Next)
	if err != nil {
		return err
	}
	kept := -1
	for _, c := range rep.Cuts {
		if c.Pointer == "/items" {
			kept = c.Kept
		}
	}
	for i, id := range ids {
		if id != kept+i {
			return fmt.Errorf("after %d reads: element %d of /items read is %d, want %d", n, i, id, kept+i)
		}
	}
	if kept < 0 || kept+len(ids) != 300 {
		return fmt.Errorf("after %d reads: %d elements of /items shown, %d read; want 300 in all", n, kept, len(ids))
	}
	return nil
}

func checkWalk(t testing.TB, h Harness) error {
	now := t0
	b := bounder(h.New(t, result.Quota{}), "key", &now)
	bd, err := b.Bound(context.Background(), budget, result.Call{Tool: "list", Principal: "p"}, result.JSON(doc()))
	if err != nil {
		return err
	}
	return walkAll(b, "p", bd.Report)
}

func checkHandles(t testing.TB, h Harness) error {
	ctx := context.Background()
	now := t0
	s := h.New(t, result.Quota{})
	b := bounder(s, "key", &now)
	bd, err := b.Bound(ctx, budget, result.Call{Tool: "list", Args: bounded.Args{{Name: "q", Value: "x"}}, Principal: "p"}, result.JSON(doc()))
	if err != nil {
		return err
	}
	handle := bd.Report.Handle
	read := func(b *result.Bounder, principal, handle string) error {
		_, err := b.Read(ctx, budget, principal, result.ReadArgs{Handle: handle, Pointer: "/items"})
		return err
	}
	var he *result.HandleError
	tampered := []byte(handle)
	tampered[len(tampered)/2] ^= 1
	if tampered[len(tampered)/2] == '_'^1 || tampered[len(tampered)/2] == '-'^1 {
		tampered[len(tampered)/2] = 'A'
	}
	errs := []error{}
	check := func(name string, err, want error) {
		if !errors.Is(err, want) || !errors.As(err, &he) {
			errs = append(errs, fmt.Errorf("%s: %v, want a *HandleError wrapping %v", name, err, want))
		}
	}
	if err := read(b, "p", handle); err != nil {
		errs = append(errs, fmt.Errorf("own handle: %w", err))
	}
	check("another principal", read(b, "q", handle), result.ErrInvalidHandle)
	check("another principal (driver reason)", read(b, "q", handle), driver.ErrCursorForeign)
	check("tampered", read(b, "p", string(tampered)), result.ErrInvalidHandle)
	check("garbage", read(b, "p", "not a handle"), result.ErrInvalidHandle)
	check("another key", read(bounder(s, "other key", &now), "p", handle), result.ErrInvalidHandle)
	now = now.Add(2 * time.Hour)
	err = read(b, "p", handle)
	check("expired", err, result.ErrExpired)
	if err != nil && !strings.Contains(err.Error(), "list") {
		errs = append(errs, fmt.Errorf("the error of an expired handle does not name the tool: %v", err))
	}
	return errors.Join(errs...)
}

func checkTwoInstances(t testing.TB, h Harness) error {
	ctx := context.Background()
	now := t0
	s := h.New(t, result.Quota{})
	other := s
	if h.Share != nil {
		other = h.Share(t, s)
	}
	a, b := bounder(s, "shared key", &now), bounder(other, "shared key", &now)
	bd, err := a.Bound(ctx, budget, result.Call{Tool: "list", Principal: "p"}, result.JSON(doc()))
	if err != nil {
		return err
	}
	// Instance b reads what a bounded, all of it.
	if err := walkAll(b, "p", bd.Report); err != nil {
		return fmt.Errorf("the second instance: %w", err)
	}
	// And a resource of it.
	if blk, err := b.Resource(ctx, "p", bd.Report.Resource); err != nil || !jsonEqual([]byte(blk.Text), doc()) {
		return fmt.Errorf("the second instance's resource: %v", err)
	}
	return nil
}

func checkEvicted(t testing.TB, h Harness) error {
	ctx := context.Background()
	now := t0
	d := doc()
	b := bounder(h.New(t, result.Quota{PerPrincipal: int64(len(d)) * 3 / 2}), "key", &now)
	call := result.Call{Tool: "list", Args: bounded.Args{{Name: "page", Value: 1}}, Principal: "p"}
	first, err := b.Bound(ctx, budget, call, result.JSON(d))
	if err != nil {
		return err
	}
	now = now.Add(time.Second)
	if _, err := b.Bound(ctx, budget, call, result.JSON(d)); err != nil {
		return err
	}
	_, err = b.Read(ctx, budget, "p", result.ReadArgs{Handle: first.Report.Handle})
	var he *result.HandleError
	if !errors.Is(err, result.ErrNotFound) || !errors.As(err, &he) || he.Tool != "list" {
		return fmt.Errorf("a read of an evicted snapshot: %v, want a *HandleError wrapping ErrNotFound naming list", err)
	}
	return nil
}
