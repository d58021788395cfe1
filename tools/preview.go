package tools

import (
	"os"
	"strings"
)

// previewLimit is the largest file a preview reads: beyond it an editor gets no diff.
const previewLimit = 4 << 20

// Preview is what a write or edit call would do to its file: the absolute path, the text
// now (empty when the file does not exist) and the text after the call. Front ends show it
// before the call runs (an ACP permission request carries the diff); the tool itself
// decides what really happens.
type Preview struct {
	Path    string
	OldText string
	NewText string
	// Exists is false when the file does not exist yet.
	Exists bool
}

// PreviewChange computes the [Preview] of a write or edit call with arguments args, paths
// resolved against cwd. It reports false for other tools, bad arguments, an edit that would
// fail, or a file too large to show.
func PreviewChange(cwd, tool string, args map[string]any) (Preview, bool) {
	return PreviewChangeFrom(cwd, tool, args, diskText)
}

// PreviewText reads the current text of the file at an absolute path for a preview:
// exists is false when there is no such file, ok false when no preview can be shown.
type PreviewText func(abs string) (text string, exists, ok bool)

// diskText is the file's text on disk, for files up to previewLimit.
func diskText(abs string) (string, bool, bool) {
	fi, err := os.Stat(abs)
	switch {
	case err == nil && (!fi.Mode().IsRegular() || fi.Size() > previewLimit):
		return "", false, false
	case err == nil:
		data, err := os.ReadFile(abs)
		if err != nil {
			return "", false, false
		}
		return string(data), true, true
	case !os.IsNotExist(err):
		return "", false, false
	}
	return "", false, true
}

// PreviewChangeFrom is [PreviewChange] with the file's current text from read: an editor's
// buffer when the tools write through one ([Access]).
func PreviewChangeFrom(cwd, tool string, args map[string]any, read PreviewText) (Preview, bool) {
	e, err := newEnv(Options{Cwd: cwd})
	if err != nil {
		return Preview{}, false
	}
	path, _ := args["path"].(string)
	if path == "" {
		return Preview{}, false
	}
	p := Preview{Path: e.resolve(path)}
	text, exists, ok := read(p.Path)
	if !ok {
		return Preview{}, false
	}
	p.OldText, p.Exists = text, exists
	switch tool {
	case "write":
		content, ok := args["content"].(string)
		if !ok {
			return Preview{}, false
		}
		p.NewText = content
		return p, true
	case "edit":
		if !p.Exists {
			return Preview{}, false
		}
		prepared, err := prepareEditArguments(args)
		if err != nil {
			return Preview{}, false
		}
		list, _ := prepared["edits"].([]any)
		edits := make([]editItem, 0, len(list))
		for _, it := range list {
			m, _ := it.(map[string]any)
			o, ok1 := m["oldText"].(string)
			n, ok2 := m["newText"].(string)
			if !ok1 || !ok2 {
				return Preview{}, false
			}
			edits = append(edits, editItem{OldText: o, NewText: n})
		}
		if len(edits) == 0 {
			return Preview{}, false
		}
		content, bom := p.OldText, ""
		if strings.HasPrefix(content, "\uFEFF") {
			bom, content = "\uFEFF", content[len("\uFEFF"):]
		}
		ending := detectLineEnding(content)
		next, err := applyEdits(normalizeToLF(content), edits, path)
		if err != nil {
			return Preview{}, false
		}
		p.NewText = bom + restoreLineEndings(next, ending)
		return p, true
	}
	return Preview{}, false
}
