package toolschema

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Clone deep-copies a value made of JSON maps, slices and scalars (tool arguments): the
// validator coerces a copy, and core hands each tool and each hook arguments of its own.
func Clone(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = Clone(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = Clone(x)
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
