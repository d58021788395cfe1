package session_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
)

// counterIDs returns deterministic 8-hex entry ids.
func counterIDs(prefix int) func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("%04x%04x", prefix, n) }
}

func fileOpts() session.FileOptions {
	return session.FileOptions{NewID: counterIDs(0xa), Now: func() string { return session.ISOTime(epoch) }}
}

// openWritten writes content, with mode perm, to a file of that name in a new directory and
// opens it as a session file (fileOpts). It returns the file's path, to read the file back,
// and the store, which the test closes.
func openWritten(t *testing.T, name string, content []byte, perm os.FileMode) (string, *session.FileStore) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, content, perm); err != nil {
		t.Fatal(err)
	}
	st, err := session.OpenFileStore(path, "/w", fileOpts())
	if err != nil {
		t.Fatal(err)
	}
	return path, st
}

func userEntry(text string) *session.Entry {
	return &session.Entry{Type: session.EntryMessage, Message: core.NewUserMessage(text, nil, epoch.UnixMilli())}
}

func assistantEntry(text string) *session.Entry {
	return &session.Entry{Type: session.EntryMessage, Message: &core.AssistantMessage{
		Content: []core.Content{core.TextBlock(text)}, API: "openai-completions", Provider: "faux", Model: "faux-1",
		StopReason: core.StopReasonStop, Timestamp: epoch.UnixMilli(),
	}}
}

// sampleFile writes a session with a header, a model change, a user message, an assistant
// reply and a second user message, and returns its path and content.
func sampleFile(t *testing.T) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	st, err := session.NewFileStore(path, session.Header{ID: "sess-1", Timestamp: session.ISOTime(epoch), Cwd: "/w"}, nil, fileOpts())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []*session.Entry{
		{Type: session.EntryModelChange, Provider: "faux", ModelID: "faux-1"},
		userEntry("one"), assistantEntry("reply one"), userEntry("two"),
	} {
		if err := st.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

func ids(es []*session.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

func TestFileStoreBuffersUntilFirstUserMessage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	st, err := session.NewFileStore(path, session.Header{ID: "sess-1", Timestamp: session.ISOTime(epoch), Cwd: "/w"}, nil, fileOpts())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_ = st.Append(&session.Entry{Type: session.EntryModelChange, Provider: "faux", ModelID: "faux-1"})
	_ = st.Append(&session.Entry{Type: session.EntryThinkingLevelChange, ThinkingLevel: core.ThinkingOff})
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("file exists before the first user message: %v", err)
	}
	if err := st.Append(userEntry("hi")); err != nil {
		t.Fatal(err)
	}
	l, err := session.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !l.HasHeader || l.Header.ID != "sess-1" || l.Header.Version != 3 || len(l.Entries) != 3 || len(l.Warnings) != 0 {
		t.Fatalf("loaded %+v", l)
	}
	if got := session.LockHolder(path); got != os.Getpid() {
		t.Fatalf("lock holder %d, want our pid", got)
	}
}

// The last line cut at every byte offset loads clean (a warning, no error), keeps every
// complete entry, and the next append starts on a new line.
func TestTruncatedLastLineAtEveryOffset(t *testing.T) {
	_, data := sampleFile(t)
	lastStart := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
	full := session.Parse(data)
	for cut := lastStart; cut < len(data); cut++ {
		torn := data[:cut]
		l := session.Parse(torn)
		wantEntries := len(full.Entries) - 1
		if cut == len(data)-1 { // only the newline is missing: the line is complete
			wantEntries = len(full.Entries)
		}
		if len(l.Entries) != wantEntries {
			t.Fatalf("cut %d: %d entries, want %d (%v)", cut, len(l.Entries), wantEntries, l.Warnings)
		}
		if cut > lastStart && cut < len(data)-1 && len(l.Warnings) != 1 {
			t.Fatalf("cut %d: warnings %v, want one", cut, l.Warnings)
		}
		if l.NeedsNewline != (cut > lastStart) {
			t.Fatalf("cut %d: NeedsNewline %v", cut, l.NeedsNewline)
		}
		// Append after the torn tail: the file reads back with the new entry intact.
		path, st := openWritten(t, "torn.jsonl", torn, 0o600)
		if err := st.Append(userEntry("after")); err != nil {
			t.Fatal(err)
		}
		_ = st.Close()
		back, _ := session.ReadFile(path)
		last := back.Entries[len(back.Entries)-1]
		if u, ok := last.Message.(*core.UserMessage); !ok || u.Content[0].Text != "after" {
			t.Fatalf("cut %d: last entry after append = %+v (warnings %v)", cut, last, back.Warnings)
		}
		if len(back.Entries) != wantEntries+1 {
			t.Fatalf("cut %d: %d entries after append, want %d", cut, len(back.Entries), wantEntries+1)
		}
	}
}

func TestParseRepairs(t *testing.T) {
	header := `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`
	u := func(id, parent, text string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return fmt.Sprintf(`{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"%s","timestamp":1}}`, id, p, text)
	}
	tests := []struct {
		name      string
		lines     []string
		wantIDs   []string
		wantPar   []string
		warnings  int
		hasHeader bool
	}{
		{"empty", nil, nil, nil, 0, false},
		{"header only", []string{header}, nil, nil, 0, true},
		{"no header", []string{u("a", "", "x")}, []string{"a"}, []string{""}, 0, false},
		{"corrupt middle line", []string{header, u("a", "", "x"), `{"type":"message","id":`, u("c", "a", "z")}, []string{"a", "c"}, []string{"", "a"}, 1, true},
		{"orphan attached to previous", []string{header, u("a", "", "x"), u("c", "lost", "z")}, []string{"a", "c"}, []string{"", "a"}, 1, true},
		{"lost line orphans its child", []string{header, u("a", "", "x"), `garbage`, u("c", "b", "z")}, []string{"a", "c"}, []string{"", "a"}, 2, true},
		{"duplicate id", []string{header, u("a", "", "x"), u("a", "", "y")}, []string{"a"}, []string{""}, 1, true},
		{"blank and CRLF lines", []string{header, "", u("a", "", "x") + "\r", "  "}, []string{"a"}, []string{""}, 0, true},
		{"unknown entry type", []string{header, u("a", "", "x"), `{"type":"future","id":"b","parentId":"a","timestamp":""}`, u("c", "b", "z")}, []string{"a", "c"}, []string{"", "a"}, 2, true},
		{"first entry naming itself as parent is a root", []string{header, u("a", "a", "x")}, []string{"a"}, []string{""}, 1, true},
		{"self parent attached to previous", []string{header, u("a", "", "x"), u("b", "a", "y"), u("c", "c", "z")}, []string{"a", "b", "c"}, []string{"", "a", "b"}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := strings.Join(tt.lines, "\n")
			if data != "" {
				data += "\n"
			}
			l := session.Parse([]byte(data))
			if l.HasHeader != tt.hasHeader {
				t.Fatalf("HasHeader = %v", l.HasHeader)
			}
			eq(t, "ids", ids(l.Entries), tt.wantIDs)
			var parents []string
			for _, e := range l.Entries {
				parents = append(parents, e.ParentID)
			}
			eq(t, "parents", parents, tt.wantPar)
			if len(l.Warnings) != tt.warnings {
				t.Fatalf("warnings %q, want %d", l.Warnings, tt.warnings)
			}
			// A repaired entry writes its repaired parent.
			for _, e := range l.Entries {
				b, _ := json.Marshal(e)
				var back session.Entry
				if err := json.Unmarshal(b, &back); err != nil || back.ParentID != e.ParentID {
					t.Fatalf("entry %s marshals %s", e.ID, b)
				}
			}
		})
	}
}

func TestMigration(t *testing.T) {
	v1 := strings.Join([]string{
		`{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"user","content":"hi","timestamp":1}}`,
		`{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"yo"}],"api":"x","provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}`,
		`{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"hookMessage","customType":"x","content":"note","display":true,"timestamp":3}}`,
		`{"type":"compaction","timestamp":"2025-01-01T00:00:03.000Z","summary":"sum","firstKeptEntryIndex":2,"tokensBefore":10}`,
	}, "\n") + "\n"
	path, st := openWritten(t, "v1.jsonl", []byte(v1), 0o600)
	dir := filepath.Dir(path)
	_ = st.Close()
	l, err := session.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if l.Migrated || l.Header.Version != 3 || len(l.Entries) != 4 {
		t.Fatalf("after migration: migrated=%v version=%d entries=%d warnings=%v", l.Migrated, l.Header.Version, len(l.Entries), l.Warnings)
	}
	for i, e := range l.Entries {
		if len(e.ID) != 8 || (i > 0 && e.ParentID != l.Entries[i-1].ID) {
			t.Fatalf("entry %d: id %q parent %q", i, e.ID, e.ParentID)
		}
	}
	if _, ok := l.Entries[2].Message.(*core.CustomMessage); !ok {
		t.Fatalf("hookMessage not migrated to custom: %T", l.Entries[2].Message)
	}
	if c := l.Entries[3]; c.FirstKeptEntryID != l.Entries[1].ID {
		t.Fatalf("firstKeptEntryId %q, want %q", c.FirstKeptEntryID, l.Entries[1].ID)
	}
	// Migration is idempotent: a second open leaves the file as it is.
	before, _ := os.ReadFile(path)
	st, err = session.OpenFileStore(path, "/w", fileOpts())
	if err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("second open rewrote the file")
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(tmp) != 0 {
		t.Fatalf("temp files left: %v", tmp)
	}
}

// An empty file is a new session at its path: the first user message writes the header and
// the entry into it, and the file keeps its mode.
func TestEmptyFileIsANewSession(t *testing.T) {
	path, st := openWritten(t, "empty.jsonl", nil, 0o644)
	if err := st.Append(userEntry("hi")); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	l, _ := session.ReadFile(path)
	if !l.HasHeader || l.Header.ID != st.SessionID() || len(l.Entries) != 1 {
		t.Fatalf("reloaded %+v", l)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != testkit.KeptMode(0o644) {
		t.Fatalf("mode %v, want the file's %v", fi.Mode().Perm(), testkit.KeptMode(0o644))
	}
}

// failingFile is an AppendFile on a full disk: it writes part of the first write, then
// fails.
type failingFile struct {
	buf    *bytes.Buffer
	writes int
	okN    int
}

func (f *failingFile) Write(p []byte) (int, error) {
	f.writes++
	if f.writes <= f.okN {
		return f.buf.Write(p)
	}
	n := len(p) / 2
	f.buf.Write(p[:n])
	return n, syscall.ENOSPC
}
func (f *failingFile) Sync() error  { return nil }
func (f *failingFile) Close() error { return nil }

func TestAppendENOSPC(t *testing.T) {
	disk := &failingFile{buf: &bytes.Buffer{}, okN: 1}
	opts := fileOpts()
	opts.OpenAppend = func(string) (session.AppendFile, error) { return disk, nil }
	path := filepath.Join(t.TempDir(), "s.jsonl")
	st, err := session.NewFileStore(path, session.Header{ID: "s", Cwd: "/w"}, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Append(userEntry("first")); err != nil {
		t.Fatal(err)
	}
	err = st.Append(assistantEntry("second"))
	if !errors.Is(err, syscall.ENOSPC) || !errors.Is(err, session.ErrPersistence) {
		t.Fatalf("append error = %v, want ENOSPC", err)
	}
	if err := st.Append(userEntry("third")); err != nil {
		t.Fatalf("memory-only append error = %v, want nil (reported once)", err)
	}
	if n := len(st.Entries()); n != 3 {
		t.Fatalf("%d entries in memory, want 3", n)
	}
	if disk.writes != 2 {
		t.Fatalf("%d writes, want 2 (none after the failure)", disk.writes)
	}
	// What reached the disk loads clean apart from the torn line.
	l := session.Parse(disk.buf.Bytes())
	if len(l.Entries) != 1 || len(l.Warnings) != 1 {
		t.Fatalf("disk content: %d entries, warnings %v", len(l.Entries), l.Warnings)
	}
}

// The supervisor turns a failed append into one session_error and agent_settled.error, and
// the session goes on in memory.
func TestSupervisorENOSPC(t *testing.T) {
	disk := &failingFile{buf: &bytes.Buffer{}, okN: 1}
	opts := fileOpts()
	opts.OpenAppend = func(string) (session.AppendFile, error) { return disk, nil }
	st, err := session.NewFileStore(filepath.Join(t.TempDir(), "s.jsonl"), session.Header{ID: "s", Cwd: "/w"}, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessWithStore(t, st, textReplies("one", "two")...)
	h.prompt("hi")
	if s := h.settle(); s.Error == nil || s.Error.Kind != session.SettleErrorPersistence {
		t.Fatalf("settled error %+v", s.Error)
	}
	h.prompt("again")
	h.settle()
	if n := len(h.sink.ofType("session_error")); n != 1 {
		t.Fatalf("%d session_error events", n)
	}
	if n := len(st.Entries()); n != 4 {
		t.Fatalf("%d entries in memory, want 4", n)
	}
}

func TestTwoProcessesOneSession(t *testing.T) {
	path, _ := sampleFile(t)
	first, err := session.OpenFileStore(path, "/w", fileOpts())
	if err != nil {
		t.Fatal(err)
	}
	_, err = session.OpenFileStore(path, "/w", fileOpts())
	var le *session.LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() {
		t.Fatalf("second open: %v", err)
	}
	want := fmt.Sprintf("Session file is in use by pi-rpc pid %d", os.Getpid())
	if err.Error() != want {
		t.Fatalf("message %q, want %q", err.Error(), want)
	}
	// Reading never locks.
	if _, err := session.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	_ = first.Close()
	again, err := session.OpenFileStore(path, "/w", fileOpts())
	if err != nil {
		t.Fatalf("open after release: %v", err)
	}
	_ = again.Close()
}

func TestFsyncEntrySyncsEveryEntry(t *testing.T) {
	var syncs int
	f := &countingFile{syncs: &syncs}
	opts := fileOpts()
	opts.Fsync = session.FsyncEntry
	opts.OpenAppend = func(string) (session.AppendFile, error) { return f, nil }
	st, _ := session.NewFileStore(filepath.Join(t.TempDir(), "s.jsonl"), session.Header{ID: "s"}, nil, opts)
	defer st.Close()
	_ = st.Append(userEntry("a"))
	_ = st.Append(assistantEntry("b"))
	if syncs != 2 || f.writes != 2 {
		t.Fatalf("syncs %d writes %d, want 2 and 2", syncs, f.writes)
	}
}

type countingFile struct {
	syncs  *int
	writes int
}

func (f *countingFile) Write(p []byte) (int, error) {
	if bytes.Count(p, []byte("\n")) == 0 || p[len(p)-1] != '\n' {
		panic("an entry must be one write ending in a newline")
	}
	f.writes++
	return len(p), nil
}
func (f *countingFile) Sync() error  { *f.syncs++; return nil }
func (f *countingFile) Close() error { return nil }

func FuzzParse(f *testing.F) {
	for _, name := range []string{"pi-0.73.1/basic.jsonl", "pi-0.73.1/branched.jsonl"} {
		if data, err := os.ReadFile(filepath.Join("testdata", "sessions", name)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"type":"session","version":3,"id":"s","timestamp":"","cwd":"/"}` + "\n" +
		`{"type":"message","id":"a","parentId":null,"timestamp":"","message":{"role":"user","content":"x","timestamp":1}}` + "\n" +
		`{"type":"label","id":"b","parentId":"z","timestamp":"","targetId":"a","label":"l"}`))
	f.Add([]byte(`{"type":"session","id":"s"}` + "\n" + `{"type":"compaction","firstKeptEntryIndex":1}` + "\n"))
	f.Add([]byte("\n\r\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l := session.Parse(data)
		seen := map[string]bool{}
		for _, e := range l.Entries {
			if e.ID == "" || seen[e.ID] {
				t.Fatalf("entry id %q empty or repeated", e.ID)
			}
			if e.ParentID != "" && !seen[e.ParentID] && !containsID(l.Entries, e.ParentID) {
				t.Fatalf("entry %s has dangling parent %s", e.ID, e.ParentID)
			}
			seen[e.ID] = true
			if _, err := json.Marshal(e); err != nil {
				t.Fatalf("entry %s does not marshal: %v", e.ID, err)
			}
		}
		session.BuildContext(session.NewTree(l.Entries).Path(""))
	})
}

func containsID(es []*session.Entry, id string) bool {
	for _, e := range es {
		if e.ID == id {
			return true
		}
	}
	return false
}

func textReplies(texts ...string) []faux.Step {
	var out []faux.Step
	for _, t := range texts {
		out = append(out, faux.Reply(faux.Text(t)))
	}
	return out
}

// newHarnessWithStore is newHarness over a given store, with the faux model's session
// catalog in memory.
func newHarnessWithStore(t *testing.T, store session.Store, steps ...faux.Step) *harness {
	t.Helper()
	h := &harness{t: t, sink: &recordingSink{}, clock: newFakeClock()}
	h.model = faux.New(faux.WithClock(func() time.Time { return epoch }))
	h.model.SetResponses(steps...)
	h.sup = session.New(session.Config{
		Agent:      core.Options{Provider: h.model, Model: h.model.Model()},
		Store:      store,
		Sink:       h.sink,
		Clock:      h.clock,
		Retry:      session.DefaultRetrySettings(),
		Compaction: session.DefaultCompactionSettings(),
	})
	t.Cleanup(func() { _ = h.sup.Close(t.Context()) })
	return h
}
