package archtest

import (
	"go/ast"
	"go/token"
	"strconv"
	"testing"
)

// jsonStructural are the bytes that open or close JSON's containers and strings.
var jsonStructural = map[rune]bool{'{': true, '}': true, '[': true, ']': true, '"': true}

// jsonScanning reports where file dispatches on JSON's grammar by hand: a switch over one byte
// of a buffer (switch b[i], or switch c := b[i]; c or a tagless switch over c) whose cases
// name at least two of { } [ ] and ", one of them a container's, in a function that advances
// that buffer's index itself (i++, i += n, i = i + n); or whose cases are a JSON value's
// first bytes (" t f n) or a JSON string's escapes (\" \\ \/ \b \f \n \r \t \u). That is the shape of every
// hand-written scanner the tree once had (internal/jsonscan, the session line validator's
// container walk and value skipper, the OpenAI chunk decoder); a switch on a rune of
// decoded text (a glob's brackets, a shell word's quotes) indexes no buffer and does not
// count.
func jsonScanning(fset *token.FileSet, file *ast.File) []token.Position {
	var found []token.Position
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		advanced := advancedIndexes(fn.Body)
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			sw, ok := n.(*ast.SwitchStmt)
			if !ok {
				return true
			}
			index, ok := switchedByte(sw)
			if !ok {
				return true
			}
			cases := caseBytes(sw)
			structural, container := 0, false
			for r := range cases {
				if jsonStructural[r] {
					structural++
					container = container || r != '"'
				}
			}
			walk := structural >= 2 && container && index != "" && advanced[index]
			if walk || hasAll(cases, `"tfn`) || hasAll(cases, `"\\/bfnrtu`) {
				found = append(found, fset.Position(sw.Pos()))
			}
			return true
		})
	}
	return found
}

// switchedByte reports whether a switch dispatches on a buffer's byte (its tag b[i], or a
// variable its init sets to b[i], tagged or tagless), and names the index when it is a
// variable or a field.
func switchedByte(sw *ast.SwitchStmt) (index string, ok bool) {
	ix, ok := sw.Tag.(*ast.IndexExpr)
	if as, isAssign := sw.Init.(*ast.AssignStmt); !ok && isAssign && len(as.Rhs) == 1 {
		ix, ok = as.Rhs[0].(*ast.IndexExpr)
	}
	if !ok {
		return "", false
	}
	index, _ = identName(ix.Index)
	return index, true
}

// caseBytes are the character literals a switch's cases name, directly or in comparisons.
func caseBytes(sw *ast.SwitchStmt) map[rune]bool {
	out := map[rune]bool{}
	for _, stmt := range sw.Body.List {
		for _, e := range stmt.(*ast.CaseClause).List {
			ast.Inspect(e, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.CHAR {
					if s, err := strconv.Unquote(lit.Value); err == nil {
						for _, r := range s {
							out[r] = true
						}
					}
				}
				return true
			})
		}
	}
	return out
}

// advancedIndexes are the variables body moves forward by hand: i++, i += n, i = i + n.
func advancedIndexes(body *ast.BlockStmt) map[string]bool {
	out := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IncDecStmt:
			if name, ok := identName(n.X); ok && n.Tok == token.INC {
				out[name] = true
			}
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				name, ok := identName(lhs)
				if !ok {
					continue
				}
				if n.Tok == token.ADD_ASSIGN {
					out[name] = true
				}
				if n.Tok == token.ASSIGN && i < len(n.Rhs) {
					if b, ok := n.Rhs[i].(*ast.BinaryExpr); ok && b.Op == token.ADD {
						if x, ok := identName(b.X); ok && x == name {
							out[name] = true
						}
					}
				}
			}
		}
		return true
	})
	return out
}

// identName names a variable or a field (i, v.i) as the rule compares them.
func identName(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name, true
	case *ast.SelectorExpr:
		if x, ok := identName(e.X); ok {
			return x + "." + e.Sel.Name, true
		}
	}
	return "", false
}

// hasAll reports whether set holds every rune of s.
func hasAll(set map[rune]bool, s string) bool {
	for _, r := range s {
		if !set[r] {
			return false
		}
	}
	return true
}

// jsonScannerExceptions are the files the rule knowingly lets through, each with the reason no
// library does its job.
var jsonScannerExceptions = map[string]bool{
	// pi's repairJson: raw control characters and invalid escapes inside strings, which some
	// models write, are rewritten so that jsontext can read the text. Every JSON library
	// refuses such text and none repairs it; the pass decodes nothing (the package doc).
	"internal/partialjson/repair.go": true,
}

// TestNoHandWrittenJSONScanner keeps JSON parsing in libraries (encoding/json, jsontext,
// gjson, the SDKs'): no non-test file of ours scans JSON's grammar byte by byte.
func TestNoHandWrittenJSONScanner(t *testing.T) {
	eachSourceFile(t, nil, func(fset *token.FileSet, rel string, file *ast.File) {
		if jsonScannerExceptions[rel] {
			return
		}
		for _, pos := range jsonScanning(fset, file) {
			t.Errorf("%s:%d: scans JSON's grammar by hand; use encoding/json, jsontext or gjson", rel, pos.Line)
		}
	})
}

// TestJSONScanningDetector: the rule above recognises the scanners it forbids (the shapes of
// internal/jsonscan and of the session's old validator and value skipper) and lets a switch
// over a rune of text, or over one byte without an index of its own, through.
func TestJSONScanningDetector(t *testing.T) {
	checkDetector(t, jsonScanning, []detectorCase{
		{"container walk", `for i < len(b) { switch b[i] { case '"': i = skip(b, i); continue; case '{', '[': depth++; case '}', ']': depth-- }; i++ }`, 1},
		{"value dispatch", `switch c := v.b[i]; c { case '{', '[': i++ }`, 1},
		{"tagless on a byte", `for j := 0; j < len(b); { switch c := b[j]; { case c == '"': return; case c == '[': j += 2 } }`, 1},
		{"advanced by sum", `switch b[i] { case '[', '"': i = i + 1 }`, 1},
		{"field index", `switch c := v.b[v.i]; c { case '{', '[': v.i++ }`, 1},
		{"value leads", `switch b[i] { case '"': return str(b, i); case 't': return lit(b, i, "true"); case 'f', 'n': return lit(b, i, "") }`, 1},
		{"string escapes", `switch b[j+1] { case '"', '\\', '/', 'b', 'f', 'n', 'r', 't': j += 2; case 'u': j += 6 }`, 1},
		{"some escapes", `switch b[j+1] { case '"', '\\', 'n': j += 2 }`, 0},
		{"one structural byte", `switch b[i] { case '"': i++; case 't', 'n': i += 4 }`, 0},
		{"string delimiters only", `switch b[i] { case '"', '\'': i++ }`, 0},
		{"rune of text", `for _, r := range s { switch r { case '[', ']', '{', '}': n++ } }`, 0},
		{"byte without advancing", `switch s[0] { case '{', '[': return true }`, 0},
	})
}
