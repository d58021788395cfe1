package session

import (
	"encoding/json"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

// Content written as a plain string (older pi, hand-written files) decodes like an array.
func TestEntryStringContent(t *testing.T) {
	for _, line := range []string{
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"plain text","timestamp":1}}`,
		`{"type":"custom_message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:00.000Z","customType":"x","content":"plain text","display":true}`,
	} {
		var e Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		blocks := e.Content
		if e.Message != nil {
			blocks = e.Message.(*core.UserMessage).Content
		}
		if len(blocks) != 1 || blocks[0].Text != "plain text" {
			t.Fatalf("%s: content %+v", line, blocks)
		}
		if string(e.Raw) != line {
			t.Fatal("Raw is not the line")
		}
	}
}

func TestEntryDecodeErrors(t *testing.T) {
	for _, line := range []string{
		`{"type":"message","id":"a1","message":{"role":"robot"}}`,
		`{"type":"message","id":"a1"}`,
		`{"type":"message","id":"a1","message":{"role":"user","content":[{"type":"video"}]}}`,
		`{"type":"unknown","id":"a1"}`,
		`{"type":"message","id":"a1","message":{"role":"user","content":5}}`,
	} {
		var e Entry
		if err := json.Unmarshal([]byte(line), &e); err == nil {
			t.Errorf("%s decoded without an error", line)
		}
	}
}
