package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"syscall"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/pi-rpc/pi-rpc/core"
)

var editSchema = schema(`{"type":"object","properties":{
"path":{"type":"string","description":"Path to the file to edit (relative or absolute)"},
"edits":{"type":"array","description":"One or more targeted replacements. Each edit is matched against the original file, not incrementally. Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead.",
"items":{"type":"object","properties":{
"oldText":{"type":"string","description":"Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call."},
"newText":{"type":"string","description":"Replacement text for this targeted edit."}},
"required":["oldText","newText"],"additionalProperties":false}}},
"required":["path","edits"]}`)

// EditDetails is the details of a successful edit: pi's line-numbered display diff and the
// first changed line of the new file, for editors to jump to.
type EditDetails struct {
	Diff             string `json:"diff"`
	FirstChangedLine int    `json:"firstChangedLine,omitempty"`
}

type editItem struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

func (e *env) editTool() core.Tool {
	t := builtin("edit", editSchema, e.runEdit,
		"Edit a single file using exact text replacement. Every edits[].oldText must match a unique, non-overlapping region of the original file. "+
			"If two changes affect the same block or nearby lines, merge them into one edit instead of emitting overlapping edits. "+
			"Do not include large unchanged regions just to connect distant changes.")
	t.Prepare = prepareEditArguments
	return t
}

// prepareEditArguments accepts the argument shapes models still send (pi's
// prepareArguments): edits as a JSON string, and a top-level oldText/newText pair from the
// single-edit version of the tool, which becomes the last entry of edits.
func prepareEditArguments(args map[string]any) (map[string]any, error) {
	if args == nil {
		return args, nil
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = v
	}
	if s, ok := out["edits"].(string); ok {
		var parsed []any
		if json.Unmarshal([]byte(s), &parsed) == nil {
			out["edits"] = parsed
		}
	}
	oldText, ok1 := out["oldText"].(string)
	newText, ok2 := out["newText"].(string)
	if !ok1 || !ok2 {
		return out, nil
	}
	var edits []any
	if list, ok := out["edits"].([]any); ok {
		edits = append(edits, list...)
	}
	edits = append(edits, map[string]any{"oldText": oldText, "newText": newText})
	delete(out, "oldText")
	delete(out, "newText")
	out["edits"] = edits
	return out, nil
}

func (e *env) runEdit(ctx context.Context, call core.ToolCall, _ func(core.ToolResult)) (core.ToolResult, error) {
	var in struct {
		Path  string     `json:"path"`
		Edits []editItem `json:"edits"`
	}
	if err := call.Decode(&in); err != nil {
		return core.ToolResult{}, err
	}
	if len(in.Edits) == 0 {
		return core.ToolResult{}, errors.New("Edit tool input is invalid. edits must contain at least one replacement.")
	}
	if ctx.Err() != nil {
		return core.ToolResult{}, errAborted
	}
	abs := e.resolve(in.Path)
	r, err := e.checkWritable(in.Path, abs)
	if err != nil {
		return core.ToolResult{}, err
	}
	if r.info != nil && r.info.IsDir() {
		return core.ToolResult{}, fmt.Errorf("Could not edit file: %s. Error code: EISDIR.", in.Path)
	}
	if err := refuseSpecial("edit", in.Path, abs, r); err != nil {
		return core.ToolResult{}, err
	}
	// With a client that serves both reading and writing, the edit applies to its text (an
	// unsaved buffer, which may have no file on disk yet) and goes back to it.
	reader, writer := e.opts.Access.Reader, e.opts.Access.Writer
	through := reader != nil && writer != nil
	switch {
	case through && r.dangling != "":
		return core.ToolResult{}, danglingError(in.Path, r.dangling, r.path)
	case r.info == nil && !through:
		return core.ToolResult{}, fmt.Errorf("Could not edit file: %s. Error code: ENOENT.", in.Path)
	}
	unlock, err := pathLocks.lock(ctx, r.path)
	if err != nil {
		return core.ToolResult{}, err
	}
	defer unlock()
	var raw string
	if through {
		raw, err = reader.ReadText(ctx, TextFile{ToolCallID: call.ID, Path: abs})
		if err != nil {
			return core.ToolResult{}, accessError(ctx, err, "Could not edit file: %s. The editor answered", in.Path)
		}
	} else if raw, err = readForEdit(r.path, in.Path, abs); err != nil {
		return core.ToolResult{}, err
	}
	if ctx.Err() != nil {
		return core.ToolResult{}, errAborted
	}
	base, newContent, final, err := editText(raw, in.Edits, in.Path)
	if err != nil {
		return core.ToolResult{}, err
	}
	if through {
		if ctx.Err() != nil {
			return core.ToolResult{}, errAborted
		}
		if err := writer.WriteText(ctx, TextFile{ToolCallID: call.ID, Path: abs}, final); err != nil {
			return core.ToolResult{}, accessError(ctx, err, "Could not edit file: %s. The editor answered", in.Path)
		}
	} else if err := writeFileAtomic(ctx, r.path, []byte(final)); err != nil {
		return core.ToolResult{}, wordSpecial(err, "edit", in.Path, abs)
	}
	diff, first := generateDiff(base, newContent, 4)
	return core.ToolResult{
		Content: []core.Content{core.TextBlock(fmt.Sprintf("Successfully replaced %d block(s) in %s.", len(in.Edits), in.Path))},
		Details: EditDetails{Diff: diff, FirstChangedLine: first},
	}, nil
}

// readForEdit reads the regular file at real path real (path as the model wrote it, abs
// resolved), in the edit tool's words when it cannot.
func readForEdit(real, path, abs string) (string, error) {
	data, release, err := readRegular(real, false)
	if err != nil {
		var se *specialFileError
		if errors.As(err, &se) {
			return "", wordSpecial(err, "edit", path, abs)
		}
		return "", fmt.Errorf("Could not edit file: %s. Error code: %s.", path, errnoCode(err))
	}
	defer release()
	return string(data), nil
}

// editText applies edits to a file's text the way pi does: on its LF-normalised content
// without a BOM (base, which the diff is made from), giving newContent, and final, the text
// to write back, with the BOM and the original line endings restored.
func editText(raw string, edits []editItem, path string) (base, newContent, final string, err error) {
	bom := ""
	if strings.HasPrefix(raw, "\uFEFF") {
		bom, raw = "\uFEFF", raw[len("\uFEFF"):]
	}
	ending := detectLineEnding(raw)
	base = normalizeToLF(raw)
	newContent, err = applyEdits(base, edits, path)
	if err != nil {
		return "", "", "", err
	}
	return base, newContent, bom + restoreLineEndings(newContent, ending), nil
}

// errnoCode names an error the way Node does (ENOENT, EACCES, ...), which pi puts in its
// "Could not edit file" message.
func errnoCode(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.ENOENT:
			return "ENOENT"
		case syscall.EACCES:
			return "EACCES"
		case syscall.EISDIR:
			return "EISDIR"
		case syscall.EPERM:
			return "EPERM"
		case syscall.ENOTDIR:
			return "ENOTDIR"
		}
		return fmt.Sprintf("errno %d", int(errno))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "ENOENT"
	}
	return err.Error()
}

func detectLineEnding(s string) string {
	lf := strings.IndexByte(s, '\n')
	if lf < 0 {
		return "\n"
	}
	crlf := strings.Index(s, "\r\n")
	if crlf >= 0 && crlf < lf {
		return "\r\n"
	}
	return "\n"
}

func normalizeToLF(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

func restoreLineEndings(s, ending string) string {
	if ending == "\r\n" {
		return strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
}

var fuzzyReplacer = strings.NewReplacer(
	"\u2018", "'", "\u2019", "'", "\u201A", "'", "\u201B", "'",
	"\u201C", `"`, "\u201D", `"`, "\u201E", `"`, "\u201F", `"`,
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	"\u00A0", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ", "\u2005", " ", "\u2006", " ",
	"\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200A", " ", "\u202F", " ", "\u205F", " ", "\u3000", " ",
)

// normalizeForFuzzyMatch is pi's fuzzy form: NFKC, trailing whitespace dropped per line, and
// smart quotes, Unicode dashes and special spaces made ASCII. Models often retype text with
// such differences; matching in this form lets those edits land.
func normalizeForFuzzyMatch(s string) string {
	s = norm.NFKC.String(s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(l, unicode.IsSpace)
	}
	return fuzzyReplacer.Replace(strings.Join(lines, "\n"))
}

type matchedEdit struct {
	index, start, length int
	newText              string
}

// findText looks for old in content, exactly first and then in fuzzy form. fuzzy reports
// which; the offsets are in content for an exact match and in the fuzzy form otherwise.
func findText(content, old string) (start, length int, fuzzy, found bool) {
	if i := strings.Index(content, old); i >= 0 {
		return i, len(old), false, true
	}
	fc, fo := normalizeForFuzzyMatch(content), normalizeForFuzzyMatch(old)
	if i := strings.Index(fc, fo); i >= 0 {
		return i, len(fo), true, true
	}
	return -1, 0, false, false
}

// applyEdits applies every edit, each matched once against the original LF content, and
// returns the new content or pi's error for the first problem found.
func applyEdits(content string, edits []editItem, path string) (string, error) {
	many := len(edits) > 1
	norm := make([]editItem, len(edits))
	for i, ed := range edits {
		norm[i] = editItem{normalizeToLF(ed.OldText), normalizeToLF(ed.NewText)}
		if norm[i].OldText == "" {
			if many {
				return "", fmt.Errorf("edits[%d].oldText must not be empty in %s.", i, path)
			}
			return "", fmt.Errorf("oldText must not be empty in %s.", path)
		}
	}
	usedFuzzy := false
	for _, ed := range norm {
		if _, _, fz, found := findText(content, ed.OldText); found && fz {
			usedFuzzy = true
		}
	}
	base := content
	if usedFuzzy {
		base = normalizeForFuzzyMatch(content)
	}
	matched := make([]matchedEdit, 0, len(norm))
	for i, ed := range norm {
		start, length, _, found := findText(base, ed.OldText)
		if !found {
			head := fmt.Sprintf("Could not find the exact text in %s.", path)
			if many {
				head = fmt.Sprintf("Could not find edits[%d] in %s.", i, path)
			}
			msg := head + " The old text must match exactly including all whitespace and newlines."
			if content != "" {
				msg += "\n" + closestMatchContext(content, ed.OldText)
			}
			return "", errors.New(msg)
		}
		if n := strings.Count(normalizeForFuzzyMatch(base), normalizeForFuzzyMatch(ed.OldText)); n > 1 {
			if many {
				return "", fmt.Errorf("Found %d occurrences of edits[%d] in %s. Each oldText must be unique. Please provide more context to make it unique.", n, i, path)
			}
			return "", fmt.Errorf("Found %d occurrences of the text in %s. The text must be unique. Please provide more context to make it unique.", n, path)
		}
		matched = append(matched, matchedEdit{i, start, length, ed.NewText})
	}
	sort.Slice(matched, func(a, b int) bool { return matched[a].start < matched[b].start })
	for i := 1; i < len(matched); i++ {
		p, c := matched[i-1], matched[i]
		if p.start+p.length > c.start {
			return "", fmt.Errorf("edits[%d] and edits[%d] overlap in %s. Merge them into one edit or target disjoint regions.", p.index, c.index, path)
		}
	}
	var out string
	if usedFuzzy {
		out = applyPreservingUnchangedLines(content, base, matched)
	} else {
		out = applyReplacements(base, matched, 0)
	}
	if out == content {
		if many {
			return "", fmt.Errorf("No changes made to %s. The replacements produced identical content.", path)
		}
		return "", fmt.Errorf("No changes made to %s. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.", path)
	}
	return out, nil
}

// applyReplacements applies sorted, disjoint replacements whose offsets are relative to
// offset within s.
func applyReplacements(s string, reps []matchedEdit, offset int) string {
	var b strings.Builder
	pos := 0
	for _, r := range reps {
		start := r.start - offset
		b.WriteString(s[pos:start])
		b.WriteString(r.newText)
		pos = start + r.length
	}
	b.WriteString(s[pos:])
	return b.String()
}

// applyPreservingUnchangedLines applies replacements found in the fuzzy form base to the
// original content: only the lines an edit touches are rewritten (from the fuzzy form), every
// other line keeps its original bytes. Newer pi does this; 0.73.1 wrote the whole file in
// fuzzy form, silently changing quotes and trailing spaces elsewhere in the file.
func applyPreservingUnchangedLines(original, base string, reps []matchedEdit) string {
	origLines := lineSpans(original)
	baseLines := lineSpans(base)
	if len(origLines) != len(baseLines) {
		return applyReplacements(base, reps, 0)
	}
	type group struct {
		startLine, endLine int
		reps               []matchedEdit
	}
	var groups []group
	for _, r := range reps {
		sl := -1
		for i, l := range baseLines {
			if r.start >= l[0] && r.start < l[1] {
				sl = i
				break
			}
		}
		if sl < 0 {
			return applyReplacements(base, reps, 0)
		}
		el := sl
		for el < len(baseLines) && baseLines[el][1] < r.start+r.length {
			el++
		}
		if el >= len(baseLines) {
			return applyReplacements(base, reps, 0)
		}
		el++
		if n := len(groups); n > 0 && sl < groups[n-1].endLine {
			groups[n-1].endLine = max(groups[n-1].endLine, el)
			groups[n-1].reps = append(groups[n-1].reps, r)
			continue
		}
		groups = append(groups, group{sl, el, []matchedEdit{r}})
	}
	var b strings.Builder
	line := 0
	for _, g := range groups {
		if line < g.startLine {
			b.WriteString(original[origLines[line][0]:origLines[g.startLine][0]])
		}
		gs, ge := baseLines[g.startLine][0], baseLines[g.endLine-1][1]
		b.WriteString(applyReplacements(base[gs:ge], g.reps, gs))
		line = g.endLine
	}
	if line < len(origLines) {
		b.WriteString(original[origLines[line][0]:])
	}
	return b.String()
}

// lineSpans returns [start,end) byte ranges of each line including its "\n"; an empty final
// segment is not a line.
func lineSpans(s string) [][2]int {
	var spans [][2]int
	start := 0
	for start < len(s) {
		i := strings.IndexByte(s[start:], '\n')
		end := len(s)
		if i >= 0 {
			end = start + i + 1
		}
		spans = append(spans, [2]int{start, end})
		start = end
	}
	return spans
}

// closestMatchContext helps the model retry a failed edit: it shows where the first line of
// oldText probably is, or the start of the file.
func closestMatchContext(content, old string) string {
	lines := strings.Split(content, "\n")
	oldLines := strings.Split(old, "\n")
	first := strings.TrimSpace(oldLines[0])
	if first == "" {
		return "File is empty."
	}
	{
		r := []rune(first)
		for n := min(len(r), 60); n >= 10; n -= 10 {
			needle := strings.TrimSpace(string(r[:n]))
			if needle == "" {
				continue
			}
			for idx, l := range lines {
				if strings.Contains(l, needle) {
					start := max(0, idx-2)
					end := min(len(lines), idx+len(oldLines)+3)
					var b strings.Builder
					fmt.Fprintf(&b, "Closest match is around line %d:", idx+1)
					for i := start; i < end; i++ {
						fmt.Fprintf(&b, "\n  %d: %s", i+1, lines[i])
					}
					return b.String()
				}
			}
		}
	}
	var b strings.Builder
	b.WriteString("File starts with:")
	for i := 0; i < min(5, len(lines)); i++ {
		fmt.Fprintf(&b, "\n  %d: %s", i+1, lines[i])
	}
	return b.String()
}
