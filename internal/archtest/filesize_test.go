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

// oversized lists the files another branch is splitting right now; the merger removes each
// entry with its branch.
var oversized = map[string]bool{
	"acp/server.go":              true, // split on branch rpcidiom
	"pimode/commands.go":         true, // split on branch rpcidiom
	"core/message.go":            true, // split on branch encoder
	"core/partialjson_stream.go": true, // split on branch corejson
	"bench/proc.go":              true, // split on branch perf
}

// TestFileSizes fails for a non-generated, non-test Go file over maxLines lines in any
// package.
func TestFileSizes(t *testing.T) {
	eachSourceFile(t, nil, func(_ *token.FileSet, rel string, file *ast.File) {
		if ast.IsGenerated(file) || oversized[rel] {
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
