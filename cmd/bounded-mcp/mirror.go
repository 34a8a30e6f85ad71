package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boundedkit/bounded/profile"
)

// mirror keeps the proxy's server holding what the upstream offers:
// tools, prompts, resources and resource templates, each forwarded. It
// changes only what changed, so that clients hear of real changes alone.
type mirror struct {
	p  *proxy
	mu sync.Mutex
	// The definitions served, as JSON, by name or URI.
	tools, prompts, resources, templates map[string]string
	// takes holds the budgets of tools that take budget and budgetTokens.
	takes map[string]profile.Budgets
}

func newMirror(p *proxy) *mirror {
	return &mirror{p: p, tools: map[string]string{}, prompts: map[string]string{},
		resources: map[string]string{}, templates: map[string]string{}, takes: map[string]profile.Budgets{}}
}

// budgets returns the largest budgets tool takes, if it takes budget and
// budgetTokens.
func (m *mirror) budgets(tool string) (profile.Budgets, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.takes[tool]
	return b, ok
}

// sync lists what the upstream of cs offers and serves it. A list that
// fails keeps what was served.
func (m *mirror) sync(ctx context.Context, cs *mcp.ClientSession) {
	m.mu.Lock()
	defer m.mu.Unlock()
	caps := cs.InitializeResult().Capabilities
	if caps == nil {
		caps = &mcp.ServerCapabilities{}
	}
	s, log := m.p.server, m.p.cfg.logger
	read := m.p.cfg.bounder.Options().ReadTool
	if caps.Tools != nil {
		if tools, err := collect(cs.Tools(ctx, nil)); err != nil {
			log.Warn("listing the upstream's tools", "err", err)
		} else {
			byName := map[string]*mcp.Tool{}
			for _, t := range tools {
				if t.Name == read {
					log.Warn("the upstream's tool has the read tool's name; it is not served", "tool", t.Name)
					continue
				}
				byName[t.Name] = t
			}
			removed := apply(m.tools, byName, func(t *mcp.Tool) error {
				if b, ok := profile.ToolBudgets(t); ok {
					m.takes[t.Name] = b
				} else {
					delete(m.takes, t.Name)
				}
				return guard(func() { s.AddTool(t, m.p.callTool) })
			}, log)
			for _, name := range removed {
				delete(m.takes, name)
			}
			s.RemoveTools(removed...)
		}
	}
	if caps.Prompts != nil {
		if prompts, err := collect(cs.Prompts(ctx, nil)); err != nil {
			log.Warn("listing the upstream's prompts", "err", err)
		} else {
			byName := map[string]*mcp.Prompt{}
			for _, pr := range prompts {
				byName[pr.Name] = pr
			}
			s.RemovePrompts(apply(m.prompts, byName, func(pr *mcp.Prompt) error {
				return guard(func() { s.AddPrompt(pr, m.p.getPrompt) })
			}, log)...)
		}
	}
	if caps.Resources != nil {
		if rs, err := collect(cs.Resources(ctx, nil)); err != nil {
			log.Warn("listing the upstream's resources", "err", err)
		} else {
			byURI := map[string]*mcp.Resource{}
			for _, r := range rs {
				byURI[r.URI] = r
			}
			s.RemoveResources(apply(m.resources, byURI, func(r *mcp.Resource) error {
				return guard(func() { s.AddResource(r, m.p.readResource) })
			}, log)...)
		}
		if ts, err := collect(cs.ResourceTemplates(ctx, nil)); err != nil {
			log.Warn("listing the upstream's resource templates", "err", err)
		} else {
			byURI := map[string]*mcp.ResourceTemplate{}
			for _, t := range ts {
				byURI[t.URITemplate] = t
			}
			s.RemoveResourceTemplates(apply(m.templates, byURI, func(t *mcp.ResourceTemplate) error {
				return guard(func() { s.AddResourceTemplate(t, m.p.readResource) })
			}, log)...)
		}
	}
}

// apply serves the definitions of want that differ from those served,
// and returns the keys served that want no longer has.
func apply[T any](served map[string]string, want map[string]T, add func(T) error, log logger) (removed []string) {
	for _, key := range slices.Sorted(maps.Keys(want)) {
		def, err := json.Marshal(want[key])
		if err != nil || served[key] == string(def) {
			continue
		}
		if err := add(want[key]); err != nil {
			log.Warn("the upstream offers what cannot be served", "name", key, "err", err)
			continue
		}
		served[key] = string(def)
	}
	for key := range served {
		if _, ok := want[key]; !ok {
			removed = append(removed, key)
			delete(served, key)
		}
	}
	slices.Sort(removed)
	return removed
}

// logger is what apply logs to.
type logger interface {
	Warn(msg string, args ...any)
}

// guard runs f and returns its panic as an error: the SDK panics on a
// definition it refuses (an input schema not of type object, a URI
// template it cannot parse).
func guard(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	f()
	return nil
}

// collect gathers a paginated list.
func collect[T any](seq func(func(T, error) bool)) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}
