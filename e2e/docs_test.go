package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The tests in this file hold the user documentation to the wire: the quick start of
// docs/protocol.md is played against the binary, every example request in docs/*.md is sent
// to it, the event examples of docs/events.md are held to what it sends, and every relative
// link in README.md, docs/*.md and the clients' README.md must lead somewhere.

// docFiles are the pages under test, from this directory: README.md, docs/*.md and the
// clients' README.md.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages := []string{filepath.Join("..", "README.md")}
	for _, pattern := range []string{"docs/*.md", "clients/*/README.md"} {
		m, err := filepath.Glob(filepath.Join("..", filepath.FromSlash(pattern)))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, m...)
	}
	return pages
}

// repoPath is a page's path from the repository root, as messages name it.
func repoPath(path string) string {
	return filepath.ToSlash(strings.TrimPrefix(filepath.Clean(path), ".."+string(filepath.Separator)))
}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// codeBlock is a fenced block of a page: its info string and lines.
type codeBlock struct {
	page  string
	line  int // the opening fence's line, 1-based
	info  string
	lines []string
}

// codeBlocks returns the fenced (```) blocks of a page.
func codeBlocks(page, text string) []codeBlock {
	var out []codeBlock
	var cur *codeBlock
	for i, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &codeBlock{page: page, line: i + 1, info: strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))}
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		}
	}
	return out
}

// firstJSON decodes the JSON value at the start of s, ignoring what follows it (the pages
// annotate some lines, "(with --max-message-bytes 1024)").
func firstJSON(s string) (map[string]json.RawMessage, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	var m map[string]json.RawMessage
	if dec.Decode(&m) != nil {
		return nil, false
	}
	return m, true
}

// docAnswer is what a page shows as the answer to a request: nothing, a result, or an error.
type docAnswer struct {
	shown bool
	code  int // 0 for a result
}

var answerID = regexp.MustCompile(`^\{"jsonrpc":"2\.0","id":("[^"]*"|[0-9]+|null),("result"|"error":\{"code":(-?[0-9]+))`)

// answerIn finds the answer to the request with this raw id among the lines after it in its
// block (the first "< " line that is a response with that id; the line need not be JSON, as
// long fields are shortened with "…").
func answerIn(lines []string, id string) docAnswer {
	for _, l := range lines {
		rest, ok := strings.CutPrefix(l, "< ")
		if !ok {
			continue
		}
		m := answerID.FindStringSubmatch(rest)
		if m == nil || m[1] != id {
			continue
		}
		a := docAnswer{shown: true}
		if m[3] != "" {
			_, _ = fmt.Sscan(m[3], &a.code)
		}
		return a
	}
	return docAnswer{}
}

// wireCodes are the errors that say a request itself is wrong (not JSON, not a request, no
// such method, bad params), whatever the server's state.
var wireCodes = []int{-32700, -32600, -32601, -32602}

// docRequest is one example request of a page.
type docRequest struct {
	where  string
	raw    string
	method string
	id     string
	answer docAnswer
}

// docRequests returns every "> {…}" line of the pages that is a JSON-RPC request with an id.
// Notifications cannot be answered and the client's own responses are not requests.
func docRequests(t *testing.T) []docRequest {
	t.Helper()
	var out []docRequest
	for _, page := range docFiles(t) {
		for _, b := range codeBlocks(page, readDoc(t, page)) {
			for i, l := range b.lines {
				rest, ok := strings.CutPrefix(l, "> ")
				if !ok || !strings.HasPrefix(rest, "{") {
					continue
				}
				where := fmt.Sprintf("%s:%d", repoPath(page), b.line+1+i)
				m, ok := firstJSON(rest)
				if !ok {
					t.Errorf("%s: an example request that is not JSON: %s", where, rest)
					continue
				}
				var method string
				_ = json.Unmarshal(m["method"], &method)
				id := m["id"]
				if method == "" || id == nil {
					continue
				}
				if !validID(id) {
					id = json.RawMessage("null") // answered with id null
				}
				end := json.NewDecoder(strings.NewReader(rest))
				var v json.RawMessage
				_ = end.Decode(&v)
				out = append(out, docRequest{where: where, raw: string(v), method: method, id: string(id),
					answer: answerIn(b.lines[i+1:], string(id))})
			}
		}
	}
	return out
}

// validID reports whether a request id is one the server echoes: a string or a number.
func validID(id json.RawMessage) bool {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

// docsScript is the model of the example requests: a short reply to any prompt.
const docsScript = `{"responses": [{"content": [{"type": "text", "text": "Done."}]}, {"content": [{"type": "text", "text": "Done."}]}]}`

// TestDocsExampleRequests sends every example request of docs/*.md to a fresh pi-rpc on the
// scripted model, one process per request, and checks the answer against the page's: where
// the page shows a wire error (-32700, -32600, -32601, -32602) the server answers that code;
// everywhere else the request is well formed (no wire error), and where the page shows a
// result and the request does not depend on the state of the page's own run (an entry, a
// session or an input of it, a busy agent), the answer is a result.
func TestDocsExampleRequests(t *testing.T) {
	reqs := docRequests(t)
	if len(reqs) < 60 {
		t.Fatalf("found %d example requests in the docs; the pages have more", len(reqs))
	}
	for _, r := range reqs {
		t.Run(r.where, func(t *testing.T) {
			cwd := t.TempDir()
			if err := os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("hello\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			p := start(t, options{faux: docsScript, cwd: cwd})
			p.send(offlineMCP(t, r.raw) + "\n")
			got := p.responseRaw(r.id)
			p.closeStdin()
			var code int
			if got.Error != nil {
				code = got.Error.Code
			}
			switch {
			case slices.Contains(wireCodes, r.answer.code):
				if code != r.answer.code {
					t.Errorf("%s\nthe page answers %d; the server: %s", r.raw, r.answer.code, got)
				}
			case slices.Contains(wireCodes, code):
				t.Errorf("%s\nthe server refuses the request itself: %s", r.raw, got)
			case r.answer.shown && r.answer.code == 0 && code != 0 && !dependsOnPageState(r):
				t.Errorf("%s\nthe page shows a result; the server: %s", r.raw, got)
			}
		})
	}
}

// offlineMCP replaces the command of every MCP server a request starts (mcp.md's npx) with
// one that exits at once: the request keeps its shape, and nothing is fetched from the
// registry (mcp_test.go drives real servers, installed locally).
func offlineMCP(t *testing.T, raw string) string {
	t.Helper()
	if !strings.Contains(raw, `"mcpServers"`) {
		return raw
	}
	var req map[string]any
	if err := json.Unmarshal([]byte(raw), &req); err != nil {
		t.Fatal(err)
	}
	params, _ := req["params"].(map[string]any)
	servers, _ := params["mcpServers"].(map[string]any)
	for _, s := range servers {
		if s, ok := s.(map[string]any); ok {
			s["command"], s["args"] = "false", []any{}
		}
	}
	out, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// pageState matches requests that name things of the run a page recorded (entries, sessions,
// inputs, directories) or need its agent busy or its session long: on a fresh server they
// are answered notFound or invalidState, which says nothing about the page.
var pageState = regexp.MustCompile(`"(entryId|since|session|sessionId|inputId|cwd)"|"method":"(continue|compact|abortBash|cancelInput)"`)

func dependsOnPageState(r docRequest) bool { return pageState.MatchString(r.raw) }

// TestDocsQuickStart plays docs/protocol.md's quick start against the binary: its script, its
// command line, its requests in order. Every request is answered with a result, every
// message the page shows arrives with the page's shape (its fields, recursively), and exit
// ends the process with status 0.
func TestDocsQuickStart(t *testing.T) {
	page := filepath.Join("..", "docs", "protocol.md")
	blocks := codeBlocks(page, readDoc(t, page))
	var script string
	var session *codeBlock
	for i, b := range blocks {
		if b.info == "json quick-start-script" && i+1 < len(blocks) {
			script, session = strings.Join(b.lines, "\n"), &blocks[i+1]
			break
		}
	}
	if session == nil || len(session.lines) == 0 {
		t.Fatal(`docs/protocol.md has no "json quick-start-script" block followed by the session`)
	}
	cmd, ok := strings.CutPrefix(session.lines[0], "$ pi-rpc ")
	if !ok {
		t.Fatalf("the quick start's session does not start with $ pi-rpc: %q", session.lines[0])
	}
	args := strings.Fields(strings.Replace(cmd, "--provider faux --faux-script script.json", "", 1))
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := start(t, options{faux: script, cwd: cwd, args: args})

	var shown []map[string]any // the page's "<" lines that are whole JSON
	for _, l := range session.lines {
		if rest, ok := strings.CutPrefix(l, "< "); ok {
			var m map[string]any
			if json.Unmarshal([]byte(rest), &m) == nil {
				shown = append(shown, m)
			}
		}
	}
	exited := false
	for _, l := range session.lines[1:] {
		rest, ok := strings.CutPrefix(l, "> ")
		if !ok {
			continue
		}
		m, ok := firstJSON(rest)
		if !ok {
			t.Fatalf("quick start: not JSON: %s", rest)
		}
		p.send(rest + "\n")
		if m["id"] == nil {
			exited = strings.Contains(rest, `"method":"exit"`)
			continue
		}
		if got := p.responseRaw(string(m["id"])); got.Error != nil {
			t.Errorf("quick start: %s\nanswered %s", rest, got)
		}
	}
	if !exited {
		t.Fatal("the quick start does not end with exit")
	}
	if code := p.wait(); code != 0 {
		t.Errorf("exit status %d after the quick start's exit, the page says 0", code)
	}
	var sent []map[string]any
	for _, m := range p.history() {
		var v map[string]any
		if json.Unmarshal(m.raw, &v) == nil {
			sent = append(sent, v)
		}
	}
	for _, want := range shown {
		if !slices.ContainsFunc(sent, func(got map[string]any) bool { return sameShape(want, got) }) {
			w, _ := json.Marshal(want)
			t.Errorf("quick start: the server sent nothing shaped like the page's\n%s", w)
		}
	}
}

// sameShape reports whether got has want's fields, recursively (objects: the same keys, a
// tool's arguments any object; arrays: each element of want like one of got's), with the
// same "type", "method", "toolName" and "decision" where want has them.
func sameShape(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				return false
			}
			if k == "arguments" || k == "args" {
				if _, ok := gv.(map[string]any); !ok {
					return false
				}
				continue
			}
			if !sameShape(wv, gv) {
				return false
			}
			switch k {
			case "type", "method", "toolName", "decision":
				if wv != gv {
					return false
				}
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || (len(w) == 0) != (len(g) == 0) {
			return false
		}
		for _, we := range w {
			if !slices.ContainsFunc(g, func(ge any) bool { return sameShape(we, ge) }) {
				return false
			}
		}
		return true
	default:
		return fmt.Sprintf("%T", want) == fmt.Sprintf("%T", got)
	}
}

// TestDocsLinks checks that every relative link of the pages (docFiles) leads to a file or
// directory of the repository, and a link with a #fragment into a page to one of its
// headings; and that every docs/NAME.md the pages name in their text exists.
func TestDocsLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	named := regexp.MustCompile("(?:^|[\\s(`])(docs/[A-Za-z0-9_-]+\\.md)")
	anchors := map[string][]string{}
	anchorsOf := func(page string) []string {
		if a, ok := anchors[page]; ok {
			return a
		}
		a := headingAnchors(readDoc(t, page))
		anchors[page] = a
		return a
	}
	for _, page := range docFiles(t) {
		text := readDoc(t, page)
		for n, l := range strings.Split(text, "\n") {
			where := fmt.Sprintf("%s:%d", repoPath(page), n+1)
			for _, m := range link.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), file)
					if _, err := os.Stat(path); err != nil {
						t.Errorf("%s: link %s: %v", where, target, err)
						continue
					}
				}
				if frag != "" && strings.HasSuffix(path, ".md") && !slices.Contains(anchorsOf(path), frag) {
					t.Errorf("%s: link %s: %s has no heading with the anchor #%s", where, target, repoPath(path), frag)
				}
			}
			for _, m := range named.FindAllStringSubmatch(l, -1) {
				if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
					t.Errorf("%s: names %s, which does not exist", where, m[1])
				}
			}
		}
	}
}

// headingAnchors returns the anchors GitHub gives a page's headings: lower case, punctuation
// other than - and _ dropped, spaces as -, a repeated anchor numbered -1, -2, ...
func headingAnchors(text string) []string {
	var out []string
	seen := map[string]int{}
	inCode := false
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inCode = !inCode
			continue
		}
		if inCode || !strings.HasPrefix(l, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b bytes.Buffer
		for _, r := range strings.ToLower(title) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", a, n))
		} else {
			out = append(out, a)
		}
		seen[a]++
	}
	return out
}

// eventsScript is the model of TestDocsEventExamples, the run of the page's examples: a turn
// that thinks, reads a.txt and runs bash, then an answer.
const eventsScript = `{"responses": [
  {"content": [{"type": "thinking", "thinking": "Let me look."}, {"type": "text", "text": "Reading."},
               {"type": "toolCall", "name": "read", "arguments": {"path": "a.txt"}},
               {"type": "toolCall", "name": "bash", "arguments": {"command": "ls"}}]},
  {"content": [{"type": "text", "text": "It says hello."}]}
]}`

// eventKey sorts events for comparison: the type, the tool and the streaming step.
func eventKey(ev map[string]any) string {
	step, _ := ev["assistantMessageEvent"].(map[string]any)
	return fmt.Sprintf("%v/%v/%v", ev["type"], ev["toolName"], step["type"])
}

// TestDocsEventExamples runs a prompt whose reply runs bash and holds the event examples of
// docs/events.md to what the server sent: each example of a kind the run produced (the same
// type, tool and streaming step) has the shape of one of those events, its fields
// recursively, so a field the page shows and the wire lacks (or the reverse) fails.
func TestDocsEventExamples(t *testing.T) {
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := start(t, options{faux: eventsScript, cwd: cwd, args: []string{"--no-session"}})
	p.result("prompt", map[string]any{"message": "What is here?"}, nil)
	p.event("agent_settled")
	produced := map[string][]map[string]any{}
	for _, m := range p.history() {
		if m.isEvent() {
			produced[eventKey(m.ev)] = append(produced[eventKey(m.ev)], m.ev)
		}
	}
	page := filepath.Join("..", "docs", "events.md")
	checked := 0
	for _, b := range codeBlocks(page, readDoc(t, page)) {
		if b.info != "json" {
			continue
		}
		for i, l := range b.lines {
			var ex map[string]any
			if json.Unmarshal([]byte(l), &ex) != nil || ex["seq"] == nil {
				continue // a shape with placeholders, or not an event
			}
			got := produced[eventKey(ex)]
			if len(got) == 0 {
				continue
			}
			checked++
			if !slices.ContainsFunc(got, func(ev map[string]any) bool { return sameShape(ex, ev) }) {
				w, _ := json.Marshal(got[0])
				t.Errorf("docs/events.md:%d shows\n%s\nthe server sent\n%s", b.line+1+i, l, w)
			}
		}
	}
	t.Logf("%d examples checked", checked)
	if checked < 6 {
		t.Errorf("only %d examples of docs/events.md were checked", checked)
	}
}
