package tools

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

// toolFor builds one tool with cwd as the working directory.
func toolFor(t *testing.T, name string, opts Options) core.Tool {
	t.Helper()
	ts, err := New([]string{name}, opts)
	if err != nil {
		t.Fatalf("New(%q) error = %v", name, err)
	}
	return ts[0]
}

// run calls a tool with args and returns its text, details and error.
func run(t *testing.T, tool core.Tool, args map[string]any) (string, any, error) {
	t.Helper()
	return runCtx(context.Background(), t, tool, args, nil)
}

func runCtx(ctx context.Context, t *testing.T, tool core.Tool, args map[string]any, update func(core.ToolResult)) (string, any, error) {
	t.Helper()
	if p, ok := tool.(core.ArgumentPreparer); ok {
		var err error
		if args, err = p.PrepareArguments(args); err != nil {
			t.Fatalf("PrepareArguments error = %v", err)
		}
	}
	res, err := tool.Execute(ctx, core.ToolCall{ID: "1", Name: tool.Info().Name, Args: args}, update)
	return core.TextOf(res.Content), res.Details, err
}

// writeFiles creates files (path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// failedAsWanted checks a tool's error against a table case's wantErr: with wantErr set the
// error must contain it and failedAsWanted reports true (the case's checks of a result end
// there); without it there must be no error.
func failedAsWanted(t *testing.T, err error, wantErr string) bool {
	t.Helper()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error = %v, want containing %q", err, wantErr)
		}
		return true
	}
	if err != nil {
		t.Fatalf("error = %v", err)
	}
	return false
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func numberedLines(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		if i > from {
			b.WriteByte('\n')
		}
		b.WriteString("Line ")
		b.WriteString(itoa(i))
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }
