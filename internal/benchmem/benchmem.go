// Package benchmem holds what the streamed-arguments benchmarks of core and
// internal/partialjson share, so that their figures compare: the input they stream, and the
// report of its cost per fragment rather than per op. It imports nothing of ours (those two
// packages' internal tests cannot import internal/testkit, which depends on them).
package benchmem

import (
	"runtime"
	"strings"
	"testing"
)

// WriteCallArgs is a 10 KB write call's arguments, cut into 16-byte fragments as a provider
// streams them.
func WriteCallArgs() []string {
	line := `    fmt.Println(\"hello, world\") // é\n`
	doc := `{"path":"src/pkg/file.go","content":"` + strings.Repeat(line, 10240/len(line)) + `"}`
	var frags []string
	for i := 0; i < len(doc); i += 16 {
		frags = append(frags, doc[i:min(i+16, len(doc))])
	}
	return frags
}

// Start holds the allocation counters read before a benchmark loop.
type Start runtime.MemStats

// Read reads the allocation counters.
func Read() *Start {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return (*Start)(&m)
}

// Report adds ns, allocations and bytes per fragment to b's results, for b.N ops of
// fragments each since m was read.
func (m *Start) Report(b *testing.B, fragments int) {
	var end runtime.MemStats
	runtime.ReadMemStats(&end)
	n := float64(b.N * fragments)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/fragment")
	b.ReportMetric(float64(end.Mallocs-m.Mallocs)/n, "allocs/fragment")
	b.ReportMetric(float64(end.TotalAlloc-m.TotalAlloc)/n, "B/fragment")
}
