package toolschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Cache compiles each tool's parameter schema once, the first time the tool is called.
type Cache struct {
	mu sync.Mutex
	// schemas holds each tool's compiled schema by tool name; a tool whose schema changed
	// (an MCP server's tools list) is compiled again.
	schemas map[string]*compiled
}

// compiled is a tool's parameter schema: resolved by google/jsonschema-go, and as plain JSON
// values (numbers as json.Number) for coercion.
type compiled struct {
	params   json.RawMessage // the schema as given, to tell a changed one
	resolved *jsonschema.Resolved
	doc      map[string]any
	err      error

	mu     sync.Mutex
	locals map[*jsonschema.Schema]*jsonschema.Resolved // see report.go
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{schemas: map[string]*compiled{}}
}

// get returns the tool's compiled schema, compiling it on first use. It allocates nothing
// once the schema is compiled: a key built of name and schema would cost a copy of the schema
// on every call (TestValidateAllocations).
func (c *Cache) get(name string, params json.RawMessage) *compiled {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.schemas[name]; ok && bytes.Equal(s.params, params) {
		return s
	}
	s := compile(name, params)
	c.schemas[name] = s
	return s
}

// compile compiles a tool's parameter schema; an empty one accepts every object.
func compile(name string, params json.RawMessage) *compiled {
	s := &compiled{params: bytes.Clone(params)}
	if len(bytes.TrimSpace(params)) == 0 {
		return s
	}
	invalid := func(err error) *compiled {
		s.err = fmt.Errorf("tool %q has an invalid parameter schema: %w", name, err)
		return s
	}
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return invalid(err)
	}
	if dec.More() {
		return invalid(fmt.Errorf("more than one JSON value"))
	}
	s.doc, _ = doc.(map[string]any)
	var schema jsonschema.Schema
	if err := json.Unmarshal(params, &schema); err != nil {
		return invalid(err)
	}
	if !dialects[schema.Schema] {
		// Draft 4 and 2019-09 schemas are validated as draft 2020-12 (the library knows
		// draft-07 and 2020-12 only); their common keywords mean the same.
		schema.Schema = ""
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return invalid(err)
	}
	s.resolved = resolved
	return s
}

// dialects are the $schema values google/jsonschema-go validates as they say.
var dialects = map[string]bool{
	"": true,
	"https://json-schema.org/draft/2020-12/schema": true,
	"http://json-schema.org/draft-07/schema#":      true,
	"http://json-schema.org/draft-07/schema":       true,
	"https://json-schema.org/draft-07/schema#":     true,
}

// Validate returns a coerced copy of args that satisfies the tool's parameter schema, or an
// error in pi's format (as pi-ai's): primitives are coerced the way AJV's coerceTypes does
// ("1" to 1, "true" to true, numbers to strings, null to the type's zero), then the copy is
// validated by google/jsonschema-go, and a failure gets one line per failing place (see
// report.go).
func (c *Cache) Validate(name string, params json.RawMessage, args map[string]any) (map[string]any, error) {
	if args == nil {
		args = map[string]any{}
	}
	s := c.get(name, params)
	if s.err != nil {
		return nil, s.err
	}
	out := Clone(args).(map[string]any)
	if s.resolved == nil {
		return out, nil
	}
	coerced, _ := coerce(s.doc, out).(map[string]any)
	if coerced == nil {
		coerced = out
	}
	err := s.resolved.Validate(any(coerced))
	if err == nil {
		return coerced, nil
	}
	lines := s.report(coerced, err)
	received, _ := json.MarshalIndent(args, "", "  ")
	return nil, fmt.Errorf("Validation failed for tool %q:\n%s\n\nReceived arguments:\n%s", name, strings.Join(lines, "\n"), received)
}
