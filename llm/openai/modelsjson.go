package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
)

// ModelsFile is a models.json in pi's format: providers, each with an endpoint and models.
// Providers whose api pi-rpc does not serve (mistral-conversations, bedrock-converse-stream, ...)
// are kept (pi users share one file between tools) but their models cannot be selected here.
type ModelsFile struct {
	Path      string                   `json:"-"`
	Providers map[string]ProviderEntry `json:"providers"`
	// Warnings name the keys of the file this package does not know (a typo, or a field of
	// a newer pi), with file and line; they are ignored.
	Warnings []string `json:"-"`
}

// ProviderEntry is one provider of a models.json.
type ProviderEntry struct {
	BaseURL string `json:"baseUrl"`
	API     string `json:"api"`
	// APIKey is a literal key, "$VAR" / "${VAR}" (environment), "!command" (its stdout) or,
	// as older pi versions read it, the name of a set environment variable.
	APIKey         string                `json:"apiKey"`
	Headers        map[string]string     `json:"headers"`
	AuthHeader     bool                  `json:"authHeader"`
	Compat         map[string]any        `json:"compat"`
	Models         []ModelEntry          `json:"models"`
	ModelOverrides map[string]ModelEntry `json:"modelOverrides"`
}

// ModelEntry is one model of a models.json; absent fields take pi's defaults.
type ModelEntry struct {
	ID               string                         `json:"id"`
	Name             string                         `json:"name"`
	API              string                         `json:"api"`
	Reasoning        *bool                          `json:"reasoning"`
	ThinkingLevelMap map[core.ThinkingLevel]*string `json:"thinkingLevelMap"`
	Input            []string                       `json:"input"`
	ContextWindow    *int                           `json:"contextWindow"`
	MaxTokens        *int                           `json:"maxTokens"`
	Cost             *core.ModelCost                `json:"cost"`
	Compat           map[string]any                 `json:"compat"`
	Headers          map[string]string              `json:"headers"`
}

// Defaults for models that do not say (pi's models.json defaults, docs/configuration.md#model).
const (
	DefaultContextWindow = 128000
	DefaultMaxTokens     = 16384
)

// LoadModelsFile reads and validates a models.json. Every error names the file, the line
// and the field.
func LoadModelsFile(path string) (*ModelsFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseModelsFile(path, data)
}

// ParseModelsFile is [LoadModelsFile] on bytes already read; path is used in messages. An
// error after the JSON is read is a [*ModelsFileError], which carries the unknown keys too.
func ParseModelsFile(path string, data []byte) (*ModelsFile, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, fmt.Errorf("%s:%d: invalid JSON: %w", path, lineAt(data, syn.Offset), err)
		}
		return nil, fmt.Errorf("%s: invalid JSON: %w", path, err)
	}
	idx := indexPaths(data)
	var warnings []string
	var unknown []string
	unknownKeys(data, reflect.TypeFor[ModelsFile](), "", &unknown)
	for _, key := range unknown {
		warnings = append(warnings, fmt.Sprintf("%s:%d: unknown key %s (ignored)", path, idx.line(key), key))
	}
	f := &ModelsFile{Path: path}
	if err := decodeModelsFile(f, data, idx); err != nil {
		return nil, &ModelsFileError{Err: err, Warnings: warnings}
	}
	f.Warnings = warnings
	return f, nil
}

// ModelsFileError is a models.json that could not be used. Its message is the error, then
// the file's unknown keys, one a line: a misspelt key is often the reason a field is missing.
type ModelsFileError struct {
	Err      error
	Warnings []string
}

func (e *ModelsFileError) Error() string {
	return strings.Join(append([]string{e.Err.Error()}, e.Warnings...), "\n")
}

func (e *ModelsFileError) Unwrap() error { return e.Err }

// decodeModelsFile decodes a valid JSON document into f and checks it. Every error names
// the file, the line and the field's whole path.
func decodeModelsFile(f *ModelsFile, data []byte, idx pathIndex) error {
	path := f.Path
	if err := json.Unmarshal(data, f); err != nil {
		var typ *json.UnmarshalTypeError
		if !errors.As(err, &typ) {
			return fmt.Errorf("%s: %w", path, err)
		}
		field, ok := idx.at(typ.Offset)
		if !ok {
			field = typ.Field
		}
		if field == "" {
			return fmt.Errorf("%s:%d: expected %s, got JSON %s", path, lineAt(data, typ.Offset), jsonKind(typ.Type), typ.Value)
		}
		return fmt.Errorf("%s:%d: field %s: expected %s, got JSON %s", path, idx.line(field), field, jsonKind(typ.Type), typ.Value)
	}
	fail := func(field, format string, args ...any) error {
		return fmt.Errorf("%s:%d: field %s: %s", path, idx.line(field), field, fmt.Sprintf(format, args...))
	}
	if f.Providers == nil {
		return fail("providers", "missing (the file must be an object with a \"providers\" object)")
	}
	for _, name := range sortedKeys(f.Providers) {
		p := f.Providers[name]
		base := "providers." + name
		if p.API != "" && !knownAPI(p.API) {
			return fail(base+".api", "unknown api %q", p.API)
		}
		if len(p.Models) > 0 && p.BaseURL == "" && builtinAPIs[name] == "" {
			return fail(base+".baseUrl", "required for a provider that defines models")
		}
		seen := map[string]bool{}
		for i, m := range p.Models {
			mf := fmt.Sprintf("%s.models[%d]", base, i)
			if m.ID == "" {
				return fail(mf+".id", "required")
			}
			if seen[m.ID] {
				return fail(mf+".id", "duplicate model id %q", m.ID)
			}
			seen[m.ID] = true
			api := m.API
			if api == "" {
				api = p.API
			}
			if api == "" && builtinAPIs[name] == "" {
				return fail(mf+".api", "no api for model %q (set api on the provider or the model)", m.ID)
			}
			if api != "" && !knownAPI(api) {
				return fail(mf+".api", "unknown api %q", api)
			}
			if err := checkModel(&m, mf, fail); err != nil {
				return err
			}
		}
		for _, id := range sortedKeys(p.ModelOverrides) {
			m := p.ModelOverrides[id]
			if err := checkModel(&m, base+".modelOverrides."+id, fail); err != nil {
				return err
			}
		}
	}
	return nil
}

// unknownKeys appends to out the path of every object key in raw that t (a struct, or
// slices, maps and pointers of structs) has no field for, descending into known fields. Keys
// are matched as encoding/json matches them, ignoring case. Values of other types (compat's
// free-form map, strings) are not looked into.
func unknownKeys(raw json.RawMessage, t reflect.Type, path string, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	join := func(key string) string {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	switch t.Kind() {
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return
		}
		for _, key := range sortedKeys(obj) {
			field, ok := fieldFor(t, key)
			if !ok {
				*out = append(*out, join(key))
				continue
			}
			unknownKeys(obj[key], field.Type, join(key), out)
		}
	case reflect.Slice:
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) != nil {
			return
		}
		for i, el := range arr {
			unknownKeys(el, t.Elem(), path+"["+strconv.Itoa(i)+"]", out)
		}
	case reflect.Map:
		elem := t.Elem()
		for elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
		if elem.Kind() != reflect.Struct && elem.Kind() != reflect.Slice {
			return
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return
		}
		for _, key := range sortedKeys(obj) {
			unknownKeys(obj[key], t.Elem(), join(key), out)
		}
	}
}

// fieldFor finds the field of struct t that encoding/json decodes key into.
func fieldFor(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.EqualFold(name, key) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func checkModel(m *ModelEntry, field string, fail func(field, format string, args ...any) error) error {
	for i, in := range m.Input {
		if in != "text" && in != "image" {
			return fail(fmt.Sprintf("%s.input[%d]", field, i), "must be \"text\" or \"image\", got %q", in)
		}
	}
	if m.ContextWindow != nil && *m.ContextWindow <= 0 {
		return fail(field+".contextWindow", "must be positive, got %d", *m.ContextWindow)
	}
	if m.MaxTokens != nil && *m.MaxTokens <= 0 {
		return fail(field+".maxTokens", "must be positive, got %d", *m.MaxTokens)
	}
	for level := range m.ThinkingLevelMap {
		if !knownLevel(level) && level != "max" {
			return fail(field+".thinkingLevelMap", "unknown thinking level %q", level)
		}
	}
	return nil
}

// builtinAPIs are the providers pi-rpc has built in, by name, and their api: their models.json
// entries may omit baseUrl (the built-in endpoint's is used) and api.
var builtinAPIs = map[string]string{ProviderName: API, AzureProviderName: AzureAPI, "anthropic": "anthropic-messages", "google": "google-generative-ai"}

// builtinAPI is the api of a models.json model that states none: its built-in provider's, else
// openai-completions.
func builtinAPI(provider string) string {
	if api := builtinAPIs[provider]; api != "" {
		return api
	}
	return API
}

// knownAPI lists pi's api values: a file may configure any of them; this package serves
// openai-completions, openai-responses and azure-openai-responses.
func knownAPI(api string) bool {
	switch api {
	case API, "openai-responses", "azure-openai-responses", "openai-codex-responses", "anthropic-messages",
		"mistral-conversations", "bedrock-converse-stream", "google-generative-ai", "google-vertex":
		return true
	}
	return false
}

func knownLevel(l core.ThinkingLevel) bool {
	for _, k := range core.ThinkingLevels {
		if k == l {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var envRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)|\$!`)
})

// ResolveValue resolves a models.json apiKey or header value: "!command" runs the command
// with sh (on Windows with bash, found as the bash tool finds it) and uses its trimmed stdout; "$VAR" and "${VAR}" are replaced by environment
// variables ("$$" and "$!" escape "$" and "!"); a value that is exactly the name of a set
// environment variable is replaced by it (older pi); anything else is literal. getenv is
// os.LookupEnv in the binary. A missing variable or failing command is an error.
func ResolveValue(ctx context.Context, value string, getenv func(string) (string, bool)) (string, error) {
	if strings.HasPrefix(value, "!") {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		shell, err := valueShell()
		if err != nil {
			return "", fmt.Errorf("command %q: %w", value[1:], err)
		}
		out, err := exec.CommandContext(ctx, shell, "-c", value[1:]).Output()
		if err != nil {
			return "", fmt.Errorf("command %q: %w", value[1:], err)
		}
		return strings.TrimSpace(string(out)), nil
	}
	if isEnvName(value) {
		if v, ok := getenv(value); ok {
			return v, nil
		}
		return value, nil
	}
	var missing string
	out := envRef().ReplaceAllStringFunc(value, func(m string) string {
		switch m {
		case "$$":
			return "$"
		case "$!":
			return "!"
		}
		name := strings.Trim(m, "${}")
		v, ok := getenv(name)
		if !ok && missing == "" {
			missing = name
		}
		return v
	})
	if missing != "" {
		return "", fmt.Errorf("environment variable %s is not set", missing)
	}
	return out, nil
}

var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`) })

func isEnvName(s string) bool { return envName().MatchString(s) }
