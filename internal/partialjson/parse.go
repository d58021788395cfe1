package partialjson

import (
	"encoding/json"
	"strings"
)

// Parse parses streamed tool-call arguments that may be cut off anywhere (pi-ai's
// parseStreamingJson). Complete JSON parses as usual (encoding/json); otherwise the value is
// read as far as it goes (jsontext, see [Parser]): open strings keep what they have, open
// objects and arrays close, a name without a value is dropped. Raw control characters inside
// strings and invalid escapes, which some models emit, are repaired (see [repairJSON]). The
// result is always an object; anything unusable gives an empty one.
func Parse(s string) map[string]any {
	if strings.TrimSpace(s) == "" {
		return map[string]any{}
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err == nil && v != nil {
		return v
	}
	if obj, ok := prefixObject(s); ok {
		return obj
	}
	if repaired := repairJSON(s); repaired != s {
		if err := json.Unmarshal([]byte(repaired), &v); err == nil && v != nil {
			return v
		}
		if obj, ok := prefixObject(repaired); ok {
			return obj
		}
	}
	return map[string]any{}
}

// prefixObject reads s as the beginning of a JSON object, reporting false if it is not one.
func prefixObject(s string) (map[string]any, bool) {
	var p Parser
	p.text.WriteString(s)
	if !p.advance() || len(p.stack) == 0 && !p.done || !p.showTail() {
		return nil, false
	}
	return p.root, true
}
