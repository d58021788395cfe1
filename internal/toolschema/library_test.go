package toolschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// The error lines are checked against santhosh-tekuri/jsonschema, the library pi-rpc
// validated every schema with before (a test-only dependency now, too slow to start for the
// binary): the same lines, in any order (that library's follows map iteration).

// librarySchemas are the built-in tools' shapes and every keyword whose wording is pi's.
var librarySchemas = []string{
	`{"type":"object","properties":{"path":{"type":"string","description":"p"},"offset":{"type":"number"},"limit":{"type":"number"}},"required":["path"]}`,
	`{"type":"object","properties":{"path":{"type":"string"},"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string"},"newText":{"type":"string"}},"required":["oldText","newText"],"additionalProperties":false}}},"required":["path","edits"]}`,
	`{"type":"object","properties":{"entries":{"type":"array","items":{"type":"object","properties":{"content":{"type":"string"},"priority":{"type":"string","enum":["high","medium","low"]},"status":{"type":"string","enum":["pending","in_progress","completed"]}},"required":["content","priority","status"],"additionalProperties":false}}},"required":["entries"]}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":1000},"x":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":2.5},"s":{"type":"string","minLength":2,"maxLength":4},"a":{"type":"array","minItems":1,"maxItems":2,"items":{"type":["string","null"]}},"c":{"const":"fixed"},"k":{"const":3},"e":{"enum":[1,"two",true,null]},"one":{"enum":["only"]}},"additionalProperties":{"type":"boolean"},"required":["n","s"]}`,
	`{"type":"object","properties":{"o":{"type":"object","properties":{"deep":{"type":"boolean"},"q'\"uote":{"type":"string"}},"required":["deep","q'\"uote"],"additionalProperties":false}},"additionalProperties":false,"title":"t","examples":[{}],"default":{}}`,
	`{"type":["object","null"],"properties":{"big":{"type":"integer","maximum":1e3,"minimum":-2000}}}`,
	`{}`,
}

var libraryArgs = []string{
	`{}`, `{"path":"a"}`, `{"path":1}`, `{"path":"a","offset":"x","limit":true}`,
	`{"path":"a","edits":[{"oldText":"a","newText":"b"},{"oldText":1},{"x":1,"y":2,"newText":"n","oldText":"o"}]}`,
	`{"path":"a","edits":{}}`, `{"edits":[[]]}`,
	`{"entries":[{"content":"c","priority":"urgent","status":"done","extra":1}]}`,
	`{"entries":[{"content":"c","priority":"high","status":"pending"},{}]}`,
	`{"n":0,"s":"x","x":0,"a":[],"c":"other","k":4,"e":2,"one":"no","flag":"yes"}`,
	`{"n":1.5,"s":"toolong","x":2.5,"a":["a",null,3],"c":"fixed","k":3,"e":"two","one":"only","flag":true}`,
	`{"n":2000,"s":"héllo","x":-1,"a":[1,2,3],"e":null}`,
	`{"n":1000,"s":"ab","x":1e-9}`,
	`{"o":{"deep":"no","q'\"uote":5,"z":1},"w":2}`, `{"o":{}}`, `{"o":[]}`,
	`{"big":1001}`, `{"big":-2001.5}`, `{"big":"3"}`,
}

// libraryLines is what validate reported with the library: collectErrors' lines.
func libraryLines(t testing.TB, schema string, v any) []string {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	comp := jsonschema.NewCompiler()
	if err := comp.AddResource("tool.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := comp.Compile("tool.json")
	if err != nil {
		t.Fatal(err)
	}
	err = sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		t.Fatal(err)
	}
	var lines []string
	libraryCollect(ve, &lines)
	if len(lines) == 0 {
		lines = []string{"  - root: " + ve.ErrorKind.LocalizedString(printer)}
	}
	return lines
}

// libraryCollect is validate's collectErrors from when it used the library.
func libraryCollect(ve *jsonschema.ValidationError, lines *[]string) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			libraryCollect(c, lines)
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

// sortedLines sorts error lines; an additionalProperties line's names are sorted too (the
// library lists them in map order).
func sortedLines(lines []string) []string {
	out := slices.Clone(lines)
	for i, l := range out {
		if pre, rest, ok := strings.Cut(l, ": additional properties "); ok {
			names := strings.Split(strings.TrimSuffix(rest, " not allowed"), ", ")
			slices.Sort(names)
			out[i] = pre + ": additional properties " + strings.Join(names, ", ") + " not allowed"
		}
	}
	slices.Sort(out)
	return out
}

func compareWithLibrary(t *testing.T, schema string, args []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return
	}
	s := compile("t", []byte(schema))
	if s.err != nil {
		t.Fatalf("schema %s: %v", schema, s.err)
	}
	var got []string
	if err := s.resolved.Validate(v); err != nil {
		got = s.report(v, err)
	}
	want := libraryLines(t, schema, v)
	if !slices.Equal(sortedLines(got), sortedLines(want)) {
		t.Errorf("schema %s\nargs %s\n got %q\nwant %q", schema, args, got, want)
	}
}

func TestLinesMatchTheOldLibrary(t *testing.T) {
	for _, schema := range librarySchemas {
		for _, args := range append(libraryArgs, `null`, `"str"`, `[1]`, `3`) {
			compareWithLibrary(t, schema, []byte(args))
		}
	}
}

// FuzzSubsetValidator compares the lines with the old library's on any JSON arguments (its
// name is the corpus's, from when pi-rpc validated these keywords itself).
func FuzzSubsetValidator(f *testing.F) {
	for _, a := range libraryArgs {
		f.Add([]byte(a))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		for _, schema := range librarySchemas {
			compareWithLibrary(t, schema, args)
		}
	})
}

// A keyword without pi's wording gets the library's message at the place that failed, and a
// schema the library refuses is an invalid schema.
func TestGeneralSchemaValidation(t *testing.T) {
	c := NewCache()
	info := toolInfo{Name: "mcp", Parameters: []byte(`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"p":{"type":"string","pattern":"^a"}},"required":["p"]}`)}
	if got, err := c.Validate(info.Name, info.Parameters, map[string]any{"p": "abc"}); err != nil || got["p"] != "abc" {
		t.Fatalf("valid arguments: %v, %v", got, err)
	}
	_, err := c.Validate(info.Name, info.Parameters, map[string]any{"p": "xyz"})
	if err == nil || !strings.HasPrefix(err.Error(), "Validation failed for tool \"mcp\":\n  - p: pattern: \"xyz\" does not match") {
		t.Fatalf("pattern mismatch: %v", err)
	}
	// Coercion applies before either validator.
	if got, err := c.Validate(info.Name, info.Parameters, map[string]any{"p": 7.0}); err == nil || got != nil {
		t.Fatalf("7 coerced to \"7\" must fail the pattern: %v %v", got, err)
	}
	_, err = c.Validate("bad", []byte(`{"type":3}`), nil)
	if err == nil || !strings.Contains(err.Error(), `tool "bad" has an invalid parameter schema`) {
		t.Fatalf("invalid schema: %v", err)
	}
	_, err = c.Validate("two", []byte(`{} {}`), nil)
	if err == nil || !strings.Contains(err.Error(), `tool "two" has an invalid parameter schema`) {
		t.Fatalf("two values: %v", err)
	}
}
