// Package memrepo is the in-memory implementation of every port of package
// ports (notes, knowledge graph, response history, code search), and the
// reference every other implementation is measured against.
//
//	store := memrepo.New()
//	_ = store.PutNote(ctx, ports.Note{ID: "projects/alpha", Title: "Alpha", Content: "..."})
//	page, err := store.ListNotes(ctx, ports.ListFilter{Folder: "projects"}, bounded.Page{Limit: 20})
//	// page.Items: the first 20 notes, newest first; page.Page: total, hasMore, nextOffset.
//
// # What "reference" means
//
// For the same data and the same request, an adapter (the SQLite and
// Postgres adapters, or one of yours) must return exactly what a [Store]
// returns: the same items in the same order, the same totals and
// [bounded.PageInfo], and an error for the same inputs, matching the same
// sentinel with errors.Is. Package conformance checks this with go-cmp, so
// the details below are part of the contract, not accidents of this code:
//
//   - Checks come in a fixed order: the page first ([bounded.Limits.Normalize]
//     with the method's limits, whose error is returned unchanged, then the
//     cursor), then the method's other arguments in the order of its
//     signature, each with the ports helper that validates it
//     ([ports.ValidateQuery] for ids and filters, [ports.LinkQuery.Validate],
//     [ports.NodeQuery.Normalize], [ports.CodeQuery.Normalize],
//     [bounded.Window.Normalize]), then the context, and only then whether
//     the named note exists ([ports.ErrNotFound]). Write methods validate
//     with the item's Normalize method and write nothing when it fails.
//   - Every page that has more carries a NextCursor, and every page with
//     items before it a PrevCursor, encoded by [driver.Codec] for
//     the method's scope ([ports.Scope]) with the keys of its
//     [ports.Order]; a cursor resumes by binary search for its keys, so a
//     walk stays exact while items are written. A cursor of another scope,
//     altered, or whose keys do not fit the order is an error wrapping
//     [bounded.ErrInvalidCursor]. Cursor strings are each store's own: an
//     adapter's need not equal these, only be present on the same pages.
//   - Every order is total: it is the one documented on the port method,
//     ending with the unique id (or name) as the tie-breaker.
//   - The total follows the page's count strategy (exact by default,
//     capped, or none: [bounded.CountMode]); each method is a
//     [bounded.Source] read by [bounded.FetchPage], which builds the page
//     info from the count, the items returned, and whether one follows.
//   - An empty page (no match, or an offset at or past the end) has nil
//     Items, never an empty non-nil slice. Likewise the optional slices of
//     returned values (tags, observations, GetNotes' Notes and Missing) are
//     nil when empty.
//   - Strings compare bytewise; case-insensitive matching folds both sides
//     with [ports.Fold] and nothing else (no trimming, no Unicode
//     normalization); LIKE wildcards and quotes match literally.
//
// A Store computes each whole result set in memory, then sorts and slices
// it: that is what makes it obviously correct, and it is fine for tests,
// examples and small data sets. Adapters must not do the same; they page
// inside the database.
package memrepo
