package acp

import (
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/tools"
)

// toolKind is the ACP kind of a tool, which editors use for its icon and grouping.
func toolKind(name string) sdk.ToolKind {
	switch name {
	case "read", "ls":
		return sdk.ToolKindRead
	case "edit", "write":
		return sdk.ToolKindEdit
	case "bash":
		return sdk.ToolKindExecute
	case "grep", "find":
		return sdk.ToolKindSearch
	case tools.PlanToolName:
		return sdk.ToolKindThink
	}
	return sdk.ToolKindOther
}

// absPath resolves a model-supplied path against the session's cwd, as the tools do.
func absPath(cwd, p string) string {
	if strings.HasPrefix(p, "~") {
		return p
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// shortPath is a path as a title shows it: relative to the cwd when inside it.
func shortPath(cwd, p string) string {
	abs := absPath(cwd, p)
	if rel, err := filepath.Rel(cwd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return abs
}

func str(args map[string]any, key string) string {
	s, _ := args[key].(string)
	return s
}

func oneLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

// toolTitle is a human title for a call: "Read src/main.go", "Run go test ./...".
func toolTitle(cwd, name string, args map[string]any) string {
	path := str(args, "path")
	switch name {
	case "read":
		if path != "" {
			return "Read " + shortPath(cwd, path)
		}
	case "edit":
		if path != "" {
			return "Edit " + shortPath(cwd, path)
		}
	case "write":
		if path != "" {
			return "Write " + shortPath(cwd, path)
		}
	case "bash":
		if c := str(args, "command"); c != "" {
			return "Run " + oneLine(c, 80)
		}
	case "grep":
		if p := str(args, "pattern"); p != "" {
			if path != "" {
				return fmt.Sprintf("Search %q in %s", p, shortPath(cwd, path))
			}
			return fmt.Sprintf("Search %q", p)
		}
	case "find":
		if p := str(args, "pattern"); p != "" {
			return "Find " + p
		}
	case "ls":
		if path != "" {
			return "List " + shortPath(cwd, path)
		}
		return "List files"
	case tools.PlanToolName:
		return "Update plan"
	}
	if server, tool, ok := strings.Cut(strings.TrimPrefix(name, "mcp__"), "__"); ok && strings.HasPrefix(name, "mcp__") {
		return server + ": " + tool
	}
	return name
}

// toolLocations are the files a call touches, absolute, with the line where known.
func toolLocations(cwd, name string, args map[string]any) []sdk.ToolCallLocation {
	path := str(args, "path")
	switch name {
	case "read", "edit", "write", "ls", "grep", "find":
	default:
		return nil
	}
	if path == "" {
		if name == "read" || name == "edit" || name == "write" {
			return nil
		}
		path = "."
	}
	loc := sdk.ToolCallLocation{Path: absPath(cwd, path)}
	if name == "read" {
		if f, ok := args["offset"].(float64); ok && f >= 1 {
			loc.Line = sdk.Ptr(int(f))
		}
	}
	return []sdk.ToolCallLocation{loc}
}

// resultText joins a result's text blocks.
func resultText(r *core.ToolResult) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Content {
		if c.Type == core.ContentText {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// resultContent is a finished or partial result as tool call content: bash output as a code
// block, an edit or write as its diff, images as images, anything else as text.
func resultContent(name string, r *core.ToolResult, preview *tools.Preview, isError bool) []sdk.ToolCallContent {
	if !isError && preview != nil && (name == "edit" || name == "write") {
		d := sdk.ToolDiffContent(preview.Path, preview.NewText)
		if preview.Exists {
			d.Diff.OldText = sdk.Ptr(preview.OldText)
		}
		return []sdk.ToolCallContent{d}
	}
	var out []sdk.ToolCallContent
	text := resultText(r)
	if name == "bash" && text != "" {
		text = "```\n" + strings.TrimRight(text, "\n") + "\n```"
	}
	if text != "" {
		out = append(out, sdk.ToolContent(sdk.TextBlock(text)))
	}
	if r != nil {
		for _, c := range r.Content {
			if c.Type == core.ContentImage {
				out = append(out, sdk.ToolContent(sdk.ImageBlock(c.Data, c.MimeType)))
			}
		}
	}
	return out
}

// planEntries is an update_plan result as ACP plan entries.
func planEntries(r *core.ToolResult) ([]sdk.PlanEntry, bool) {
	if r == nil {
		return nil, false
	}
	d, ok := r.Details.(tools.PlanDetails)
	if !ok {
		return nil, false
	}
	out := make([]sdk.PlanEntry, 0, len(d.Entries))
	for _, e := range d.Entries {
		out = append(out, sdk.PlanEntry{Content: e.Content, Priority: sdk.PlanEntryPriority(e.Priority), Status: sdk.PlanEntryStatus(e.Status)})
	}
	return out, true
}
