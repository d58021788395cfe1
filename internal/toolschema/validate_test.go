package toolschema

import (
	"reflect"
	"strings"
	"testing"
)

func TestValidateCoercesLikeAJV(t *testing.T) {
	info := toolInfo{Name: "t", Parameters: []byte(`{"type":"object","properties":{
		"n":{"type":"number"},"i":{"type":"integer"},"s":{"type":"string"},"b":{"type":"boolean"},
		"arr":{"type":"array","items":{"type":"number"}},
		"obj":{"type":"object","properties":{"deep":{"type":"boolean"}}}},"required":["n"]}`)}
	c := NewCache()
	in := map[string]any{"n": "1.5", "i": "3", "s": 7.0, "b": "true", "arr": []any{"1", 2.0}, "obj": map[string]any{"deep": 1.0}}
	got, err := c.Validate(info.Name, info.Parameters, in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n": 1.5, "i": 3.0, "s": "7", "b": true, "arr": []any{1.0, 2.0}, "obj": map[string]any{"deep": true}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("validate = %v, want %v", got, want)
	}
	if in["n"] != "1.5" {
		t.Fatalf("validate changed its input: %v", in)
	}
	nulls, err := c.Validate(info.Name, info.Parameters, map[string]any{"n": nil, "s": nil, "b": nil})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(nulls, map[string]any{"n": 0.0, "s": "", "b": false}) {
		t.Fatalf("null coercion = %v", nulls)
	}
}

func TestValidateErrorText(t *testing.T) {
	info := toolInfo{Name: "echo", Parameters: []byte(`{"type":"object","properties":{"value":{"type":"string"},"count":{"type":"integer"}},"required":["value"]}`)}
	_, err := NewCache().Validate(info.Name, info.Parameters, map[string]any{"count": "many"})
	if err == nil {
		t.Fatal("validate succeeded, want an error")
	}
	text := err.Error()
	for _, want := range []string{
		"Validation failed for tool \"echo\":\n",
		"  - value: must have required property 'value'",
		"  - count: must be integer",
		"\n\nReceived arguments:\n{\n  \"count\": \"many\"\n}",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("error %q lacks %q", text, want)
		}
	}
}

func TestValidateBadSchema(t *testing.T) {
	_, err := NewCache().Validate("x", []byte(`{"type":`), nil)
	if err == nil || !strings.Contains(err.Error(), `tool "x" has an invalid parameter schema`) {
		t.Fatalf("err = %v, want invalid schema", err)
	}
}

// toolInfo is what the tests say of a tool: its name and parameter schema.
type toolInfo struct {
	Name       string
	Parameters []byte
}

// Every keyword is validated by the library and every failing place gets its line: one
// without pi's wording (pattern) gets the library's message at the place, beside the others
// (pi-rpc's own subset validator once took such a schema whole to the library, whose first
// failure was the only line, at "root").
func TestEveryPlaceGetsItsLine(t *testing.T) {
	params := []byte(`{"type":"object","properties":{"p":{"type":"string","pattern":"^a"},"n":{"type":"integer"},
		"list":{"type":"array","items":{"type":"string","format":"x","minLength":2}}},"required":["p","q"]}`)
	_, err := NewCache().Validate("mcp", params, map[string]any{"p": "xyz", "n": "x", "list": []any{"ok", "k"}})
	if err == nil {
		t.Fatal("validate succeeded")
	}
	want := "Validation failed for tool \"mcp\":\n" +
		"  - q: must have required property 'q'\n" +
		"  - list/1: minLength: got 1, want 2\n" +
		"  - n: must be integer\n" +
		"  - p: pattern: \"xyz\" does not match regular expression \"^a\"\n\n" +
		"Received arguments:\n"
	if !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error:\n%s\nwant it to start with:\n%s", err, want)
	}
}

// BenchmarkValidate validates the edit tool's arguments, as every edit call does.
func BenchmarkValidate(b *testing.B) {
	params := []byte(`{"type":"object","properties":{"path":{"type":"string"},"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string"},"newText":{"type":"string"}},"required":["oldText","newText"],"additionalProperties":false}}},"required":["path","edits"]}`)
	args := map[string]any{"path": "a.go", "edits": []any{map[string]any{"oldText": "a", "newText": "b"}, map[string]any{"oldText": "c", "newText": "d"}}}
	c := NewCache()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Validate("edit", params, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompile compiles the edit tool's schema, as a session's first edit call does.
func BenchmarkCompile(b *testing.B) {
	params := []byte(`{"type":"object","properties":{"path":{"type":"string"},"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string"},"newText":{"type":"string"}},"required":["oldText","newText"],"additionalProperties":false}}},"required":["path","edits"]}`)
	b.ReportAllocs()
	for b.Loop() {
		if s := compile("edit", params); s.err != nil {
			b.Fatal(s.err)
		}
	}
}

// TestValidateAllocations: once a tool's schema is compiled, finding it again allocates
// nothing (a key made of the name and the schema copied the schema on every call), and a
// changed schema under the same name is compiled again.
func TestValidateAllocations(t *testing.T) {
	params := []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	c := NewCache()
	first := c.get("read", params)
	if allocs := testing.AllocsPerRun(100, func() {
		if c.get("read", params) != first {
			t.Fatal("the compiled schema was not reused")
		}
	}); allocs != 0 {
		t.Fatalf("finding a compiled schema: %v allocations, want 0", allocs)
	}
	changed := []byte(`{"type":"object","properties":{"path":{"type":"number"}},"required":["path"]}`)
	if _, err := c.Validate("read", changed, map[string]any{"path": "a"}); err == nil {
		t.Fatal("a changed schema under the same name was not compiled again")
	}
	if _, err := c.Validate("read", params, map[string]any{"path": "a"}); err != nil {
		t.Fatalf("the first schema again: %v", err)
	}
}
