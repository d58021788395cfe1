package providertest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

// ModelByID returns the model of catalogue with id, failing the test when there is none.
func ModelByID(t testing.TB, catalogue []core.Model, id string) core.Model {
	t.Helper()
	for _, m := range catalogue {
		if m.ID == id {
			return m
		}
	}
	t.Fatalf("no catalogue model %q", id)
	return core.Model{}
}

// HiRequest is a one-message request ("hi") to model.
func HiRequest(model core.Model) *core.Request {
	return &core.Request{Model: model, Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}}
}

// Fixture returns the text of testdata/name.
func Fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ContentJSON is m's content blocks as JSON.
func ContentJSON(t *testing.T, m *core.AssistantMessage) string {
	t.Helper()
	b, err := json.Marshal(m.Content)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// DescribeEvent renders an event compactly: type, content index, and the fields that matter.
func DescribeEvent(ev core.AssistantEvent) string { return describe(ev, false) }

// DescribeEventSig is [DescribeEvent] with a finished tool call's thought signature
// (sig="..."), for providers that sign calls.
func DescribeEventSig(ev core.AssistantEvent) string { return describe(ev, true) }

func describe(ev core.AssistantEvent, sig bool) string {
	switch ev.Type {
	case core.EventStart:
		return "start"
	case core.EventTextStart, core.EventThinkingStart:
		return fmt.Sprintf("%s %d", ev.Type, ev.ContentIndex)
	case core.EventTextDelta, core.EventThinkingDelta:
		return fmt.Sprintf("%s %d %q", ev.Type, ev.ContentIndex, ev.Delta)
	case core.EventTextEnd, core.EventThinkingEnd:
		return fmt.Sprintf("%s %d %q", ev.Type, ev.ContentIndex, ev.Content)
	case core.EventToolCallStart:
		return fmt.Sprintf("%s %d id=%s name=%s", ev.Type, ev.ContentIndex, ev.ID, ev.Name)
	case core.EventToolCallDelta:
		args, _ := json.Marshal(ev.Partial.Content[ev.ContentIndex].Arguments)
		return fmt.Sprintf("%s %d %q %s", ev.Type, ev.ContentIndex, ev.Delta, args)
	case core.EventToolCallEnd:
		args, _ := json.Marshal(ev.ToolCall.Arguments)
		s := fmt.Sprintf("%s %d %s %s %s", ev.Type, ev.ContentIndex, ev.ToolCall.ID, ev.ToolCall.Name, args)
		if sig {
			s += fmt.Sprintf(" sig=%q", ev.ToolCall.ThoughtSignature)
		}
		return s
	case core.EventDone:
		return fmt.Sprintf("done %s", ev.Reason)
	case core.EventError:
		kind := core.ErrorKind("")
		if f := ev.Partial.Failure; f != nil {
			kind = f.Kind
		}
		return fmt.Sprintf("error %s %s: %s", ev.Reason, kind, ev.Partial.ErrorMessage)
	}
	return string(ev.Type)
}
