package core

import (
	"reflect"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/benchmem"
	"github.com/pi-rpc/pi-rpc/internal/partialjson"
)

// BenchmarkBuilderToolCallArgs streams benchmem.WriteCallArgs through MessageBuilder, the call
// internal/partialjson's BenchmarkPartialJSONStream gives the parser alone.
func BenchmarkBuilderToolCallArgs(b *testing.B) {
	frags := benchmem.WriteCallArgs()
	model := &Model{ID: "m", API: "faux", Provider: "faux"}
	yield := func(AssistantEvent) bool { return true }
	b.ReportAllocs()
	m := benchmem.Read()
	for b.Loop() {
		mb := NewMessageBuilder(model, 0, yield)
		mb.ToolCall(0, "call_1", "write", "")
		for _, f := range frags {
			mb.ToolCall(0, "", "", f)
		}
		mb.Done()
	}
	m.Report(b, len(frags))
}

// TestBuilderToolCallArgsStream checks that MessageBuilder's arguments follow the fragments
// and that the finished message holds a copy, not the parser's live map.
func TestBuilderToolCallArgsStream(t *testing.T) {
	doc := `{"path":"a.go","edits":[{"oldText":"x","newText":"y\u00e9"}],"n":-1.5e2}`
	model := &Model{ID: "m", API: "faux", Provider: "faux"}
	var live map[string]any
	at := 0
	mb := NewMessageBuilder(model, 0, func(ev AssistantEvent) bool {
		if ev.Type == EventToolCallDelta {
			got := ev.Partial.Content[ev.ContentIndex].Arguments
			if want := partialjson.Parse(doc[:at]); !reflect.DeepEqual(got, want) {
				t.Fatalf("after %d bytes: %#v, want %#v", at, got, want)
			}
			live = got
		}
		return true
	})
	for i := 0; i < len(doc); i += 5 {
		at = min(i+5, len(doc))
		mb.ToolCall(0, "call_1", "edit", doc[i:at])
	}
	mb.Done()
	final := mb.Message().Content[0].Arguments
	if want := partialjson.Parse(doc); !reflect.DeepEqual(final, want) {
		t.Fatalf("final %#v, want %#v", final, want)
	}
	if reflect.ValueOf(final).UnsafePointer() == reflect.ValueOf(live).UnsafePointer() {
		t.Fatal("final arguments alias the parser's live map")
	}
	edits := final["edits"].([]any)
	if reflect.ValueOf(edits[0]).UnsafePointer() == reflect.ValueOf(live["edits"].([]any)[0]).UnsafePointer() {
		t.Fatal("final nested object aliases the parser's live map")
	}
}
