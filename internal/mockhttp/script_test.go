package mockhttp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type testResponse struct {
	Text string `json:"text,omitempty"`
	Faults
}

// TestLoadScript reads a script whose second response names a capture: the capture is
// inlined, the first response is left alone, and an unknown field names its line.
func TestLoadScript(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cap.sse", "data: 1\n\n")
	write("s.json", `{"responses": [{"text": "hi"}, {"sseFile": "cap.sse"}]}`)
	s, err := LoadScript[testResponse](path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Responses) != 2 || s.Responses[0].Text != "hi" || s.Responses[0].SSE != "" || s.Responses[1].SSE != "data: 1\n\n" || s.Responses[1].SSEFile != "" {
		t.Fatalf("responses = %+v", s.Responses)
	}
	write("s.json", "{\"responses\": [\n {\"txt\": \"hi\"}]}")
	if _, err := LoadScript[testResponse](path); err == nil || !strings.Contains(err.Error(), path+": line 2") {
		t.Fatalf("err = %v, want the file and line 2 named", err)
	}
	if _, err := ParseScript[testResponse]([]byte(`{"responses": [{"sseFile": "x"}]}`)); err != nil {
		t.Fatalf("ParseScript: %v (it does not read files)", err)
	}
}

// TestInitScript: a nil script is an empty queue.
func TestInitScript(t *testing.T) {
	var r Recorder[testResponse]
	r.InitScript(nil)
	if r.Pending() != 0 {
		t.Fatalf("pending = %d", r.Pending())
	}
	r.InitScript(&Script[testResponse]{Responses: []testResponse{{Text: "a"}}})
	if r.Pending() != 1 {
		t.Fatalf("pending = %d, want 1", r.Pending())
	}
}

// TestSteps: Fragments splits text into steps; CallSteps streams each call's start and then
// its argument fragments, one call after another.
func TestSteps(t *testing.T) {
	got := Fragments("abcde", 2, func(s string) string { return "t:" + s })
	calls := []ToolCall{{ID: "c1", Name: "ls", Arguments: `{"a":1}`}, {ID: "c2", Name: "rm"}}
	got = append(got, CallSteps(calls, 4,
		func(s *ToolCallStart) string { return fmt.Sprintf("start %d %s %s", s.Index, s.ID, s.Name) },
		func(a *ArgsFragment) string { return fmt.Sprintf("args %d %s", a.Index, a.Fragment) })...)
	want := []string{"t:ab", "t:cd", "t:e", "start 0 c1 ls", `args 0 {"a"`, "args 0 :1}", "start 1 c2 rm"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("steps = %q, want %q", got, want)
	}
}

// TestPlaySteps plays the scripted events when there are any (an empty list counts), else
// the generated ones, and stops at the first step that ends the stream.
func TestPlaySteps(t *testing.T) {
	gen := func() []string { return []string{"g1", "g2"} }
	var played []string
	step := func(s string) bool { played = append(played, s); return s != "stop" }
	if !PlaySteps(nil, gen, step) || !PlaySteps([]string{}, gen, step) || PlaySteps([]string{"a", "stop", "b"}, gen, step) {
		t.Fatal("PlaySteps reported the wrong outcome")
	}
	if got := strings.Join(played, "|"); got != "g1|g2|a|stop" {
		t.Fatalf("played %q", got)
	}
	if Reason("x", "stop", "tools", true) != "x" || Reason("", "stop", "tools", true) != "tools" || Reason("", "stop", "tools", false) != "stop" {
		t.Fatal("Reason")
	}
	if Tokens(0) != 1 || Tokens(8) != 3 {
		t.Fatal("Tokens")
	}
}
