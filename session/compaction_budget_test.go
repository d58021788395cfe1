package session

import (
	"errors"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

func TestCompactionSettingsForWindow(t *testing.T) {
	d := DefaultCompactionSettings()
	tests := []struct {
		window        int
		reserve, keep int
	}{
		{0, 16384, 20000},      // unknown window: pi's settings
		{200000, 16384, 20000}, // large windows: pi's settings
		{69491, 16384, 20000},  // the smallest window that keeps them
		{65536, 16384, 18022},  // (65536 - 16384 - 13107) / 2
		{32000, 8000, 8800},    // (32000 - 8000 - 6400) / 2
		{8000, 2000, 2200},     // (8000 - 2000 - 1600) / 2
		{4000, 1000, 1100},
		{3, 0, 1},
	}
	for _, tt := range tests {
		got := d.ForWindow(tt.window)
		want := CompactionSettings{Enabled: true, ReserveTokens: tt.reserve, KeepRecentTokens: tt.keep}
		if got != want {
			t.Errorf("ForWindow(%d) = %+v, want %+v", tt.window, got, want)
		}
	}
}

func TestSerializedPartsJoinToTheSerialization(t *testing.T) {
	ms := []core.Message{
		core.NewUserMessage("first", nil, 1),
		&core.AssistantMessage{Content: []core.Content{core.TextBlock("answer")}},
		&core.ToolResultMessage{ToolCallID: "c1", Content: []core.Content{}}, // renders to nothing
		&core.BashExecutionMessage{Command: "ls", Output: "a\n"},
		core.NewUserMessage("last", nil, 2),
	}
	parts := serializedParts(ms)
	if len(parts) != 4 {
		t.Fatalf("%d parts %q, want 4 (the empty tool result left out)", len(parts), parts)
	}
	if got, want := strings.Join(parts, "\n\n"), SerializeConversation(core.ConvertToLLM(ms)); got != want {
		t.Fatalf("joined parts\n%q\nwant\n%q", got, want)
	}
}

func TestTakeChunk(t *testing.T) {
	parts := []string{strings.Repeat("a", 100), strings.Repeat("b", 100), strings.Repeat("c", 100)}
	chunk, rest := takeChunk(parts, 202)
	if chunk != parts[0]+"\n\n"+parts[1] || len(rest) != 1 {
		t.Fatalf("budget 202: chunk of %d chars, %d left", len(chunk), len(rest))
	}
	chunk, rest = takeChunk(parts, 201)
	if chunk != parts[0] || len(rest) != 2 {
		t.Fatalf("budget 201: chunk of %d chars, %d left", len(chunk), len(rest))
	}
	chunk, rest = takeChunk(parts, -1)
	if chunk != strings.Join(parts, "\n\n") || rest != nil {
		t.Fatalf("unlimited: chunk of %d chars, %d left", len(chunk), len(rest))
	}
	// A part longer than the budget is cut short, so every chunk makes progress.
	chunk, rest = takeChunk(parts, 80)
	if len(chunk) > 80 || !strings.HasPrefix(chunk, strings.Repeat("a", 32)) || !strings.Contains(chunk, "more characters truncated]") || len(rest) != 2 {
		t.Fatalf("budget 80: chunk %q, %d left", chunk, len(rest))
	}
}

func TestPrepareAutoCompactionOverflowWithOnlyThePrompt(t *testing.T) {
	prompt := core.NewUserMessage(strings.Repeat("x", 40000), nil, 1)
	path := []*Entry{
		{ID: "m1", Type: EntryModelChange, Provider: "faux", ModelID: "faux-1"},
		{ID: "u1", ParentID: "m1", Type: EntryMessage, Message: prompt},
		{ID: "a1", ParentID: "u1", Type: EntryMessage, Message: &core.AssistantMessage{StopReason: core.StopReasonError, ErrorMessage: "prompt is too long"}},
	}
	_, err := prepareAutoCompaction(path, DefaultCompactionSettings(), 8000, CompactionOverflow)
	want := "nothing is left to compact but the current prompt (about 10000 tokens), and the request does not fit the model's context window (8000 tokens). Shorten the prompt or switch to a larger-context model"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	// Not an overflow: the ordinary answer.
	if _, err := prepareAutoCompaction(path, DefaultCompactionSettings(), 8000, CompactionThreshold); !errors.Is(err, errNothingToCompact) {
		t.Fatalf("threshold err = %v", err)
	}
}

// An overflow with history that all fits in the kept part of a large window: compaction
// cannot help, and the error says the configured window must be wrong, not that only the
// prompt is left.
func TestPrepareAutoCompactionOverflowWithHistoryThatFits(t *testing.T) {
	path := []*Entry{
		{ID: "u0", Type: EntryMessage, Message: core.NewUserMessage(strings.Repeat("h", 400), nil, 1)},
		{ID: "a0", ParentID: "u0", Type: EntryMessage, Message: &core.AssistantMessage{StopReason: core.StopReasonStop, Content: []core.Content{core.TextBlock(strings.Repeat("r", 4000))}}},
		{ID: "u1", ParentID: "a0", Type: EntryMessage, Message: core.NewUserMessage("now", nil, 2)},
		{ID: "a1", ParentID: "u1", Type: EntryMessage, Message: &core.AssistantMessage{StopReason: core.StopReasonError, ErrorMessage: "prompt is too long"}},
	}
	_, err := prepareAutoCompaction(path, DefaultCompactionSettings(), 1_000_000, CompactionOverflow)
	want := "the whole conversation (about 1101 tokens) fits in what compaction keeps for this model (20000 of its 1000000-token context window), yet the provider reports an overflow: the server's real context window is smaller than the one configured. Set the model's contextWindow in models.json (or --context-window), or switch to a larger-context model"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}
