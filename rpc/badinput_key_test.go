package rpc

import (
	"encoding/json"
	"testing"
)

// A request reaches jsonrpc2 under its key, a JSON string that stands for the client's id
// bytes: the string decodes to the key, ids differ in their keys as in their bytes, and a
// plain string id's key has nothing to unescape.
func TestSanitisedCarriesTheIDAsItsKey(t *testing.T) {
	ids := []string{`7`, `-1.5e3`, `123456789012345678901234567890`, `"7"`, `"a"`, `"'a"`, `"a\"b\\c"`, `"\u00e9 é \u2028"`, "\"a\u2028b\"", `""`}
	seen := map[string]string{}
	for _, id := range ids {
		key := keyOf([]byte(" " + id + "\n"))
		if other, dup := seen[key]; dup {
			t.Errorf("ids %s and %s have one key %q", other, id, key)
		}
		seen[key] = id
		msg := sanitised(&key, "getState", nil)
		var req struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(msg, &req); err != nil || req.ID != key {
			t.Errorf("id %s: message %s carries %q, want %q (%v)", id, msg, req.ID, key, err)
		}
	}
	if msg := string(sanitised(new(keyOf([]byte(`"req-1"`))), "abort", nil)); msg != `{"jsonrpc":"2.0","id":"'req-1","method":"abort"}` {
		t.Errorf("a plain string id's message is %s", msg)
	}
}
