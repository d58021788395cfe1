package archtest

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// sseFields are the names of a server-sent event's data field, as a line parser of the event
// stream compares them ("data", or the line's "data:" prefix).
var sseFields = map[string]bool{"data": true, "data:": true, "data: ": true}

// prefixFuncs are the calls through which a line parser tests or strips a field name.
var prefixFuncs = map[string]bool{"HasPrefix": true, "TrimPrefix": true, "CutPrefix": true, "Equal": true, "EqualFold": true}

// sseParsing reports where file compares a string with an event stream's data field: a
// "data" or "data:" literal (or its []byte conversion) beside == or !=, as a switch case, or
// given to HasPrefix, TrimPrefix, CutPrefix, Equal or EqualFold. A data URL ("data:" +
// mime type) is none of these.
func sseParsing(fset *token.FileSet, file *ast.File) []token.Position {
	isField := func(e ast.Expr) bool {
		if c, ok := e.(*ast.CallExpr); ok && len(c.Args) == 1 {
			e = c.Args[0] // []byte("data:")
		}
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return false
		}
		s, err := strconv.Unquote(lit.Value)
		return err == nil && sseFields[s]
	}
	var found []token.Position
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && (isField(n.X) || isField(n.Y)) {
				found = append(found, fset.Position(n.Pos()))
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if isField(e) {
					found = append(found, fset.Position(e.Pos()))
				}
			}
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || !prefixFuncs[sel.Sel.Name] {
				return true
			}
			for _, a := range n.Args {
				if isField(a) {
					found = append(found, fset.Position(a.Pos()))
				}
			}
		}
		return true
	})
	return found
}

// TestNoHandWrittenSSEReader keeps server-sent event parsing in the SDKs (openai-go's and
// anthropic-sdk-go's ssestream): no package of ours but the mock servers, which write the
// stream, may parse "data:" lines.
func TestNoHandWrittenSSEReader(t *testing.T) {
	mocks := func(rel string) bool {
		return strings.HasPrefix(rel, "internal/mock") || strings.HasPrefix(rel, "cmd/mock-")
	}
	eachSourceFile(t, mocks, func(fset *token.FileSet, rel string, file *ast.File) {
		for _, pos := range sseParsing(fset, file) {
			t.Errorf("%s:%d: parses a server-sent event stream's data field; use the provider SDK's stream reader", rel, pos.Line)
		}
	})
}

// TestSSEParsingDetector: the rule above recognises the line parsers it forbids (the shapes of
// the reader llm/internal/sse once was) and lets a data URL through.
func TestSSEParsingDetector(t *testing.T) {
	checkDetector(t, sseParsing, []detectorCase{
		{"field name compared", `if string(name) != "data" { continue }`, 1},
		{"switch on the field", `switch string(name) { case "event": case "data": }`, 1},
		{"prefix stripped", `if v, ok := bytes.CutPrefix(line, []byte("data: ")); ok { _ = v }`, 1},
		{"prefix tested", `if strings.HasPrefix(line, "data:") { }`, 1},
		{"data URL", `url := "data:" + mime + ";base64," + data; _ = url`, 0},
	})
}
