package protocol_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
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

// The documentation types of events_gen.go are written from internal/eventjson's description
// (protocol/internal/genevents), so they cannot list other fields than the encoder writes.
// What is still described twice is checked here: the messages, whose JSON is core's struct
// tags and whose documentation types are messages.go's, and session_changed, whose
// documentation lists its payload's fields (to give reason its values) instead of embedding
// sessionapi.SessionChanged.

// session_changed documents the fields of the payload the session emits, in its order, each
// optional exactly when the payload leaves it out.
func TestSessionChangedDocMatchesItsPayload(t *testing.T) {
	var got []string
	doc := reflect.TypeFor[protocol.SessionChangedEvent]()
	for i := range doc.NumField() {
		if f := doc.Field(i); !f.Anonymous && f.Name != "Type" && f.Name != "SessionID" {
			got = append(got, f.Tag.Get("json"))
		}
	}
	var want []string
	payload := reflect.TypeFor[sessionapi.SessionChanged]()
	for i := range payload.NumField() {
		want = append(want, payload.Field(i).Tag.Get("json"))
	}
	if !slices.Equal(got, want) {
		t.Errorf("SessionChangedEvent documents %q, the payload writes %q", got, want)
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
