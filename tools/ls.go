package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pi-rpc/pi-rpc/core"
)

var lsSchema = schema(`{"type":"object","properties":{
"path":{"type":"string","description":"Directory to list (default: current directory)"},
"limit":{"type":"number","description":"Maximum number of entries to return (default: 500)"}}}`)

// statDir fails unless dir is a directory, saying whether it is missing or something else.
func statDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("Path not found: %s", dir)
	}
	if !st.IsDir() {
		return fmt.Errorf("Not a directory: %s", dir)
	}
	return nil
}

// LsDetails is set only when a limit cut the listing.
type LsDetails struct {
	EntryLimitReached int         `json:"entryLimitReached,omitempty"`
	Truncation        *Truncation `json:"truncation,omitempty"`
}

const lsDefaultLimit = 500

func (e *env) lsTool() core.Tool {
	return builtin("ls", lsSchema, e.runLs,
		fmt.Sprintf("List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. "+
			"Includes dotfiles. Output is truncated to %d entries or %dKB (whichever is hit first).", lsDefaultLimit, MaxBytes/1024))
}

func (e *env) runLs(ctx context.Context, call core.ToolCall, _ func(core.ToolResult)) (core.ToolResult, error) {
	var in struct {
		Path  string   `json:"path"`
		Limit *float64 `json:"limit"`
	}
	if err := decodeCall(ctx, call, &in); err != nil {
		return core.ToolResult{}, err
	}
	dir := e.resolveDir(in.Path)
	limit := intArg(in.Limit, lsDefaultLimit)
	if err := statDir(dir); err != nil {
		return core.ToolResult{}, err
	}
	f, err := openDir(dir)
	if err != nil {
		return core.ToolResult{}, fmt.Errorf("Cannot read directory: %s", nodeMessage(err))
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return core.ToolResult{}, fmt.Errorf("Cannot read directory: %s", nodeMessage(err))
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := strings.ToLower(names[i]), strings.ToLower(names[j])
		if a != b {
			return a < b
		}
		return names[i] < names[j]
	})
	var out []string
	limitReached := false
	for _, n := range names {
		if len(out) >= limit {
			limitReached = true
			break
		}
		est, err := os.Stat(filepath.Join(dir, n))
		if err != nil {
			continue // pi skips entries it cannot stat (dangling symlinks)
		}
		if est.IsDir() {
			n += "/"
		}
		out = append(out, n)
	}
	if ctx.Err() != nil {
		return core.ToolResult{}, errAborted
	}
	if len(out) == 0 {
		return core.TextResult("(empty directory)"), nil
	}
	t := truncateHead(strings.Join(out, "\n"), int(^uint(0)>>1), MaxBytes)
	text := t.Content
	var d LsDetails
	var notices []string
	if limitReached {
		notices = append(notices, fmt.Sprintf("%d entries limit reached. Use limit=%d for more", limit, limit*2))
		d.EntryLimitReached = limit
	}
	if t.Truncated {
		notices = append(notices, formatSize(MaxBytes)+" limit reached")
		d.Truncation = &t
	}
	return noticeResult(text, notices, d, limitReached || t.Truncated), nil
}

// noticeResult appends pi's notices ("[a. b]") and sets details only when there are some.
func noticeResult(text string, notices []string, details any, hasDetails bool) core.ToolResult {
	if len(notices) > 0 {
		text += "\n\n[" + strings.Join(notices, ". ") + "]"
	}
	r := core.TextResult(text)
	if hasDetails {
		r.Details = details
	}
	return r
}

// nodeMessage words an error like Node's fs errors, which pi forwards.
func nodeMessage(err error) string {
	var pe *os.PathError
	if ok := asPathError(err, &pe); ok {
		return fmt.Sprintf("%s: %s, scandir '%s'", errnoCode(pe.Err), pe.Err.Error(), pe.Path)
	}
	return err.Error()
}

func asPathError(err error, target **os.PathError) bool {
	pe, ok := err.(*os.PathError) //nolint:errorlint // only the direct error carries the path we print.
	if ok {
		*target = pe
	}
	return ok
}
