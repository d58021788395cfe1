package core

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// subsetSchema is a compiled tool parameter schema that uses only the keywords the built-in
// tools' schemas use, and the common constraints MCP servers add to them: type, properties,
// required, additionalProperties, items, enum and const of plain values, the length, count
// and range bounds, and annotations. It validates the way santhosh-tekuri/jsonschema (which
// pi-rpc used before, with pi-ai's AJV wording) does for those keywords, so the error lines
// are the same; a schema with any other keyword is validated by the general library instead
// (see compileSchema). Having its own validator for these keeps a JSON Schema library's
// start-up cost (its metaschemas) out of every process start (docs/benchmarks.md).
type subsetSchema struct {
	// types is the type keyword (a bit per JSON type), 0 for none.
	types      uint8
	properties map[string]*subsetSchema
	// propertyNames is properties' keys, sorted: errors come in a stable order.
	propertyNames []string
	required      []string
	// additional is additionalProperties as a schema; noAdditional is additionalProperties
	// false.
	additional   *subsetSchema
	noAdditional bool
	items        *subsetSchema
	enum         []any
	hasEnum      bool
	constant     any
	hasConst     bool

	minLength, maxLength, minItems, maxItems             *int
	minimum, maximum, exclusiveMinimum, exclusiveMaximum *float64
}

// The JSON types, in the order santhosh-tekuri/jsonschema names a type keyword's types.
var jsonTypeNames = []string{"null", "boolean", "number", "integer", "string", "array", "object"}

const (
	typeNull uint8 = 1 << iota
	typeBoolean
	typeNumber
	typeInteger
	typeString
	typeArray
	typeObject
)

// annotations are keywords that never change validation.
var annotations = map[string]bool{
	"description": true, "title": true, "default": true, "examples": true, "$comment": true,
	"deprecated": true, "readOnly": true, "writeOnly": true,
}

// subsetDialects are the $schema values whose meaning of the subset's keywords is the one
// implemented here (draft 6 on; draft 4's exclusive bounds are booleans).
var subsetDialects = map[string]bool{
	"https://json-schema.org/draft/2020-12/schema": true, "http://json-schema.org/draft/2020-12/schema": true,
	"https://json-schema.org/draft/2019-09/schema": true, "http://json-schema.org/draft/2019-09/schema": true,
	"http://json-schema.org/draft-07/schema#": true, "http://json-schema.org/draft-07/schema": true,
	"https://json-schema.org/draft-07/schema#": true, "https://json-schema.org/draft-07/schema": true,
	"http://json-schema.org/draft-06/schema#": true, "http://json-schema.org/draft-06/schema": true,
}

// compileSubset compiles doc (decoded with json.Number numbers) if it stays inside the subset,
// reporting false otherwise.
func compileSubset(doc any, root bool) (*subsetSchema, bool) {
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, false
	}
	s := &subsetSchema{}
	for key, v := range m {
		ok := true
		switch key {
		case "$schema":
			d, isString := v.(string)
			ok = root && isString && subsetDialects[d]
		case "type":
			s.types, ok = subsetTypes(v)
		case "properties":
			props, isObject := v.(map[string]any)
			ok = isObject
			s.properties = make(map[string]*subsetSchema, len(props))
			for name, sub := range props {
				var c *subsetSchema
				if c, ok = compileSubset(sub, false); !ok {
					break
				}
				s.properties[name] = c
				s.propertyNames = append(s.propertyNames, name)
			}
			slices.Sort(s.propertyNames)
		case "required":
			s.required, ok = uniqueStrings(v)
		case "additionalProperties":
			if b, isBool := v.(bool); isBool {
				s.noAdditional = !b
			} else {
				s.additional, ok = compileSubset(v, false)
			}
		case "items":
			s.items, ok = compileSubset(v, false)
		case "enum":
			arr, isArray := v.([]any)
			ok = isArray && len(arr) > 0 && !slices.ContainsFunc(arr, isComposite)
			s.enum, s.hasEnum = arr, true
		case "const":
			ok = !isComposite(v)
			s.constant, s.hasConst = v, true
		case "minLength":
			s.minLength, ok = nonNegativeInt(v)
		case "maxLength":
			s.maxLength, ok = nonNegativeInt(v)
		case "minItems":
			s.minItems, ok = nonNegativeInt(v)
		case "maxItems":
			s.maxItems, ok = nonNegativeInt(v)
		case "minimum":
			s.minimum, ok = schemaNumber(v)
		case "maximum":
			s.maximum, ok = schemaNumber(v)
		case "exclusiveMinimum":
			s.exclusiveMinimum, ok = schemaNumber(v)
		case "exclusiveMaximum":
			s.exclusiveMaximum, ok = schemaNumber(v)
		default:
			if annotations[key] {
				ok = annotationValid(key, v)
			} else {
				ok = false
			}
		}
		if !ok {
			return nil, false
		}
	}
	return s, true
}

func subsetTypes(v any) (uint8, bool) {
	names, ok := v.([]any)
	if !ok {
		names = []any{v}
	}
	var mask uint8
	for _, n := range names {
		name, ok := n.(string)
		i := slices.Index(jsonTypeNames, name)
		if !ok || i < 0 || mask&(1<<i) != 0 {
			return 0, false
		}
		mask |= 1 << i
	}
	return mask, mask != 0
}

func uniqueStrings(v any) ([]string, bool) {
	arr, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		s, ok := x.(string)
		if !ok || slices.Contains(out, s) {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func isComposite(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

func nonNegativeInt(v any) (*int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	i, err := strconv.Atoi(string(n))
	if err != nil || i < 0 {
		return nil, false
	}
	return &i, true
}

func schemaNumber(v any) (*float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) {
		return nil, false
	}
	return &f, true
}

// annotationValid checks an annotation's value the way the metaschema does.
func annotationValid(key string, v any) bool {
	switch key {
	case "description", "title", "$comment":
		_, ok := v.(string)
		return ok
	case "deprecated", "readOnly", "writeOnly":
		_, ok := v.(bool)
		return ok
	case "examples":
		_, ok := v.([]any)
		return ok
	}
	return true
}

// jsonTypeOf is v's JSON type bit (a number is also an integer when it has no fraction).
func jsonTypeOf(v any) uint8 {
	switch x := v.(type) {
	case nil:
		return typeNull
	case bool:
		return typeBoolean
	case string:
		return typeString
	case []any:
		return typeArray
	case map[string]any:
		return typeObject
	default:
		if f, ok := toFloat(x); ok {
			if f == math.Trunc(f) && !math.IsInf(f, 0) {
				return typeNumber | typeInteger
			}
			return typeNumber
		}
	}
	return 0
}

// validate appends an error line for every failure of v (at path) in the AJV-style format
// collectErrors gives the library's errors.
func (s *subsetSchema) validate(v any, path []string, lines *[]string) {
	if s.types != 0 {
		t := jsonTypeOf(v)
		if s.types&t == 0 {
			var want []string
			for i, name := range jsonTypeNames {
				if s.types&(1<<i) != 0 {
					want = append(want, name)
				}
			}
			*lines = append(*lines, fmt.Sprintf("  - %s: must be %s", where(path), strings.Join(want, ",")))
			return
		}
	}
	if s.hasConst && !equalPlain(v, s.constant) {
		addLine(lines, path, printer.Sprintf("value must be %s", displayValue(s.constant)))
		return
	}
	if s.hasEnum && !slices.ContainsFunc(s.enum, func(x any) bool { return equalPlain(v, x) }) {
		if len(s.enum) == 1 {
			addLine(lines, path, printer.Sprintf("value must be %s", displayValue(s.enum[0])))
		} else {
			want := make([]string, len(s.enum))
			for i, x := range s.enum {
				want[i] = displayValue(x)
			}
			addLine(lines, path, printer.Sprintf("value must be one of %s", strings.Join(want, ", ")))
		}
		return
	}
	switch x := v.(type) {
	case map[string]any:
		s.validateObject(x, path, lines)
	case []any:
		if s.minItems != nil && len(x) < *s.minItems {
			addLine(lines, path, printer.Sprintf("minItems: got %d, want %d", len(x), *s.minItems))
		}
		if s.maxItems != nil && len(x) > *s.maxItems {
			addLine(lines, path, printer.Sprintf("maxItems: got %d, want %d", len(x), *s.maxItems))
		}
		if s.items != nil {
			for i, item := range x {
				s.items.validate(item, append(path, strconv.Itoa(i)), lines)
			}
		}
	case string:
		n := utf8.RuneCountInString(x)
		if s.minLength != nil && n < *s.minLength {
			addLine(lines, path, printer.Sprintf("minLength: got %d, want %d", n, *s.minLength))
		}
		if s.maxLength != nil && n > *s.maxLength {
			addLine(lines, path, printer.Sprintf("maxLength: got %d, want %d", n, *s.maxLength))
		}
	default:
		f, ok := toFloat(x)
		if !ok {
			return
		}
		bound := func(limit *float64, fails func(a, b float64) bool, name string) {
			if limit != nil && fails(f, *limit) {
				addLine(lines, path, printer.Sprintf(name+": got %v, want %v", f, *limit))
			}
		}
		bound(s.minimum, func(a, b float64) bool { return a < b }, "minimum")
		bound(s.maximum, func(a, b float64) bool { return a > b }, "maximum")
		bound(s.exclusiveMinimum, func(a, b float64) bool { return a <= b }, "exclusiveMinimum")
		bound(s.exclusiveMaximum, func(a, b float64) bool { return a >= b }, "exclusiveMaximum")
	}
}

func (s *subsetSchema) validateObject(obj map[string]any, path []string, lines *[]string) {
	for _, name := range s.required {
		if _, ok := obj[name]; !ok {
			p := name
			if at := strings.Join(path, "/"); at != "" {
				p = at + "/" + name
			}
			*lines = append(*lines, fmt.Sprintf("  - %s: must have required property '%s'", p, name))
		}
	}
	for _, name := range s.propertyNames {
		if v, ok := obj[name]; ok {
			s.properties[name].validate(v, append(path, name), lines)
		}
	}
	if s.additional == nil && !s.noAdditional {
		return
	}
	var extra []string
	for name := range obj {
		if _, declared := s.properties[name]; !declared {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	if s.noAdditional {
		if len(extra) > 0 {
			quoted := make([]string, len(extra))
			for i, name := range extra {
				quoted[i] = quoteName(name)
			}
			addLine(lines, path, printer.Sprintf("additional properties %s not allowed", strings.Join(quoted, ", ")))
		}
		return
	}
	for _, name := range extra {
		s.additional.validate(obj[name], append(path, name), lines)
	}
}

// where names an instance location as the library's lines do: the path's tokens joined by
// "/", "root" when that is empty.
func where(path []string) string {
	if p := strings.Join(path, "/"); p != "" {
		return p
	}
	return "root"
}

func addLine(lines *[]string, path []string, msg string) {
	*lines = append(*lines, "  - "+where(path)+": "+msg)
}

// equalPlain compares an instance value with a plain (non-composite) schema value as JSON
// values: numbers by value.
func equalPlain(v, want any) bool {
	switch w := want.(type) {
	case nil:
		return v == nil
	case bool:
		b, ok := v.(bool)
		return ok && b == w
	case string:
		s, ok := v.(string)
		return ok && s == w
	}
	wf, ok := toFloat(want)
	if !ok {
		return false
	}
	f, ok := toFloat(v)
	return ok && f == wf
}

// displayValue writes a plain schema value as the library's messages do: strings quoted, the
// rest as Go prints them.
func displayValue(v any) string {
	if s, ok := v.(string); ok {
		return quoteName(s)
	}
	return fmt.Sprintf("%v", v)
}

// quoteName quotes a string the library's way: Go quoting, with single quotes outside and
// double quotes unescaped.
func quoteName(s string) string {
	s = strconv.Quote(s)
	s = strings.ReplaceAll(s, `\"`, `"`)
	s = strings.ReplaceAll(s, `'`, `\'`)
	return "'" + s[1:len(s)-1] + "'"
}

// InValidatorSubset reports whether a parameter schema is validated by pi-rpc's own validator
// (every built-in tool's must be: a test checks it), not by the general library.
func InValidatorSubset(schema json.RawMessage) bool {
	s := compileSchema(ToolInfo{Name: "check", Parameters: schema})
	return s.err == nil && s.subset != nil
}
