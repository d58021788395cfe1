package session

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// BenchmarkSplitLines cuts a 45 MB session file (scenario 11's size) into lines, the first
// pass of an open over the file's memory. "fresh": each round gives the heap's free pages back
// to the system and reads the file into new memory (not timed), so that the cut is the first
// touch of those pages from user space, as in a process that has just started; "warm": the same
// buffer every round. The difference is what a page's first touch costs on the machine
// (docs/benchmarks.md, "Issue 30").
func BenchmarkSplitLines(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 45<<20; i++ {
		fmt.Fprintf(&sb, "{\"type\":\"message\",\"id\":\"%08x\",\"pad\":%q}\n", i, strings.Repeat("x", 400))
	}
	path := filepath.Join(b.TempDir(), "lines.jsonl")
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	read := func(b *testing.B) []byte {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	b.Run("fresh", func(b *testing.B) {
		b.SetBytes(int64(sb.Len()))
		for b.Loop() {
			b.StopTimer()
			debug.FreeOSMemory()
			data := read(b)
			b.StartTimer()
			_ = splitLines(data)
		}
	})
	b.Run("warm", func(b *testing.B) {
		data := read(b)
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			_ = splitLines(data)
		}
	})
}
