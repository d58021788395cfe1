package e2e_test

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// update rewrites the golden wire transcripts instead of comparing them.
var update = flag.Bool("update", false, "rewrite the wire transcripts: e2e/testdata/golden, pimode and acp")

// golden records one scenario's wire transcript: every line the test sent and every message
// the server wrote, in order. A line sent by the test is placed right after the output
// message the test waited for before sending it, so the transcript is deterministic as long
// as the scenario sends only at points the server cannot move past on its own (after a
// response, after agent_settled, or while a tool is blocked on a fifo).
//
// Normalised: the temp directory (raw and as a session-directory name), uuids, 8-hex entry
// ids, epoch-millisecond numbers, ISO timestamps, pids and the server version.
type golden struct {
	t    *testing.T
	name string
	p    *proc
	root string
	// pos is how many output messages the scenario has waited for: a line sent now is
	// written into the transcript after message pos-1.
	pos int
	// sentAt is pos when the last line was sent: what that line causes comes after it.
	sentAt int
	sent   []sentLine
	args   []string
}

type sentLine struct {
	at   int
	text string
}

// rawLine is bad input sent at output position at, as a transcript shows it: quoted, cut
// to 200 bytes.
func rawLine(at int, raw string) sentLine {
	return sentLine{at: at, text: "> raw " + strconv.Quote(truncate(raw, 200))}
}

// goldenOptions are options for the process, plus what the transcript's header says.
func newGolden(t *testing.T, name string, o options) *golden {
	t.Helper()
	root := newGoldenRoot(t, "cwd")
	if o.cwd == "" {
		o.cwd = filepath.Join(root, "cwd")
	}
	g := &golden{t: t, name: name, root: root, args: o.args}
	o.args = append(o.args, goldenArgs...)
	o.env = append(o.env, "PI_RPC_HOME="+filepath.Join(root, "home"))
	g.p = start(t, o)
	return g
}

// goldenArgs are the flags every golden scenario runs with: a fixed system prompt keeps the
// date and the temp path out of the faux model's usage.
var goldenArgs = []string{"--system-prompt", "You are a test agent.", "--no-context-files"}

// newGoldenRoot makes a golden scenario's root (goldenRoot), removed when the test ends, with
// these empty directories in it.
func newGoldenRoot(t *testing.T, dirs ...string) string {
	t.Helper()
	root, err := goldenRoot()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	for _, d := range dirs {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// goldenRoot makes a temp directory whose path has the same length on every run: the
// working directory is part of the system prompt, and the faux model's usage counts its
// characters. It is under /tmp, not $TMPDIR, for the same reason.
func goldenRoot() (string, error) {
	base := "/tmp"
	if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
		base = os.TempDir()
	}
	for {
		dir := filepath.Join(base, fmt.Sprintf("pi-rpc-golden-%08x", rand.Uint32()))
		err := os.Mkdir(dir, 0o755)
		if !errors.Is(err, fs.ErrExist) {
			return dir, err
		}
	}
}

// cwd is the process's working directory.
func (g *golden) cwd() string { return g.p.dir }

// send sends one message body (framed for the process) and records it.
func (g *golden) send(body string) {
	g.t.Helper()
	g.sent = append(g.sent, sentLine{at: g.pos, text: "> " + body})
	g.sentAt = g.pos
	g.p.send(g.p.frame(body))
}

// sendRaw sends bytes as they are (bad input) and records them quoted.
func (g *golden) sendRaw(raw string) {
	g.t.Helper()
	g.sent = append(g.sent, rawLine(g.pos, raw))
	g.sentAt = g.pos
	g.p.send(raw)
}

// note records a step that is not a line on the wire (a fifo released, stdin closed).
func (g *golden) note(what string) {
	g.sent = append(g.sent, sentLine{at: g.pos, text: "# " + what})
}

// await waits for the first message after the last awaited one that satisfies pred.
func (g *golden) await(what string, pred func(*message) bool) *message {
	g.t.Helper()
	for {
		h := g.p.history()
		for i := g.pos; i < len(h); i++ {
			if pred(h[i]) {
				g.pos = i + 1
				return h[i]
			}
		}
		if g.p.nextOrEOF() == nil {
			g.t.Fatalf("%s: stdout ended while waiting for %s; last messages:\n%s", g.name, what, g.p.lastMessages(8))
		}
	}
}

// caused waits for a message the last sent line caused, which may come before or after
// messages already awaited (a response is written ahead of events still queued, so an
// event of the previous request can follow it): it searches from the last send, and the
// next line is placed after both.
func (g *golden) caused(what string, pred func(*message) bool) *message {
	g.t.Helper()
	for {
		h := g.p.history()
		for i := g.sentAt; i < len(h); i++ {
			if pred(h[i]) {
				g.pos = max(g.pos, i+1)
				return h[i]
			}
		}
		if g.p.nextOrEOF() == nil {
			g.t.Fatalf("%s: stdout ended while waiting for %s; last messages:\n%s", g.name, what, g.p.lastMessages(8))
		}
	}
}

// callThen sends a request and waits for its response and for the event it causes.
func (g *golden) callThen(id int, method, params, event string) {
	g.t.Helper()
	g.call(id, method, params)
	g.caused("event "+event, func(m *message) bool { return m.isEvent() && m.typ() == event })
}

// response waits for the response whose id is exactly these bytes.
func (g *golden) response(id string) *message {
	g.t.Helper()
	return g.await("response "+id, func(m *message) bool { return m.isResponse() && string(m.ID) == id })
}

// call sends a request and waits for its response.
func (g *golden) call(id int, method, params string) *message {
	g.t.Helper()
	g.send(req(id, method, params))
	return g.response(strconv.Itoa(id))
}

// event waits for the next event of a type.
func (g *golden) event(typ string) *message {
	g.t.Helper()
	return g.await("event "+typ, func(m *message) bool { return m.isEvent() && m.typ() == typ })
}

// request waits for the next server-to-client request of a method.
func (g *golden) request(method string) *message {
	g.t.Helper()
	return g.await("request "+method, func(m *message) bool { return m.Method == method && m.ID != nil })
}

// settled waits for the next agent_settled.
func (g *golden) settled() *message { g.t.Helper(); return g.event("agent_settled") }

// finish closes stdin, reads to the end, and compares (or writes) the transcript.
func (g *golden) finish() {
	g.t.Helper()
	g.note("stdin closed")
	g.p.closeStdin()
	code := g.p.wait()
	g.compare(code)
}

// finished compares the transcript of a process that has already exited.
func (g *golden) finished() {
	g.t.Helper()
	g.compare(g.p.wait())
}

// compareGolden compares a normalised wire transcript with testdata/<dir>/<name>.golden, or
// rewrites the file with -update; test names the -run pattern that rewrites it.
func compareGolden(t *testing.T, dir, name, test, got string) {
	t.Helper()
	path := filepath.Join("testdata", dir, name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./e2e -run %s -update to create it)", err, test)
	}
	if got != string(want) {
		t.Errorf("%s: the wire transcript changed (go test ./e2e -run %s -update rewrites it):\n%s", path, test, lineDiff(string(want), got))
	}
}

func (g *golden) compare(code int) {
	g.t.Helper()
	got := g.transcript(code)
	compareGolden(g.t, "golden", g.name, "TestGolden", got)
}

// transcript interleaves the sent lines with the output messages and normalises the result.
func (g *golden) transcript(code int) string {
	header := headerLines(g.name, g.args)
	if g.p.lsp {
		header = append(header, "framing: lsp (bodies shown without their Content-Length headers)")
	}
	out := g.p.history()
	lines := make([]string, len(out))
	for i, l := range out {
		lines[i] = string(l.raw)
	}
	return writeTranscript(g.root, header, g.sent, lines, code)
}

// headerLines starts a transcript's header: the scenario's name, then its flags if it has any.
func headerLines(name string, args []string) []string {
	if len(args) == 0 {
		return []string{name}
	}
	return []string{name, "flags: " + strings.Join(args, " ")}
}

// writeTranscript is a golden transcript, normalised (root is the scenario's temp directory):
// the header as comment lines, the output lines with the lines the test sent among them
// (writeInterleaved), and the exit code.
func writeTranscript(root string, header []string, sent []sentLine, out []string, code int) string {
	var b strings.Builder
	for _, h := range header {
		b.WriteString("# " + h + "\n")
	}
	writeInterleaved(&b, sent, out)
	fmt.Fprintf(&b, "# exit %d\n", code)
	return newNormalizer(root).apply(b.String())
}

// writeInterleaved writes each output line as "< line", with the lines the test sent placed
// where they were sent (sentLine.at: the number of output lines seen by then).
func writeInterleaved(b *strings.Builder, sent []sentLine, out []string) {
	for i := 0; i <= len(out); i++ {
		for len(sent) > 0 && sent[0].at <= i {
			b.WriteString(sent[0].text + "\n")
			sent = sent[1:]
		}
		if i < len(out) {
			b.WriteString("< " + out[i] + "\n")
		}
	}
}

// normalizer replaces what differs from run to run by stable placeholders; the same value
// always gets the same placeholder within one transcript.
type normalizer struct {
	root  string
	names map[string]string
	count map[string]int
}

func newNormalizer(root string) *normalizer {
	return &normalizer{root: root, names: map[string]string{}, count: map[string]int{}}
}

var (
	uuidRE     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	entryIDRE  = regexp.MustCompile(`"[0-9a-f]{8}"`)
	epochMsRE  = regexp.MustCompile(`\b1[0-9]{12}\b`)
	isoTimeRE  = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}([.-]\d+)?Z`)
	pidRE      = regexp.MustCompile(`\bpid \d+`)
	versionRE  = regexp.MustCompile(`("serverInfo":\{"name":"pi-rpc","version":)"[^"]*"`)
	durationRE = regexp.MustCompile(`"(durationMs|elapsedMs)":\d+`)
	loopbackRE = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	loremRE    = regexp.MustCompile(`(lorem ipsum ){4,}`)
	// todayRE is the system prompt's date (pi 1.6.0's system message carries the prompt).
	todayRE = regexp.MustCompile(`Current date: \d{4}-\d{2}-\d{2}`)
)

func (n *normalizer) placeholder(kind, v string) string {
	key := kind + "\x00" + v
	if p, ok := n.names[key]; ok {
		return p
	}
	n.count[kind]++
	p := fmt.Sprintf("<%s%d>", kind, n.count[kind])
	n.names[key] = p
	return p
}

func (n *normalizer) apply(s string) string {
	s = strings.ReplaceAll(s, n.root, "$TMP")
	encoded := strings.ReplaceAll(strings.TrimPrefix(n.root, "/"), "/", "-")
	s = strings.ReplaceAll(s, encoded, "$TMP")
	s = isoTimeRE.ReplaceAllString(s, "<time>")
	s = todayRE.ReplaceAllString(s, "Current date: <date>")
	s = uuidRE.ReplaceAllStringFunc(s, func(v string) string { return n.placeholder("uuid", v) })
	s = entryIDRE.ReplaceAllStringFunc(s, func(v string) string { return `"` + n.placeholder("id", v) + `"` })
	s = epochMsRE.ReplaceAllString(s, "0")
	s = pidRE.ReplaceAllString(s, "pid <pid>")
	s = versionRE.ReplaceAllString(s, `$1"<version>"`)
	s = durationRE.ReplaceAllString(s, `"$1":0`)
	s = loopbackRE.ReplaceAllString(s, "127.0.0.1:<port>")
	s = loremRE.ReplaceAllStringFunc(s, func(v string) string {
		return fmt.Sprintf("<lorem ipsum x%d>", len(v)/len("lorem ipsum "))
	})
	return s
}

// lineDiff shows the first lines where two transcripts differ.
func lineDiff(want, got string) string {
	var b strings.Builder
	for _, d := range testkit.DiffLines(want, got, 6) {
		fmt.Fprintf(&b, "line %d:\n  want %s\n  got  %s\n", d.Line, truncate(d.Want, 400), truncate(d.Got, 400))
	}
	return b.String()
}

// req builds a request body with a numeric id; params "" means none.
func req(id int, method, params string) string {
	if params == "" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, id, method)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
}

// notif builds a notification body.
func notif(method, params string) string {
	if params == "" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q}`, method)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, method, params)
}

// mockServer starts a scripted OpenAI-compatible server for one test.
func mockServer(t *testing.T, rs ...mockopenai.Response) *mockopenai.Server {
	t.Helper()
	m := mockopenai.New(&mockopenai.Script{Responses: rs})
	t.Cleanup(m.Close)
	return m
}
