package archtest

import (
	"go/ast"
	"go/token"
	"strings"
	"testing"
)

// TestOneClock fails for an interface type named like a clock anywhere but internal/clock:
// the agent, the session, the providers and the tools share one time source (issue 30).
func TestOneClock(t *testing.T) {
	eachSourceFile(t, nil, func(fset *token.FileSet, rel string, file *ast.File) {
		if strings.HasPrefix(rel, "internal/clock/") {
			return
		}
		ast.Inspect(file, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			if _, isInterface := ts.Type.(*ast.InterfaceType); isInterface && strings.HasSuffix(ts.Name.Name, "Clock") {
				t.Errorf("%s: interface %s: use internal/clock's Clock", fset.Position(ts.Pos()), ts.Name.Name)
			}
			return true
		})
	})
}
