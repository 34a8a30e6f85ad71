// Package bounded keeps every response an LLM agent's tool returns inside the
// agent's context budget, without ever losing data silently.
//
// It gives a tool handler four things:
//
//   - Pages over an ordered result set ([Page], [Limits], [PageInfo],
//     [Paged]): per-tool defaults and maxima, limit/offset and 0-based
//     page/pageSize forms, totals, and a hint naming the exact next call
//     ([Call.Hint]), so that an agent that only follows hints walks the
//     whole set exactly once.
//   - Windows over one large text ([Window], [ApplyWindow], [Clip],
//     [ClipHeadTail], [ContentPolicy]): a range of lines with its totals,
//     grapheme-safe clipping with a visible marker, head-and-tail clipping
//     that keeps front matter, and content limits that shrink as the result
//     count grows.
//   - Budgets over a whole response ([Budget], [Fit]): a hard ceiling in
//     characters (and optionally tokens) on the encoded JSON, cut at result
//     boundaries, most relevant first, with the cut reported and the next
//     page starting at the first item cut.
//   - One JSON envelope for tool responses ([Envelope]).
//
// A tool over the caller's own data is one call: [Respond] takes a [Source]
// (a slice with [FromSlice], a query with [FromFunc], any bun query with
// package bunpage), the [Call] and the [Page] asked for, and returns the
// fitted envelope. A store that implements a Source itself is written
// against package driver, which holds the request it receives and the
// rows it returns. A tool over a domain
// port reads the same way: normalize the request, ask a port (package
// ports) for a page, window or clip the contents, fit the page into the
// budget, and return the envelope.
//
// The package imports only the standard library. Domain interfaces live in
// package ports, the in-memory reference implementation in memrepo, SQL
// adapters under adapters/, and the suite every adapter passes in
// conformance.
package bounded
