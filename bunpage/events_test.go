package bunpage_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/boundedkit/bounded/bunpage"
	"github.com/uptrace/bun"
)

// event is a row of an activity log, listed newest first: the table of
// the plan tests and the benchmarks.
type event struct {
	bun.BaseModel `bun:"table:events,alias:e"`

	ID      int64     `bun:"id,pk"`
	Kind    string    `bun:"kind"`
	Created time.Time `bun:"created"`
	Title   string    `bun:"title"`
	Body    string    `bun:"body"`
}

// eventsDDL creates the table with an index for each listing: all events
// newest first, and one kind's.
var eventsDDL = []string{
	`CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, created TIMESTAMP NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL)`,
	`CREATE INDEX events_created_id ON events (created, id)`,
	`CREATE INDEX events_kind_created_id ON events (kind, created, id)`,
}

var (
	eventKinds = []string{"réunion", "会議", "ошибка", "déploiement", "αλλαγή", "review", "incident", "リリース"}
	eventWords = []string{"le", "serveur", "a", "redémarré", "après", "la", "mise", "à", "jour", "données", "naïve", "café",
		"東京", "の", "サーバー", "再起動", "ошибка", "в", "модуле", "καθυστέρηση", "αιτήματος", "build", "failed", "on", "main"}
)

// makeEvent returns event i (from 1): every third shares its creation
// time with the one before, and its body is about 200 characters of
// mixed-script text.
func makeEvent(i int) event {
	var body strings.Builder
	for w := i; body.Len() < 200; w = (w*7 + 3) % 1_000_003 {
		body.WriteString(eventWords[w%len(eventWords)])
		body.WriteByte(' ')
	}
	return event{
		ID:      int64(i),
		Kind:    eventKinds[i%len(eventKinds)],
		Created: time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i-i%3/2) * 1500 * time.Millisecond),
		Title:   fmt.Sprintf("%s n° %d — %s", eventKinds[(i/3)%len(eventKinds)], i, eventWords[i%len(eventWords)]),
		Body:    body.String(),
	}
}

// loadEvents creates the events table on db with events 1 to n, inserted
// in batches, and updates the planner's statistics.
func loadEvents(ctx context.Context, db *bun.DB, n int) error {
	for _, s := range eventsDDL {
		if _, err := db.ExecContext(ctx, ddl(db, s)); err != nil {
			return err
		}
	}
	const batch = 1000
	for start := 1; start <= n; start += 10 * batch {
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			for b := start; b < start+10*batch && b <= n; b += batch {
				events := make([]event, 0, batch)
				for i := b; i < b+batch && i <= n; i++ {
					events = append(events, makeEvent(i))
				}
				if _, err := tx.NewInsert().Model(&events).Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	_, err := db.ExecContext(ctx, analyze(db, "events"))
	return err
}

// newestFirst is the events' order: created, then id, both descending.
func newestFirst() []bunpage.Column[event] {
	return []bunpage.Column[event]{
		bunpage.Col("created", func(e event) time.Time { return e.Created }).Desc(),
		bunpage.Col("id", func(e event) int64 { return e.ID }).Desc().Unique(),
	}
}

func eventKeys(e event) []any { return []any{e.Created.UnixMicro(), e.ID} }
