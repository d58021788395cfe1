package core_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

// A tool call keeps the model's arguments text: encoding writes it (not the sorted map),
// decoding keeps it, and text that Go's encoder escaped or spaced reads back as the model
// wrote it.
func TestToolCallArgumentsTextRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name, in, wantText string
		wantArgs           map[string]any
	}{
		{"model order", `{"z":1,"a":2}`, `{"z":1,"a":2}`, map[string]any{"z": 1.0, "a": 2.0}},
		{"spaced", "{ \"z\" : [1, 2],\n \"a\" : \"x y\" }", `{"z":[1,2],"a":"x y"}`, map[string]any{"z": []any{1.0, 2.0}, "a": "x y"}},
		{"html escapes", `{"c":"a \u0026\u0026 b \u003cx\u003e \\u0026"}`, `{"c":"a && b <x> \\u0026"}`, map[string]any{"c": `a && b <x> \u0026`}},
		{"null", `null`, `{}`, map[string]any{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"edit","arguments":` + tc.in + `}],"stopReason":"toolUse","timestamp":1}`
			for _, decode := range []struct {
				name string
				f    func() (*core.AssistantMessage, error)
			}{
				{"DecodeMessage", func() (*core.AssistantMessage, error) {
					m, err := core.DecodeMessage([]byte(line))
					a, _ := m.(*core.AssistantMessage)
					return a, err
				}},
				{"AssistantMessage.UnmarshalJSON", func() (*core.AssistantMessage, error) {
					var a core.AssistantMessage
					return &a, json.Unmarshal([]byte(line), &a)
				}},
			} {
				msg, err := decode.f()
				if err != nil {
					t.Fatalf("%s: %v", decode.name, err)
				}
				c := msg.Content[0]
				if got := c.ArgumentsJSON(); got != tc.wantText {
					t.Errorf("%s: arguments text %s, want %s", decode.name, got, tc.wantText)
				}
				if a, _ := json.Marshal(c.Arguments); string(a) != mustJSON(t, tc.wantArgs) {
					t.Errorf("%s: arguments %s, want %v", decode.name, a, tc.wantArgs)
				}
				out, err := json.Marshal(msg)
				if err != nil {
					t.Fatal(err)
				}
				// Written back, the arguments are the text (Go's encoder escapes <, > and &
				// again; decoding undoes that, as the case above shows).
				again, err := core.DecodeMessage(out)
				if err != nil {
					t.Fatal(err)
				}
				if got := again.(*core.AssistantMessage).Content[0].ArgumentsJSON(); got != tc.wantText {
					t.Errorf("%s: after a round trip %s, want %s (%s)", decode.name, got, tc.wantText, out)
				}
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Arguments that are not an object are refused with a clear error.
func TestToolCallArgumentsNotAnObject(t *testing.T) {
	for _, args := range []string{`"x"`, `[1]`, `3`} {
		_, err := core.DecodeMessage([]byte(`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"edit","arguments":` + args + `}],"timestamp":1}`))
		if err == nil || !strings.Contains(err.Error(), `tool call "c1": arguments`) {
			t.Errorf("arguments %s: err %v, want a clear error", args, err)
		}
	}
}

// The builder keeps the streamed text when the fragments made one complete object, and only
// then: a cut-off or repaired call has only the parsed map, encoded as usual.
func TestBuilderKeepsArgumentsText(t *testing.T) {
	model := &core.Model{ID: "m"}
	for _, tc := range []struct {
		name      string
		fragments []string
		abort     bool
		want      string
	}{
		{"complete", []string{`{"z": 1,`, ` "a": {"y": true, "b": null}}`}, false, `{"z":1,"a":{"y":true,"b":null}}`},
		{"cut off by an abort", []string{`{"z": 1, "a": "x`}, true, `{"a":"x","z":1}`},
		{"repaired", []string{`{"z": 1, "a": "x` + "\n" + `y"}`}, false, `{"a":"x\ny","z":1}`},
		{"trailing data", []string{`{"z": 1} {`}, false, `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var final *core.AssistantMessage
			b := core.NewMessageBuilder(model, 1, func(ev core.AssistantEvent) bool {
				if ev.Type == core.EventDone || ev.Type == core.EventError {
					final = ev.Partial
				}
				return true
			})
			for _, f := range tc.fragments {
				b.ToolCall(0, "c1", "edit", f)
			}
			if tc.abort {
				b.Fail(core.Aborted())
			} else {
				b.Done()
			}
			c := final.Content[0]
			if got := c.ArgumentsJSON(); got != tc.want {
				t.Errorf("arguments text %s, want %s", got, tc.want)
			}
			block, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(block), `"arguments":`+tc.want) {
				t.Errorf("block %s lacks arguments %s", block, tc.want)
			}
		})
	}
}
