package archtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxLines bounds the non-test Go files of the engine and the front ends, so that a file
// stays one concern a reader can hold (docs/architecture.md).
const maxLines = 500

// TestFileSizes fails for a non-test Go file over maxLines lines in session/ or rpc/.
func TestFileSizes(t *testing.T) {
	for _, dir := range []string{"session", "rpc"} {
		files, err := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(data, []byte("\n")); n > maxLines {
				t.Errorf("%s has %d lines (at most %d): split it by concern", filepath.ToSlash(f[len("../../"):]), n, maxLines)
			}
		}
	}
}
