package main

import (
	"bytes"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/eventjson"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite protocol/events_gen.go")

// TestEventsUpToDate regenerates events_gen.go in memory, with the code go generate runs, and
// compares it with the committed file: a field added to internal/eventjson without go
// generate fails here.
func TestEventsUpToDate(t *testing.T) {
	got, err := generate(eventjson.EventDocs(), eventjson.StepDocs())
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	testkit.UpToDate(t, got, filepath.Join("..", "..", "events_gen.go"), "protocol/events_gen.go",
		"run make generate (or go generate ./protocol)", *update)
}

// A field's documentation becomes its line in the struct: its comment, Go name, type, json
// tag (omitempty when the field may be absent) and jsonschema tag; the event's sessionId
// follows its envelope.
func TestGenerateWritesTheDescription(t *testing.T) {
	events := []eventjson.TypeDoc{{
		Type: "x_happened", GoName: "XHappenedEvent", Comment: "XHappenedEvent says x happened.",
		Fields: []eventjson.FieldDoc{
			{Name: "toolCallId", GoName: "ToolCallID", Doc: eventjson.Doc{Type: "string"}},
			{Name: "durationMs", GoName: "DurationMs", Doc: eventjson.Doc{Type: "*int64", Comment: "DurationMs is how long."}, OmitEmpty: true},
			{Name: "reason", GoName: "Reason", Doc: eventjson.Doc{Type: "string", Schema: "enum=a,enum=b"}},
		},
		Envelope: "RunEnvelope", SessionID: "SessionID is the session.",
	}}
	got, err := generate(events, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "// XHappenedEvent says x happened.\ntype XHappenedEvent struct {\n" +
		"\tType       string `json:\"type\" jsonschema:\"enum=x_happened\"`\n" +
		"\tToolCallID string `json:\"toolCallId\"`\n" +
		"\t// DurationMs is how long.\n" +
		"\tDurationMs *int64 `json:\"durationMs,omitempty\"`\n" +
		"\tReason     string `json:\"reason\" jsonschema:\"enum=a,enum=b\"`\n" +
		"\tRunEnvelope\n" +
		"\t// SessionID is the session.\n" +
		"\tSessionID string `json:\"sessionId\"`\n}\n"
	if !bytes.Contains(got, []byte(want)) {
		t.Errorf("generated:\n%s\nwant it to contain:\n%s", got, want)
	}
	if !bytes.Contains(got, []byte(`{"x_happened", "XHappenedEvent", XHappenedEvent{}},`)) {
		t.Errorf("eventDefs lacks the event:\n%s", got)
	}
	if bytes.Contains(got, []byte("sessionapi")) {
		t.Errorf("imports sessionapi without using it:\n%s", got)
	}
}

// A JSON-RPC field without a documented type cannot be written as Go.
func TestGenerateRefusesAnUndocumentedField(t *testing.T) {
	events := []eventjson.TypeDoc{{Type: "x", GoName: "XEvent", Comment: "XEvent is x.",
		Fields: []eventjson.FieldDoc{{Name: "y", GoName: "Y"}}}}
	if _, err := generate(events, nil); err == nil || !strings.Contains(err.Error(), "x.y has no documented Go type") {
		t.Errorf("generate = %v, want the missing type named", err)
	}
}

func TestWriteCommentWraps(t *testing.T) {
	var b bytes.Buffer
	writeComment(&b, "\t", strings.Repeat("word ", 40))
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if !strings.HasPrefix(line, "\t// ") || len(line)+3 > commentWidth {
			t.Errorf("line %q", line)
		}
	}
	if got := strings.Count(b.String(), "word"); got != 40 {
		t.Errorf("%d words written, want 40", got)
	}
}
