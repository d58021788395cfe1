package tools

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPreviewChange(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(file, []byte("one\r\ntwo\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, ok := PreviewChange(dir, "edit", map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "two", "newText": "2"}}})
	if !ok || p.Path != file || p.OldText != "one\r\ntwo\r\n" || p.NewText != "one\r\n2\r\n" || !p.Exists {
		t.Fatalf("edit preview = %+v, %v", p, ok)
	}
	if _, ok := PreviewChange(dir, "edit", map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "absent", "newText": "x"}}}); ok {
		t.Fatal("an edit that would fail has a preview")
	}
	p, ok = PreviewChange(dir, "write", map[string]any{"path": "new/b.txt", "content": "hi"})
	if !ok || p.Path != filepath.Join(dir, "new", "b.txt") || p.OldText != "" || p.NewText != "hi" || p.Exists {
		t.Fatalf("write preview = %+v, %v", p, ok)
	}
	if _, ok := PreviewChange(dir, "bash", map[string]any{"command": "ls"}); ok {
		t.Fatal("bash has a preview")
	}
}
