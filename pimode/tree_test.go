package pimode

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBuildPiTree: roots are entries without a known parent (null, self, missing), children
// come in timestamp order whatever the file order, and the latest label wins (empty clears).
func TestBuildPiTree(t *testing.T) {
	lines := []string{
		`{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01Z"}`,
		`{"type":"message","id":"c","parentId":"a","timestamp":"2026-01-01T00:00:03Z"}`,
		`{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02Z"}`,
		`{"type":"label","id":"l1","parentId":"c","timestamp":"2026-01-01T00:00:04Z","targetId":"b","label":"first"}`,
		`{"type":"label","id":"l2","parentId":"l1","timestamp":"2026-01-01T00:00:05Z","targetId":"b","label":"kept"}`,
		`{"type":"label","id":"l3","parentId":"l2","timestamp":"2026-01-01T00:00:06Z","targetId":"c","label":"gone"}`,
		`{"type":"label","id":"l4","parentId":"l3","timestamp":"2026-01-01T00:00:07Z","targetId":"c"}`,
		`{"type":"message","id":"self","parentId":"self","timestamp":"2026-01-01T00:00:08Z"}`,
		`{"type":"message","id":"orphan","parentId":"missing","timestamp":"2026-01-01T00:00:09Z"}`,
	}
	entries := make([]json.RawMessage, len(lines))
	for i, l := range lines {
		entries[i] = json.RawMessage(l)
	}
	roots, err := buildPiTree(entries)
	if err != nil {
		t.Fatal(err)
	}
	var render func(n *piTreeNode) string
	render = func(n *piTreeNode) string {
		var h entryHead
		_ = json.Unmarshal(n.Entry, &h)
		s := h.ID
		if n.Label != "" {
			s += "[" + n.Label + "]"
		}
		var kids []string
		for _, c := range n.Children {
			kids = append(kids, render(c))
		}
		if len(kids) > 0 {
			s += "(" + strings.Join(kids, " ") + ")"
		}
		return s
	}
	var got []string
	for _, r := range roots {
		got = append(got, render(r))
	}
	want := "a(b[kept] c(l1(l2(l3(l4))))) self orphan"
	if strings.Join(got, " ") != want {
		t.Fatalf("tree = %s\nwant   %s", strings.Join(got, " "), want)
	}
	data, err := json.Marshal(roots[0])
	if err != nil || !strings.HasPrefix(string(data), `{"entry":{"type":"message","id":"a"`) || !strings.Contains(string(data), `"children":[`) {
		t.Fatalf("node JSON = %s (%v)", data, err)
	}
}
