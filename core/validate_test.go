package core

import (
	"reflect"
	"strings"
	"testing"
)

func TestValidateCoercesLikeAJV(t *testing.T) {
	info := ToolInfo{Name: "t", Parameters: []byte(`{"type":"object","properties":{
		"n":{"type":"number"},"i":{"type":"integer"},"s":{"type":"string"},"b":{"type":"boolean"},
		"arr":{"type":"array","items":{"type":"number"}},
		"obj":{"type":"object","properties":{"deep":{"type":"boolean"}}}},"required":["n"]}`)}
	c := newValidatorCache()
	in := map[string]any{"n": "1.5", "i": "3", "s": 7.0, "b": "true", "arr": []any{"1", 2.0}, "obj": map[string]any{"deep": 1.0}}
	got, err := c.validate(info, in)
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
	nulls, err := c.validate(info, map[string]any{"n": nil, "s": nil, "b": nil})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(nulls, map[string]any{"n": 0.0, "s": "", "b": false}) {
		t.Fatalf("null coercion = %v", nulls)
	}
}

func TestValidateErrorText(t *testing.T) {
	info := ToolInfo{Name: "echo", Parameters: []byte(`{"type":"object","properties":{"value":{"type":"string"},"count":{"type":"integer"}},"required":["value"]}`)}
	_, err := newValidatorCache().validate(info, map[string]any{"count": "many"})
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
	_, err := newValidatorCache().validate(ToolInfo{Name: "x", Parameters: []byte(`{"type":`)}, nil)
	if err == nil || !strings.Contains(err.Error(), `tool "x" has an invalid parameter schema`) {
		t.Fatalf("err = %v, want invalid schema", err)
	}
}
