package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/pi-rpc/pi-rpc/core"
)

var findSchema = schema(`{"type":"object","properties":{
"pattern":{"type":"string","description":"Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"},
"path":{"type":"string","description":"Directory to search in (default: current directory)"},
"limit":{"type":"number","description":"Maximum number of results (default: 1000)"}},
"required":["pattern"]}`)

// FindDetails is set only when a limit cut the results.
type FindDetails struct {
	ResultLimitReached int         `json:"resultLimitReached,omitempty"`
	Truncation         *Truncation `json:"truncation,omitempty"`
}

const findDefaultLimit = 1000

func (e *env) findTool() core.Tool {
	return builtin("find", findSchema, e.runFind,
		fmt.Sprintf("Search for files by glob pattern. Returns matching file paths relative to the search directory. "+
			"Respects .gitignore. Output is truncated to %d results or %dKB (whichever is hit first).", findDefaultLimit, MaxBytes/1024))
}

func (e *env) runFind(ctx context.Context, call core.ToolCall, _ func(core.ToolResult)) (core.ToolResult, error) {
	var in struct {
		Pattern string   `json:"pattern"`
		Path    string   `json:"path"`
		Limit   *float64 `json:"limit"`
	}
	if err := decodeCall(ctx, call, &in); err != nil {
		return core.ToolResult{}, err
	}
	root := e.resolveDir(in.Path)
	limit := max(1, intArg(in.Limit, findDefaultLimit))
	if err := statDir(root); err != nil {
		return core.ToolResult{}, err
	}
	g, err := newGlob(in.Pattern)
	if err != nil {
		return core.ToolResult{}, err
	}
	results := findFiles(ctx, root, g, limit)
	if ctx.Err() != nil {
		return core.ToolResult{}, errAborted
	}
	if len(results) == 0 {
		return core.TextResult("No files found matching pattern"), nil
	}
	limitReached := len(results) >= limit
	t := truncateHead(strings.Join(results, "\n"), int(^uint(0)>>1), MaxBytes)
	var d FindDetails
	var notices []string
	if limitReached {
		notices = append(notices, fmt.Sprintf("%d results limit reached. Use limit=%d for more, or refine pattern", limit, limit*2))
		d.ResultLimitReached = limit
	}
	if t.Truncated {
		notices = append(notices, formatSize(MaxBytes)+" limit reached")
		d.Truncation = &t
	}
	return noticeResult(t.Content, notices, d, limitReached || t.Truncated), nil
}

// findFiles returns up to limit entries under root matching g, in walk order; directories
// carry a trailing "/".
func findFiles(ctx context.Context, root string, g globMatcher, limit int) []string {
	var out []string
	if limit <= 0 {
		return nil
	}
	walkTree(ctx, root, func(e walkEntry) bool {
		if g.match(e) {
			if e.isDir {
				out = append(out, e.rel+"/")
			} else {
				out = append(out, e.rel)
			}
		}
		return len(out) < limit
	})
	return out
}
