package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// eachSourceFile parses every non-test .go file of the module (node_modules, .git, testdata
// and vendor left out, and any directory skipDir names by its slash path) and calls check
// with its slash path, for the rules that read the tree's code.
func eachSourceFile(t *testing.T, skipDir func(rel string) bool, check func(fset *token.FileSet, rel string, file *ast.File)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, "../../"))
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".git", "testdata", "vendor":
				return filepath.SkipDir
			}
			if skipDir != nil && skipDir(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		check(fset, rel, file)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// detectorCase is a snippet of a function body and how many places a detector should find
// in it.
type detectorCase struct {
	name string
	src  string
	want int
}

// checkDetector runs detect, one of the rules' recognisers, over each case's snippet as the
// body of a function, so that a rule's own test shows what it forbids and what it lets through.
func checkDetector(t *testing.T, detect func(*token.FileSet, *ast.File) []token.Position, tests []detectorCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, "x.go", "package x\nfunc f() {\n"+tc.src+"\n}\n", 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(detect(fset, file)); got != tc.want {
				t.Errorf("found %d, want %d", got, tc.want)
			}
		})
	}
}
