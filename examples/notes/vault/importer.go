package vault

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/ports"
)

// DefaultBatchSize is the number of files an [Importer] handles per
// transaction when its BatchSize is 0.
const DefaultBatchSize = 256

// MaxErrors is the most skipped files a [Summary] lists.
const MaxErrors = 100

// sweepBatch is the most stored notes a first import collects before
// deleting them, when they are in no file of the vault.
const sweepBatch = 10_000

// batchBytes is the most note content an import holds at once, beyond
// one note: a batch is written in parts when its notes are larger.
const batchBytes = 8 << 20

// An Importer imports a vault into a store incrementally, keeping a
// manifest of what it imported in the tables bounded_vault_files,
// bounded_vault_refs and bounded_vault_meta of DB (created when
// missing). See the package documentation.
type Importer struct {
	// DB holds the manifest: a SQLite or Postgres database.
	DB bun.IDB
	// Store returns the store to write one batch of notes to, given the
	// batch's transaction on DB. A store in DB itself (sqlite.New(ctx,
	// tx), postgres.New(ctx, tx)) commits each batch's notes and manifest
	// rows together. Any other store works too (return it, ignoring tx):
	// the notes of a batch that fails are then written again by the next
	// import.
	Store func(ctx context.Context, tx bun.Tx) (ports.Notes, error)
	// BatchSize is the most files handled per transaction; 0 means
	// DefaultBatchSize.
	BatchSize int
	// Progress, when not nil, is called after each batch.
	Progress func(Progress)
}

// Progress is how far an import is.
type Progress struct {
	// Stage is "scan" while the vault's files are listed and compared
	// with the manifest, "remove" while the notes of deleted files are
	// removed, "write" while new and changed notes are parsed and written.
	Stage string
	// Done counts the files scanned or checked, or the notes parsed, so
	// far in the stage; Total is the number the stage will handle, 0 when
	// not known (while scanning).
	Done, Total int
	// Elapsed is the time since the import began.
	Elapsed time.Duration
}

// Summary is what an import did, and the vault it left in the store.
type Summary struct {
	// Added, Changed and Relinked count the notes written: new to the
	// store, changed in their file, and changed only in what their links
	// or parents resolve to (a file they name appeared or went). Removed
	// counts the notes deleted because their file is gone.
	Added, Changed, Relinked, Removed int
	// Notes and Attachments count the vault's notes in the store and its
	// other files.
	Notes, Attachments int
	// Links counts the links stored (to notes and URLs), Embeds the links
	// to existing attachments (not stored), Broken the stored links to no
	// file of the vault, and Missing those of them that name an attachment.
	Links, Embeds, Broken, Missing int
	// Skipped counts the files that could not be imported; Errors lists
	// the first MaxErrors of them, in path order.
	Skipped int
	Errors  []FileError
	Elapsed time.Duration
}

// String returns the summary on one line, e.g. "30 notes (30 added, 0
// changed, 0 relinked, 0 removed), 2 attachments, 120 links, 3 embeds, 1
// broken link (0 to missing attachments), 0 files skipped, in 41ms".
func (s Summary) String() string {
	return fmt.Sprintf("%s (%d added, %d changed, %d relinked, %d removed), %s, %s, %s, %s (%d to missing attachments), %s skipped, in %v",
		plural(s.Notes, "note"), s.Added, s.Changed, s.Relinked, s.Removed, plural(s.Attachments, "attachment"),
		plural(s.Links, "link"), plural(s.Embeds, "embed"), plural(s.Broken, "broken link"), s.Missing,
		plural(s.Skipped, "file"), s.Elapsed.Round(time.Millisecond))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// importRun is the state of one import.
type importRun struct {
	*Importer
	fsys  fs.FS
	start time.Time
	sum   Summary
	// walkErrs counts the files and folders that could not be listed.
	walkErrs int
}

// Import makes the store mirror the vault fsys, writing only what changed
// since the last import recorded in the manifest, and returns what it did.
//
// A file that cannot be read, parsed or stored is skipped, listed in the
// summary, and tried again by every import; the stored copy of its note,
// if any, is kept. The error is for a vault whose root cannot be read,
// a store or database failing otherwise, or ctx ending; the batches
// committed before it stay, and the next import goes on from them.
func (im *Importer) Import(ctx context.Context, fsys fs.FS) (Summary, error) {
	run := &importRun{Importer: im, fsys: fsys, start: time.Now()}
	empty, _, err := openManifest(ctx, im.DB)
	if err != nil {
		return Summary{}, err
	}
	scanned, err := run.scan(ctx)
	if err != nil {
		return run.sum, err
	}
	if err := run.removeGone(ctx, scanned); err != nil {
		return run.sum, err
	}
	if err := run.write(ctx); err != nil {
		return run.sum, err
	}
	if empty {
		if err := run.sweep(ctx); err != nil {
			return run.sum, err
		}
	}
	t, err := readTotals(ctx, im.DB)
	if err != nil {
		return run.sum, fmt.Errorf("vault: reading the manifest: %w", err)
	}
	s := &run.sum
	s.Notes, s.Attachments, s.Links, s.Embeds, s.Broken, s.Missing = t.Notes, t.Attachments, t.Links, t.Embeds, t.Broken, t.Missing
	s.Skipped = t.Skipped + run.walkErrs
	slices.SortFunc(s.Errors, func(a, b FileError) int { return strings.Compare(a.Path, b.Path) })
	s.Elapsed = time.Since(run.start)
	return run.sum, nil
}

func (r *importRun) batchSize() int { return cmp.Or(r.BatchSize, DefaultBatchSize) }

func (r *importRun) progress(stage string, done, total int) {
	if r.Progress != nil {
		r.Progress(Progress{Stage: stage, Done: done, Total: total, Elapsed: time.Since(r.start)})
	}
}

func (r *importRun) fail(fe FileError) {
	if len(r.sum.Errors) < MaxErrors {
		r.sum.Errors = append(r.sum.Errors, fe)
	}
}

// scan walks the vault and records in the manifest what changed: new
// files, and notes whose content differs from the last import's (by size
// and modification time, then by hash). It returns the number of files
// found.
func (r *importRun) scan(ctx context.Context) (int, error) {
	var batch []entry
	n := 0
	flush := func() error {
		if err := r.scanBatch(ctx, batch); err != nil {
			return err
		}
		n += len(batch)
		batch = batch[:0]
		r.progress("scan", n, 0)
		return nil
	}
	err := walk(r.fsys, func(e entry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if batch = append(batch, e); len(batch) == r.batchSize() {
			return flush()
		}
		return nil
	}, func(fe FileError) {
		r.walkErrs++
		r.fail(fe)
	})
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	return n, err
}

// scanBatch compares a batch of files with their manifest rows, and
// writes what differs.
func (r *importRun) scanBatch(ctx context.Context, batch []entry) error {
	paths := make([]string, len(batch))
	for i, e := range batch {
		paths[i] = e.path
	}
	rows, err := rowsByPath(ctx, r.DB, paths)
	if err != nil {
		return fmt.Errorf("vault: reading the manifest: %w", err)
	}
	var (
		added, updated []fileRow
		names, ids     []string
	)
	for _, e := range batch {
		size, mtime := e.size, nanos(e.mod)
		row, ok := rows[e.path]
		same := ok && row.Size == size && row.Mtime == mtime
		switch {
		case !ok:
			row = fileRow{Path: e.path, Kind: e.kind, Size: size, Mtime: mtime}
			if e.kind == KindNote {
				row.ID, row.Dirty = noteID(e.path), 1
				ids = append(ids, row.ID)
			}
			row.Name = file{path: row.Path, id: row.ID}.name()
			names = append(names, row.Name)
			added = append(added, row)
			continue
		case same && mtime != 0:
			continue // unchanged
		case e.kind != KindNote:
			if same {
				continue
			}
		case same && (row.Dirty == 1 || row.Err != ""):
			continue // to be parsed anyway
		default:
			// Size or time differ, or the time is not known (as in an
			// embed.FS): compare the content.
			data, err := fs.ReadFile(r.fsys, e.path)
			if err != nil || contentHash(data) != row.Hash {
				row.Dirty = 1
			} else if same {
				continue
			}
		}
		row.Size, row.Mtime = size, mtime
		updated = append(updated, row)
	}
	if len(added)+len(updated) == 0 {
		return nil
	}
	return runInTx(ctx, r.DB, func(ctx context.Context, tx bun.Tx) error {
		if len(added) > 0 {
			// A concurrent import may have added them since they were read.
			if _, err := tx.NewInsert().Model(&added).On("CONFLICT (path) DO NOTHING").Exec(ctx); err != nil {
				return fmt.Errorf("vault: writing the manifest: %w", err)
			}
		}
		for _, row := range updated {
			if _, err := tx.NewUpdate().Model(&row).Column("size", "mtime", "dirty").WherePK().Exec(ctx); err != nil {
				return fmt.Errorf("vault: writing the manifest: %w", err)
			}
		}
		if err := markDependents(ctx, tx, names, ids); err != nil {
			return fmt.Errorf("vault: writing the manifest: %w", err)
		}
		return nil
	})
}

// removeGone removes the notes of the files in the manifest that are no
// longer in the vault. scanned is the number of files the scan found:
// when the manifest holds as many, none is gone (every file found has a
// row).
func (r *importRun) removeGone(ctx context.Context, scanned int) error {
	var total int
	if err := r.DB.NewRaw("SELECT count(*) FROM bounded_vault_files").Scan(ctx, &total); err != nil {
		return fmt.Errorf("vault: reading the manifest: %w", err)
	}
	if total == scanned {
		return nil
	}
	after, done := "", 0
	for {
		var rows []fileRow
		err := r.DB.NewSelect().Model(&rows).Column("path", "kind", "id", "name", "dup").
			Where("path > ?", after).OrderExpr("path").Limit(int64(r.batchSize())).Scan(ctx)
		if err != nil {
			return fmt.Errorf("vault: reading the manifest: %w", err)
		}
		if len(rows) == 0 {
			return nil
		}
		after = rows[len(rows)-1].Path
		var gone []fileRow
		for _, row := range rows {
			info, err := fs.Stat(r.fsys, row.Path)
			if errors.Is(err, fs.ErrNotExist) || err == nil && !info.Mode().IsRegular() {
				gone = append(gone, row)
			}
		}
		if len(gone) > 0 {
			if err := r.remove(ctx, gone); err != nil {
				return err
			}
		}
		done += len(rows)
		r.progress("remove", done, total)
	}
}

// remove deletes the rows of files that are gone, and their notes.
func (r *importRun) remove(ctx context.Context, gone []fileRow) error {
	return runInTx(ctx, r.DB, func(ctx context.Context, tx bun.Tx) error {
		store, err := r.Store(ctx, tx)
		if err != nil {
			return err
		}
		var names, ids, paths []string
		for _, row := range gone {
			paths = append(paths, row.Path)
			names = append(names, row.Name)
			if row.Kind != KindNote || row.Dup == 1 {
				continue
			}
			ids = append(ids, row.ID)
			switch err := store.DeleteNote(ctx, row.ID); {
			case err == nil:
				r.sum.Removed++
			case !errors.Is(err, ports.ErrNotFound):
				return fmt.Errorf("vault: deleting %s: %w", row.ID, err)
			}
		}
		err = chunks(paths, func(ps []string) error {
			if _, err := tx.NewDelete().Model((*fileRow)(nil)).Where("path IN (?)", bun.List(ps)).Exec(ctx); err != nil {
				return err
			}
			_, err := tx.NewDelete().Model((*refRow)(nil)).Where("path IN (?)", bun.List(ps)).Exec(ctx)
			return err
		})
		if err == nil {
			err = markDependents(ctx, tx, names, ids)
		}
		if err != nil {
			return fmt.Errorf("vault: writing the manifest: %w", err)
		}
		return nil
	})
}

// write parses the notes the manifest marks dirty, and those skipped
// before, and writes those whose note comes out different from the stored
// one.
func (r *importRun) write(ctx context.Context) error {
	var total int
	err := r.DB.NewRaw("SELECT count(*) FROM bounded_vault_files WHERE kind = ? AND (dirty = 1 OR err <> '')", KindNote).Scan(ctx, &total)
	if err != nil {
		return fmt.Errorf("vault: reading the manifest: %w", err)
	}
	after, done := "", 0
	for {
		var rows []fileRow
		err := r.DB.NewSelect().Model(&rows).Where("kind = ? AND (dirty = 1 OR err <> '') AND path > ?", KindNote, after).
			OrderExpr("path").Limit(int64(r.batchSize())).Scan(ctx)
		if err != nil {
			return fmt.Errorf("vault: reading the manifest: %w", err)
		}
		if len(rows) == 0 {
			return nil
		}
		after = rows[len(rows)-1].Path
		if err := r.writeBatch(ctx, rows); err != nil {
			return err
		}
		done += len(rows)
		r.progress("write", done, total)
	}
}

// pending is a note parsed, waiting for its links to be resolved.
type pending struct {
	row  fileRow
	note *parsedNote
	hash string
	mod  int64 // the modification time the note is built with
	deps []string
}

// writeBatch parses and writes a batch of notes in one transaction.
func (r *importRun) writeBatch(ctx context.Context, rows []fileRow) error {
	return runInTx(ctx, r.DB, func(ctx context.Context, tx bun.Tx) error {
		store, err := r.Store(ctx, tx)
		if err != nil {
			return err
		}
		owners, err := owners(ctx, tx, rows)
		if err != nil {
			return fmt.Errorf("vault: reading the manifest: %w", err)
		}
		var (
			parsed []pending
			size   int
		)
		for _, row := range rows {
			if owner := owners[row.ID]; owner != row.Path {
				if err := r.skip(ctx, tx, row, taken(row.ID, owner), true); err != nil {
					return err
				}
				continue
			}
			p, err := r.read(row)
			if err != nil {
				if err := r.skip(ctx, tx, row, err, false); err != nil {
					return err
				}
				continue
			}
			parsed = append(parsed, p)
			if size += len(p.note.Content); size > batchBytes {
				if err := r.store(ctx, tx, store, parsed); err != nil {
					return err
				}
				parsed, size = parsed[:0], 0
			}
		}
		return r.store(ctx, tx, store, parsed)
	})
}

// owners returns, for the IDs of rows, the path of the file that holds
// each: of the note files with that ID, the first in walk order.
func owners(ctx context.Context, db bun.IDB, rows []fileRow) (map[string]string, error) {
	ids := make([]string, len(rows))
	for i, row := range rows {
		ids[i] = row.ID
	}
	out := make(map[string]string)
	err := chunks(ids, func(ids []string) error {
		var all []fileRow
		if err := db.NewSelect().Model(&all).Column("path", "id").Where("kind = ? AND id IN (?)", KindNote, bun.List(ids)).Scan(ctx); err != nil {
			return err
		}
		for _, row := range all {
			if o, ok := out[row.ID]; !ok || walkOrder(row.Path, o) < 0 {
				out[row.ID] = row.Path
			}
		}
		return nil
	})
	return out, err
}

// walkOrder compares slash paths in the order [fs.WalkDir] visits them:
// name by name, so that a folder's files come before a file whose name
// extends the folder's ("a/b.md" before "a.md").
func walkOrder(a, b string) int {
	for {
		an, arest, amore := strings.Cut(a, "/")
		bn, brest, bmore := strings.Cut(b, "/")
		if c := strings.Compare(an, bn); c != 0 || !amore || !bmore {
			if c == 0 {
				return cmp.Compare(len(a), len(b))
			}
			return c
		}
		a, b = arest, brest
	}
}

// read reads and parses the note of row.
func (r *importRun) read(row fileRow) (pending, error) {
	data, err := fs.ReadFile(r.fsys, row.Path)
	if err != nil {
		return pending{}, err
	}
	h := contentHash(data)
	// A note whose content is unchanged keeps the time it was built with:
	// a touched file is not a changed note.
	mod := row.Mtime
	if h == row.Hash && row.NoteHash != "" {
		mod = row.NoteMtime
	}
	n, err := parse(row.Path, data, fromNanos(mod))
	if err != nil {
		return pending{}, err
	}
	return pending{row: row, note: n, hash: h, mod: mod, deps: n.deps()}, nil
}

// skip records that row's file could not be imported, because of err;
// dup says another file holds its ID.
func (r *importRun) skip(ctx context.Context, tx bun.IDB, row fileRow, err error, dup bool) error {
	r.fail(FileError{row.Path, err})
	next := row
	next.Dirty, next.Err = 0, err.Error()
	if dup {
		next.Dup, next.Hash, next.NoteHash = 1, "", ""
		next.Links, next.Embeds, next.Broken, next.Missing = 0, 0, 0, 0
	}
	return updateRow(ctx, tx, row, next)
}

// updateRow writes next over row when they differ.
func updateRow(ctx context.Context, tx bun.IDB, row, next fileRow) error {
	if next == row {
		return nil
	}
	if _, err := tx.NewUpdate().Model(&next).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("vault: writing the manifest: %w", err)
	}
	return nil
}

// store resolves the links of parsed notes and writes those that changed.
func (r *importRun) store(ctx context.Context, tx bun.IDB, store ports.Notes, parsed []pending) error {
	var names []string
	for _, p := range parsed {
		names = append(names, p.deps...)
	}
	slices.Sort(names)
	res, err := filesNamed(ctx, tx, slices.Compact(names))
	if err != nil {
		return fmt.Errorf("vault: reading the manifest: %w", err)
	}
	// The names the notes depend on, replacing those of stale paths.
	var (
		stale []string
		refs  []refRow
	)
	for _, p := range parsed {
		note, c := res.note(p.note)
		next := p.row
		next.Dirty, next.Dup, next.Err = 0, 0, ""
		next.Hash, next.NoteMtime, next.NoteHash = p.hash, p.mod, noteHash(note)
		next.Links, next.Embeds, next.Broken, next.Missing = c.Links, c.Embeds, c.Broken, c.Missing
		if next.NoteHash != p.row.NoteHash || p.row.Dup == 1 {
			if err := store.PutNote(ctx, note); err != nil {
				if !errors.Is(err, ports.ErrInvalidItem) {
					return fmt.Errorf("vault: storing %s: %w", p.row.Path, err)
				}
				if err := r.skip(ctx, tx, p.row, err, false); err != nil {
					return err
				}
				continue
			}
			switch {
			case p.row.NoteHash == "":
				r.sum.Added++
			case p.hash != p.row.Hash:
				r.sum.Changed++
			default:
				r.sum.Relinked++
			}
		}
		if p.hash != p.row.Hash || p.row.Err != "" {
			if p.row.Hash != "" {
				stale = append(stale, p.row.Path)
			}
			for _, name := range p.deps {
				refs = append(refs, refRow{Path: p.row.Path, Name: name})
			}
		}
		if err := updateRow(ctx, tx, p.row, next); err != nil {
			return err
		}
	}
	if err := setRefs(ctx, tx, stale, refs); err != nil {
		return fmt.Errorf("vault: writing the manifest: %w", err)
	}
	return nil
}

// sweep deletes the stored notes that no file of the vault holds: notes
// stored before the manifest was, by an import that kept none, or by
// another program.
func (r *importRun) sweep(ctx context.Context) error {
	return runInTx(ctx, r.DB, func(ctx context.Context, tx bun.Tx) error {
		store, err := r.Store(ctx, tx)
		if err != nil {
			return err
		}
		list := func(ctx context.Context, p bounded.Page) (bounded.Paged[ports.NoteRef], error) {
			return store.ListNotes(ctx, ports.ListFilter{}, p)
		}
		for {
			// Collect a batch, then delete it and list again from the
			// start: deleting while paging would shift the offsets.
			var stale, page []string
			check := func() error {
				held := make(map[string]bool)
				err := chunks(page, func(ids []string) error {
					var rows []fileRow
					err := tx.NewSelect().Model(&rows).Column("id").Where("kind = ? AND id IN (?)", KindNote, bun.List(ids)).Scan(ctx)
					for _, row := range rows {
						held[row.ID] = true
					}
					return err
				})
				for _, id := range page {
					if !held[id] {
						stale = append(stale, id)
					}
				}
				page = page[:0]
				return err
			}
			for n, err := range bounded.All(ctx, bounded.Page{Limit: ports.ListNotesLimits.Max}, list) {
				if err != nil {
					return fmt.Errorf("vault: listing stored notes: %w", err)
				}
				if page = append(page, n.ID); len(page) == chunk {
					if err := check(); err != nil {
						return fmt.Errorf("vault: reading the manifest: %w", err)
					}
					if len(stale) >= sweepBatch {
						break
					}
				}
			}
			if err := check(); err != nil {
				return fmt.Errorf("vault: reading the manifest: %w", err)
			}
			if len(stale) == 0 {
				return nil
			}
			for _, id := range stale {
				if err := store.DeleteNote(ctx, id); err != nil && !errors.Is(err, ports.ErrNotFound) {
					return fmt.Errorf("vault: deleting %s: %w", id, err)
				}
				r.sum.Removed++
			}
		}
	})
}

// noteHash identifies a note as it is stored: equal hashes, equal notes.
func noteHash(n ports.Note) string {
	n.Content = contentHash([]byte(n.Content))
	b, err := json.Marshal(n)
	if err != nil { // cannot happen: a note always encodes
		panic(err)
	}
	return contentHash(b)
}

// contentHash is the hex SHA-256 of data.
func contentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
