package acp

import (
	"path/filepath"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

func TestSelectedOption(t *testing.T) {
	cases := map[string]string{
		`{"outcome":{"outcome":"selected","optionId":"allow_always"}}`: "allow_always",
		`{"outcome":{"outcome":"selected","optionId":"maybe"}}`:        "",
		`{"outcome":{"outcome":"cancelled"}}`:                          "",
		`{"outcome":{"outcome":"dismissed"}}`:                          "",
		`[]`:                                                           "",
	}
	for in, want := range cases {
		got, err := selectedOption([]byte(in))
		if got != want || (want == "") != (err != nil) {
			t.Errorf("%s: %q, %v", in, got, err)
		}
	}
}

func TestPromptInput(t *testing.T) {
	text, images, err := promptInput([]sdk.ContentBlock{
		sdk.TextBlock("look"),
		sdk.ResourceLinkBlock("main.go", "file:///w/main.go"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///w/a.txt", Text: "A\n"}}),
		sdk.ImageBlock("AAAA", "image/png"),
	}, "/w")
	if err != nil || len(images) != 1 || images[0].MimeType != "image/png" {
		t.Fatalf("%v %v", images, err)
	}
	want := "look\n\n[Referenced: main.go](/w/main.go)\n\n<context ref=\"/w/a.txt\">\nA\n</context>"
	if text != want {
		t.Fatalf("text %q", text)
	}
	if _, _, err := promptInput([]sdk.ContentBlock{sdk.AudioBlock("AA", "audio/wav")}, "/w"); err == nil || err.Code != codeInvalidParams {
		t.Fatalf("audio: %v", err)
	}
	if _, _, err := promptInput(nil, "/w"); err == nil {
		t.Fatal("empty prompt accepted")
	}
}

func TestToolView(t *testing.T) {
	// Outside the cwd: said in full (on Windows too, where the relative path starts "..\").
	elsewhere := filepath.Join(filepath.Dir(testCwd), "elsewhere", "b")
	cases := []struct {
		name  string
		args  map[string]any
		title string
		kind  sdk.ToolKind
	}{
		{"read", map[string]any{"path": "src/main.go"}, "Read " + filepath.FromSlash("src/main.go"), sdk.ToolKindRead},
		{"edit", map[string]any{"path": filepath.Join(testCwd, "a.txt")}, "Edit a.txt", sdk.ToolKindEdit},
		{"write", map[string]any{"path": elsewhere}, "Write " + elsewhere, sdk.ToolKindEdit},
		{"bash", map[string]any{"command": "go test ./...\necho done"}, "Run go test ./... …", sdk.ToolKindExecute},
		{"grep", map[string]any{"pattern": "TODO"}, `Search "TODO"`, sdk.ToolKindSearch},
		{"update_plan", nil, "Update plan", sdk.ToolKindThink},
		{"mcp__docs__lookup", nil, "docs: lookup", sdk.ToolKindOther},
	}
	for _, c := range cases {
		if got := toolTitle(testCwd, c.name, c.args); got != c.title {
			t.Errorf("%s title %q, want %q", c.name, got, c.title)
		}
		if got := toolKind(c.name); got != c.kind {
			t.Errorf("%s kind %q", c.name, got)
		}
	}
	locs := toolLocations(testCwd, "read", map[string]any{"path": "a.go", "offset": float64(12)})
	if len(locs) != 1 || locs[0].Path != filepath.Join(testCwd, "a.go") || locs[0].Line == nil || *locs[0].Line != 12 {
		t.Fatalf("locations %+v", locs)
	}
}
