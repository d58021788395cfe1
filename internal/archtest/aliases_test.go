package archtest

import (
	"go/ast"
	"go/token"
	"testing"
)

// TestNoSessionapiAliases fails for a type alias of a sessionapi type anywhere: a type has
// one name, the one sessionapi gives it, and every package that means it imports sessionapi
// (issue 30). An alias would give the same type a second name in front ends or the protocol.
func TestNoSessionapiAliases(t *testing.T) {
	eachSourceFile(t, nil, func(fset *token.FileSet, rel string, file *ast.File) {
		ast.Inspect(file, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !ts.Assign.IsValid() {
				return true
			}
			if sel, ok := ts.Type.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "sessionapi" {
					t.Errorf("%s: type %s = sessionapi.%s: use sessionapi.%s itself", fset.Position(ts.Pos()), ts.Name.Name, sel.Sel.Name, sel.Sel.Name)
				}
			}
			return true
		})
	})
}
