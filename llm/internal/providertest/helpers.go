package providertest

import (
	"context"
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

// Describer renders an event compactly: type, content index, and the fields that matter.
// Its options are where the providers' streams differ.
type Describer struct {
	// StartReason adds the start message's stop reason when it is not stop ("start error"):
	// OpenAI's provider knows at the start that a response failed before any content.
	StartReason bool
	// DeltaIDs shows a tool-call delta's id and name when it carries them (OpenAI's deltas
	// do) instead of the arguments parsed so far.
	DeltaIDs bool
	// Signatures adds a finished tool call's thought signature (sig="..."), for providers
	// that sign calls.
	Signatures bool
}

// DescribeEvent is the plain [Describer]'s Event.
func DescribeEvent(ev core.AssistantEvent) string { return Describer{}.Event(ev) }

// DescribeEventSig is [DescribeEvent] with a finished tool call's thought signature.
func DescribeEventSig(ev core.AssistantEvent) string { return Describer{Signatures: true}.Event(ev) }

// Start is the line for the start event of a stream that ended with reason before any
// content.
func (d Describer) Start(reason core.StopReason) string {
	return d.Event(core.AssistantEvent{Type: core.EventStart, Partial: &core.AssistantMessage{StopReason: reason}})
}

// Run streams req through p and returns each event as d renders it, and the final message
// (see [Run]).
func (d Describer) Run(t *testing.T, ctx context.Context, p core.Provider, req *core.Request) ([]string, *core.AssistantMessage) {
	t.Helper()
	return Run(t, ctx, p, req, d.Event)
}

// Event renders ev.
func (d Describer) Event(ev core.AssistantEvent) string {
	switch ev.Type {
	case core.EventStart:
		if m := ev.Partial; d.StartReason && m != nil && m.StopReason != core.StopReasonStop {
			return fmt.Sprintf("start %s", m.StopReason)
		}
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
		if d.DeltaIDs {
			s := fmt.Sprintf("%s %d %q", ev.Type, ev.ContentIndex, ev.Delta)
			if ev.ID != "" || ev.Name != "" {
				s += fmt.Sprintf(" id=%s name=%s", ev.ID, ev.Name)
			}
			return s
		}
		args, _ := json.Marshal(ev.Partial.Content[ev.ContentIndex].Arguments)
		return fmt.Sprintf("%s %d %q %s", ev.Type, ev.ContentIndex, ev.Delta, args)
	case core.EventToolCallEnd:
		args, _ := json.Marshal(ev.ToolCall.Arguments)
		s := fmt.Sprintf("%s %d %s %s %s", ev.Type, ev.ContentIndex, ev.ToolCall.ID, ev.ToolCall.Name, args)
		if d.Signatures {
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
