package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"unicode/utf16"

	"github.com/pi-rpc/pi-rpc/core"
)

var writeSchema = schema(`{"type":"object","properties":{
"path":{"type":"string","description":"Path to the file to write (relative or absolute)"},
"content":{"type":"string","description":"Content to write to the file"}},
"required":["path","content"]}`)

func (e *env) writeTool() core.Tool {
	return builtin("write", writeSchema, e.runWrite,
		"Write content to a file. Creates the file if it doesn't exist, overwrites if it does. "+
			"Automatically creates parent directories. Files outside the working directory cannot be written unless the server allows it.")
}

func (e *env) runWrite(ctx context.Context, call core.ToolCall, _ func(core.ToolResult)) (core.ToolResult, error) {
	var in struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if err := decodeCall(ctx, call, &in); err != nil {
		return core.ToolResult{}, err
	}
	abs := e.resolve(in.Path)
	r, err := e.checkWritable(in.Path, abs)
	if err != nil {
		return core.ToolResult{}, err
	}
	if err := refuseSpecial("write", in.Path, abs, r); err != nil {
		return core.ToolResult{}, err
	}
	if r.dangling != "" {
		return core.ToolResult{}, danglingError(in.Path, r.dangling, r.path)
	}
	unlock, err := pathLocks.lock(ctx, r.path)
	if err != nil {
		return core.ToolResult{}, err
	}
	defer unlock()
	if w := e.opts.Access.Writer; w != nil {
		// The editor writes the file (and tracks the change); nothing is created on disk
		// here. ctx is checked last, as before a rename.
		if ctx.Err() != nil {
			return core.ToolResult{}, errAborted
		}
		if err := w.WriteText(ctx, TextFile{ToolCallID: call.ID, Path: abs}, in.Content); err != nil {
			return core.ToolResult{}, accessError(ctx, err, "Could not write %s: the editor answered", in.Path)
		}
		return writeResult(in.Content, in.Path), nil
	}
	created, err := mkdirAllTracked(filepath.Dir(r.path))
	if err != nil {
		return core.ToolResult{}, err
	}
	if err := writeFileAtomic(ctx, r.path, []byte(in.Content)); err != nil {
		removeCreated(created)
		return core.ToolResult{}, wordSpecial(err, "write", in.Path, abs)
	}
	return writeResult(in.Content, in.Path), nil
}

// writeResult is pi's success message. pi reports content.length, a count of UTF-16 code
// units; keep the number models see.
func writeResult(content, path string) core.ToolResult {
	n := len(utf16.Encode([]rune(content)))
	return core.TextResult(fmt.Sprintf("Successfully wrote %d bytes to %s", n, path))
}
