package openai

import (
	"fmt"
	"maps"
	"strings"

	"github.com/pi-rpc/pi-rpc/core"
)

// Registry is the set of selectable models: the built-in catalogue, changed and extended by
// models.json files (pi's merge: a models.json model with a built-in id replaces it,
// modelOverrides patch built-in models, other providers add theirs).
type Registry struct {
	entries []Entry
}

// Entry is a selectable model and the models.json provider serving it (nil for the built-in
// OpenAI endpoint, which the binary configures from --base-url and OPENAI_API_KEY).
type Entry struct {
	Model core.Model
	// Provider is the models.json provider entry; ProviderName its key.
	Provider     *ProviderEntry
	ProviderName string
	// File is the models.json the entry came from, empty for built-in models.
	File string
}

// Resolution is the outcome of [Registry.Lookup].
type Resolution struct {
	Entry
	// Source is "catalogue", "models.json" or "default".
	Source string
	// Warning is set when the id was unknown and default metadata is used; the binary
	// reports it in initialize's warnings.
	Warning string
}

// NewRegistry merges the catalogue with files, in order (later files win).
func NewRegistry(files ...*ModelsFile) *Registry {
	r := &Registry{}
	for _, m := range Catalogue() {
		r.entries = append(r.entries, Entry{Model: m, ProviderName: ProviderName})
	}
	for _, f := range files {
		if f == nil {
			continue
		}
		for _, name := range sortedKeys(f.Providers) {
			p := f.Providers[name]
			pp := &p
			if name == ProviderName {
				r.patchBuiltins(pp, f.Path)
			}
			for _, me := range p.Models {
				m := modelFromEntry(name, pp, &me)
				r.upsert(Entry{Model: m, Provider: pp, ProviderName: name, File: f.Path})
			}
		}
	}
	return r
}

// patchBuiltins applies an "openai" provider's baseUrl, headers, compat and modelOverrides
// to the built-in models.
func (r *Registry) patchBuiltins(p *ProviderEntry, file string) {
	for i := range r.entries {
		e := &r.entries[i]
		if e.ProviderName != ProviderName || e.File != "" {
			continue
		}
		if p.BaseURL != "" {
			e.Model.BaseURL = p.BaseURL
		}
		e.Model.Headers = mergeMaps(e.Model.Headers, p.Headers)
		e.Model.Compat = mergeMaps(e.Model.Compat, p.Compat)
		if o, ok := p.ModelOverrides[e.Model.ID]; ok {
			applyOverride(&e.Model, &o)
		}
		e.Provider, e.File = p, file
	}
}

func (r *Registry) upsert(e Entry) {
	for i := range r.entries {
		if r.entries[i].ProviderName == e.ProviderName && r.entries[i].Model.ID == e.Model.ID {
			r.entries[i] = e
			return
		}
	}
	r.entries = append(r.entries, e)
}

// Entries lists every selectable model, built-in first.
func (r *Registry) Entries() []Entry { return append([]Entry(nil), r.entries...) }

// Lookup resolves a --model id: "id" or "provider/id". Known models come from the
// catalogue and models.json; an unknown id is used as given with default metadata
// (docs/configuration.md#model): contextWindow (or 128000 when 0), maxTokens 16384, no reasoning,
// text input, cost 0, and a warning. A model of a provider whose api this package does not
// serve is an error.
func (r *Registry) Lookup(id string, contextWindow int) (Resolution, error) {
	var found *Entry
	for i := range r.entries {
		e := &r.entries[i]
		if e.Model.ID == id || e.ProviderName+"/"+e.Model.ID == id {
			found = e
			break
		}
	}
	if found != nil {
		if found.Model.API != API {
			return Resolution{}, fmt.Errorf("model %q of provider %q uses api %q; pi-rpc supports only %s", found.Model.ID, found.ProviderName, found.Model.API, API)
		}
		src := "catalogue"
		if found.File != "" && found.Provider != nil && (found.ProviderName != ProviderName || !isBuiltin(found.Model.ID) || hasModel(found.Provider, found.Model.ID)) {
			src = "models.json"
		}
		return Resolution{Entry: *found, Source: src}, nil
	}
	cw := contextWindow
	if cw <= 0 {
		cw = DefaultContextWindow
	}
	m := core.Model{ID: id, Name: id, API: API, Provider: ProviderName, Input: []string{"text"}, ContextWindow: cw, MaxTokens: DefaultMaxTokens}
	return Resolution{
		Entry:  Entry{Model: m, ProviderName: ProviderName},
		Source: "default",
		Warning: fmt.Sprintf("model %q is in neither the built-in catalogue nor models.json; using default metadata: context window %d tokens, max output %d tokens, no reasoning, text input only, cost not tracked",
			id, cw, DefaultMaxTokens),
	}, nil
}

func isBuiltin(id string) bool {
	for _, m := range Catalogue() {
		if m.ID == id {
			return true
		}
	}
	return false
}

func hasModel(p *ProviderEntry, id string) bool {
	for _, m := range p.Models {
		if m.ID == id {
			return true
		}
	}
	return false
}

// modelFromEntry fills a models.json model with its provider's settings and pi's defaults.
func modelFromEntry(provider string, p *ProviderEntry, me *ModelEntry) core.Model {
	m := core.Model{
		ID: me.ID, Name: me.Name, API: me.API, Provider: provider, BaseURL: p.BaseURL,
		Input: []string{"text"}, ContextWindow: DefaultContextWindow, MaxTokens: DefaultMaxTokens,
		Headers: mergeMaps(p.Headers, nil), Compat: mergeMaps(p.Compat, nil),
	}
	if m.Name == "" {
		m.Name = m.ID
	}
	if m.API == "" {
		m.API = p.API
	}
	if m.API == "" {
		m.API = API
	}
	applyOverride(&m, me)
	return m
}

// applyOverride sets the fields an entry states.
func applyOverride(m *core.Model, me *ModelEntry) {
	if me.Name != "" {
		m.Name = me.Name
	}
	if me.Reasoning != nil {
		m.Reasoning = *me.Reasoning
	}
	if me.ThinkingLevelMap != nil {
		m.ThinkingLevelMap = me.ThinkingLevelMap
	}
	if me.Input != nil {
		m.Input = me.Input
	}
	if me.ContextWindow != nil {
		m.ContextWindow = *me.ContextWindow
	}
	if me.MaxTokens != nil {
		m.MaxTokens = *me.MaxTokens
	}
	if me.Cost != nil {
		m.Cost = *me.Cost
	}
	m.Compat = mergeMaps(m.Compat, me.Compat)
	m.Headers = mergeMaps(m.Headers, me.Headers)
}

func mergeMaps[V any](base, over map[string]V) map[string]V {
	if len(base) == 0 && len(over) == 0 {
		return nil
	}
	out := make(map[string]V, len(base)+len(over))
	maps.Copy(out, base)
	maps.Copy(out, over)
	return out
}

// KeySource describes where a models.json provider's key comes from, for [Config.KeySource].
func KeySource(file, provider, apiKey string) string {
	s := "models.json provider " + provider
	if file != "" {
		s = file + " provider " + provider
	}
	switch {
	case strings.HasPrefix(apiKey, "!"):
		return s + " (apiKey command)"
	case strings.Contains(apiKey, "$") || isEnvName(apiKey):
		return s + " (apiKey " + apiKey + ")"
	}
	return s
}
