package session_test

import (
	"os"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/session"
)

const repairHeader = `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`

func userLine(id, parent, text string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"type":"message","id":"` + id + `","parentId":` + p + `,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"` + text + `","timestamp":1}}`
}

func contextTexts(entries []*session.Entry) []string {
	var out []string
	for _, m := range session.BuildContext(session.NewTree(entries).Path("")).Messages {
		out = append(out, core.TextOf(m.(*core.UserMessage).Content))
	}
	return out
}

// An entry that names itself as its parent is attached to the previous entry with a warning,
// so the messages before it stay in the context (pi makes it a root and they vanish).
func TestSelfParentedEntryKeepsTheBranch(t *testing.T) {
	data := strings.Join([]string{repairHeader, userLine("a", "", "first"), userLine("b", "a", "second"), userLine("c", "c", "third")}, "\n") + "\n"
	l := session.Parse([]byte(data))
	eq(t, "warnings", l.Warnings, []string{"entry c: it names itself as its parent; attached to the previous entry b"})
	eq(t, "context", contextTexts(l.Entries), []string{"first", "second", "third"})
}

// A file of a newer format version is read as version 3 with a warning, keeps its version,
// and is never rewritten: appending leaves its lines as they were.
func TestNewerVersionIsReadNotRewritten(t *testing.T) {
	header := strings.Replace(repairHeader, `"version":3`, `"version":99`, 1)
	orig := strings.Join([]string{header, userLine("a", "", "first"), `{"type":"hologram","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:00.000Z"}`}, "\n") + "\n"
	path, st := openWritten(t, "v99.jsonl", []byte(orig), 0o600)
	eq(t, "warnings", st.Warnings(), []string{
		"session format version 99 is newer than 3: read as version 3 (what this version does not know is ignored); the file is never rewritten",
		"line 3: corrupt line skipped: session: unknown entry type \"hologram\"",
	})
	if v := st.Header().Version; v != 99 {
		t.Fatalf("header version %d, want the file's 99", v)
	}
	if err := st.Append(userEntry("second")); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	after, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(after), orig) {
		t.Fatalf("the file's lines changed:\n%s", after)
	}
	l, _ := session.ReadFile(path)
	if l.Migrated || l.Header.Version != 99 {
		t.Fatalf("read back: migrated %v, version %d", l.Migrated, l.Header.Version)
	}
	eq(t, "context", contextTexts(l.Entries), []string{"first", "second"})
}
