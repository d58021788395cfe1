package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadShellPath: shellPath of settings.json in the home names the shell; a missing file
// or key means "find it"; a malformed file is a startup error naming it.
func TestReadShellPath(t *testing.T) {
	home := t.TempDir()
	if got, err := readShellPath(home); err != nil || got != "" {
		t.Fatalf("no settings.json: %q, %v", got, err)
	}
	file := filepath.Join(home, "settings.json")
	for _, tc := range []struct{ content, want string }{
		{`{"defaultModel": "x"}`, ""},
		{`{"shellPath": "C:\\msys64\\usr\\bin\\bash.exe", "defaultModel": "x"}`, `C:\msys64\usr\bin\bash.exe`},
	} {
		if err := os.WriteFile(file, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := readShellPath(home); err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.content, got, err, tc.want)
		}
	}
	if err := os.WriteFile(file, []byte(`{"shellPath":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readShellPath(home); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("malformed settings.json: %v", err)
	}
}
