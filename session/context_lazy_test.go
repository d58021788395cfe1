package session

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// longFile is a linear session: a model change, a thinking level change, then rounds of
// user prompt and assistant answer; the last assistant answer names another model.
func longFile(rounds int) string {
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n")
	b.WriteString(`{"type":"model_change","id":"m0","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","provider":"p0","modelId":"first"}` + "\n")
	b.WriteString(`{"type":"thinking_level_change","id":"t0","parentId":"m0","timestamp":"2026-01-01T00:00:00.000Z","thinkingLevel":"high"}` + "\n")
	parent := "t0"
	for i := range rounds {
		u, a := fmt.Sprintf("u%d", i), fmt.Sprintf("a%d", i)
		model := "first"
		if i == rounds-1 {
			model = "last"
		}
		fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"q%d"}],"timestamp":1}}`+"\n", u, parent, i)
		fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"r%d"}],"api":"x","provider":"p1","model":%q,"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}`+"\n", a, u, i, model)
		parent = a
	}
	return b.String()
}

// Resuming a session restores its model and thinking level but projects its messages only
// when they are first needed: StartSession decodes the entries that say the model, the
// thinking level and that there are messages, and the first read gives the whole context.
func TestStartSessionProjectsTheContextOnFirstUse(t *testing.T) {
	st := openLazy(t, longFile(50))
	var resolved []string
	cat := &Catalog{Memory: true, ResolveModel: func(provider, id string) (core.Model, core.Provider, bool) {
		resolved = append(resolved, provider+"/"+id)
		p := faux.New()
		m := p.Model()
		m.Provider, m.ID, m.Reasoning = provider, id, true
		return m, p, true
	}}
	model := faux.New()
	sup := New(Config{
		Agent: core.Options{Provider: model, Model: model.Model()},
		Store: st, Sink: discardSink{}, Sessions: cat,
		Retry: DefaultRetrySettings(), Compaction: DefaultCompactionSettings(),
	})
	t.Cleanup(func() { _ = sup.Shutdown(t.Context()) })
	sup.StartSession()
	if got, want := decodedIDs(st), []string{"t0", "u0", "a49"}; !slices.Equal(got, want) {
		t.Fatalf("decoded by StartSession: %v, want %v", got, want)
	}
	state := sup.State()
	if state.Model.Provider != "p1" || state.Model.ID != "last" || state.ThinkingLevel != core.ThinkingHigh {
		t.Fatalf("restored model %s/%s, thinking %s", state.Model.Provider, state.Model.ID, state.ThinkingLevel)
	}
	if got := decodedIDs(st); len(got) != 3 {
		t.Fatalf("getState decoded entries: %v", got)
	}
	got, _ := json.Marshal(sup.Messages())
	want, _ := json.Marshal(BuildContext(st.Branch()).Messages)
	if string(got) != string(want) || len(sup.Messages()) != 100 {
		t.Fatalf("messages after the lazy load (%d):\n%s\nwant\n%s", len(sup.Messages()), got, want)
	}
	if !slices.Equal(resolved, []string{"p1/last"}) {
		t.Fatalf("models resolved: %v", resolved)
	}
}

// discardSink numbers events and keeps none.
type discardSink struct{}

func (discardSink) Emit(*sessionapi.Event) int64 { return 0 }
func (discardSink) LastSeq() int64               { return 0 }
func (discardSink) Wait(ctx context.Context)     {}

// branchContext over heads says what BuildContext over the decoded branch says, for every
// session file of the suites.
func TestBranchContextIsBuildContext(t *testing.T) {
	contents := map[string]string{
		"lazy": lazyFile, "long": longFile(3), "empty": `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n",
		// Only a corrupt message (a body that is JSON but not a message): no messages.
		"corrupt": `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":5,"timestamp":2}}
{"type":"thinking_level_change","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:00.000Z","thinkingLevel":"low"}
`,
		// A model change after the last assistant message wins; an empty summary adds nothing.
		"model-after": `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}
{"type":"branch_summary","id":"b1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","summary":"","fromId":"x"}
{"type":"model_change","id":"b2","parentId":"b1","timestamp":"2026-01-01T00:00:00.000Z","provider":"p9","modelId":"m9"}
{"type":"custom_message","id":"b3","parentId":"b2","timestamp":"2026-01-01T00:00:00.000Z","customType":"note","content":"hello","display":true}
`,
		// A compaction keeps u2 on: its summary, u2 and a2, then u3.
		"compaction": `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"one","timestamp":1}}
{"type":"message","id":"u2","parentId":"u1","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"two","timestamp":2}}
{"type":"message","id":"a2","parentId":"u2","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"r"}],"api":"x","provider":"p1","model":"m1","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":3}}
{"type":"compaction","id":"c1","parentId":"a2","timestamp":"2026-01-01T00:00:00.000Z","summary":"before","firstKeptEntryId":"u2","tokensBefore":10}
{"type":"message","id":"u3","parentId":"c1","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"three","timestamp":4}}
`,
	}
	for _, dir := range []string{"testdata/sessions/pi-0.73.1"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			contents[f] = string(data)
		}
	}
	if len(contents) < 8 { // the inline files and the suite's
		t.Fatalf("only %d session files", len(contents))
	}
	for name, content := range contents {
		t.Run(filepath.Base(name), func(t *testing.T) {
			lazy := openLazy(t, content).branchContext()
			eager := openLazy(t, content)
			path := eager.Branch()
			bc := BuildContext(path)
			hasThinking := slices.ContainsFunc(path, func(e *Entry) bool { return e.Type == EntryThinkingLevelChange })
			if lazy.HasMessages != (len(bc.Messages) > 0) || lazy.HasThinking != hasThinking || lazy.ThinkingLevel != bc.ThinkingLevel ||
				lazy.Provider != bc.Provider || lazy.ModelID != bc.ModelID {
				t.Fatalf("lazy %+v\nBuildContext: messages %d, thinking %v %s, model %s/%s", lazy, len(bc.Messages), hasThinking, bc.ThinkingLevel, bc.Provider, bc.ModelID)
			}
			got, _ := json.Marshal(lazy.Messages())
			want, _ := json.Marshal(bc.Messages)
			if string(got) != string(want) {
				t.Fatalf("messages\n%s\nwant\n%s", got, want)
			}
		})
	}
}
