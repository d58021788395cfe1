package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// validatorCache compiles each tool's parameter schema once.
type validatorCache struct {
	mu      sync.Mutex
	schemas map[string]*compiledSchema
}

type compiledSchema struct {
	schema *jsonschema.Schema
	// doc is the schema as plain JSON values, walked for coercion.
	doc map[string]any
	err error
}

func newValidatorCache() *validatorCache {
	return &validatorCache{schemas: map[string]*compiledSchema{}}
}

var printer = message.NewPrinter(language.English)

func (c *validatorCache) get(info ToolInfo) *compiledSchema {
	key := info.Name + "\x00" + string(info.Parameters)
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.schemas[key]; ok {
		return s
	}
	s := &compiledSchema{}
	c.schemas[key] = s
	if len(bytes.TrimSpace(info.Parameters)) == 0 {
		return s
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(info.Parameters))
	if err != nil {
		s.err = fmt.Errorf("tool %q has an invalid parameter schema: %w", info.Name, err)
		return s
	}
	comp := jsonschema.NewCompiler()
	if err := comp.AddResource("tool.json", doc); err != nil {
		s.err = fmt.Errorf("tool %q has an invalid parameter schema: %w", info.Name, err)
		return s
	}
	if s.schema, err = comp.Compile("tool.json"); err != nil {
		s.err = fmt.Errorf("tool %q has an invalid parameter schema: %w", info.Name, err)
		return s
	}
	_ = json.Unmarshal(info.Parameters, &s.doc)
	return s
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
	if s.schema == nil {
		return out, nil
	}
	coerced, _ := coerce(s.doc, out).(map[string]any)
	if coerced == nil {
		coerced = out
	}
	err := s.schema.Validate(any(coerced))
	if err == nil {
		return coerced, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	var lines []string
	collectErrors(ve, &lines)
	if len(lines) == 0 {
		lines = []string{"  - root: " + ve.ErrorKind.LocalizedString(printer)}
	}
	received, _ := json.MarshalIndent(args, "", "  ")
	return nil, fmt.Errorf("Validation failed for tool %q:\n%s\n\nReceived arguments:\n%s", info.Name, strings.Join(lines, "\n"), received)
}

// collectErrors flattens a validation error tree into AJV-style lines: the instance path
// without its leading slash (or the missing property, or "root") and a message.
func collectErrors(ve *jsonschema.ValidationError, lines *[]string) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			collectErrors(c, lines)
		}
		return
	}
	path := strings.Join(ve.InstanceLocation, "/")
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			p := m
			if path != "" {
				p = path + "/" + m
			}
			*lines = append(*lines, fmt.Sprintf("  - %s: must have required property '%s'", p, m))
		}
		return
	case *kind.Type:
		if path == "" {
			path = "root"
		}
		*lines = append(*lines, fmt.Sprintf("  - %s: must be %s", path, strings.Join(k.Want, ",")))
		return
	case *kind.Group, *kind.Schema, *kind.Reference:
		return
	}
	if path == "" {
		path = "root"
	}
	*lines = append(*lines, fmt.Sprintf("  - %s: %s", path, ve.ErrorKind.LocalizedString(printer)))
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
