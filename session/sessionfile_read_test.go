package session

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// A session file is read into one buffer of its size: reading a large one allocates about the
// file once, not the several times its size of a buffer grown from 512 bytes (io.ReadAll),
// which was most of a 100,000-entry open.
func TestReadSessionFileAllocatesTheFileOnce(t *testing.T) {
	line := []byte(`{"type":"message","id":"a1b2c3d4","parentId":null,"message":{"role":"user","content":"hello"}}` + "\n")
	content := bytes.Repeat(line, (8<<20)/len(line))
	path := filepath.Join(t.TempDir(), "large.jsonl")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	data, err := readSessionFile(path)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, content) {
		t.Fatalf("read %d bytes, want the file's %d", len(data), len(content))
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	if limit := uint64(len(content)) + uint64(len(content))/8; allocated > limit {
		t.Errorf("reading a %d-byte file allocated %d bytes, want at most %d (the file once)", len(content), allocated, limit)
	}
}

// An empty session file reads as no bytes.
func TestReadSessionFileEmpty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := readSessionFile(path)
	if err != nil || len(data) != 0 {
		t.Fatalf("readSessionFile = %q, %v; want no bytes, nil", data, err)
	}
}
