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
// about 500 bytes each), streaming so that writing it costs no memory.
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
	parent := ""
	for i := range n {
		var e *session.Entry
		if i%2 == 0 {
			e = userEntry(text + strconv.Itoa(i))
		} else {
			e = assistantEntry(text + strconv.Itoa(i))
			e.Message.(*core.AssistantMessage).Usage = core.Usage{Input: 100 + i, Output: 20, TotalTokens: 120 + i}
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

func vmHWM() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			kb, _ := strconv.Atoi(strings.Fields(l)[1])
			return float64(kb) / 1024
		}
	}
	return 0
}

// BenchmarkOpenLargeSession opens (locks, reads, parses, links) a 100,000-entry session of
// about 50 MB and projects its branch to model context, as --session does. Targets: under
// 1 s and a peak heap under 3x the file size.
func BenchmarkOpenLargeSession(b *testing.B) {
	path := filepath.Join(b.TempDir(), "large.jsonl")
	size := writeLargeSession(b, path, 100_000)
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
			ctx := session.BuildContext(session.Branch(st))
			if len(ctx.Messages) != 100_000 {
				b.Fatalf("%d messages", len(ctx.Messages))
			}
			_ = st.Close()
		})
		peak = max(peak, p)
	}
	b.ReportMetric(float64(size)/(1<<20), "file-MB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(peak)/float64(size), "peak/file")
	b.ReportMetric(vmHWM(), "VmHWM-MB")
}
