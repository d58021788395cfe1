package session

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// toolResultMaxChars caps a tool result in a summary request: the gist is enough to
// summarise, and whole file contents would blow the summariser's own context.
const toolResultMaxChars = 2000

// SerializeConversation renders LLM messages (after [core.ConvertToLLM]) as the plain text a
// summary request carries (pi's serializeConversation). Sending the conversation as text rather
// than as messages keeps the model from continuing it. Each message becomes labelled parts —
// "[User]: …", "[Assistant thinking]: …", "[Assistant]: …", "[Assistant tool calls]: name(k=JSON,
// …); …", "[Tool result]: …" (cut at 2000 characters) — joined by blank lines; parts without
// text are left out, and so are roles other than user, assistant and toolResult.
func SerializeConversation(ms []core.Message) string {
	var parts []string
	for _, m := range ms {
		switch m := m.(type) {
		case *core.UserMessage:
			if text := core.TextOf(m.Content); text != "" {
				parts = append(parts, "[User]: "+text)
			}
		case *core.AssistantMessage:
			parts = append(parts, assistantParts(m)...)
		case *core.ToolResultMessage:
			if text := core.TextOf(m.Content); text != "" {
				parts = append(parts, "[Tool result]: "+truncateForSummary(text, toolResultMaxChars))
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// assistantParts renders one assistant message: its thinking, its text, then its tool calls,
// each kind joined into one part. A message with text blocks gets a text part even when they
// are empty, as in pi.
func assistantParts(m *core.AssistantMessage) []string {
	var thinking, text, calls []string
	hasText := false
	for i := range m.Content {
		b := &m.Content[i]
		switch b.Type {
		case core.ContentText:
			text, hasText = append(text, b.Text), true
		case core.ContentThinking:
			thinking = append(thinking, b.Thinking)
		case core.ContentToolCall:
			calls = append(calls, b.Name+"("+toolArgs(b.Arguments)+")")
		}
	}
	var parts []string
	if len(thinking) > 0 {
		parts = append(parts, "[Assistant thinking]: "+strings.Join(thinking, "\n"))
	}
	if hasText {
		parts = append(parts, "[Assistant]: "+strings.Join(text, "\n"))
	}
	if len(calls) > 0 {
		parts = append(parts, "[Assistant tool calls]: "+strings.Join(calls, "; "))
	}
	return parts
}

// toolArgs renders arguments as "k=JSON, …" in JavaScript's key order (see [jsJSON]).
func toolArgs(args map[string]any) string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareJSKeys)
	pairs := make([]string, len(keys))
	for i, k := range keys {
		pairs[i] = k + "=" + jsJSON(args[k])
	}
	return strings.Join(pairs, ", ")
}

// truncateForSummary keeps the first maxChars UTF-16 code units of text and says how many
// were dropped. A cut inside a surrogate pair drops the whole character (JavaScript would keep
// half of it); the count is JavaScript's.
func truncateForSummary(text string, maxChars int) string {
	n := utf16Len(text)
	if n <= maxChars {
		return text
	}
	units := 0
	end := 0
	for i, r := range text {
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1
		}
		if units+w > maxChars {
			end = i
			break
		}
		units += w
	}
	return fmt.Sprintf("%s\n\n[... %d more characters truncated]", text[:end], n-maxChars)
}

// FileOperations collects the files a compacted conversation touched through the read, write
// and edit tools, so the summary can list them and the next compaction can carry them on.
type FileOperations struct {
	Read    map[string]bool
	Written map[string]bool
	Edited  map[string]bool
}

func newFileOperations() *FileOperations {
	return &FileOperations{Read: map[string]bool{}, Written: map[string]bool{}, Edited: map[string]bool{}}
}

// addMessage records the path argument of each read, write and edit call in an assistant
// message.
func (f *FileOperations) addMessage(m core.Message) {
	a, ok := m.(*core.AssistantMessage)
	if !ok {
		return
	}
	for _, c := range a.ToolCalls() {
		path, _ := c.Arguments["path"].(string)
		if path == "" {
			continue
		}
		switch c.Name {
		case "read":
			f.Read[path] = true
		case "write":
			f.Written[path] = true
		case "edit":
			f.Edited[path] = true
		}
	}
}

// addDetails carries on the lists of a previous compaction (its modified files count as
// edited).
func (f *FileOperations) addDetails(d *sessionapi.CompactionDetails) {
	for _, p := range d.ReadFiles {
		f.Read[p] = true
	}
	for _, p := range d.ModifiedFiles {
		f.Edited[p] = true
	}
}

// Lists returns the files only read and the files modified (written or edited), each sorted
// as JavaScript sorts strings (pi's computeFileLists). Both are non-nil, also for a nil f.
func (f *FileOperations) Lists() (readFiles, modifiedFiles []string) {
	if f == nil {
		return []string{}, []string{}
	}
	modified := map[string]bool{}
	for p := range f.Edited {
		modified[p] = true
	}
	for p := range f.Written {
		modified[p] = true
	}
	readFiles, modifiedFiles = []string{}, []string{}
	for p := range f.Read {
		if !modified[p] {
			readFiles = append(readFiles, p)
		}
	}
	for p := range modified {
		modifiedFiles = append(modifiedFiles, p)
	}
	slices.SortFunc(readFiles, compareUTF16)
	slices.SortFunc(modifiedFiles, compareUTF16)
	return readFiles, modifiedFiles
}

// formatFileOperations renders the lists appended to a summary (pi's formatFileOperations):
// "\n\n<read-files>\n…\n</read-files>" and "<modified-files>" sections separated by a blank
// line, each only when non-empty; "" when both are empty.
func formatFileOperations(readFiles, modifiedFiles []string) string {
	var sections []string
	if len(readFiles) > 0 {
		sections = append(sections, "<read-files>\n"+strings.Join(readFiles, "\n")+"\n</read-files>")
	}
	if len(modifiedFiles) > 0 {
		sections = append(sections, "<modified-files>\n"+strings.Join(modifiedFiles, "\n")+"\n</modified-files>")
	}
	if len(sections) == 0 {
		return ""
	}
	return "\n\n" + strings.Join(sections, "\n\n")
}
