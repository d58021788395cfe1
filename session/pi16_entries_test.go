package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// A branch as pi 1.6.0 writes it: a leading system message, a failed reply hidden by a
// context_edit, a usage entry, a compaction with its system checkpoint and usage, and a
// system message among the kept entries (dropped in the checkpoint's favour).
const pi16Branch = `{"type":"model_change","id":"m0000001","parentId":null,"timestamp":"2026-12-01T00:00:00.000Z","provider":"mock","modelId":"m1"}
{"type":"message","id":"s0000001","parentId":"m0000001","timestamp":"2026-12-01T00:00:01.000Z","message":{"role":"system","content":"","sections":{"preamble":"You are a coding assistant.","cwd":"<cwd>\n/p\n</cwd>"},"toolsAdded":[{"name":"read","description":"Read","parameters":{"type":"object"}}],"timestamp":1}}
{"type":"message","id":"u0000001","parentId":"s0000001","timestamp":"2026-12-01T00:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"try"}],"timestamp":2}}
{"type":"message","id":"a0000001","parentId":"u0000001","timestamp":"2026-12-01T00:00:03.000Z","message":{"role":"assistant","content":[],"api":"openai-completions","provider":"mock","model":"m1","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"error","errorMessage":"500 exploded","timestamp":3,"durationMs":4,"thinkingLevel":"medium"}}
{"type":"context_edit","id":"e0000001","parentId":"a0000001","timestamp":"2026-12-01T00:00:04.000Z","targetId":"a0000001","replacement":null}
{"type":"message","id":"a0000002","parentId":"e0000001","timestamp":"2026-12-01T00:00:05.000Z","message":{"role":"assistant","content":[{"type":"text","text":"recovered"}],"api":"openai-completions","provider":"mock","model":"m1","usage":{"input":10,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":11,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":5,"durationMs":6,"thinkingLevel":"medium"}}
{"type":"usage","id":"w0000001","parentId":"a0000002","timestamp":"2026-12-01T00:00:06.000Z","kind":"cache_warm","provider":"mock","model":"m1","usage":{"input":0,"output":0,"cacheRead":50,"cacheWrite":0,"totalTokens":50,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}
{"type":"message","id":"s0000002","parentId":"w0000001","timestamp":"2026-12-01T00:00:07.000Z","message":{"role":"system","content":"","sections":{"skills":"<skills/>"},"timestamp":7}}
{"type":"message","id":"u0000002","parentId":"s0000002","timestamp":"2026-12-01T00:00:08.000Z","message":{"role":"user","content":"kept","timestamp":8}}
{"type":"compaction","id":"c0000001","parentId":"u0000002","timestamp":"2026-12-01T00:00:09.000Z","summary":"Summarised.","firstKeptEntryId":"s0000002","tokensBefore":500,"usage":{"input":90,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":92,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"systemMessage":{"role":"system","content":"You are a coding assistant.","toolsAdded":[],"timestamp":9}}
{"type":"context_edit","id":"e0000002","parentId":"c0000001","timestamp":"2026-12-01T00:00:10.000Z","targetId":"u0000002","replacement":"edited"}`

func decodePi16Branch(t *testing.T) []*Entry {
	t.Helper()
	var path []*Entry
	for _, line := range strings.Split(pi16Branch, "\n") {
		e := &Entry{}
		if err := json.Unmarshal([]byte(line), e); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		path = append(path, e)
	}
	return path
}

func TestPi16EntriesDecode(t *testing.T) {
	path := decodePi16Branch(t)
	sys, ok := path[1].Message.(*core.SystemMessage)
	if !ok || !strings.Contains(string(sys.Sections), "preamble") || !strings.Contains(string(sys.ToolsAdded), `"read"`) {
		t.Fatalf("system message = %#v", path[1].Message)
	}
	if a := path[3].Message.(*core.AssistantMessage); a.ThinkingLevel != core.ThinkingMedium || a.DurationMs == nil || *a.DurationMs != 4 {
		t.Fatalf("assistant = %+v", a)
	}
	if e := path[4]; e.Type != EntryContextEdit || e.TargetID != "a0000001" || e.Replacement != nil {
		t.Fatalf("context_edit = %+v", e)
	}
	if e := path[6]; e.Type != EntryUsage || e.Kind != "cache_warm" || e.Model != "m1" || e.Usage.CacheRead != 50 {
		t.Fatalf("usage = %+v", e)
	}
	if c := path[9]; c.SystemMessage == nil || c.SystemMessage.Content != "You are a coding assistant." || c.Usage.Input != 90 {
		t.Fatalf("compaction = %+v", c)
	}
	// Written again without its line, each entry has pi 1.6.0's fields.
	for _, e := range path {
		raw := e.Raw
		e.Raw = nil
		again, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var want, got map[string]any
		_ = json.Unmarshal(raw, &want)
		_ = json.Unmarshal(again, &got)
		for k := range want {
			if _, ok := got[k]; !ok && k != "content" {
				t.Errorf("%s entry written without %q: %s", e.Type, k, again)
			}
		}
	}
}

// The model context pi 1.6.0 builds from that branch: the compaction's checkpoint, the
// summary, the kept user message with its replacement (the kept system message dropped); and
// before the compaction, the failed reply hidden by its edit.
func TestPi16Projection(t *testing.T) {
	path := decodePi16Branch(t)
	roles := func(ms []core.Message) (out []string) {
		for _, m := range ms {
			out = append(out, string(m.Role()))
		}
		return out
	}
	ctx := BuildContext(path)
	if got := strings.Join(roles(ctx.Messages), ","); got != "system,compactionSummary,user" {
		t.Fatalf("roles = %s", got)
	}
	if u := ctx.Messages[2].(*core.UserMessage); u.Content[0].Text != "edited" {
		t.Fatalf("replacement not applied: %+v", u.Content)
	}
	before := BuildContext(path[:6])
	if got := strings.Join(roles(before.Messages), ","); got != "system,user,assistant" {
		t.Fatalf("roles before compaction = %s", got)
	}
	if a := before.Messages[2].(*core.AssistantMessage); a.StopReason != core.StopReasonStop {
		t.Fatalf("the retried failure is in the context: %+v", a)
	}
	// The model sees neither system message: the request carries the prompt on its own.
	for _, m := range core.ConvertToLLM(before.Messages) {
		if m.Role() == core.RoleSystem {
			t.Fatal("a system message reaches the model")
		}
	}
}

// A pi 1.6.0 file opens without a warning: its usage and context_edit entries are entries
// of the format, not lines to repair.
func TestPi16FileOpens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pi16.jsonl")
	header := `{"type":"session","version":3,"id":"01a2339f-90c0-7462-b5b3-7c4eb103270e","timestamp":"2026-12-01T00:00:00.000Z","cwd":"/p"}`
	if err := os.WriteFile(path, []byte(header+"\n"+pi16Branch+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := OpenFileStore(path, "/p", FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	if w := st.Warnings(); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
	branch := Branch(st)
	if len(branch) != 11 || branch[4].Type != EntryContextEdit || branch[6].Type != EntryUsage {
		t.Fatalf("branch of %d entries: %v", len(branch), branch)
	}
	if got := len(BuildContext(branch).Messages); got != 3 {
		t.Fatalf("%d messages in the context, want 3", got)
	}
}

// get_session_stats counts as pi 1.6.0 does: every message entry of the file (the system
// messages and the compacted-away history included) and, besides the assistant messages'
// usage, the usage entry's and the compaction's.
func TestStatsCountUsageEntriesAsPi16(t *testing.T) {
	st := fileStats(decodePi16Branch(t))
	want := sessionapi.Stats{UserMessages: 2, AssistantMessages: 2, TotalMessages: 6,
		Tokens: sessionapi.TokenStats{Input: 100, Output: 3, CacheRead: 50, Total: 153}}
	if st != want {
		t.Fatalf("stats = %+v\nwant    %+v", st, want)
	}
}
