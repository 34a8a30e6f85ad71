package bunpage_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
	"github.com/uptrace/bun"
)

// TestWalkUnderWrites walks by cursor, forward and backward, while books
// are inserted (with keys that tie the ones read) and deleted between
// pages: every book present throughout the walk is read exactly once,
// nothing is read twice or after its deletion, and what is read comes in
// the order's order.
func TestWalkUnderWrites(t *testing.T) {
	forEngines(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		for i, o := range []order{orders[0], orders[2], orders[5], orders[7]} {
			for _, back := range []bool{false, true} {
				name := fmt.Sprintf("%s/backward=%v", o.name, back)
				t.Run(name, func(t *testing.T) {
					exec(t, db, "DROP TABLE IF EXISTS books")
					books := loadBooks(t, db, 40)
					w := newWriter(db, books, uint64(i))
					start := o.sorted(books, "a")
					// A backward walk starts before the last book, which is
					// kept.
					edge := start[len(start)-1]
					w.keep = edge.ID
					throughout := map[int64]bool{}
					for _, b := range start {
						throughout[b.ID] = true
					}
					src := o.source(t, db, "a")
					r := driver.Request{Limit: 3, Count: bounded.CountNone}
					if back {
						r.At = &driver.Cursor{Backward: true, Keys: o.keys(edge)}
					}
					var read []book
					for step := 0; ; step++ {
						if step > 200 {
							t.Fatal("the walk does not end")
						}
						rows, err := src.Fetch(ctx, r)
						if err != nil {
							t.Fatal(err)
						}
						for _, b := range rows.Items {
							if _, ok := w.live[b.ID]; !ok {
								t.Errorf("book %d read after its deletion", b.ID)
							}
						}
						if back {
							read = append(slices.Clone(rows.Items), read...)
						} else {
							read = append(read, rows.Items...)
						}
						if !rows.More {
							break
						}
						if back {
							r.At = &driver.Cursor{Backward: true, Keys: rows.Keys(rows.Items[0])}
						} else {
							r.At = &driver.Cursor{Keys: rows.Keys(rows.Items[len(rows.Items)-1])}
						}
						id, err := w.step(ctx)
						if err != nil {
							t.Fatal(err)
						}
						delete(throughout, id)
					}
					if back {
						read = append(read, edge)
					}
					seen := map[int64]int{}
					for i, b := range read {
						if seen[b.ID]++; seen[b.ID] > 1 {
							t.Errorf("book %d read twice", b.ID)
						}
						if i > 0 && o.compare(read[i-1], b) >= 0 {
							t.Errorf("book %d read after book %d, out of order", b.ID, read[i-1].ID)
						}
					}
					for id := range throughout {
						if seen[id] != 1 {
							t.Errorf("book %d, present throughout, read %d times", id, seen[id])
						}
					}
					if w.inserted == 0 || w.deleted == 0 {
						t.Errorf("%d inserted, %d deleted: the walk did not run under writes", w.inserted, w.deleted)
					}
				})
			}
		}
	})
}

// writer inserts and deletes books between pages.
type writer struct {
	db                bun.IDB
	rng               *rand.Rand
	next              int64
	live              map[int64]book
	keep              int64 // never deleted
	inserted, deleted int
}

func newWriter(db bun.IDB, books []book, seed uint64) *writer {
	w := &writer{db: db, rng: rand.New(rand.NewPCG(seed, 1)), next: 5000, live: map[int64]book{}}
	for _, b := range books {
		w.live[b.ID] = b
	}
	return w
}

// step inserts two books, tying existing ones on every column but the
// id, and deletes one; it returns the id deleted.
func (w *writer) step(ctx context.Context) (int64, error) {
	for range 2 {
		b := makeBook(1 + w.rng.IntN(40))
		b.ID = w.next
		w.next++
		if _, err := w.db.NewInsert().Model(&b).Exec(ctx); err != nil {
			return 0, err
		}
		w.live[b.ID] = b
		w.inserted++
	}
	var ids []int64
	for id := range w.live {
		if id != w.keep {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	id := ids[w.rng.IntN(len(ids))]
	if _, err := w.db.NewDelete().Model((*book)(nil)).Where("id = ?", id).Exec(ctx); err != nil {
		return 0, err
	}
	delete(w.live, id)
	w.deleted++
	return id, nil
}
