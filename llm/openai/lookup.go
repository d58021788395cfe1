package openai

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pi-rpc/pi-rpc/core"
)

// Registry is the set of selectable models: the built-in catalogues, changed and extended by
// models.json files (pi's merge: a models.json model with a built-in id replaces it,
// modelOverrides patch built-in models, other providers add theirs).
type Registry struct {
	entries  []Entry
	builtins []Builtin
	// files are the models.json files that define each provider not built in, by name.
	files map[string][]string
}

// Builtin is a provider whose models are built in: OpenAI's catalogue always, and others the
// binary adds (Anthropic's), each served by its own package.
type Builtin struct {
	Provider string
	API      string
	Models   []core.Model
}

// Entry is a selectable model and the models.json provider serving it (nil for a built-in
// endpoint, which the binary configures, e.g. from --base-url and OPENAI_API_KEY).
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

// NewRegistryWith merges the catalogue, with extra built-in providers listed after OpenAI's,
// with files, in order (later files win).
func NewRegistryWith(extra []Builtin, files ...*ModelsFile) *Registry {
	r := &Registry{builtins: append([]Builtin{{Provider: ProviderName, API: API, Models: Catalogue()}}, extra...), files: map[string][]string{}}
	for _, b := range r.builtins {
		for _, m := range b.Models {
			r.entries = append(r.entries, Entry{Model: m, ProviderName: b.Provider})
		}
	}
	for _, f := range files {
		if f == nil {
			continue
		}
		for _, name := range sortedKeys(f.Providers) {
			p := f.Providers[name]
			pp := &p
			if r.builtin(name) != nil {
				r.patchBuiltins(name, pp, f.Path)
			} else if !slices.Contains(r.files[name], f.Path) {
				r.files[name] = append(r.files[name], f.Path)
			}
			for _, me := range p.Models {
				m := modelFromEntry(name, pp, &me)
				r.upsert(Entry{Model: m, Provider: pp, ProviderName: name, File: f.Path})
			}
		}
	}
	return r
}

// UseAPI makes a built-in provider's models, and the unknown ids given to it, speak api
// (--api: OpenAI's models on the Responses API). Models a models.json gives an api of their
// own keep it.
func (r *Registry) UseAPI(provider, api string) {
	b := r.builtin(provider)
	if b == nil || b.API == api {
		return
	}
	for i := range r.entries {
		e := &r.entries[i]
		if e.ProviderName == provider && e.Model.API == b.API && (e.Provider == nil || !hasModelAPI(e.Provider, e.Model.ID)) {
			e.Model.API = api
		}
	}
	b.API = api
}

// hasModelAPI reports whether a models.json provider names its own api, or the model's.
func hasModelAPI(p *ProviderEntry, id string) bool {
	if p.API != "" {
		return true
	}
	for _, m := range p.Models {
		if m.ID == id {
			return m.API != ""
		}
	}
	return false
}

// builtin returns the built-in provider called name, or nil.
func (r *Registry) builtin(name string) *Builtin {
	for i := range r.builtins {
		if r.builtins[i].Provider == name {
			return &r.builtins[i]
		}
	}
	return nil
}

// serves reports whether a built-in provider's package serves api. This package serves the
// Responses APIs as well as Chat Completions.
func (r *Registry) serves(api string) bool {
	if api == API || IsResponsesAPI(api) {
		return true
	}
	for _, b := range r.builtins {
		if b.API == api {
			return true
		}
	}
	return false
}

// patchBuiltins applies a models.json provider's baseUrl, headers, compat and modelOverrides
// to the built-in models of the provider of the same name.
func (r *Registry) patchBuiltins(name string, p *ProviderEntry, file string) {
	for i := range r.entries {
		e := &r.entries[i]
		if e.ProviderName != name || e.File != "" {
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
// catalogues and models.json; an unknown id is used as given with default metadata
// (docs/configuration.md, "Model"): contextWindow (or 128000 when 0), maxTokens 16384, no reasoning,
// text input, cost 0, and a warning. A model of a provider whose api no built-in provider
// serves is an error, and so is "provider/id" of a models.json provider that lists no such
// model ([*UnknownModelError]).
func (r *Registry) Lookup(id string, contextWindow int) (Resolution, error) {
	return r.LookupFor(id, contextWindow, "")
}

// LookupFor is [Registry.Lookup] for the built-in provider a user chose (--provider): the
// other built-in providers' models are not candidates, and an unknown id gets that
// provider's api. An empty provider means any, with OpenAI's api for unknown ids.
func (r *Registry) LookupFor(id string, contextWindow int, provider string) (Resolution, error) {
	var found *Entry
	for i := range r.entries {
		e := &r.entries[i]
		if provider != "" && e.ProviderName != provider && r.builtin(e.ProviderName) != nil {
			continue
		}
		if e.Model.ID == id || e.ProviderName+"/"+e.Model.ID == id {
			found = e
			break
		}
	}
	if found != nil {
		if !r.serves(found.Model.API) {
			return Resolution{}, fmt.Errorf("model %q of provider %q uses api %q; pi-rpc supports only %s", found.Model.ID, found.ProviderName, found.Model.API, r.apis())
		}
		src := "catalogue"
		if found.File != "" && found.Provider != nil && (r.builtin(found.ProviderName) == nil || !r.isBuiltin(found.ProviderName, found.Model.ID) || hasModel(found.Provider, found.Model.ID)) {
			src = "models.json"
		}
		return Resolution{Entry: *found, Source: src}, nil
	}
	if err := r.notInProvider(id); err != nil {
		return Resolution{}, err
	}
	b := r.builtin(provider)
	if b == nil {
		b = &r.builtins[0]
	}
	if b.Provider != ProviderName {
		// "anthropic/claude-next" is claude-next of that provider.
		id = strings.TrimPrefix(id, b.Provider+"/")
	}
	cw := contextWindow
	if cw <= 0 {
		cw = DefaultContextWindow
	}
	m := core.Model{ID: id, Name: id, API: b.API, Provider: b.Provider, Input: []string{"text"}, ContextWindow: cw, MaxTokens: DefaultMaxTokens}
	return Resolution{
		Entry:  Entry{Model: m, ProviderName: b.Provider},
		Source: "default",
		Warning: fmt.Sprintf("model %q is in neither the built-in catalogue nor models.json; using default metadata: context window %d tokens, max output %d tokens, no reasoning, text input only, cost not tracked",
			id, cw, DefaultMaxTokens),
	}, nil
}

// UnknownModelError is a "provider/id" whose provider comes from models.json and lists no
// such model. Its message names the provider, its files and the models it has.
type UnknownModelError struct {
	Provider, ID string
	// Files are the models.json files that define the provider; Models its model ids.
	Files  []string
	Models []string
}

func (e *UnknownModelError) Error() string {
	where := strings.Join(e.Files, " and ")
	if len(e.Models) == 0 {
		return fmt.Sprintf("provider %q (%s) has no model %q: it lists no models", e.Provider, where, e.ID)
	}
	const most = 20
	list := strings.Join(e.Models[:min(len(e.Models), most)], ", ")
	if len(e.Models) > most {
		list += fmt.Sprintf(" and %d more", len(e.Models)-most)
	}
	return fmt.Sprintf("provider %q (%s) has no model %q; its models: %s", e.Provider, where, e.ID, list)
}

// notInProvider returns an [*UnknownModelError] when id is "provider/model" for a models.json
// provider (not a built-in one) that lists no such model. Such an id is a mistake, not a model
// to send with default metadata: the provider's models are all the file says it serves.
func (r *Registry) notInProvider(id string) error {
	name, model, ok := strings.Cut(id, "/")
	if !ok {
		return nil
	}
	files, ok := r.files[name]
	if !ok {
		return nil
	}
	e := &UnknownModelError{Provider: name, ID: model, Files: files, Models: []string{}}
	for _, en := range r.entries {
		if en.ProviderName == name {
			e.Models = append(e.Models, en.Model.ID)
		}
	}
	return e
}

// apis lists the served apis for messages.
func (r *Registry) apis() string {
	out := []string{API}
	for _, b := range r.builtins {
		if !slices.Contains(out, b.API) {
			out = append(out, b.API)
		}
	}
	for _, api := range []string{ResponsesAPI, AzureAPI} {
		if !slices.Contains(out, api) {
			out = append(out, api)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return strings.Join(out[:len(out)-1], ", ") + " and " + out[len(out)-1]
}

func (r *Registry) isBuiltin(provider, id string) bool {
	if b := r.builtin(provider); b != nil {
		for _, m := range b.Models {
			if m.ID == id {
				return true
			}
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
		m.API = builtinAPI(provider)
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
