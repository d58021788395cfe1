package rpc_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The three front ends (rpc, acp, pimode) are built the same way (issue 30): each declares
// its method table as one package-level composite literal, with no init() adding to it; no
// non-test file reaches 500 lines and no function (tests included) is over 80.
var frontEnds = map[string]string{"../rpc": "methods", "../acp": "methods", "../pimode": "commands"}

func TestFrontEndsDeclareTheirMethodTableAsOneLiteral(t *testing.T) {
	for dir, table := range frontEnds {
		files := parseDir(t, dir)
		literal := false
		for name, f := range files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil && d.Name.Name == "init" {
						t.Errorf("%s: func init() (a table is one literal)", name)
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						v, ok := s.(*ast.ValueSpec)
						if !ok || len(v.Names) != 1 || v.Names[0].Name != table || len(v.Values) != 1 {
							continue
						}
						if _, ok := v.Values[0].(*ast.CompositeLit); ok {
							literal = true
						}
					}
				}
			}
		}
		if !literal {
			t.Errorf("%s: no package-level `var %s = ...{...}` literal", dir, table)
		}
	}
}

func TestFrontEndsHaveSmallFilesAndFunctions(t *testing.T) {
	for dir := range frontEnds {
		fset := token.NewFileSet()
		for name, f := range parseDirSet(t, fset, dir, true) {
			if n := fset.Position(f.End()).Line; n >= 500 && !strings.HasSuffix(name, "_test.go") {
				t.Errorf("%s: %d lines (under 500)", name, n)
			}
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > 80 {
					t.Errorf("%s: func %s is %d lines (at most 80)", name, fn.Name.Name, n)
				}
			}
		}
	}
}

func parseDir(t *testing.T, dir string) map[string]*ast.File {
	return parseDirSet(t, token.NewFileSet(), dir, false)
}

// parseDirSet parses the Go files of dir, the tests too if tests is set.
func parseDirSet(t *testing.T, fset *token.FileSet, dir string, tests bool) map[string]*ast.File {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*ast.File{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || (!tests && strings.HasSuffix(name, "_test.go")) {
			continue
		}
		path := filepath.Join(dir, name)
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out[path] = f
	}
	if len(out) == 0 {
		t.Fatalf("%s: no Go files", dir)
	}
	return out
}
