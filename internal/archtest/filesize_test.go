package archtest

import (
	"bytes"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"testing"
)

// maxLines bounds every non-generated, non-test Go file of the module, so that a file stays
// one concern a reader can hold (docs/architecture.md).
const maxLines = 500

// TestFileSizes fails for a non-generated, non-test Go file over maxLines lines in any
// package.
func TestFileSizes(t *testing.T) {
	eachSourceFile(t, nil, func(_ *token.FileSet, rel string, file *ast.File) {
		if ast.IsGenerated(file) {
			return
		}
		if n := lineCount(t, rel); n > maxLines {
			t.Errorf("%s has %d lines (at most %d): split it by concern", rel, n, maxLines)
		}
	})
}

func lineCount(t *testing.T, rel string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte("\n"))
}
