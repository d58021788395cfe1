package session_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/session"
)

// piFixtures are session files written by pi 0.73.1 itself (see testdata/sessions/pi-0.73.1/
// README.md), each with pi's own projection of it to model context.
var piFixtures = []string{"basic", "branched"}

func fixturePath(name, ext string) string {
	return filepath.Join("testdata", "sessions", "pi-0.73.1", name+ext)
}

// jsonValue decodes JSON to plain values so that equal documents compare equal whatever
// their key order and number formatting.
func jsonValue(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return v
}

// pi's files open clean and project to exactly the messages pi's get_messages returned.
func TestPiFixturesProjectLikePi(t *testing.T) {
	for _, name := range piFixtures {
		t.Run(name, func(t *testing.T) {
			l, err := session.ReadFile(fixturePath(name, ".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if !l.HasHeader || len(l.Warnings) != 0 || l.NeedsNewline || l.Migrated {
				t.Fatalf("load: header %v warnings %v newline %v migrated %v", l.HasHeader, l.Warnings, l.NeedsNewline, l.Migrated)
			}
			tree := session.NewTree(l.Entries)
			ctx := session.BuildContext(tree.Path(l.Entries[len(l.Entries)-1].ID))
			got, err := json.Marshal(ctx.Messages)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(fixturePath(name, ".messages.json"))
			if err != nil {
				t.Fatal(err)
			}
			g, w := jsonValue(t, got), jsonValue(t, want)
			if !reflect.DeepEqual(g, w) {
				gs, ws := g.([]any), w.([]any)
				for i := range min(len(gs), len(ws)) {
					if !reflect.DeepEqual(gs[i], ws[i]) {
						a, _ := json.Marshal(gs[i])
						b, _ := json.Marshal(ws[i])
						t.Fatalf("message %d differs:\n got %s\nwant %s", i, a, b)
					}
				}
				t.Fatalf("%d messages, pi has %d", len(gs), len(ws))
			}
		})
	}
	var c struct {
		LeafID        string `json:"leafId"`
		ThinkingLevel string `json:"thinkingLevel"`
		Name          string `json:"name"`
	}
	data, _ := os.ReadFile(fixturePath("branched", ".context.json"))
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	l, _ := session.ReadFile(fixturePath("branched", ".jsonl"))
	ctx := session.BuildContext(session.NewTree(l.Entries).Path(c.LeafID))
	if string(ctx.ThinkingLevel) != c.ThinkingLevel || session.SessionName(l.Entries) != c.Name {
		t.Fatalf("thinking %q name %q, pi: %+v", ctx.ThinkingLevel, session.SessionName(l.Entries), c)
	}
}

// A pi file continues in pi-rpc: appended entries chain from pi's leaf and the file reads
// back clean with pi's entries untouched.
func TestPiFixtureContinues(t *testing.T) {
	for _, name := range piFixtures {
		t.Run(name, func(t *testing.T) {
			orig, err := os.ReadFile(fixturePath(name, ".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			path, st := openWritten(t, name+".jsonl", orig, 0o600)
			leaf := st.Leaf()
			u := userEntry("continued in pi-rpc")
			if err := st.Append(u); err != nil {
				t.Fatal(err)
			}
			if u.ParentID != leaf {
				t.Fatalf("parent %q, want pi's leaf %q", u.ParentID, leaf)
			}
			_ = st.Close()
			after, _ := os.ReadFile(path)
			if string(after[:len(orig)]) != string(orig) {
				t.Fatal("pi's lines changed")
			}
			l, _ := session.ReadFile(path)
			if len(l.Warnings) != 0 {
				t.Fatalf("warnings %v", l.Warnings)
			}
			last := session.BuildContext(session.NewTree(l.Entries).Path(u.ID)).Messages
			if m, ok := last[len(last)-1].(*core.UserMessage); !ok || m.Content[0].Text != "continued in pi-rpc" {
				t.Fatalf("last message %+v", last[len(last)-1])
			}
		})
	}
}
