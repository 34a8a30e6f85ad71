// Package tools is the agent tool set of bounded: get_note, get_notes,
// list_notes, search_notes, search_by_links, find_broken_links,
// get_note_links, get_backlinks, get_children, get_parents,
// get_descendants, get_related_notes, search_knowledge,
// get_response_history and search_code, each with a name, a description
// that states its defaults, maxima and how to continue, a JSON Schema for
// its input, and a handler that takes the call's JSON arguments and returns
// one bounded JSON envelope ([bounded.Envelope]) that fits the budget.
//
//	set, err := tools.New(tools.Config{Notes: store, Mode: tools.Balanced})
//	if err != nil { ... }
//	out, err := set.Call(ctx, "search_by_links", json.RawMessage(`{"hasLinksTo":["Home"],"limit":5}`))
//	// out: {"results":[...],"pagination":{...},"truncated":false,"truncation":{...},"hint":"...","next":{...}}
//
// Serve the tools with any agent framework or MCP SDK: list [Set.Tools], and
// answer a call with [Tool.Handler]; package tools itself imports only
// bounded, ports, JSON Schema types and the standard library (package
// mcpset serves it with the official MCP Go SDK, through the same path
// as a user's own tools).
//
// # Arguments
//
// Arguments are parsed by package toolargs, the parser of every bounded
// tool, strictly: an unknown or repeated argument, a value of
// the wrong JSON type, a fractional number (2.5), a number out of range
// (-1, 1e20), a value outside its enumeration or a missing required argument
// is an [*ArgumentError] naming the tool and the argument, matching
// [ErrInvalidArguments] and the domain's sentinel with errors.Is:
// [bounded.ErrInvalidPage] for limit, offset, page and pageSize,
// [bounded.ErrInvalidWindow] for maxLines and lineOffset,
// [bounded.ErrInvalidBudget] for budget, ports.ErrInvalidQuery for ids and
// queries. A null value is the same as leaving the argument out. A limit,
// pageSize or maxLines over its maximum is clamped and the response says so.
//
// Every tool takes budget (the most characters of this response, at most
// the server's [Config.Budget]), budgetTokens (the most tokens, at most the
// server's: an agent with 8,000 tokens of context left passes
// "budgetTokens":8000) and detail ("concise" or "detailed"). Both budgets
// are clamped to the server's limits, never raised, and the limits applied
// are in the response's truncation (limitChars, limitTokens). Tokens are
// counted as the server's budget counts them: exactly with a Tokenizer
// (package tokenizer), else by [bounded.Estimator], in which case 97% of
// budgetTokens is used, for the estimate's error
// ([bounded.MaxEstimateError]). Use a preset such as [bounded.ClaudeCode]
// for [Config.Budget].
// Paged tools take limit and offset, except search_knowledge, which takes a
// 0-based page and pageSize, and offset to continue after a budget cut.
// Tools that page in their store also take a cursor, and next continues
// by cursor (after a budget cut too), except get_response_history, by
// offset, and search_knowledge, by page number. Under [Config.OffsetHints]
// next continues by offset.
//
// # Note ids and folders
//
// A note id is the note's vault path without extension. Every tool that
// takes one also takes what an Obsidian link takes: a basename ("Canvas"),
// a path in other case or with ".md" ("en/plugins/canvas.md"). An id the
// store does not find is resolved as a link from the vault root is
// (ports.Notes.ResolveNotes): the call reads the note it names, and its
// hint and next call name that note. A name several notes share equally
// is an error matching ports.ErrAmbiguous that lists them; a name naming
// nothing is ports.ErrNotFound, with the closest names of the knowledge
// graph's fuzzy index when [Config.Knowledge] holds an entity per note.
// An exact id costs no statement more; a name, one.
//
// Folders are nodes of the hierarchy: get_children, get_parents and
// get_descendants take a folder's id and list folders (folder: true)
// beside notes. An empty listing says why in its hint.
//
// # Responses
//
// A response is the envelope of [bounded.Fit]: results, pagination (total,
// hasMore, nextOffset), truncation, a hint that names the exact next call
// and next, its whole argument list (the caller's own arguments with the
// pagination ones for the next page). Calling the tool with next until it is
// absent returns every result exactly once, whatever the page size or the
// budget. The results are the item types of this package ([NoteItem],
// [NoteContentItem], [LinkItem], [EntityItem], [RunItem], [CodeItem], ...).
//
// # Access modes
//
// [Config.Mode] applies to every tool ([Policy]): in [Private] no
// tool returns content (note text, link text and external URLs,
// observations, response bodies, code), only ids, titles and other
// identifiers, and each result lists what it withheld; [Balanced]
// clips content progressively (whole under 10 results, 500 characters up
// to 50, 250 beyond) and attaches the hierarchy around small pages of notes
// (parents and two levels of children under 10 results, children up to 50);
// [Full] keeps content whole up to 100 results and expands context up to
// 30 and 100. A clip always ends with a visible marker and is reported.
// The context of a page is read by one [ports.Notes.ContextOf] call: one
// statement on the SQL adapters, whatever the page's size.
package tools
