package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// cptStamp gives entry n a timestamp one second after entry n-1.
func cptStamp(n int) string { return fmt.Sprintf("2026-05-07T10:00:%02d.000Z", n) }

// cptBranch links entries into a branch: ids e01, e02, …, parents, timestamps.
func cptBranch(entries ...*Entry) []*Entry {
	for i, e := range entries {
		e.ID = fmt.Sprintf("e%02d", i+1)
		if i > 0 {
			e.ParentID = entries[i-1].ID
		}
		e.Timestamp = cptStamp(i + 1)
	}
	return entries
}

// splitTurnBranch is a branch with a previous compaction (which kept e04 onwards) and a
// long turn after it. keep is the KeepRecentTokens that cuts that turn at e12, an assistant
// message, so e09–e11 are the turn prefix and e04–e06 the history to summarise.
func splitTurnBranch() (path []*Entry, keep int) {
	call := func(id, name string, args map[string]any) core.Content { return core.ToolCallBlock(id, name, args) }
	result := func(name, text string) *core.ToolResultMessage {
		return &core.ToolResultMessage{ToolCallID: "x", ToolName: name, Content: []core.Content{core.TextBlock(text)}}
	}
	details, _ := json.Marshal(sessionapi.CompactionDetails{ReadFiles: []string{"notes.txt"}, ModifiedFiles: []string{"go.mod"}})
	path = cptBranch(
		cptMsg("", cptUser("Set up the project skeleton.", 1)),
		cptMsg("", cptAssistant(core.StopReasonToolUse, 900, 2, core.TextBlock("Creating go.mod."),
			call("c1", "write", map[string]any{"path": "go.mod", "content": "module example\n"}))),
		cptMsg("", result("write", "Successfully wrote 15 bytes to go.mod")),
		cptMsg("", cptUser("Now add a README.", 4)),
		cptMsg("", cptAssistant(core.StopReasonToolUse, 1200, 5,
			call("c2", "write", map[string]any{"path": "README.md", "content": "# example\n"}))),
		cptMsg("", result("write", "Successfully wrote 10 bytes to README.md")),
		&Entry{Type: EntryCompaction, Summary: "## Goal\nSet up the project skeleton.", FirstKeptEntryID: "e04", TokensBefore: 1234, Details: details},
		&Entry{Type: EntryThinkingLevelChange, ThinkingLevel: core.ThinkingHigh},
		cptMsg("", cptUser("Add a --verbose flag to cmd/tool/main.go and test it.", 9)),
		cptMsg("", cptAssistant(core.StopReasonToolUse, 1500, 10, core.Content{Type: core.ContentThinking, Thinking: "Read main.go first."},
			call("c3", "read", map[string]any{"path": "cmd/tool/main.go"}))),
		cptMsg("", result("read", "package main\n\n"+strings.Repeat("// filler line of the original file\n", 60)+"func main() {}\n")),
		cptMsg("", cptAssistant(core.StopReasonToolUse, 4000, 12, core.TextBlock("Adding the flag."),
			call("c4", "edit", map[string]any{"path": "cmd/tool/main.go", "oldText": "func main() {}", "newText": "func main() {\n\tverbose := flag.Bool(\"verbose\", false, \"log more\")\n}"}))),
		cptMsg("", result("edit", "Successfully replaced text in cmd/tool/main.go.")),
		cptMsg("", cptAssistant(core.StopReasonToolUse, 4200, 14, call("c5", "bash", map[string]any{"command": "go test ./..."}))),
		cptMsg("", result("bash", "ok  \texample/cmd/tool\t0.012s")),
		cptMsg("", cptAssistant(core.StopReasonStop, 4400, 16, core.TextBlock("Done: --verbose is added and the tests pass."))),
	)
	for _, e := range path[11:] {
		keep += EstimateTokens(e.Message)
	}
	return path, keep
}

func cptIDs(ms []core.Message, path []*Entry) []string {
	var ids []string
	for _, m := range ms {
		for _, e := range path {
			if e.Message == m {
				ids = append(ids, e.ID)
			}
		}
	}
	return ids
}

func TestPrepareCompactionWithPreviousCompaction(t *testing.T) {
	path, keep := splitTurnBranch()
	s := CompactionSettings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: keep}
	prep, ok := prepareCompaction(path, len(path), s)
	if !ok {
		t.Fatal("got nothing to compact")
	}
	if got, want := prep.FirstKeptEntryID, "e12"; got != want {
		t.Errorf("FirstKeptEntryID: got %v, want %v", got, want)
	}
	if !prep.IsSplitTurn {
		t.Errorf("IsSplitTurn: got %v, want %v", prep.IsSplitTurn, true)
	}
	if got, want := cptIDs(prep.MessagesToSummarize, path), []string{"e04", "e05", "e06"}; !slices.Equal(got, want) {
		t.Errorf("MessagesToSummarize: got %v, want %v", got, want)
	}
	if got, want := cptIDs(prep.TurnPrefixMessages, path), []string{"e09", "e10", "e11"}; !slices.Equal(got, want) {
		t.Errorf("TurnPrefixMessages: got %v, want %v", got, want)
	}
	if got, want := prep.PreviousSummary, path[6].Summary; got != want {
		t.Errorf("PreviousSummary: got %v, want %v", got, want)
	}
	if got, want := prep.TokensBefore, 4400; got != want {
		t.Errorf("TokensBefore: got %v, want %v", got, want)
	}
	// main.go is edited only in the kept part, so for what is summarised it was only read.
	read, modified := prep.FileOps.Lists()
	if want := []string{"cmd/tool/main.go", "notes.txt"}; !slices.Equal(read, want) {
		t.Errorf("read files: got %v, want %v", read, want)
	}
	if want := []string{"README.md", "go.mod"}; !slices.Equal(modified, want) {
		t.Errorf("modified files: got %v, want %v", modified, want)
	}
	if prep.Settings != s {
		t.Errorf("Settings: got %+v, want %+v", prep.Settings, s)
	}
}

func TestPrepareCompactionFirst(t *testing.T) {
	path := cptBranch(cptPairs(5)...)
	path[9].Message.(*core.AssistantMessage).Usage.TotalTokens = 1000
	prep, ok := prepareCompaction(path, len(path), CompactionSettings{Enabled: true, ReserveTokens: 1000, KeepRecentTokens: 301})
	if !ok {
		t.Fatal("got nothing to compact")
	}
	if got, want := prep.FirstKeptEntryID, "e07"; got != want {
		t.Errorf("FirstKeptEntryID: got %v, want %v", got, want)
	}
	if got, want := cptIDs(prep.MessagesToSummarize, path), []string{"e01", "e02", "e03", "e04", "e05", "e06"}; !slices.Equal(got, want) {
		t.Errorf("MessagesToSummarize: got %v, want %v", got, want)
	}
	if prep.IsSplitTurn || prep.TurnPrefixMessages != nil || prep.PreviousSummary != "" {
		t.Errorf("got split %v, prefix %v, previous summary %q, want none", prep.IsSplitTurn, prep.TurnPrefixMessages, prep.PreviousSummary)
	}
	if got, want := prep.TokensBefore, 1000; got != want {
		t.Errorf("TokensBefore: got %v, want %v", got, want)
	}
}

func TestPrepareCompactionBoundary(t *testing.T) {
	withCompaction := func(firstKept string, fromHook bool) []*Entry {
		details, _ := json.Marshal(sessionapi.CompactionDetails{ReadFiles: []string{"old.txt"}, ModifiedFiles: []string{}})
		es := append(cptPairs(2), &Entry{Type: EntryCompaction, Summary: "old", FirstKeptEntryID: firstKept, Details: details, FromHook: fromHook})
		return cptBranch(append(es, cptPairs(2)...)...)
	}
	tests := []struct {
		name      string
		path      []*Entry
		wantFirst []string
		wantRead  []string
	}{
		{"starts at the previous first kept entry", withCompaction("e03", false), []string{"e03", "e04", "e06", "e07"}, []string{"old.txt"}},
		{"unknown first kept entry starts after the compaction", withCompaction("zzzz", false), []string{"e06", "e07"}, []string{"old.txt"}},
		{"details of an extension's compaction are not carried on", withCompaction("e03", true), []string{"e03", "e04", "e06", "e07"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prep, ok := prepareCompaction(tt.path, len(tt.path), CompactionSettings{KeepRecentTokens: 200})
			if !ok {
				t.Fatal("got nothing to compact")
			}
			if got := cptIDs(prep.MessagesToSummarize, tt.path); !slices.Equal(got, tt.wantFirst) {
				t.Errorf("MessagesToSummarize: got %v, want %v", got, tt.wantFirst)
			}
			if read, _ := prep.FileOps.Lists(); !slices.Equal(read, tt.wantRead) {
				t.Errorf("read files: got %v, want %v", read, tt.wantRead)
			}
		})
	}
}

func TestPrepareCompactionNothingToDo(t *testing.T) {
	tests := []struct {
		name string
		path []*Entry
		keep int
	}{
		{"empty branch", nil, 100},
		{"already compacted", cptBranch(append(cptPairs(3), &Entry{Type: EntryCompaction, FirstKeptEntryID: "e01"})...), 100},
		{"everything fits", cptBranch(cptPairs(3)...), 100000},
		{"only metadata", cptBranch(cptMeta("", EntryModelChange), cptMeta("", EntryLabel)), 100},
		{"first kept entry has no id", []*Entry{cptMsg("", cptUser("a", 0)), cptMsg("", cptUser(cptText(100), 0))}, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if prep, ok := prepareCompaction(tt.path, len(tt.path), CompactionSettings{KeepRecentTokens: tt.keep}); ok {
				t.Errorf("got %+v, want nothing to compact", prep)
			}
		})
	}
}

// cptReply scripts one summary response.
type cptReply struct {
	text         string
	fail         string
	failSilently bool   // fails with no error message
	abort        func() // cancels the request's context, then the reply is aborted
}

// cptRecorder is a provider that records each request and streams the scripted replies.
type cptRecorder struct {
	replies []cptReply
	reqs    []*core.Request
}

func (r *cptRecorder) Stream(_ context.Context, req *core.Request) iter.Seq[core.AssistantEvent] {
	r.reqs = append(r.reqs, req)
	reply := r.replies[len(r.reqs)-1]
	return func(yield func(core.AssistantEvent) bool) {
		b := core.NewMessageBuilder(&req.Model, 1, yield)
		switch {
		case reply.abort != nil:
			reply.abort()
			b.Fail(core.Aborted())
		case reply.fail != "" || reply.failSilently:
			b.Fail(&core.ProviderError{Kind: core.ErrorOther, Message: reply.fail})
		default:
			for _, part := range strings.SplitAfter(reply.text, " ") {
				if !b.Text(part) {
					return
				}
			}
			b.Done()
		}
	}
}

// dump renders the recorded requests for a golden file.
func (r *cptRecorder) dump() string {
	var b strings.Builder
	for i, req := range r.reqs {
		fmt.Fprintf(&b, "=== request %d ===\nmodel: %s\nmaxTokens: %d\nthinkingLevel: %s\ntools: %d\n", i+1, req.Model.ID, req.MaxTokens, req.ThinkingLevel, len(req.Tools))
		for _, m := range req.Messages {
			fmt.Fprintf(&b, "message: %s, %d block(s)\n", m.Role(), len(m.(*core.UserMessage).Content))
		}
		fmt.Fprintf(&b, "--- system ---\n%s\n--- user ---\n%s\n", req.SystemPrompt, core.TextOf(req.Messages[0].(*core.UserMessage).Content))
	}
	return b.String()
}

func dumpResult(res *sessionapi.CompactionResult) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(res)
	return "=== result ===\n" + b.String() + "--- summary ---\n" + res.Summary + "\n"
}

var (
	reasoningModel = core.Model{ID: "thinker", Provider: "p", API: "openai-completions", Reasoning: true, ContextWindow: 200000, MaxTokens: 32000}
	plainModel     = core.Model{ID: "plain", Provider: "p", API: "openai-completions", ContextWindow: 128000, MaxTokens: 16000}
)

// The summary requests of an iterated compaction that splits a turn: the update prompt with
// the previous summary and the custom focus, then the turn-prefix prompt; the session's
// thinking level on a reasoning model; 80% and 50% of the reserve as output limits.
func TestCompactGoldenSplitTurn(t *testing.T) {
	path, keep := splitTurnBranch()
	prep, ok := prepareCompaction(path, len(path), CompactionSettings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: keep})
	if !ok {
		t.Fatal("got nothing to compact")
	}
	rec := &cptRecorder{replies: []cptReply{
		{text: "## Goal\nSet up the project skeleton and a README."},
		{text: "## Original Request\nAdd a --verbose flag."},
	}}
	res, err := Compact(context.Background(), rec, reasoningModel, core.ThinkingHigh, prep, "Focus on the CLI flags.")
	if err != nil {
		t.Fatal(err)
	}
	checkCompactionGolden(t, "split_turn.golden", rec.dump()+dumpResult(res))
}

// A first compaction on a model without reasoning: the initial prompt, thinking off.
func TestCompactGoldenFirst(t *testing.T) {
	path := cptBranch(
		cptMsg("", cptUser("What does main.go do?", 1)),
		cptMsg("", cptAssistant(core.StopReasonToolUse, 500, 2, core.ToolCallBlock("c1", "read", map[string]any{"path": "main.go"}))),
		cptMsg("", cptToolResult("package main\n\nfunc main() { println(\"hi\") }")),
		cptMsg("", cptAssistant(core.StopReasonStop, 700, 4, core.TextBlock("It prints hi."))),
		cptMsg("", cptUser("Thanks. "+cptText(100), 5)),
	)
	prep, ok := prepareCompaction(path, len(path), CompactionSettings{Enabled: true, ReserveTokens: 10000, KeepRecentTokens: 100})
	if !ok {
		t.Fatal("got nothing to compact")
	}
	rec := &cptRecorder{replies: []cptReply{{text: "## Goal\nUnderstand main.go."}}}
	res, err := Compact(context.Background(), rec, plainModel, core.ThinkingHigh, prep, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.FirstKeptEntryID, "e05"; got != want {
		t.Errorf("FirstKeptEntryID: got %v, want %v", got, want)
	}
	checkCompactionGolden(t, "first.golden", rec.dump()+dumpResult(res))
}

func TestCompactSplitTurnWithoutHistory(t *testing.T) {
	prep := &CompactionPreparation{
		FirstKeptEntryID:   "e03",
		TurnPrefixMessages: []core.Message{cptUser("do it", 0)},
		IsSplitTurn:        true,
		Settings:           DefaultCompactionSettings(),
	}
	rec := &cptRecorder{replies: []cptReply{{text: "prefix"}}}
	res, err := Compact(context.Background(), rec, reasoningModel, core.ThinkingOff, prep, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := "No prior history.\n\n---\n\n**Turn Context (split turn):**\n\nprefix"; res.Summary != want {
		t.Errorf("got %q, want %q", res.Summary, want)
	}
	if len(rec.reqs) != 1 || rec.reqs[0].MaxTokens != 8192 || rec.reqs[0].ThinkingLevel != core.ThinkingOff {
		t.Errorf("got %d request(s), want one turn-prefix request with 8192 tokens and thinking off", len(rec.reqs))
	}
	if res.Details == nil || res.Details.ReadFiles == nil || res.Details.ModifiedFiles == nil {
		t.Errorf("got details %+v, want empty non-nil lists", res.Details)
	}
}

func TestCompactErrors(t *testing.T) {
	path, keep := splitTurnBranch()
	s := CompactionSettings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: keep}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name       string
		ctx        func() (context.Context, context.CancelFunc)
		replies    []cptReply
		wantErr    string
		wantCancel bool
		wantReqs   int
	}{
		{"history fails", nil, []cptReply{{fail: "500 Internal Server Error"}}, "Summarization failed: 500 Internal Server Error", false, 1},
		{"history fails without a message", nil, []cptReply{{failSilently: true}}, "Summarization failed: Unknown error", false, 1},
		{"turn prefix fails", nil, []cptReply{{text: "ok"}, {fail: "overloaded"}}, "Turn prefix summarization failed: overloaded", false, 2},
		{"aborted during the request", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			nil, "summarization aborted: context canceled", true, 1},
		{"cancelled before", func() (context.Context, context.CancelFunc) { return cancelled, func() {} },
			nil, "summarization aborted: context canceled", true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prep, _ := prepareCompaction(path, len(path), s)
			ctx, stop := context.Background(), context.CancelFunc(func() {})
			if tt.ctx != nil {
				ctx, stop = tt.ctx()
			}
			defer stop()
			replies := tt.replies
			if replies == nil {
				replies = []cptReply{{abort: stop}}
			}
			rec := &cptRecorder{replies: replies}
			_, err := Compact(ctx, rec, reasoningModel, core.ThinkingHigh, prep, "")
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("got %v, want %v", err, tt.wantErr)
			}
			if got := errors.Is(err, context.Canceled); got != tt.wantCancel {
				t.Errorf("errors.Is(err, context.Canceled): got %v, want %v", got, tt.wantCancel)
			}
			if len(rec.reqs) != tt.wantReqs {
				t.Errorf("requests: got %v, want %v", len(rec.reqs), tt.wantReqs)
			}
		})
	}
}
