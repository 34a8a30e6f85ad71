package result

import (
	"context"
	"errors"
	"time"
)

// Errors of a [Store].
var (
	// ErrNotFound: no snapshot has that id (never stored, evicted, or
	// deleted after it expired).
	ErrNotFound = errors.New("result: snapshot not found")
	// ErrQuota: the snapshot alone is over a quota; nothing was stored.
	ErrQuota = errors.New("result: snapshot over the store's quota")
)

// Quota caps what a store keeps, in bytes of [Header.Bytes]. Zero fields
// take the defaults.
type Quota struct {
	// PerPrincipal caps the snapshots of one principal; 0 means
	// DefaultPerPrincipal.
	PerPrincipal int64
	// Total caps all snapshots; 0 means DefaultTotal.
	Total int64
}

// Default quotas.
const (
	DefaultPerPrincipal = 64 << 20
	DefaultTotal        = 512 << 20
)

// WithDefaults returns q with its zero fields set to the defaults.
func (q Quota) WithDefaults() Quota {
	if q.PerPrincipal <= 0 {
		q.PerPrincipal = DefaultPerPrincipal
	}
	if q.Total <= 0 {
		q.Total = DefaultTotal
	}
	return q
}

// Header describes a stored snapshot.
type Header struct {
	// ID names the snapshot; the handle carries it.
	ID string
	// Principal is the session or principal the snapshot belongs to.
	Principal string
	// Tool and Args are the call whose result it is; Args is a JSON
	// object.
	Tool string
	Args []byte
	// Created and Expires bound its life.
	Created, Expires time.Time
	// Bytes is its size for the quotas: Meta and every segment's Data.
	Bytes int64
	// Meta is opaque to stores.
	Meta []byte
}

// Pos orders the segments of one node: (first element, 0) for a
// container's, (first line, first rune in that line) for a text's.
type Pos struct{ A, B int64 }

// Less reports whether p sorts before q.
func (p Pos) Less(q Pos) bool { return p.A < q.A || p.A == q.A && p.B < q.B }

// Segment is a stored piece of a snapshot: consecutive children of a
// large container, or consecutive runes of a long text.
type Segment struct {
	// Node is the JSON Pointer of the container or text; Pos orders
	// the node's segments.
	Node string
	Pos  Pos
	// Data is opaque to stores.
	Data []byte
}

// Snapshot is what [Store.Put] keeps.
type Snapshot struct {
	Header
	Segments []Segment
}

// Store keeps snapshots for reads. Implementations must be safe for
// concurrent use; package resulttest checks them.
type Store interface {
	// Put stores s whole or not at all. It first deletes the snapshots
	// expired at s.Created, then evicts the oldest snapshots (by
	// Created, then ID) of s.Principal, then of anyone, until s fits the
	// quotas. A snapshot alone over a quota is ErrQuota, and evicts
	// nothing. s.ID is new.
	Put(ctx context.Context, s *Snapshot) error
	// Header returns the header of snapshot id, expired or not, or
	// ErrNotFound.
	Header(ctx context.Context, id string) (Header, error)
	// Segments returns up to n segments of node of snapshot id, in Pos
	// order: the last at or before from (or the first, if none is), then
	// those after it. n is at least 1. None (no such node or snapshot) is
	// not an error.
	Segments(ctx context.Context, id, node string, from Pos, n int) ([]Segment, error)
	// Delete deletes snapshot id; one not found is not an error.
	Delete(ctx context.Context, id string) error
	// Quota returns the quota Put enforces, defaults applied.
	Quota() Quota
}
