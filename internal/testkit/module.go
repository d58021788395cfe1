package testkit

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ReadModuleSources reads every Go source file and go.mod under root. Tests that build the
// binary with a go build subprocess call it first: go test caches a test's result by what the
// test itself reads, and cannot see what the subprocess compiled, so without this a change to
// the server would leave such a test's old result in the cache.
func ReadModuleSources(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".git", "testdata", "bin", "dist":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") || d.Name() == "go.mod" || d.Name() == "go.sum" {
			_, err := os.ReadFile(path)
			return err
		}
		return nil
	})
}
