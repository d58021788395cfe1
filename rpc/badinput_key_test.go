package rpc

import (
	"encoding/json"
	"testing"
)

// A request reaches jsonrpc2 under its key, the client's id bytes as a JSON string; the
// string decodes to exactly those bytes, whatever the id holds.
func TestSanitisedCarriesTheIDBytesAsTheKey(t *testing.T) {
	for _, id := range []string{`7`, `-1.5e3`, `123456789012345678901234567890`, `"a"`, `"a\"b\\c"`, `"\u00e9 é \u2028"`, "\"a\u2028b\"", `""`} {
		msg := sanitised(&id, "getState", nil)
		var req struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(msg, &req); err != nil || req.ID != id {
			t.Errorf("id %s: message %s carries %q (%v)", id, msg, req.ID, err)
		}
	}
}
