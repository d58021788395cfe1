package protocol_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/eventjson"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// jsonFields lists the JSON names of a struct's fields in order, embedded structs flattened.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

// withoutEnvelope drops type and the envelope fields.
func withoutEnvelope(fs []string) []string {
	return slices.DeleteFunc(fs, func(f string) bool {
		return f == "type" || f == "seq" || f == "runId" || f == "sessionId"
	})
}

// The documentation types (schema.json) list exactly the fields eventjson writes for the
// JSON-RPC dialect, in its order: a field added to the description without its
// documentation, or documented but never written, fails here.
func TestCoreEventDocsMatchTheDescription(t *testing.T) {
	for _, typ := range core.EventTypes {
		doc := protocol.EventDocTypes[string(typ)]
		got := withoutEnvelope(jsonFields(reflect.TypeOf(doc)))
		want := eventjson.CoreFieldNames(typ, eventjson.JSONRPC)
		if !slices.Equal(got, want) {
			t.Errorf("%s: documented fields %v, written %v", typ, got, want)
		}
	}
}

func TestAssistantEventDocsMatchTheDescription(t *testing.T) {
	docs := map[core.AssistantEventType]any{
		core.EventTextStart: protocol.TextStart{}, core.EventTextDelta: protocol.TextDelta{}, core.EventTextEnd: protocol.TextEnd{},
		core.EventThinkingStart: protocol.ThinkingStart{}, core.EventThinkingDelta: protocol.ThinkingDelta{},
		core.EventThinkingEnd: protocol.ThinkingEnd{}, core.EventToolCallStart: protocol.ToolCallStart{},
		core.EventToolCallDelta: protocol.ToolCallDelta{}, core.EventToolCallEnd: protocol.ToolCallEnd{},
	}
	for typ, doc := range docs {
		got := withoutEnvelope(jsonFields(reflect.TypeOf(doc)))
		want := eventjson.AssistantFieldNames(typ, eventjson.JSONRPC)
		if !slices.Equal(got, want) {
			t.Errorf("%s: documented fields %v, written %v", typ, got, want)
		}
	}
}

// Every session event the protocol documents is described, so its dialects are decided.
func TestSessionEventsDescribed(t *testing.T) {
	for _, typ := range protocol.EventTypes {
		if slices.Contains(core.EventTypes, core.EventType(typ)) {
			continue
		}
		if !eventjson.Described(typ) {
			t.Errorf("%s is not described in internal/eventjson", typ)
		}
		if !eventjson.Writes(typ, eventjson.JSONRPC) {
			t.Errorf("%s is documented but JSON-RPC does not write it", typ)
		}
	}
	if eventjson.Writes(sessionapi.EventEntryAppended, eventjson.JSONRPC) || !eventjson.Writes(sessionapi.EventEntryAppended, eventjson.Pi) {
		t.Errorf("entry_appended is pi mode's alone")
	}
}

// A message's JSON is core's (its struct tags, the role first): the documentation types list
// the same fields in the same order, so a field added to a core message without its
// documentation fails here.
func TestMessageDocsMatchCore(t *testing.T) {
	tests := []struct {
		core, doc any
	}{
		{core.UserMessage{}, protocol.UserMessage{}},
		{core.AssistantMessage{}, protocol.AssistantMessage{}},
		{core.ToolResultMessage{}, protocol.ToolResultMessage{}},
		{core.BashExecutionMessage{}, protocol.BashExecutionMessage{}},
		{core.CustomMessage{}, protocol.CustomMessage{}},
		{core.BranchSummaryMessage{}, protocol.BranchSummaryMessage{}},
		{core.CompactionSummaryMessage{}, protocol.CompactionSummaryMessage{}},
		{core.SystemMessage{}, protocol.SystemMessage{}},
	}
	for _, tc := range tests {
		want := append([]string{"role"}, jsonFields(reflect.TypeOf(tc.core))...)
		if got := jsonFields(reflect.TypeOf(tc.doc)); !slices.Equal(got, want) {
			t.Errorf("%T: documented fields %v, core writes %v", tc.doc, got, want)
		}
	}
}
