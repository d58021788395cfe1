package pimode

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// exportHTML writes the conversation of the current branch as one self-contained HTML page
// (pi's export_html): to outputPath, or to pi-session-<session file name>.html in the working
// directory, as pi names it. pi's page is its themed viewer; pi-rpc's is a plain, readable
// transcript (docs/pi-compat.md).
func (s *Server) exportHTML(r *request) error {
	var out string
	if _, err := r.field("outputPath", &out); err != nil {
		return err
	}
	st := s.sup.State()
	if st.SessionFile == "" {
		return errors.New("Cannot export in-memory session to HTML")
	}
	if _, err := os.Stat(st.SessionFile); err != nil {
		return errors.New("Nothing to export yet - start a conversation first")
	}
	if out == "" {
		out = "pi-session-" + strings.TrimSuffix(filepath.Base(st.SessionFile), ".jsonl") + ".html"
	}
	var turns []htmlTurn
	for _, m := range s.sup.Messages() {
		raw, err := json.Marshal(m)
		if err != nil {
			return err
		}
		turns = append(turns, htmlTurnOf(raw))
	}
	title := st.SessionName
	if title == "" {
		title = "Session " + st.SessionID
	}
	if err := writeExport(out, renderHTML(title, turns)); err != nil {
		return fmt.Errorf("Cannot write %s: %w", out, err)
	}
	s.w.Write(success(r.id, r.typ, struct {
		Path string `json:"path"`
	}{out}))
	return nil
}

// writeExport writes the page to path, which may be a new file or a regular file to replace,
// never a special one: a FIFO's open would block the connection until some reader came, and a
// device or a directory is no page. O_NONBLOCK keeps the open from waiting; the checks before
// and after it refuse anything but a regular file.
func writeExport(path string, page []byte) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("it is not a regular file (%s)", fi.Mode().Type())
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0o644)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("it is not a regular file (%s)", fi.Mode().Type())
	}
	if err == nil {
		err = f.Truncate(0)
	}
	if err == nil {
		_, err = f.Write(page)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// htmlTurn is one message as the page shows it.
type htmlTurn struct {
	Role, Title string
	Parts       []htmlPart
}

// htmlPart is one block: Kind is text, thinking, tool (Label the tool's name) or image (Src a
// data URL).
type htmlPart struct {
	Kind, Label, Text string
	// Src is the image's data URL.
	Src string
}

// htmlTurnOf reads a message as the session file holds it.
func htmlTurnOf(raw []byte) htmlTurn {
	var m struct {
		Role     string          `json:"role"`
		Content  json.RawMessage `json:"content"`
		ToolName string          `json:"toolName"`
		Command  string          `json:"command"`
		Output   string          `json:"output"`
	}
	_ = json.Unmarshal(raw, &m)
	t := htmlTurn{Role: m.Role, Title: m.Role}
	if m.ToolName != "" {
		t.Title += " · " + m.ToolName
	}
	if m.Command != "" {
		t.Parts = append(t.Parts, htmlPart{Kind: "tool", Label: "$ " + m.Command, Text: m.Output})
	}
	var str string
	if json.Unmarshal(m.Content, &str) == nil {
		t.Parts = append(t.Parts, htmlPart{Kind: "text", Text: str})
		return t
	}
	var blocks []struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Data      string          `json:"data"`
		MimeType  string          `json:"mimeType"`
	}
	_ = json.Unmarshal(m.Content, &blocks)
	for _, c := range blocks {
		switch c.Type {
		case "text":
			t.Parts = append(t.Parts, htmlPart{Kind: "text", Text: c.Text})
		case "thinking":
			t.Parts = append(t.Parts, htmlPart{Kind: "thinking", Text: c.Thinking})
		case "toolCall":
			t.Parts = append(t.Parts, htmlPart{Kind: "tool", Label: c.Name, Text: string(c.Arguments)})
		case "image":
			// Only image types, so the data URL cannot carry a script.
			if strings.HasPrefix(c.MimeType, "image/") && !strings.ContainsAny(c.MimeType, `"';<> `) {
				t.Parts = append(t.Parts, htmlPart{Kind: "image", Src: "data:" + c.MimeType + ";base64," + c.Data})
			}
		}
	}
	return t
}

// pageHead is the page up to the title. The page is built with html.EscapeString rather than
// html/template: the template package's reflection keeps every method of every type in the
// binary, which doubled its size and its resident memory.
const pageHead = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>`

const pageStyle = `</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}
section{border-left:3px solid #ccc;padding:.2rem 1rem;margin:1rem 0}
section.user{border-color:#2a6}section.assistant{border-color:#36c}section.toolResult{border-color:#999}
h2{font-size:.8rem;text-transform:uppercase;color:#666;margin:.3rem 0}
pre{white-space:pre-wrap;margin:.3rem 0}.thinking{color:#777;font-style:italic}.tool{background:#f4f4f4;padding:.4rem}
img{max-width:100%}
</style></head><body>
`

// renderHTML is the page of turns, every text escaped.
func renderHTML(title string, turns []htmlTurn) []byte {
	var b strings.Builder
	esc := html.EscapeString
	b.WriteString(pageHead + esc(title) + pageStyle)
	b.WriteString("<h1>" + esc(title) + "</h1>\n")
	for _, t := range turns {
		b.WriteString(`<section class="` + esc(t.Role) + `"><h2>` + esc(t.Title) + "</h2>\n")
		for _, p := range t.Parts {
			switch p.Kind {
			case "image":
				b.WriteString(`<img src="` + esc(p.Src) + `" alt="image">`)
			case "tool":
				b.WriteString(`<pre class="tool"><b>` + esc(p.Label) + "</b>\n" + esc(p.Text) + "</pre>")
			default:
				b.WriteString(`<pre class="` + esc(p.Kind) + `">` + esc(p.Text) + "</pre>")
			}
			b.WriteString("\n")
		}
		b.WriteString("</section>\n")
	}
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}
