package session

import (
	"fmt"
	"strings"
	"testing"
)

// chainFile is a session file of n message entries in one chain.
func chainFile(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n")
	parent := "null"
	for i := range n {
		id := fmt.Sprintf("e%07d", i)
		fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"m%d"}],"timestamp":1}}`+"\n", id, parent, i)
		parent = `"` + id + `"`
	}
	return b.String()
}

// A page of the branch allocates the path and the page, once each, whatever the branch's
// length: the path grown by append made a long branch's getEntries allocate several times
// its size, all of it fresh pages on a heap just opened (docs/benchmarks.md, issue 30).
func TestBranchPageAllocations(t *testing.T) {
	st := openLazy(t, chainFile(2000))
	var entries int
	allocs := testing.AllocsPerRun(20, func() {
		page, ok, err := st.BranchPage("", 0)
		if err != nil || !ok {
			t.Fatalf("BranchPage: %v %v", err, ok)
		}
		entries = len(page.Entries)
	})
	if entries != 2000 {
		t.Fatalf("page of %d entries, want 2000", entries)
	}
	if allocs > 2 {
		t.Fatalf("BranchPage of a 2,000-entry branch allocated %.0f times, want 2 (the path and the page)", allocs)
	}
}
