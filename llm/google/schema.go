package google

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"google.golang.org/genai"
)

// maxSchemaDepth bounds how deep a tool schema is followed (through local $refs too), so a
// recursive definition ends.
const maxSchemaDepth = 24

// convertSchema reduces a tool's JSON Schema to the OpenAPI subset Gemini's function
// declarations take (the "parameters" field, genai.Schema). Kept: type (an array of types
// becomes anyOf, "null" in it nullable), description, title, enum (as strings), format,
// properties (in their order), required, items, minItems, maxItems, minLength, maxLength,
// minimum, maximum, minProperties, maxProperties, pattern, default, nullable and anyOf. Changed:
// oneOf becomes anyOf, const becomes a one-value enum, allOf is merged into one schema, and
// local $refs ("#/$defs/x", "#/definitions/x") are inlined. Every other keyword is dropped:
// $schema, $id, $ref to anything else, $defs, definitions, additionalProperties, patternProperties, not,
// if/then/else, exclusiveMinimum, exclusiveMaximum, multipleOf, uniqueItems, examples,
// readOnly, writeOnly, deprecated and the like (docs/configuration.md lists them).
func convertSchema(raw []byte) (*genai.Schema, error) {
	if len(raw) == 0 {
		return &genai.Schema{Type: genai.TypeObject}, nil
	}
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("parameters are not a JSON object: %w", err)
	}
	c := schemaConverter{root: root}
	s := c.convert(root, 0)
	if s.Type == "" && len(s.AnyOf) == 0 {
		s.Type = genai.TypeObject
	}
	if order := propertyOrder(raw); len(order) > 0 && len(s.Properties) > 0 {
		s.PropertyOrdering = order
	}
	return s, nil
}

type schemaConverter struct {
	root map[string]any
}

func (c *schemaConverter) convert(node map[string]any, depth int) *genai.Schema {
	s := &genai.Schema{}
	if depth > maxSchemaDepth {
		return s
	}
	if ref, ok := node["$ref"].(string); ok {
		if target := c.resolve(ref); target != nil {
			inlined := c.convert(target, depth+1)
			if d, ok := node["description"].(string); ok && d != "" {
				inlined.Description = d
			}
			return inlined
		}
	}
	setType(s, node["type"])
	setScalars(s, node)
	c.setChildren(s, node, depth)
	c.setAlternatives(s, node, depth)
	if len(s.AnyOf) == 1 && s.Type == "" {
		only := s.AnyOf[0]
		only.Description = firstNonEmpty(s.Description, only.Description)
		if s.Nullable != nil {
			only.Nullable = s.Nullable
		}
		return only
	}
	return s
}

// setType reads JSON Schema's type: a name, or a list of names where "null" makes the schema
// nullable and several others become anyOf.
func setType(s *genai.Schema, t any) {
	switch t := t.(type) {
	case string:
		s.Type = schemaType(t)
	case []any:
		var types []genai.Type
		for _, v := range t {
			name, _ := v.(string)
			if name == "null" {
				s.Nullable = genai.Ptr(true)
			} else if typ := schemaType(name); typ != "" {
				types = append(types, typ)
			}
		}
		if len(types) == 1 {
			s.Type = types[0]
		} else {
			for _, typ := range types {
				s.AnyOf = append(s.AnyOf, &genai.Schema{Type: typ})
			}
		}
	}
}

// setScalars reads the keywords that describe a value itself: annotations, enum and const,
// and the numeric and length bounds.
func setScalars(s *genai.Schema, node map[string]any) {
	s.Description, _ = node["description"].(string)
	s.Title, _ = node["title"].(string)
	s.Format, _ = node["format"].(string)
	s.Pattern, _ = node["pattern"].(string)
	if v, ok := node["default"]; ok {
		s.Default = v
	}
	if b, ok := node["nullable"].(bool); ok && b {
		s.Nullable = genai.Ptr(true)
	}
	if vals, ok := node["enum"].([]any); ok {
		for _, v := range vals {
			if v == nil {
				s.Nullable = genai.Ptr(true)
				continue
			}
			s.Enum = append(s.Enum, scalarString(v))
		}
	}
	if v, ok := node["const"]; ok && v != nil && s.Enum == nil {
		s.Enum = []string{scalarString(v)}
	}
	if s.Enum != nil && s.Type == "" {
		s.Type = genai.TypeString
	}
	s.MinItems, s.MaxItems = intField(node, "minItems"), intField(node, "maxItems")
	s.MinLength, s.MaxLength = intField(node, "minLength"), intField(node, "maxLength")
	s.MinProperties, s.MaxProperties = intField(node, "minProperties"), intField(node, "maxProperties")
	s.Minimum, s.Maximum = floatField(node, "minimum"), floatField(node, "maximum")
}

// setChildren converts properties (an object's), required (only names that are properties)
// and items (an array's, which Gemini requires).
func (c *schemaConverter) setChildren(s *genai.Schema, node map[string]any, depth int) {
	if props, ok := node["properties"].(map[string]any); ok {
		s.Properties = map[string]*genai.Schema{}
		for name, v := range props {
			if sub, ok := v.(map[string]any); ok {
				s.Properties[name] = c.convert(sub, depth+1)
			} else {
				s.Properties[name] = &genai.Schema{}
			}
		}
		if s.Type == "" {
			s.Type = genai.TypeObject
		}
	}
	if req, ok := node["required"].([]any); ok {
		for _, v := range req {
			if name, ok := v.(string); ok && (s.Properties == nil || s.Properties[name] != nil) {
				s.Required = append(s.Required, name)
			}
		}
	}
	if items, ok := node["items"].(map[string]any); ok {
		s.Items = c.convert(items, depth+1)
	} else if s.Type == genai.TypeArray {
		// Gemini requires items on an array; a tuple or an untyped array takes anything.
		s.Items = &genai.Schema{}
	}
}

// setAlternatives converts anyOf and oneOf (a bare {"type":"null"} member makes the schema
// nullable) and folds allOf's members in.
func (c *schemaConverter) setAlternatives(s *genai.Schema, node map[string]any, depth int) {
	for _, key := range []string{"anyOf", "oneOf"} {
		alts, ok := node[key].([]any)
		if !ok {
			continue
		}
		for _, a := range alts {
			sub, ok := a.(map[string]any)
			if !ok {
				continue
			}
			if t, _ := sub["type"].(string); t == "null" && len(sub) == 1 {
				s.Nullable = genai.Ptr(true)
				continue
			}
			s.AnyOf = append(s.AnyOf, c.convert(sub, depth+1))
		}
	}
	if all, ok := node["allOf"].([]any); ok {
		for _, a := range all {
			if sub, ok := a.(map[string]any); ok {
				merge(s, c.convert(sub, depth+1))
			}
		}
	}
}

// merge folds an allOf member into s: what s leaves unset, properties and required lists
// joined.
func merge(s, sub *genai.Schema) {
	if s.Type == "" {
		s.Type = sub.Type
	}
	s.Description = firstNonEmpty(s.Description, sub.Description)
	s.Format = firstNonEmpty(s.Format, sub.Format)
	s.Pattern = firstNonEmpty(s.Pattern, sub.Pattern)
	if s.Enum == nil {
		s.Enum = sub.Enum
	}
	if s.Items == nil {
		s.Items = sub.Items
	}
	if s.Nullable == nil {
		s.Nullable = sub.Nullable
	}
	if s.AnyOf == nil {
		s.AnyOf = sub.AnyOf
	}
	for name, p := range sub.Properties {
		if s.Properties == nil {
			s.Properties = map[string]*genai.Schema{}
		}
		if s.Properties[name] == nil {
			s.Properties[name] = p
		}
	}
	s.Required = append(s.Required, sub.Required...)
}

// resolve finds a local reference ("#/$defs/name", "#/definitions/name", "#").
func (c *schemaConverter) resolve(ref string) map[string]any {
	if ref == "#" {
		return c.root
	}
	path, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = c.root
	for _, seg := range strings.Split(path, "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[seg]
	}
	m, _ := cur.(map[string]any)
	return m
}

func schemaType(t string) genai.Type {
	switch t {
	case "string":
		return genai.TypeString
	case "number":
		return genai.TypeNumber
	case "integer":
		return genai.TypeInteger
	case "boolean":
		return genai.TypeBoolean
	case "array":
		return genai.TypeArray
	case "object":
		return genai.TypeObject
	}
	return ""
}

func scalarString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func intField(node map[string]any, key string) *int64 {
	if f, ok := node[key].(float64); ok && f >= 0 {
		return genai.Ptr(int64(f))
	}
	return nil
}

func floatField(node map[string]any, key string) *float64 {
	if f, ok := node[key].(float64); ok {
		return genai.Ptr(f)
	}
	return nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// propertyOrder returns the top-level properties in the order the schema lists them, so the
// model sees the tool's arguments in their declared order (a Go map has none).
func propertyOrder(raw []byte) []string {
	var top struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(raw, &top) != nil || len(top.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(top.Properties)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var names []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		name, _ := t.(string)
		names = append(names, name)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil
		}
	}
	if sort.StringsAreSorted(names) {
		// The order a sorted map gives anyway: nothing to add.
		return nil
	}
	return names
}
