package result

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/boundedkit/bounded"
	"github.com/boundedkit/bounded/driver"
)

// Errors of a handle a read cannot use, wrapped in a *HandleError. The
// driver's reasons (driver.ErrCursorTampered, ErrCursorForeign,
// ErrCursorExpired) are wrapped too.
var (
	// ErrInvalidHandle: not a handle this bounder issued for the
	// principal (altered, of another principal or session, or garbage).
	ErrInvalidHandle = errors.New("result: invalid handle")
	// ErrExpired: the handle's TTL ran out.
	ErrExpired = errors.New("result: handle expired")
)

// HandleError is the error of a read whose handle cannot be used: its
// message says what to call instead.
type HandleError struct {
	// Err wraps ErrInvalidHandle, ErrExpired or ErrNotFound, and the
	// driver's reason.
	Err error
	// Reason says what is wrong, for the model.
	Reason string
	// Tool and Args are the call whose result the handle named, when
	// known: calling it again gives a new handle.
	Tool string
	Args json.RawMessage
}

func (e *HandleError) Error() string {
	again := "call the tool that returned it again for a new one"
	switch {
	case e.Tool != "" && len(e.Args) > 0 && len(e.Args) <= 200:
		again = fmt.Sprintf("call %s with arguments %s again for a new one", e.Tool, e.Args)
	case e.Tool != "":
		again = fmt.Sprintf("call %s again, with the arguments you gave it, for a new one", e.Tool)
	}
	return e.Reason + "; " + again
}

func (e *HandleError) Unwrap() error { return e.Err }

// handleScope is the codec scope of a principal's handles.
func handleScope(principal string) string { return "result\x00" + principal }

// newHandle returns a new snapshot id and its handle for call.
func (b *Bounder) newHandle(call Call) (id, handle string, err error) {
	var r [8]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", "", err
	}
	n := int64(binary.BigEndian.Uint64(r[:]) >> 1)
	handle, err = b.codec.Encode(handleScope(call.Principal), driver.Cursor{Keys: []any{n, call.Tool}})
	if err != nil {
		return "", "", err
	}
	return strconv.FormatInt(n, 36), handle, nil
}

// openHandle returns the snapshot id handle names for principal, and
// the tool that returned it. An expired handle is a *HandleError with the
// id and tool.
func (b *Bounder) openHandle(principal, handle string) (id, tool string, err error) {
	scope := handleScope(principal)
	cur, err := b.codec.Decode(scope, handle)
	if errors.Is(err, driver.ErrCursorExpired) && !errors.Is(err, driver.ErrCursorTampered) {
		// Signed and ours: read it past its expiry.
		old := b.codec
		old.Now = func() time.Time { return time.Unix(0, 0) }
		if c, oerr := old.Decode(scope, handle); oerr == nil {
			id, tool, _ = handleKeys(c)
		}
		return id, tool, &HandleError{Err: fmt.Errorf("%w: %w", ErrExpired, err), Reason: "the handle expired", Tool: tool}
	}
	if err != nil {
		return "", "", &HandleError{Err: fmt.Errorf("%w: %w", ErrInvalidHandle, err),
			Reason: "the handle is not one this server gave this session: altered, cut short, or another session's"}
	}
	id, tool, ok := handleKeys(cur)
	if !ok {
		return "", "", &HandleError{Err: fmt.Errorf("%w: not a result handle", ErrInvalidHandle), Reason: "the handle is not a result's"}
	}
	return id, tool, nil
}

// handleKeys returns the snapshot id and tool a handle's cursor holds.
func handleKeys(c driver.Cursor) (id, tool string, ok bool) {
	if len(c.Keys) != 2 {
		return "", "", false
	}
	n, ok1 := c.Keys[0].(int64)
	tool, ok2 := c.Keys[1].(string)
	if !ok1 || !ok2 || n < 0 {
		return "", "", false
	}
	return strconv.FormatInt(n, 36), tool, true
}

// header returns the header of snapshot id, checked against the handle's
// principal, tool and expiry.
func (b *Bounder) header(ctx context.Context, principal, id, tool string) (Header, error) {
	h, err := b.store.Header(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return Header{}, &HandleError{Err: err, Reason: "the result is no longer kept", Tool: tool}
	}
	if err != nil {
		return Header{}, err
	}
	if h.Principal != principal || h.Tool != tool {
		return Header{}, &HandleError{Err: fmt.Errorf("%w: it names another snapshot", ErrInvalidHandle), Reason: "the handle names another result"}
	}
	if !b.now().Before(h.Expires) {
		return Header{}, &HandleError{Err: fmt.Errorf("%w at %s", ErrExpired, h.Expires.UTC().Format(time.RFC3339)),
			Reason: "the handle expired", Tool: tool, Args: h.Args}
	}
	return h, nil
}

// open returns the id and meta of the snapshot a handle names for
// principal, checked.
func (b *Bounder) open(ctx context.Context, principal, handle string) (string, *meta, error) {
	if b.store == nil {
		return "", nil, &HandleError{Err: fmt.Errorf("%w: no store keeps snapshots", ErrNotFound), Reason: "no store keeps results here"}
	}
	id, tool, err := b.openHandle(principal, handle)
	var he *HandleError
	if errors.As(err, &he) && id != "" {
		// Expired: name the call's arguments while the store has them.
		if h, herr := b.store.Header(ctx, id); herr == nil && h.Principal == principal && h.Tool == tool {
			he.Args = h.Args
		}
	}
	if err != nil {
		return "", nil, err
	}
	h, err := b.header(ctx, principal, id, tool)
	if err != nil {
		return "", nil, err
	}
	m, err := decodeMeta(h.Meta)
	return id, m, err
}

// argsJSON encodes a call's arguments for a header.
func argsJSON(a bounded.Args) []byte {
	if len(a) == 0 {
		return []byte("{}")
	}
	b, err := a.MarshalJSON()
	if err != nil {
		return []byte("{}")
	}
	return b
}
