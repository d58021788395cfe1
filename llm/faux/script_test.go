package faux_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
)

// docExample returns the script example of the package documentation, so the documented
// format is tested as written.
func docExample(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	for line := range strings.Lines(string(src)) {
		line = strings.TrimRight(line, "\n")
		if line == "//\t{" {
			in = true
		}
		if in {
			out = append(out, strings.TrimPrefix(line, "//\t"))
		}
		if in && line == "//\t}" {
			break
		}
	}
	if len(out) < 2 {
		t.Fatal("doc.go: no script example found")
	}
	return []byte(strings.Join(out, "\n"))
}

func TestParseDocExample(t *testing.T) {
	s, err := faux.ParseScript("doc.json", docExample(t))
	if err != nil {
		t.Fatalf("ParseScript: %v", err)
	}
	if s.Model.ID != "faux-1" || s.Model.ContextWindow != 32000 || s.Model.MaxTokens != 16384 || s.Model.API != "faux" {
		t.Errorf("model: got %+v, want faux-1 with a 32000 window and the default rest", s.Model)
	}
	if s.ChunkSize != 8 || s.Delay != 20*time.Millisecond {
		t.Errorf("chunkSize, delay: got %d, %v, want 8, 20ms", s.ChunkSize, s.Delay)
	}
	if len(s.Steps) != 4 {
		t.Fatalf("steps: got %d, want 4", len(s.Steps))
	}
	var types []string
	for _, b := range s.Steps[0].Content {
		types = append(types, string(b.Type))
	}
	if got := strings.Join(types, ","); got != "thinking,text,toolCall" {
		t.Errorf("step 0 block types: got %s, want thinking,text,toolCall", got)
	}
	if u := s.Steps[1].Usage; u == nil || u.Input != 120 || u.Output != 5 {
		t.Errorf("step 1 usage: got %+v, want input 120 output 5", u)
	}
	st := s.Steps[2]
	if st.StopReason != core.StopReasonError || st.ErrorMessage != "overloaded" || st.ErrorKind != core.ErrorRetryable || st.RetryAfter != time.Second {
		t.Errorf("step 2: got %q %q %q %v, want error overloaded retryable 1s", st.StopReason, st.ErrorMessage, st.ErrorKind, st.RetryAfter)
	}
	if st := s.Steps[3]; !st.Hang || st.HangAfter != 2 || strings.Join(st.Content[0].Deltas, "|") != "Thinking| very| slowly" {
		t.Errorf("step 3: got hang %v after %d deltas %q, want hang after 2 with 3 deltas", st.Hang, st.HangAfter, st.Content[0].Deltas)
	}

	var slept []time.Duration
	p := s.NewProvider(faux.WithClock(fixedClock), faux.WithSleep(func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		return nil
	}))
	if p.PendingCount() != 4 || p.Model().ContextWindow != 32000 {
		t.Errorf("provider: got %d pending, window %d, want 4, 32000", p.PendingCount(), p.Model().ContextWindow)
	}
	got, msg := run(t, p, context.Background(), userRequest("what does the README say?"))
	want := `[{"type":"thinking","thinking":"The user wants the README."},{"type":"text","text":"Let me read it."},` +
		`{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"README.md"}}]`
	if c := contentJSON(t, msg); c != want {
		t.Errorf("first response: got %s, want %s", c, want)
	}
	if msg.StopReason != core.StopReasonToolUse {
		t.Errorf("first stopReason: got %q, want toolUse", msg.StopReason)
	}
	if got[2] != `thinking_delta 0 "The user"` {
		t.Errorf("first delta: got %s, want 8 runes", got[2])
	}
	if len(slept) == 0 || slept[0] != 20*time.Millisecond {
		t.Errorf("pacing: got %v, want 20ms pauses", slept)
	}
}

func TestParseScriptErrors(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		want      string
		wantLine  int
		wantField string
	}{
		{
			name:     "syntax error",
			src:      "{\n  \"responses\": [\n    {\"content\": []},\n  ]\n}",
			want:     "s.json:4: invalid character ']' looking for beginning of value",
			wantLine: 4,
		},
		{
			name:     "empty file",
			src:      "",
			want:     "s.json:1: unexpected end of JSON input",
			wantLine: 1,
		},
		{
			name:      "not an object",
			src:       "[]",
			want:      "s.json:1: got array, want an object",
			wantLine:  1,
			wantField: "",
		},
		{
			name:      "wrong type",
			src:       "{\"responses\": [\n  {\"stopReason\": 5}\n]}",
			want:      "s.json:2: responses[0].stopReason: got number, want a string",
			wantLine:  2,
			wantField: "responses[0].stopReason",
		},
		{
			name:      "wrong type in a block",
			src:       "{\"responses\": [{\"content\": [\n\n  {\"type\": \"text\", \"text\": true}]}]}",
			want:      "s.json:3: responses[0].content[0].text: got bool, want a string",
			wantLine:  3,
			wantField: "responses[0].content[0].text",
		},
		{
			name:      "wrong type in the model",
			src:       "{\n\"model\": {\"id\": \"m\",\n \"contextWindow\": \"big\"}}",
			want:      "s.json:3: model.contextWindow: got string, want an integer",
			wantLine:  3,
			wantField: "model.contextWindow",
		},
		{
			name:      "responses not an array",
			src:       `{"responses": {}}`,
			want:      "s.json:1: responses: got object, want an array",
			wantLine:  1,
			wantField: "responses",
		},
		{
			name:      "arguments not an object",
			src:       "{\"responses\": [{\"content\": [\n{\"type\": \"toolCall\", \"name\": \"x\", \"arguments\": [1]}]}]}",
			want:      "s.json:2: responses[0].content[0].arguments: got array, want an object",
			wantLine:  2,
			wantField: "responses[0].content[0].arguments",
		},
		{
			name:      "unknown top-level field",
			src:       "{\n  \"replies\": []\n}",
			want:      "s.json:2: replies: unknown field",
			wantLine:  2,
			wantField: "replies",
		},
		{
			name:      "unknown response field",
			src:       "{\"responses\": [\n  {\"content\": [],\n   \"stopreason\": \"stop\"}]}",
			want:      "s.json:3: responses[0].stopreason: unknown field",
			wantLine:  3,
			wantField: "responses[0].stopreason",
		},
		{
			name:      "unknown block field",
			src:       "{\"responses\": [{}, {\"content\": [\n  {\"type\": \"text\", \"txt\": \"hi\"}]}]}",
			want:      "s.json:2: responses[1].content[0].txt: unknown field",
			wantLine:  2,
			wantField: "responses[1].content[0].txt",
		},
		{
			name:      "unknown model field",
			src:       "{\"model\": {\n  \"id\": \"m\",\n  \"contextWindw\": 5}}",
			want:      "s.json:3: model.contextWindw: unknown field",
			wantLine:  3,
			wantField: "model.contextWindw",
		},
		{
			name:      "unknown usage field",
			src:       "{\"responses\": [{\"usage\": {\"input\": 1,\n \"cost\": 2}}]}",
			want:      "s.json:2: responses[0].usage.cost: unknown field",
			wantLine:  2,
			wantField: "responses[0].usage.cost",
		},
		{
			name:      "bad stopReason",
			src:       "{\"responses\": [\n{\"stopReason\": \"done\"}]}",
			want:      `s.json:2: responses[0].stopReason: got "done", want one of stop, length, toolUse, error, aborted`,
			wantLine:  2,
			wantField: "responses[0].stopReason",
		},
		{
			name:      "bad errorKind",
			src:       `{"responses": [{"stopReason": "error", "errorKind": "flaky"}]}`,
			want:      `s.json:1: responses[0].errorKind: got "flaky", want one of retryable, overflow, auth, aborted, other`,
			wantLine:  1,
			wantField: "responses[0].errorKind",
		},
		{
			name:      "bad block type",
			src:       "{\"responses\": [{\"content\": [\n{\"type\": \"image\"}]}]}",
			want:      `s.json:2: responses[0].content[0].type: got "image", want one of text, thinking, toolCall`,
			wantLine:  2,
			wantField: "responses[0].content[0].type",
		},
		{
			name:      "missing block type",
			src:       "{\"responses\": [{\"content\": [\n{\"text\": \"hi\"}]}]}",
			want:      `s.json:2: responses[0].content[0].type: missing`,
			wantLine:  2,
			wantField: "responses[0].content[0].type",
		},
		{
			name:      "tool call without name",
			src:       "{\"responses\": [{\"content\": [\n{\"type\": \"toolCall\", \"arguments\": {}}]}]}",
			want:      `s.json:2: responses[0].content[0].name: a toolCall block needs a name`,
			wantLine:  2,
			wantField: "responses[0].content[0].name",
		},
		{
			name:      "field of another block type",
			src:       "{\"responses\": [{\"content\": [\n{\"type\": \"text\",\n \"thinking\": \"x\"}]}]}",
			want:      `s.json:3: responses[0].content[0].thinking: not allowed in a text block`,
			wantLine:  3,
			wantField: "responses[0].content[0].thinking",
		},
		{
			name:      "text and deltas",
			src:       `{"responses": [{"content": [{"type": "text", "text": "a", "deltas": ["a"]}]}]}`,
			want:      `s.json:1: responses[0].content[0].deltas: give text or deltas, not both`,
			wantLine:  1,
			wantField: "responses[0].content[0].deltas",
		},
		{
			name:      "errorMessage without error",
			src:       "{\"responses\": [{\"content\": [],\n \"errorMessage\": \"x\"}]}",
			want:      `s.json:2: responses[0].errorMessage: needs stopReason "error" or "aborted"`,
			wantLine:  2,
			wantField: "responses[0].errorMessage",
		},
		{
			name:      "retryAfterMs without error",
			src:       `{"responses": [{"stopReason": "aborted", "retryAfterMs": 5}]}`,
			want:      `s.json:1: responses[0].retryAfterMs: needs stopReason "error"`,
			wantLine:  1,
			wantField: "responses[0].retryAfterMs",
		},
		{
			name:      "negative chunkSize",
			src:       "{\n\"chunkSize\": -1}",
			want:      `s.json:2: chunkSize: got -1, want a number >= 0`,
			wantLine:  2,
			wantField: "chunkSize",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := faux.ParseScript("s.json", []byte(tc.src))
			if err == nil {
				t.Fatalf("ParseScript: got no error, want %q", tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("error: got %q, want %q", err.Error(), tc.want)
			}
			var se *faux.ScriptError
			if !errors.As(err, &se) {
				t.Fatalf("error type: got %T, want *faux.ScriptError", err)
			}
			if se.File != "s.json" || se.Line != tc.wantLine || se.Field != tc.wantField {
				t.Errorf("ScriptError: got %s:%d field %q, want s.json:%d field %q", se.File, se.Line, se.Field, tc.wantLine, tc.wantField)
			}
		})
	}
}

func TestParseScriptMinimal(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		wantSteps int
	}{
		{"empty object", `{}`, 0},
		{"empty responses", `{"responses": []}`, 0},
		{"empty response", `{"responses": [{}]}`, 1},
		{"empty deltas", `{"responses": [{"content": [{"type": "text", "deltas": []}]}]}`, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := faux.ParseScript("s.json", []byte(tc.src))
			if err != nil {
				t.Fatalf("ParseScript: %v", err)
			}
			if len(s.Steps) != tc.wantSteps {
				t.Errorf("steps: got %d, want %d", len(s.Steps), tc.wantSteps)
			}
			if s.Model.ID != "faux-1" {
				t.Errorf("model: got %q, want the default faux-1", s.Model.ID)
			}
			p := s.NewProvider(faux.WithClock(fixedClock))
			for range tc.wantSteps {
				run(t, p, context.Background(), userRequest("q"))
			}
		})
	}
}

func TestLoadScript(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(good, []byte(`{"responses": [{"content": [{"type": "text", "text": "hi"}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("{\n\"x\": 1}"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := faux.LoadScript(good)
	if err != nil {
		t.Fatalf("LoadScript(good): %v", err)
	}
	_, msg := run(t, s.NewProvider(), context.Background(), userRequest("q"))
	if txt := core.TextOf(msg.Content); txt != "hi" {
		t.Errorf("reply: got %q, want hi", txt)
	}
	if _, err := faux.LoadScript(bad); err == nil || err.Error() != bad+":2: x: unknown field" {
		t.Errorf("LoadScript(bad): got %v, want %s:2: x: unknown field", err, bad)
	}
	missing := filepath.Join(dir, "missing.json")
	if _, err := faux.LoadScript(missing); err == nil || !strings.Contains(err.Error(), missing) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadScript(missing): got %v, want a not-exist error naming %s", err, missing)
	}
}
