// Package benchmem reports a benchmark's cost per fragment of its input (a streamed tool
// call's argument fragments) rather than per op. It imports nothing of ours, so that the
// benchmarks of core and internal/partialjson, which internal/testkit depends on, can use it.
package benchmem

import (
	"runtime"
	"testing"
)

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
