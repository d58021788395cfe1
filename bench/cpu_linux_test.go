package main

import (
	"os"
	"syscall"
	"testing"
)

// liveFaults counts the faults of pages touched for the first time: 64 fresh pages of an
// anonymous mapping are at least 64 more.
func TestLiveFaults(t *testing.T) {
	pid := os.Getpid()
	const pages = 64
	size := pages * os.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Munmap(mem) }()
	before, ok := liveFaults(pid)
	if !ok {
		t.Fatal("liveFaults: no count")
	}
	for i := 0; i < size; i += os.Getpagesize() {
		mem[i] = 1
	}
	after, ok := liveFaults(pid)
	if !ok || after-before < pages {
		t.Fatalf("liveFaults went %d → %d (ok %v) over %d fresh pages", before, after, ok, pages)
	}
	if cpu, ok := liveCPU(pid); !ok || cpu <= 0 {
		t.Fatalf("liveCPU = %v, %v", cpu, ok)
	}
}
