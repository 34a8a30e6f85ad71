package bounded

import (
	"fmt"
	"math"
	"strconv"

	"github.com/boundedkit/bounded/internal/jsonenc"
)

// appendTruncation appends tr as encoding/json would encode it, with the
// ClippedFields given already encoded.
func appendTruncation(b []byte, tr *Truncation, paths [][]byte) []byte {
	b = append(b, '{')
	if tr.Reason != "" {
		b = append(b, `"reason":`...)
		b = jsonenc.AppendString(b, tr.Reason)
		b = append(b, ',')
	}
	b = append(b, `"originalCount":`...)
	b = strconv.AppendInt(b, int64(tr.OriginalCount), 10)
	b = append(b, `,"returnedCount":`...)
	b = strconv.AppendInt(b, int64(tr.ReturnedCount), 10)
	b = append(b, `,"estimatedChars":`...)
	b = strconv.AppendInt(b, int64(tr.EstimatedChars), 10)
	b = append(b, `,"limitChars":`...)
	b = strconv.AppendInt(b, int64(tr.LimitChars), 10)
	b = append(b, `,"estimatedTokens":`...)
	b = strconv.AppendInt(b, int64(tr.EstimatedTokens), 10)
	b = append(b, `,"limitTokens":`...)
	b = strconv.AppendInt(b, int64(tr.LimitTokens), 10)
	if len(tr.ClippedFields) > 0 {
		b = append(b, `,"clippedFields":[`...)
		for i, p := range paths {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, p...)
		}
		b = append(b, ']')
	}
	if tr.NeededChars != 0 {
		b = append(b, `,"neededChars":`...)
		b = strconv.AppendInt(b, int64(tr.NeededChars), 10)
	}
	if tr.NeededTokens != 0 {
		b = append(b, `,"neededTokens":`...)
		b = strconv.AppendInt(b, int64(tr.NeededTokens), 10)
	}
	return append(b, '}')
}

// digits is the length of strconv.Itoa(n).
func digits(n int) int {
	d := 1
	if n < 0 {
		d++
		if n == math.MinInt {
			return len(strconv.Itoa(n))
		}
		n = -n
	}
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

// appendArgs appends a as [Args.MarshalJSON] encodes it (a test checks that
// it does), without reflection for the values Call.Next writes.
func appendArgs(b []byte, a Args) ([]byte, error) {
	b = append(b, '{')
	for i, arg := range a {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsonenc.AppendString(b, arg.Name), ':')
		var err error
		if b, err = appendArgValue(b, arg.Value); err != nil {
			return nil, fmt.Errorf("bounded: argument %s: %w", arg.Name, err)
		}
	}
	return append(b, '}'), nil
}

// appendPageInfo appends pi as encoding/json would encode it (a test checks
// that it does), failing as it does on an unknown TotalKind.
func appendPageInfo(b []byte, pi *PageInfo) ([]byte, error) {
	if int(pi.TotalKind) >= len(totalKindNames) {
		_, err := pi.TotalKind.MarshalText()
		return nil, fmt.Errorf("bounded: encoding pagination: %w", err)
	}
	b = append(b, `{"total":`...)
	b = strconv.AppendInt(b, int64(pi.Total), 10)
	b = append(b, `,"totalKind":`...)
	b = jsonenc.AppendString(b, totalKindNames[pi.TotalKind])
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, int64(pi.Limit), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(pi.Offset), 10)
	b = append(b, `,"returned":`...)
	b = strconv.AppendInt(b, int64(pi.Returned), 10)
	b = append(b, `,"hasMore":`...)
	b = strconv.AppendBool(b, pi.HasMore)
	if pi.NextOffset != 0 {
		b = append(b, `,"nextOffset":`...)
		b = strconv.AppendInt(b, int64(pi.NextOffset), 10)
	}
	if pi.NextCursor != "" {
		b = append(b, `,"nextCursor":`...)
		b = jsonenc.AppendString(b, pi.NextCursor)
	}
	if pi.PrevCursor != "" {
		b = append(b, `,"prevCursor":`...)
		b = jsonenc.AppendString(b, pi.PrevCursor)
	}
	if pi.Clamped {
		b = append(b, `,"clamped":true`...)
	}
	if pi.RequestedLimit != 0 {
		b = append(b, `,"requestedLimit":`...)
		b = strconv.AppendInt(b, int64(pi.RequestedLimit), 10)
	}
	if pi.AfterCursor {
		b = append(b, `,"afterCursor":true`...)
	}
	if pi.Importing {
		b = append(b, `,"importing":true`...)
	}
	return append(b, '}'), nil
}
