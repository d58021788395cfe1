package session

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// lazyFile is a session with two branches from the first user message: a1 -> a2 -> a3 (the
// old branch, whose assistant reply has a body that is JSON but not a message) and
// a1 -> b2 -> b3, the last and so the current one.
const lazyFile = `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":5,"timestamp":2}}
{"type":"message","id":"a3","parentId":"a2","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"old"}],"timestamp":3}}
{"type":"message","id":"b2","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"api":"x","provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":4}}
{"type":"session_info","id":"b3","parentId":"b2","timestamp":"2026-01-01T00:00:04.000Z","name":"  named  "}
`

// openLazy writes content as a session file and opens it (the lazy loader), closing it at
// the end of the test.
func openLazy(t *testing.T, content string) *FileStore {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := OpenFileStore(path, "/w", FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func decodedIDs(st *FileStore) []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	var ids []string
	for _, n := range st.tree.nodes {
		if n.e != nil {
			ids = append(ids, n.ID)
		}
	}
	return ids
}

// Opening a session decodes no entry; the branch, its context, the session name and getEntries
// decode only what they need, and never the entries off the branch.
func TestLazyOpenDecodesOnlyTheBranch(t *testing.T) {
	st := openLazy(t, lazyFile)
	if got := decodedIDs(st); len(got) != 0 {
		t.Fatalf("decoded at open: %v", got)
	}
	page, ok, err := st.BranchPage("", 0)
	if err != nil || !ok || len(page.Entries) != 3 {
		t.Fatalf("BranchPage: %v %v %d entries", err, ok, len(page.Entries))
	}
	if !strings.Contains(string(page.Entries[1]), `"id":"b2"`) {
		t.Fatalf("page entry 1 is %s", page.Entries[1])
	}
	if got := decodedIDs(st); len(got) != 0 {
		t.Fatalf("getEntries decoded %v", got)
	}
	if n := st.SessionName(); n != "named" {
		t.Fatalf("session name %q", n)
	}
	ctx := BuildContext(st.Branch())
	if len(ctx.Messages) != 2 || ctx.Provider != "p" {
		t.Fatalf("context %+v", ctx)
	}
	if got := decodedIDs(st); !slices.Equal(got, []string{"a1", "b2", "b3"}) {
		t.Fatalf("decoded %v, want the branch a1 b2 b3", got)
	}
	if w := st.Warnings(); len(w) != 0 {
		t.Fatalf("warnings before the corrupt entry is needed: %v", w)
	}
}

// A body that is JSON but not what its type needs is reported when the entry is first needed:
// the entry keeps its head and its line, adds nothing to the context, and the session goes on.
func TestLazyCorruptBodyReportedWhenNeeded(t *testing.T) {
	st := openLazy(t, lazyFile)
	if err := st.SetLeaf("a3"); err != nil {
		t.Fatal(err)
	}
	path := st.Branch()
	if len(path) != 3 || path[1].ID != "a2" || path[1].ParentID != "a1" || path[1].Type != EntryMessage || path[1].Message != nil {
		t.Fatalf("corrupt entry read as %+v", path[1])
	}
	if !strings.Contains(string(path[1].Raw), `"content":5`) {
		t.Fatalf("corrupt entry lost its line: %s", path[1].Raw)
	}
	if msgs := BuildContext(path).Messages; len(msgs) != 2 {
		t.Fatalf("%d messages, want the two that decode", len(msgs))
	}
	st.Entries() // decodes a2 again from the cache: reported once
	w := st.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "entry a2: corrupt message entry") {
		t.Fatalf("warnings %q", w)
	}
	BuildTree(st.Entries(), st.Leaf())
	if err := st.Append(&Entry{Type: EntryMessage, Message: core.NewUserMessage("more", nil, 5)}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(st.File())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), lazyFile) {
		t.Fatalf("the file was rewritten:\n%s", data)
	}
}

// Lines whose head is wrong are skipped at open with Parse's warnings, and a repaired parent
// id is the one both the branch walk and the decoded entry see.
func TestLazyHeadErrorsAndRepairsMatchParse(t *testing.T) {
	content := strings.Replace(lazyFile, `"content":5`, `"content":[]`, 1) +
		`{"type":"message","id":"c1","parentId":"b3","timestamp":"t","message":{"content":[]}}` + "\n" +
		`{"type":"bogus","id":"c2","parentId":"b3","timestamp":"t"}` + "\n" +
		`{"type":"label","id":"c3","parentId":"zz","timestamp":"t","targetId":"a1","label":"x"}` + "\n" +
		`{"type":"label","id":"c3","parentId":"b3","timestamp":"t","targetId":"a1","label":"y"}` + "\n" +
		`{"type":"label","parentId":"b3","timestamp":"t","targetId":"a1","label":"y"}` + "\n" +
		`{"type":"label","id":"c4"`
	eager := Parse([]byte(content))
	st := openLazy(t, content)
	if got := st.Warnings(); !slices.Equal(got, eager.Warnings) {
		t.Fatalf("lazy warnings\n%q\nParse's\n%q", got, eager.Warnings)
	}
	all := st.Entries()
	if len(all) != len(eager.Entries) {
		t.Fatalf("%d entries, Parse %d", len(all), len(eager.Entries))
	}
	for i, e := range all {
		want, _ := json.Marshal(eager.Entries[i])
		got, _ := json.Marshal(e)
		if string(got) != string(want) || e.ParentID != eager.Entries[i].ParentID {
			t.Fatalf("entry %d: %s, Parse %s", i, got, want)
		}
	}
	if l := Labels(all)["a1"]; l != "x" {
		t.Fatalf("label %q", l)
	}
	if last := all[len(all)-1]; last.ID != "c3" || last.ParentID != "b3" {
		t.Fatalf("repaired entry %+v", last)
	}
}

// FuzzLazyDecode feeds any content to the lazy loader and asks for everything it can answer:
// nothing panics, every decoded entry that Parse keeps is the same as Parse's, and an entry
// Parse rejects is either skipped at open or reported as corrupt when decoded.
func FuzzLazyDecode(f *testing.F) {
	f.Add([]byte(lazyFile))
	for _, name := range []string{"pi-0.73.1/basic.jsonl", "pi-0.73.1/branched.jsonl"} {
		if data, err := os.ReadFile(filepath.Join("testdata", "sessions", name)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"type":"session","version":3,"id":"s","timestamp":"","cwd":"/"}` + "\n" +
		`{"type":"custom_message","id":"a","parentId":null,"timestamp":"","customType":"x","content":{"a":1}}` + "\n" +
		`{"type":"compaction","id":"b","parentId":"a","timestamp":"","summary":3}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		eager := Parse(slices.Clone(data))
		l, nodes := parseLazy(data)
		tree := newTreeOf(nodes)
		byID := map[string]*Entry{}
		for _, e := range eager.Entries {
			byID[e.ID] = e
		}
		for _, n := range nodes {
			if n.ID == "" {
				t.Fatal("node without id")
			}
		}
		st := &MemoryStore{lockedTree: lockedTree{tree: tree}, id: "s", newID: RandomEntryID, now: func() string { return "" }}
		if _, _, err := st.BranchPage("", 0); err != nil {
			t.Fatalf("BranchPage: %v", err)
		}
		BuildContext(st.Branch())
		all := st.Entries()
		BuildTree(all, st.Leaf())
		st.SessionName()
		for _, e := range all {
			if _, err := json.Marshal(e); err != nil {
				t.Fatalf("entry %s does not marshal: %v", e.ID, err)
			}
			// Where both kept the same line, they read the same message.
			if want := byID[e.ID]; want != nil && e.Type == EntryMessage && e.Message != nil && want.Message != nil && e.Timestamp == want.Timestamp {
				got, _ := json.Marshal(e.Message)
				exp, _ := json.Marshal(want.Message)
				if string(got) != string(exp) {
					t.Fatalf("entry %s: message %s, Parse %s", e.ID, got, exp)
				}
			}
		}
		for _, w := range st.CorruptEntries() {
			if !strings.Contains(w, "corrupt") {
				t.Fatalf("warning %q", w)
			}
		}
		if len(nodes) < len(eager.Entries) || l.HasHeader != eager.HasHeader {
			t.Fatalf("lazy kept %d entries, Parse %d", len(nodes), len(eager.Entries))
		}
	})
}

// FuzzScanHead checks the head scanner against encoding/json: on valid JSON the same head,
// or an error from both; on anything else, errInvalidJSON (as json.Valid says).
func FuzzScanHead(f *testing.F) {
	for _, line := range strings.Split(lazyFile, "\n") {
		f.Add([]byte(line))
	}
	f.Add([]byte(`{"TYPE":"label","type":null,"Id":"a\u0062","parentId":"x","parentid":null,"message":{"role":"u"},"message":{"x":[1,{"role":2}]}}`))
	f.Add([]byte(`{"message":null,"message":{"ROLE":"a\"b"}, "id" : 5}`))
	f.Add([]byte(` [1] `))
	f.Add([]byte(`{"type":"label","id":5,"x":[}`))
	f.Add([]byte(`{"type":"label"} {}`))
	f.Add([]byte(`{"id":"a"}}`))
	f.Add([]byte("{\"id\":\"\xff\"}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var sc headScanner
		if !json.Valid(b) {
			var h lineHead
			if err := sc.scan(b, &h); !errors.Is(err, errInvalidJSON) {
				t.Fatalf("%q: not JSON, scan error %v", b, err)
			}
			return
		}
		// The scanner reads no timestamp.
		type headOnly struct {
			Type     sessionapi.EntryType `json:"type"`
			ID       string               `json:"id"`
			ParentID *string              `json:"parentId"`
			Message  *messageHead         `json:"message"`
		}
		var scanned lineHead
		var want headOnly
		gerr := sc.scan(b, &scanned)
		werr := json.Unmarshal(b, &want)
		got := headOnly{scanned.Type, scanned.ID, scanned.ParentID, scanned.Message}
		if (gerr != nil) != (werr != nil) {
			t.Fatalf("%s: scan error %v, json error %v", b, gerr, werr)
		}
		if gerr != nil {
			return
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Fatalf("%s: scanned %s, json %s", b, g, w)
		}
	})
}

// Scanning a head into a reused lineHead allocates nothing: a large session's open makes
// one node per line and no garbage per line besides.
func TestScanHeadAllocatesNothing(t *testing.T) {
	line := []byte(`{"type":"message","id":"a1b2c3d4","parentId":"e5f6a7b8","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}`)
	var h lineHead
	var sc headScanner
	if allocs := testing.AllocsPerRun(100, func() {
		h = lineHead{}
		if err := sc.scan(line, &h); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Fatalf("headScanner allocated %.0f times per line", allocs)
	}
	if h.ParentID == nil || *h.ParentID != "e5f6a7b8" || h.Message == nil || h.Message.Role != "assistant" {
		t.Fatalf("scanned %+v", h)
	}
}
