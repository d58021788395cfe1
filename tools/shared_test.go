package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

// TestStatDir: find and ls refuse a missing path and a file alike, naming which.
func TestStatDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		dir:                          "",
		file:                         "Not a directory: " + file,
		filepath.Join(dir, "absent"): "Path not found: " + filepath.Join(dir, "absent"),
	} {
		err := statDir(path)
		if (want == "") != (err == nil) || (err != nil && err.Error() != want) {
			t.Errorf("statDir(%s) = %v, want %q", path, err, want)
		}
	}
}

// TestMeasure: content within both limits is whole and not truncated; over either limit it
// is marked truncated with its totals, the cut left to truncateHead or truncateTail.
func TestMeasure(t *testing.T) {
	whole, lines := measure("a\nb", 2, 10)
	if whole.Truncated || whole.Content != "a\nb" || whole.OutputLines != 2 || whole.OutputBytes != 3 || len(lines) != 2 {
		t.Errorf("within limits: %+v %q", whole, lines)
	}
	for _, limits := range [][2]int{{1, 10}, {5, 2}} {
		over, lines := measure("a\nb", limits[0], limits[1])
		if !over.Truncated || over.Content != "" || over.TotalLines != 2 || over.TotalBytes != 3 || over.MaxLines != limits[0] || over.MaxBytes != limits[1] || strings.Join(lines, "|") != "a|b" {
			t.Errorf("limits %v: %+v %q", limits, over, lines)
		}
	}
}

// TestBuiltinLabel: a built-in tool's label is its name.
func TestBuiltinLabel(t *testing.T) {
	e, err := newEnv(Options{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []interface{ Info() core.ToolInfo }{e.readTool(), e.bashTool(), e.editTool(), e.writeTool(), e.grepTool(), e.findTool(), e.lsTool()} {
		if info := tool.Info(); info.Label != info.Name || info.Description == "" || len(info.Parameters) == 0 {
			t.Errorf("%s: %+v", info.Name, info)
		}
	}
}
