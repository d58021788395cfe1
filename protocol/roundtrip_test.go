package protocol_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/protocol"
)

// roundTrip decodes one event's params into the Go type that documents its type, encodes it
// again and reports any difference from the original, compared as generic JSON.
func roundTrip(data []byte) error {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	doc, ok := protocol.EventDocTypes[head.Type]
	if !ok {
		return fmt.Errorf("no Go type for event type %q", head.Type)
	}
	v := reflect.New(reflect.TypeOf(doc))
	if err := json.Unmarshal(data, v.Interface()); err != nil {
		return fmt.Errorf("decoding into %T: %w", doc, err)
	}
	again, err := json.Marshal(v.Interface())
	if err != nil {
		return fmt.Errorf("encoding %T: %w", doc, err)
	}
	var want, got any
	if err := json.Unmarshal(data, &want); err != nil {
		return err
	}
	if err := json.Unmarshal(again, &got); err != nil {
		return err
	}
	if !reflect.DeepEqual(want, got) {
		return fmt.Errorf("%T does not round-trip:\n got %s\nwant %s", doc, again, data)
	}
	return nil
}

// TestEventTypesRoundTrip decodes every event, from a real supervisor run and hand-built for
// every type with core's and the session's encoders, into its Go type and checks that
// encoding it again loses no field: the Go types hold whole events, not just their schema.
func TestEventTypesRoundTrip(t *testing.T) {
	seen := map[string]int{}
	check := func(what string, data []byte) {
		t.Helper()
		if err := roundTrip(data); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	for _, ev := range runSupervisor(t).sink.all() {
		check("supervisor seq "+strconv.FormatInt(ev.Seq, 10), ev.Data)
	}
	built := handBuiltEvents(t)
	for _, typ := range protocol.EventTypes {
		for i, data := range built[typ] {
			check(fmt.Sprintf("built %s #%d", typ, i), data)
			seen[typ]++
		}
		if seen[typ] == 0 {
			t.Errorf("no %s event to round-trip", typ)
		}
	}
}

// TestUnionsDecode checks the decoded values themselves, not only that they re-encode.
func TestUnionsDecode(t *testing.T) {
	var end protocol.MessageEndEvent
	if err := json.Unmarshal([]byte(`{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a"}}],"api":"x","provider":"p","model":"m","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":5},"seq":3,"runId":"r1"}`), &end); err != nil {
		t.Fatal(err)
	}
	if end.Message.Message == nil || end.Message.Role() != "assistant" || end.Seq != 3 || end.RunID != "r1" {
		t.Fatalf("message_end decoded as %+v", end)
	}
	if calls := end.Message.Message.(interface{ ToolCalls() []*core.Content }).ToolCalls(); len(calls) != 1 || calls[0].Arguments["path"] != "a" {
		t.Errorf("tool calls = %v", calls)
	}

	var upd protocol.MessageUpdateEvent
	if err := json.Unmarshal([]byte(`{"type":"message_update","assistantMessageEvent":{"type":"toolcall_end","contentIndex":1,"toolCall":{"type":"toolCall","id":"c1","name":"read","arguments":{}}},"seq":4,"runId":"r1"}`), &upd); err != nil {
		t.Fatal(err)
	}
	if e := upd.AssistantMessageEvent; e.Type != "toolcall_end" || e.ContentIndex != 1 || e.ToolCall == nil || e.ToolCall.ID != "c1" {
		t.Errorf("assistantMessageEvent decoded as %+v", e)
	}

	var turn protocol.TurnEndEvent
	if err := json.Unmarshal([]byte(`{"type":"turn_end","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"}],"api":"x","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1},"toolResults":[{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"data"}],"isError":false,"timestamp":2}],"seq":5,"runId":"r1"}`), &turn); err != nil {
		t.Fatal(err)
	}
	if len(turn.Message.Content) != 1 || turn.Message.Content[0].Thinking != "hm" || len(turn.ToolResults) != 1 || turn.ToolResults[0].Content[0].Text != "data" {
		t.Errorf("turn_end decoded as %+v", turn)
	}

	var bad protocol.AgentEndEvent
	if err := json.Unmarshal([]byte(`{"type":"agent_end","messages":[{"role":"robot"}],"willRetry":false,"seq":1,"runId":"r1"}`), &bad); err == nil {
		t.Error("a message of an unknown role decodes")
	}
}
