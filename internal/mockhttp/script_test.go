package mockhttp

import (
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
	sse := func(r *testResponse) *Faults { return &r.Faults }
	s, err := LoadScript(path, sse)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Responses) != 2 || s.Responses[0].Text != "hi" || s.Responses[0].SSE != "" || s.Responses[1].SSE != "data: 1\n\n" || s.Responses[1].SSEFile != "" {
		t.Fatalf("responses = %+v", s.Responses)
	}
	write("s.json", "{\"responses\": [\n {\"txt\": \"hi\"}]}")
	if _, err := LoadScript(path, sse); err == nil || !strings.Contains(err.Error(), path+": line 2") {
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
