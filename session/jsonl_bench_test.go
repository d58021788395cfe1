package session_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/session"
)

// writeLargeSession writes a session of n entries (user and assistant messages taking turns,
// about 600 bytes each), streaming so that writing it costs no memory. The first half is one
// trunk; from its end an abandoned branch of a quarter of the entries, then the current
// branch of the last quarter: the current branch is three quarters of the file.
func writeLargeSession(tb testing.TB, path string, n int) int64 {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	h, _ := json.Marshal(session.Header{Type: "session", Version: 3, ID: "bench", Timestamp: session.ISOTime(epoch), Cwd: "/w"})
	w.Write(append(h, '\n'))
	text := strings.Repeat("lorem ipsum dolor sit amet ", 12)
	parent, fork := "", ""
	for i := range n {
		var e *session.Entry
		if i%2 == 0 {
			e = userEntry(text + strconv.Itoa(i))
		} else {
			e = assistantEntry(text + strconv.Itoa(i))
			e.Message.(*core.AssistantMessage).Usage = core.Usage{Input: 100 + i, Output: 20, TotalTokens: 120 + i}
		}
		switch i {
		case n / 2:
			fork = parent
		case n/2 + n/4:
			parent = fork
		}
		e.ID, e.ParentID, e.Timestamp = fmt.Sprintf("%08x", i+1), parent, session.ISOTime(epoch)
		parent = e.ID
		b, err := json.Marshal(e)
		if err != nil {
			tb.Fatal(err)
		}
		w.Write(append(b, '\n'))
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	fi, _ := f.Stat()
	_ = f.Close()
	return fi.Size()
}

// peakHeap samples the heap while f runs and returns the largest live-plus-garbage heap seen
// (runtime/metrics' heap objects bytes), an approximation of the peak from below.
func peakHeap(f func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(done)
	<-stopped
	return peak.Load()
}

// BenchmarkOpenLargeSession opens (locks, reads, parses, links) a session of 10,000 and of
// 100,000 entries (about 6 and 61 MB) as --session does ("open"), and then projects its current
// branch, three quarters of the file, to model context as getMessages and a prompt do
// ("branch"). Targets (docs/benchmarks.md): the 100,000-entry file opens in under 0.4 s with a
// peak heap under 1.5 times its size.
func BenchmarkOpenLargeSession(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		path := filepath.Join(b.TempDir(), "large.jsonl")
		size := writeLargeSession(b, path, n)
		for _, what := range []string{"open", "branch"} {
			b.Run(fmt.Sprintf("entries=%d/%s", n, what), func(b *testing.B) {
				runtime.GC()
				b.SetBytes(size)
				b.ReportAllocs()
				var peak uint64
				b.ResetTimer()
				for b.Loop() {
					runtime.GC()
					p := peakHeap(func() {
						st, err := session.OpenFileStore(path, "/w", session.FileOptions{})
						if err != nil {
							b.Fatal(err)
						}
						if what == "branch" {
							ctx := session.BuildContext(session.Branch(st))
							if len(ctx.Messages) != n/2+n/4 {
								b.Fatalf("%d messages", len(ctx.Messages))
							}
						}
						_ = st.Close()
					})
					peak = max(peak, p)
				}
				b.ReportMetric(float64(size)/(1<<20), "file-MB")
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(peak)/float64(size), "peak/file")
			})
		}
	}
}
