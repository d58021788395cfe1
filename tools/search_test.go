package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

// searchTree is a fixture with nested .gitignore files, negations, directory patterns and
// hidden files.
func searchTree(t *testing.T) string {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".gitignore":            "*.log\nbuild/\n!keep.log\n/rootonly.txt\n",
		"a.txt":                 "match here\nno\n",
		"keep.log":              "match keep\n",
		"drop.log":              "match drop\n",
		"rootonly.txt":          "match rootonly\n",
		"build/out.txt":         "match build\n",
		".secret/hidden.txt":    "match hidden\n",
		".git/config":           "match git\n",
		"src/.gitignore":        "gen/\n*.tmp\n!important.tmp\n",
		"src/main.go":           "package main // match go\n",
		"src/rootonly.txt":      "match nested rootonly\n",
		"src/x.tmp":             "match tmp\n",
		"src/important.tmp":     "match important\n",
		"src/gen/g.go":          "match gen\n",
		"src/deep/util.go":      "match deep\n",
		"src/deep/util_test.go": "match test\n",
		"docs/guide.md":         "Match Upper\n",
		"bin.dat":               "match\x00binary",
	})
	return dir
}

// textCase is a call of a search tool and the text it answers, or the error it fails with.
type textCase struct {
	name    string
	args    map[string]any
	want    string
	wantErr string
}

// checkTexts runs each case on tool as a subtest.
func checkTexts(t *testing.T, tool core.Tool, tests []textCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, _, err := run(t, tool, tc.args)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if text != tc.want {
				t.Errorf("text =\n%s\nwant\n%s", text, tc.want)
			}
		})
	}
}

func TestFind(t *testing.T) {
	dir := searchTree(t)
	tool := toolFor(t, "find", Options{Cwd: dir})
	tests := []textCase{
		{name: "base name at any depth", args: map[string]any{"pattern": "*.go"}, want: "src/deep/util.go\nsrc/deep/util_test.go\nsrc/main.go"},
		{name: "gitignore nested and negations", args: map[string]any{"pattern": "*.tmp"}, want: "src/important.tmp"},
		{name: "root-anchored ignore only at root", args: map[string]any{"pattern": "rootonly.txt"}, want: "src/rootonly.txt"},
		{name: "hidden included, .git skipped", args: map[string]any{"pattern": "*.txt"}, want: ".secret/hidden.txt\na.txt\nsrc/rootonly.txt"},
		{name: "log negation", args: map[string]any{"pattern": "*.log"}, want: "keep.log"},
		{name: "path pattern as if **/", args: map[string]any{"pattern": "deep/*.go"}, want: "src/deep/util.go\nsrc/deep/util_test.go"},
		{name: "doublestar path", args: map[string]any{"pattern": "src/**/*_test.go"}, want: "src/deep/util_test.go"},
		{name: "directories get a slash", args: map[string]any{"pattern": "deep"}, want: "src/deep/"},
		{name: "sub path", args: map[string]any{"pattern": "*.go", "path": "src/deep"}, want: "util.go\nutil_test.go"},
		{name: "limit", args: map[string]any{"pattern": "*.go", "limit": 2.0}, want: "src/deep/util.go\nsrc/deep/util_test.go\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]"},
		{name: "none", args: map[string]any{"pattern": "*.rs"}, want: "No files found matching pattern"},
		{name: "missing path", args: map[string]any{"pattern": "*", "path": "nope"}, wantErr: "Path not found: " + filepath.Join(dir, "nope")},
	}
	checkTexts(t, tool, tests)
}

func TestGrep(t *testing.T) {
	dir := searchTree(t)
	writeFiles(t, dir, map[string]string{
		"ctx/context.txt": "before\nmatch one\nafter\nmatch two\n",
		"ctx/long.txt":    "match " + strings.Repeat("z", 600) + "\n",
	})
	tool := toolFor(t, "grep", Options{Cwd: dir})
	tests := []textCase{
		{name: "single file uses basename", args: map[string]any{"pattern": "match", "path": "src/main.go"}, want: "main.go:1: package main // match go"},
		{name: "gitignore respected", args: map[string]any{"pattern": "match", "glob": "*.tmp"}, want: "src/important.tmp:1: match important"},
		{name: "hidden included, binary and .git skipped", args: map[string]any{"pattern": "hidden|binary|git"}, want: ".secret/hidden.txt:1: match hidden"},
		{name: "glob with path", args: map[string]any{"pattern": "match", "glob": "deep/*_test.go"}, want: "src/deep/util_test.go:1: match test"},
		{name: "ignore case", args: map[string]any{"pattern": "match upper", "ignoreCase": true}, want: "docs/guide.md:1: Match Upper"},
		{name: "case sensitive", args: map[string]any{"pattern": "match upper"}, want: "No matches found"},
		{name: "literal", args: map[string]any{"pattern": "main //", "literal": true}, want: "src/main.go:1: package main // match go"},
		{name: "regex anchors per line", args: map[string]any{"pattern": "^after$", "path": "ctx"}, want: "context.txt:3: after"},
		{name: "context and limit", args: map[string]any{"pattern": "match", "path": "ctx/context.txt", "limit": 1.0, "context": 1.0},
			want: "context.txt-1- before\ncontext.txt:2: match one\ncontext.txt-3- after\n\n[1 matches limit reached. Use limit=2 for more, or refine pattern]"},
		{name: "long line", args: map[string]any{"pattern": "match", "path": "ctx/long.txt"},
			want: "long.txt:1: match " + strings.Repeat("z", 494) + "... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]"},
		{name: "bad regex", args: map[string]any{"pattern": "("}, wantErr: "regex parse error: missing closing ): `(?m)(`"},
		{name: "missing path", args: map[string]any{"pattern": "x", "path": "nope"}, wantErr: "Path not found: " + filepath.Join(dir, "nope")},
	}
	checkTexts(t, tool, tests)
	t.Run("whole tree in order", func(t *testing.T) {
		text, _, err := run(t, tool, map[string]any{"pattern": "match"})
		if err != nil {
			t.Fatal(err)
		}
		want := ".secret/hidden.txt:1: match hidden\na.txt:1: match here\nctx/context.txt:2: match one\nctx/context.txt:4: match two\n"
		if !strings.HasPrefix(text, want) || strings.Contains(text, "build") || strings.Contains(text, "drop") || strings.Contains(text, "gen") {
			t.Errorf("text =\n%s", text)
		}
	})
	t.Run("limit deterministic", func(t *testing.T) {
		first, _, _ := run(t, tool, map[string]any{"pattern": "match", "limit": 3.0})
		for range 20 {
			if again, _, _ := run(t, tool, map[string]any{"pattern": "match", "limit": 3.0}); again != first {
				t.Fatalf("output changed:\n%s\nvs\n%s", first, again)
			}
		}
	})
}

func TestGrepByteLimit(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for range 300 {
		b.WriteString("match " + strings.Repeat("q", 400) + "\n")
	}
	writeFiles(t, dir, map[string]string{"big.txt": b.String()})
	text, details, err := run(t, toolFor(t, "grep", Options{Cwd: dir}), map[string]any{"pattern": "match", "limit": 1000.0})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(text, "\n\n[50.0KB limit reached]") || details.(GrepDetails).Truncation == nil {
		t.Errorf("tail = %q", text[len(text)-60:])
	}
}

func TestLs(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".hidden-file": "", ".hidden-dir/x": "", "B.txt": "", "a.txt": "", "c/d": ""})
	if err := os.Symlink(filepath.Join(dir, "missing"), filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	tool := toolFor(t, "ls", Options{Cwd: dir})
	tests := []textCase{
		{name: "sorted with dotfiles", args: map[string]any{}, want: ".hidden-dir/\n.hidden-file\na.txt\nB.txt\nc/\nempty/"},
		{name: "limit", args: map[string]any{"limit": 2.0}, want: ".hidden-dir/\n.hidden-file\n\n[2 entries limit reached. Use limit=4 for more]"},
		{name: "empty", args: map[string]any{"path": "empty"}, want: "(empty directory)"},
		{name: "missing", args: map[string]any{"path": "nope"}, wantErr: "Path not found: " + filepath.Join(dir, "nope")},
		{name: "not a dir", args: map[string]any{"path": "a.txt"}, wantErr: "Not a directory: " + filepath.Join(dir, "a.txt")},
	}
	checkTexts(t, tool, tests)
}

func TestIgnoreMatcher(t *testing.T) {
	f := parseIgnore("/r", []byte("# comment\n*.o\n!keep.o\nlogs/\n/top\ndoc/**/*.pdf\na/**\n\\#hash\ntrail\\ \n"))
	s := (*ignoreStack)(nil).push(f)
	tests := []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"/r/x.o", false, true}, {"/r/sub/x.o", false, true}, {"/r/keep.o", false, false},
		{"/r/logs", true, true}, {"/r/logs", false, false}, {"/r/sub/logs", true, true},
		{"/r/top", false, true}, {"/r/sub/top", false, false},
		{"/r/doc/x.pdf", false, true}, {"/r/doc/a/b/x.pdf", false, true}, {"/r/sub/doc/x.pdf", false, false},
		{"/r/a", true, false}, {"/r/a/b", false, true},
		{"/r/#hash", false, true}, {"/r/trail ", false, true}, {"/r/comment", false, false},
	}
	for _, tc := range tests {
		if got := s.ignored(tc.path, tc.isDir); got != tc.want {
			t.Errorf("ignored(%q, dir=%v) = %v, want %v", tc.path, tc.isDir, got, tc.want)
		}
	}
}

func TestParentGitignore(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".gitignore": "*.gen\n", ".git/HEAD": "", "sub/a.gen": "", "sub/b.txt": ""})
	text, _, err := run(t, toolFor(t, "find", Options{Cwd: filepath.Join(dir, "sub")}), map[string]any{"pattern": "*"})
	if err != nil || text != "b.txt" {
		t.Errorf("find in sub = %q, %v; want the repository's .gitignore applied", text, err)
	}
}
