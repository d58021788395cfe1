package session

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

var updateCompaction = flag.Bool("update-compaction", false, "rewrite the goldens in session/testdata/compaction")

// checkCompactionGolden compares got with testdata/compaction/name, or rewrites the file
// under -update-compaction.
func checkCompactionGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "compaction", name)
	if *updateCompaction {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./session/ -update-compaction to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\ngot\n%s\nwant\n%s", path, got, want)
	}
}

// serializeFixture has every role and block kind SerializeConversation meets.
func serializeFixture() []core.Message {
	img := core.ImageBlock("iVBORw0KGgo=", "image/png")
	exit1 := 1
	return []core.Message{
		&core.UserMessage{Content: []core.Content{core.TextBlock("Fix the bug in parser.go"), img}},
		&core.UserMessage{Content: []core.Content{core.TextBlock("Part one. "), core.TextBlock("Part two.")}},
		cptAssistant(core.StopReasonToolUse, 0, 0,
			core.Content{Type: core.ContentThinking, Thinking: "Look at parser.go first."}, core.Content{Type: core.ContentThinking, Thinking: "Then run the tests."},
			core.TextBlock("I'll read it."),
			core.ToolCallBlock("c1", "read", map[string]any{"path": "parser.go", "offset": 10.0, "limit": 50.0})),
		cptToolResult(strings.Repeat("0123456789abcdefghij\n", 120)),
		&core.ToolResultMessage{ToolCallID: "c2", ToolName: "read", Content: []core.Content{img}},
		cptAssistant(core.StopReasonToolUse, 0, 0,
			core.ToolCallBlock("c3", "bash", map[string]any{"command": "go test ./... 2>&1 | grep -v '<ok>'", "timeout": 30.0}),
			core.ToolCallBlock("c4", "edit", map[string]any{"path": "p.go", "oldText": "a\tb", "newText": "\"quoted\" é 😀\u2028", "opts": map[string]any{"all": true, "n": nil, "list": []any{1.5, "x"}}})),
		cptToolResult("PASS"),
		cptAssistant(core.StopReasonStop, 0, 0, core.TextBlock("")),
		&core.BashExecutionMessage{Command: "ls", Output: "a.go\nb.go", ExitCode: &exit1},
		&core.BashExecutionMessage{Command: "secret", Output: "hidden", ExcludeFromContext: true},
		&core.CustomMessage{CustomType: "note", Content: []core.Content{core.TextBlock("Reminder: run gofmt.")}},
		&core.BranchSummaryMessage{Summary: "Tried approach A.", FromID: "abcd1234"},
		&core.CompactionSummaryMessage{Summary: "Earlier work.", TokensBefore: 1000},
		cptAssistant(core.StopReasonStop, 0, 0, core.TextBlock("Done."), core.TextBlock("Really.")),
		&core.UserMessage{Content: []core.Content{core.TextBlock("")}},
	}
}

// The golden was checked against pi 0.73.1's serializeConversation on the same messages.
func TestSerializeConversationGolden(t *testing.T) {
	checkCompactionGolden(t, "serialize.golden", SerializeConversation(core.ConvertToLLM(serializeFixture()))+"\n")
}

func TestSerializeConversationSkipsAgentRoles(t *testing.T) {
	got := SerializeConversation([]core.Message{&core.CompactionSummaryMessage{Summary: "s"}, cptUser("hi", 0)})
	if want := "[User]: hi"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTruncateForSummary(t *testing.T) {
	tests := []struct {
		name string
		text string
		max  int
		want string
	}{
		{"short", "abc", 3, "abc"},
		{"cut", "abcdef", 4, "abcd\n\n[... 2 more characters truncated]"},
		{"UTF-16 units", "é😀😀", 3, "é😀\n\n[... 2 more characters truncated]"},
		{"never half a surrogate pair", "ab😀c", 3, "ab\n\n[... 2 more characters truncated]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := truncateForSummary(tt.text, tt.max); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFileOperations(t *testing.T) {
	f := newFileOperations()
	f.addDetails(&sessionapi.CompactionDetails{ReadFiles: []string{"notes.txt", "b.go"}, ModifiedFiles: []string{"go.mod"}})
	f.addMessage(cptAssistant(core.StopReasonToolUse, 0, 0,
		core.ToolCallBlock("1", "read", map[string]any{"path": "b.go"}),
		core.ToolCallBlock("2", "write", map[string]any{"path": "b.go"}),
		core.ToolCallBlock("3", "edit", map[string]any{"path": "README.md"}),
		core.ToolCallBlock("4", "read", map[string]any{"path": "a.go"}),
		core.ToolCallBlock("5", "read", map[string]any{"path": ""}),
		core.ToolCallBlock("6", "read", map[string]any{"path": 7.0}),
		core.ToolCallBlock("7", "bash", map[string]any{"path": "x"}),
		core.ToolCallBlock("8", "read", nil)))
	f.addMessage(cptUser("read(path=z)", 0))
	read, modified := f.Lists()
	if want := []string{"a.go", "notes.txt"}; !slices.Equal(read, want) {
		t.Errorf("read: got %v, want %v", read, want)
	}
	if want := []string{"README.md", "b.go", "go.mod"}; !slices.Equal(modified, want) {
		t.Errorf("modified: got %v, want %v", modified, want)
	}
	got := formatFileOperations(read, modified)
	want := "\n\n<read-files>\na.go\nnotes.txt\n</read-files>\n\n<modified-files>\nREADME.md\nb.go\ngo.mod\n</modified-files>"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFormatFileOperations(t *testing.T) {
	tests := []struct {
		name           string
		read, modified []string
		want           string
	}{
		{"none", []string{}, nil, ""},
		{"read only", []string{"a"}, nil, "\n\n<read-files>\na\n</read-files>"},
		{"modified only", nil, []string{"b", "c"}, "\n\n<modified-files>\nb\nc\n</modified-files>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := formatFileOperations(tt.read, tt.modified); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
