package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// validatorCache compiles each tool's parameter schema once, the first time the tool is
// called.
type validatorCache struct {
	mu      sync.Mutex
	schemas map[string]*compiledSchema
}

// compiledSchema is a tool's parameter schema, compiled: by the own validator when the
// schema stays inside its subset (every built-in tool's does, see subsetSchema), else by
// google/jsonschema-go (the library the MCP SDK validates with; MCP tools' schemas may use
// any keyword).
type compiledSchema struct {
	subset  *subsetSchema
	general *jsonschema.Resolved
	// doc is the schema as plain JSON values (numbers as json.Number), walked for coercion.
	doc map[string]any
	err error
}

func newValidatorCache() *validatorCache {
	return &validatorCache{schemas: map[string]*compiledSchema{}}
}

// printer formats the error messages' numbers in English, as the AJV-style messages of
// santhosh-tekuri/jsonschema (pi-rpc's validator before) did.
var printer = message.NewPrinter(language.English)

func (c *validatorCache) get(info ToolInfo) *compiledSchema {
	key := info.Name + "\x00" + string(info.Parameters)
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.schemas[key]; ok {
		return s
	}
	s := compileSchema(info)
	c.schemas[key] = s
	return s
}

// compileSchema compiles a tool's parameter schema; an empty one accepts every object.
func compileSchema(info ToolInfo) *compiledSchema {
	s := &compiledSchema{}
	if len(bytes.TrimSpace(info.Parameters)) == 0 {
		return s
	}
	dec := json.NewDecoder(bytes.NewReader(info.Parameters))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		s.err = fmt.Errorf("tool %q has an invalid parameter schema: %w", info.Name, err)
		return s
	}
	if dec.More() {
		s.err = fmt.Errorf("tool %q has an invalid parameter schema: more than one JSON value", info.Name)
		return s
	}
	s.doc, _ = doc.(map[string]any)
	if sub, ok := compileSubset(doc, true); ok {
		s.subset = sub
		return s
	}
	var general jsonschema.Schema
	if err := json.Unmarshal(info.Parameters, &general); err != nil {
		s.err = fmt.Errorf("tool %q has an invalid parameter schema: %w", info.Name, err)
		return s
	}
	if !generalDialects[general.Schema] {
		// Draft 4 and 2019-09 schemas are validated as draft 2020-12 (the library knows
		// draft-07 and 2020-12 only); their common keywords mean the same.
		general.Schema = ""
	}
	resolved, err := general.Resolve(nil)
	if err != nil {
		s.err = fmt.Errorf("tool %q has an invalid parameter schema: %w", info.Name, err)
		return s
	}
	s.general = resolved
	return s
}

// generalDialects are the $schema values google/jsonschema-go validates as they say.
var generalDialects = map[string]bool{
	"": true,
	"https://json-schema.org/draft/2020-12/schema": true,
	"http://json-schema.org/draft-07/schema#":      true,
	"http://json-schema.org/draft-07/schema":       true,
}

// validate returns a coerced copy of args that satisfies the tool's schema, or an error in
// pi's format (as pi-ai's): primitives are coerced the way AJV's coerceTypes does ("1" to 1,
// "true" to true, numbers to strings, null to the type's zero), then the copy is validated.
func (c *validatorCache) validate(info ToolInfo, args map[string]any) (map[string]any, error) {
	if args == nil {
		args = map[string]any{}
	}
	s := c.get(info)
	if s.err != nil {
		return nil, s.err
	}
	out := cloneJSON(args).(map[string]any)
	if s.subset == nil && s.general == nil {
		return out, nil
	}
	coerced, _ := coerce(s.doc, out).(map[string]any)
	if coerced == nil {
		coerced = out
	}
	var lines []string
	if s.subset != nil {
		s.subset.validate(any(coerced), nil, &lines)
	} else if err := s.general.Validate(any(coerced)); err != nil {
		lines = []string{"  - root: " + err.Error()}
	}
	if len(lines) == 0 {
		return coerced, nil
	}
	received, _ := json.MarshalIndent(args, "", "  ")
	return nil, fmt.Errorf("Validation failed for tool %q:\n%s\n\nReceived arguments:\n%s", info.Name, strings.Join(lines, "\n"), received)
}

// cloneJSON deep-copies a value made of JSON maps, slices and scalars.
func cloneJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = cloneJSON(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = cloneJSON(x)
		}
		return out
	default:
		return v
	}
}

// coerce converts v towards the types schema declares, recursing into properties, items and
// the allOf/anyOf/oneOf branches, as AJV with coerceTypes:true does.
func coerce(schema map[string]any, v any) any {
	if schema == nil {
		return v
	}
	if types := schemaTypes(schema); len(types) > 0 && !matchesAny(v, types) {
		for _, t := range types {
			if c, ok := coerceTo(v, t); ok {
				v = c
				break
			}
		}
	}
	switch val := v.(type) {
	case map[string]any:
		if props, ok := schema["properties"].(map[string]any); ok {
			for k, sub := range props {
				if x, present := val[k]; present {
					if subSchema, ok := sub.(map[string]any); ok {
						val[k] = coerce(subSchema, x)
					}
				}
			}
		}
		if extra, ok := schema["additionalProperties"].(map[string]any); ok {
			props, _ := schema["properties"].(map[string]any)
			for k, x := range val {
				if _, declared := props[k]; !declared {
					val[k] = coerce(extra, x)
				}
			}
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, x := range val {
				val[i] = coerce(items, x)
			}
		}
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		if subs, ok := schema[key].([]any); ok {
			for _, sub := range subs {
				if subSchema, ok := sub.(map[string]any); ok {
					v = coerce(subSchema, v)
				}
			}
		}
	}
	return v
}

func schemaTypes(schema map[string]any) []string {
	switch t := schema["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func matchesAny(v any, types []string) bool {
	for _, t := range types {
		if matchesType(v, t) {
			return true
		}
	}
	return false
}

func matchesType(v any, t string) bool {
	switch t {
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := toFloat(v)
		return ok
	case "integer":
		f, ok := toFloat(v)
		return ok && f == math.Trunc(f)
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	}
	return false
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// coerceTo converts a scalar to type t, reporting whether it could.
func coerceTo(v any, t string) (any, bool) {
	switch t {
	case "number", "integer":
		var f float64
		switch x := v.(type) {
		case string:
			n, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil || strings.TrimSpace(x) == "" {
				return nil, false
			}
			f = n
		case bool:
			if x {
				f = 1
			}
		case nil:
			f = 0
		default:
			return nil, false
		}
		if t == "integer" && f != math.Trunc(f) {
			return nil, false
		}
		return f, true
	case "string":
		switch x := v.(type) {
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64), true
		case bool:
			return strconv.FormatBool(x), true
		case nil:
			return "", true
		}
	case "boolean":
		switch x := v.(type) {
		case string:
			if x == "true" || x == "false" {
				return x == "true", true
			}
		case float64:
			if x == 0 || x == 1 {
				return x == 1, true
			}
		case nil:
			return false, true
		}
	case "null":
		switch x := v.(type) {
		case string:
			if x == "" {
				return nil, true
			}
		case float64:
			if x == 0 {
				return nil, true
			}
		case bool:
			if !x {
				return nil, true
			}
		}
	}
	return nil, false
}
