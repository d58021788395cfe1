package toolschema

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// google/jsonschema-go stops at the first failure and names it by schema location; pi's
// message has a line per failure, by instance location, in AJV's words. report gets those
// lines from the library without judging anything itself: it walks the schema's properties,
// additionalProperties and items alongside the arguments, and at each place asks the library
// about that place's own keywords (the node with those three taken out, so that a failure
// below is reported below, once). The library's answer names the keyword that failed; the
// line says it as pi does (santhosh-tekuri/jsonschema's AJV-style wording, which pi-rpc used
// before: a test compares the lines with that library). A keyword without such wording
// (pattern, format, anyOf, ...) gets the library's own message. A node that other keywords
// tie to its children (patternProperties, unevaluated*, prefixItems) is asked about as a
// whole, and when a place cannot be asked about on its own (a reference the node's copy
// cannot resolve), the message is the library's first failure.

// printer formats the messages' numbers in English, as the AJV-style messages of
// santhosh-tekuri/jsonschema did.
var printer = message.NewPrinter(language.English)

// jsonTypes are the JSON types in the order the type line names them.
var jsonTypes = []string{"null", "boolean", "number", "integer", "string", "array", "object"}

// report returns the error lines for args, which the schema refused with err.
func (s *compiled) report(args any, err error) []string {
	var lines []string
	if s.collect(s.resolved.Schema(), args, nil, &lines) && len(lines) > 0 {
		return lines
	}
	return []string{"  - root: " + innermost(err).Error()}
}

// collect appends the lines for v at path against node; it reports false if a place could
// not be asked about on its own.
func (s *compiled) collect(node *jsonschema.Schema, v any, path []string, lines *[]string) bool {
	local := s.local(node)
	if local == nil {
		return false
	}
	if err := local.Validate(v); err != nil {
		if final := addLines(node, v, path, err, lines); final {
			return true
		}
	}
	if !decomposable(node) {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		names := make([]string, 0, len(node.Properties))
		for name := range node.Properties {
			if _, ok := x[name]; ok {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		for _, name := range names {
			if !s.collect(node.Properties[name], x[name], append(path, name), lines) {
				return false
			}
		}
		return s.collectAdditional(node, x, path, lines)
	case []any:
		if node.Items == nil {
			return true
		}
		for i, item := range x {
			if !s.collect(node.Items, item, append(path, strconv.Itoa(i)), lines) {
				return false
			}
		}
	}
	return true
}

func (s *compiled) collectAdditional(node *jsonschema.Schema, obj map[string]any, path []string, lines *[]string) bool {
	if node.AdditionalProperties == nil {
		return true
	}
	var extra []string
	for name := range obj {
		if _, declared := node.Properties[name]; !declared {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	if isFalse(node.AdditionalProperties) {
		if len(extra) > 0 {
			quoted := make([]string, len(extra))
			for i, name := range extra {
				quoted[i] = quoteName(name)
			}
			addLine(lines, path, printer.Sprintf("additional properties %s not allowed", strings.Join(quoted, ", ")))
		}
		return true
	}
	for _, name := range extra {
		if !s.collect(node.AdditionalProperties, obj[name], append(path, name), lines) {
			return false
		}
	}
	return true
}

// isFalse reports whether a schema is false, which the library reads as {"not":{}}.
func isFalse(s *jsonschema.Schema) bool {
	if s.Not == nil || !reflect.ValueOf(*s.Not).IsZero() {
		return false
	}
	rest := *s
	rest.Not = nil
	return reflect.ValueOf(rest).IsZero()
}

// decomposable reports whether node's properties, additionalProperties and items can be
// asked about apart from its other keywords.
func decomposable(node *jsonschema.Schema) bool {
	return node.PatternProperties == nil && node.UnevaluatedProperties == nil && node.UnevaluatedItems == nil &&
		node.PrefixItems == nil && node.ItemsArray == nil && node.AdditionalItems == nil
}

// local returns node's own keywords, resolved (cached); nil if they cannot be resolved apart.
func (s *compiled) local(node *jsonschema.Schema) *jsonschema.Resolved {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.locals[node]; ok {
		return r
	}
	root := s.resolved.Schema()
	c := node.CloneSchemas()
	if decomposable(node) {
		c.Properties, c.AdditionalProperties, c.Items, c.PropertyOrder = nil, nil, nil, nil
	}
	if node != root {
		c.Schema, c.ID = root.Schema, ""
		if c.Defs == nil && c.Definitions == nil {
			c.Defs, c.Definitions = root.Defs, root.Definitions // for references into the root's definitions
		}
	}
	r, err := c.Resolve(nil)
	if err != nil {
		r = nil
	}
	if s.locals == nil {
		s.locals = map[*jsonschema.Schema]*jsonschema.Resolved{}
	}
	s.locals[node] = r
	return r
}

// addLines appends the lines for the failure err of v against node's own keywords; final says
// the place is done (a wrong type, const or enum: nothing below is checked, as AJV's lines
// did not go on either).
func addLines(node *jsonschema.Schema, v any, path []string, err error, lines *[]string) (final bool) {
	leaf, depth := innermost(err), chainDepth(err)
	keyword, _, _ := strings.Cut(leaf.Error(), ":")
	if depth > 1 { // the failure is below a reference or a combinator of the node
		addLine(lines, path, leaf.Error())
		return false
	}
	switch keyword {
	case "type":
		types := node.Types
		if node.Type != "" {
			types = []string{node.Type}
		}
		var want []string
		for _, t := range jsonTypes {
			if slices.Contains(types, t) {
				want = append(want, t)
			}
		}
		addLine(lines, path, "must be "+strings.Join(want, ","))
		return true
	case "const":
		addLine(lines, path, printer.Sprintf("value must be %s", displayValue(*node.Const)))
		return true
	case "enum":
		if len(node.Enum) == 1 {
			addLine(lines, path, printer.Sprintf("value must be %s", displayValue(node.Enum[0])))
		} else {
			want := make([]string, len(node.Enum))
			for i, x := range node.Enum {
				want[i] = displayValue(x)
			}
			addLine(lines, path, printer.Sprintf("value must be one of %s", strings.Join(want, ", ")))
		}
		return true
	case "required":
		obj, _ := v.(map[string]any)
		for _, name := range node.Required {
			if _, ok := obj[name]; !ok {
				*lines = append(*lines, fmt.Sprintf("  - %s: must have required property '%s'", strings.Join(append(slices.Clip(path), name), "/"), name))
			}
		}
	case "minLength", "maxLength":
		bound := node.MinLength
		if keyword == "maxLength" {
			bound = node.MaxLength
		}
		s, _ := v.(string)
		addLine(lines, path, printer.Sprintf(keyword+": got %d, want %d", utf8.RuneCountInString(s), *bound))
	case "minItems", "maxItems":
		bound := node.MinItems
		if keyword == "maxItems" {
			bound = node.MaxItems
		}
		a, _ := v.([]any)
		addLine(lines, path, printer.Sprintf(keyword+": got %d, want %d", len(a), *bound))
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		bound := map[string]*float64{"minimum": node.Minimum, "maximum": node.Maximum,
			"exclusiveMinimum": node.ExclusiveMinimum, "exclusiveMaximum": node.ExclusiveMaximum}[keyword]
		f, _ := toFloat(v)
		addLine(lines, path, printer.Sprintf(keyword+": got %v, want %v", f, *bound))
	default:
		addLine(lines, path, leaf.Error())
	}
	return false
}

// innermost is the library's own message, without the "validating <schema>: " wrappers.
func innermost(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// chainDepth counts the "validating <schema>" wrappers around the library's message.
func chainDepth(err error) int {
	n := 0
	for next := errors.Unwrap(err); next != nil; next = errors.Unwrap(next) {
		n++
	}
	return n
}

// where names an instance location: the path's tokens joined by "/", "root" when that is
// empty.
func where(path []string) string {
	if p := strings.Join(path, "/"); p != "" {
		return p
	}
	return "root"
}

func addLine(lines *[]string, path []string, msg string) {
	*lines = append(*lines, "  - "+where(path)+": "+msg)
}

// displayValue writes a schema value as the messages do: strings quoted, the rest as Go
// prints them.
func displayValue(v any) string {
	if s, ok := v.(string); ok {
		return quoteName(s)
	}
	return fmt.Sprintf("%v", v)
}

// quoteName quotes a string the messages' way: Go quoting, with single quotes outside and
// double quotes unescaped.
func quoteName(s string) string {
	s = strconv.Quote(s)
	s = strings.ReplaceAll(s, `\"`, `"`)
	s = strings.ReplaceAll(s, `'`, `\'`)
	return "'" + s[1:len(s)-1] + "'"
}
