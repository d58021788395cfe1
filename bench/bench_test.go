package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/session"
)

// The benchmark itself runs only through make bench / make bench-compare; these tests check
// its parts without starting a process.

func TestWriteSessionIsAValidPiSession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	const n = 202
	if err := writeSession(path, "/work", n); err != nil {
		t.Fatal(err)
	}
	l, err := session.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !l.HasHeader || l.Header.Version != 3 || len(l.Warnings) != 0 || l.Migrated {
		t.Fatalf("header %+v, warnings %v, migrated %v", l.Header, l.Warnings, l.Migrated)
	}
	if len(l.Entries) != n {
		t.Fatalf("%d entries, want %d", len(l.Entries), n)
	}
	roles := map[string]int{}
	for i, e := range l.Entries {
		if i > 0 && e.ParentID != l.Entries[i-1].ID {
			t.Fatalf("entry %d: parent %q, want %q (one chain)", i, e.ParentID, l.Entries[i-1].ID)
		}
		if e.Type == session.EntryMessage {
			roles[string(e.Message.Role())]++
		}
	}
	if roles["user"] != 50 || roles["assistant"] != 100 || roles["toolResult"] != 50 {
		t.Fatalf("roles %v", roles)
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		kind impl
		line string
		want msg
	}{
		{implPiRPC, `{"jsonrpc":"2.0","method":"event","params":{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"ab"},"seq":7}}`,
			msg{event: true, typ: "message_update", sub: "text_delta"}},
		{implPiRPC, `{"jsonrpc":"2.0","method":"event","params":{"type":"message_end","message":{"role":"assistant","content":[]},"seq":9}}`,
			msg{event: true, typ: "message_end", sub: "assistant"}},
		{implPiRPC, `{"jsonrpc":"2.0","id":12,"result":{"aborted":true}}`, msg{id: "12", ok: true}},
		{implPiRPC, `{"jsonrpc":"2.0","id":3,"error":{"code":-32010,"message":"busy"}}`, msg{id: "3"}},
		{implPiRPC, `{"id":4,"result":{},"jsonrpc":"2.0"}`, msg{id: "4", ok: true}},
		{implPi, `{"type":"message_update","assistantMessageEvent":{"type":"text_start","contentIndex":0,"partial":{}}}`,
			msg{event: true, typ: "message_update", sub: "text_start"}},
		{implPi, `{"type":"message_start","message":{"role":"user","content":[]}}`, msg{event: true, typ: "message_start", sub: "user"}},
		{implPi, `{"id":"req_2","type":"response","command":"prompt","success":true}`, msg{id: "req_2", ok: true}},
		{implPi, `{"id":"req_5","type":"response","command":"get_state","success":false,"error":"x"}`, msg{id: "req_5"}},
		{implPi, `{"type":"response","command":"abort","success":true,"id":"req_9"}`, msg{id: "req_9", ok: true}},
		{implPi, `not json`, msg{typ: "unparsable"}},
	}
	for _, c := range cases {
		got := classify(c.kind, []byte(c.line+"\n"))
		if got.event != c.want.event || got.typ != c.want.typ || got.sub != c.want.sub || got.id != c.want.id || got.ok != c.want.ok {
			t.Errorf("%s %s:\n got %+v\nwant %+v", c.kind, c.line, got, c.want)
		}
	}
}

// decodeLine, the slow path, reads an event's subtype where each dialect writes it.
func TestDecodeLineEvents(t *testing.T) {
	cases := []struct {
		kind     impl
		line     string
		typ, sub string
	}{
		{implPiRPC, `{"params":{"message":{"role":"user"},"type":"message_start"},"method":"event"}`, "message_start", "user"},
		{implPiRPC, `{"params":{"assistantMessageEvent":{"type":"text_delta"},"message":{"role":"assistant"},"type":"message_update"},"method":"event"}`, "message_update", "text_delta"},
		{implPi, `{"message":{"role":"assistant"},"type":"message_end"}`, "message_end", "assistant"},
		{implPi, `{"assistantMessageEvent":{"type":"thinking_end"},"type":"message_update"}`, "message_update", "thinking_end"},
	}
	for _, c := range cases {
		if got := decodeLine(c.kind, []byte(c.line)); !got.event || got.typ != c.typ || got.sub != c.sub {
			t.Errorf("%s %s: got %+v, want %s/%s", c.kind, c.line, got, c.typ, c.sub)
		}
	}
}

func TestSummarizeAndRatio(t *testing.T) {
	st := summarize([]float64{5, 1, 3, 2})
	if st.med != 2.5 || st.lo != 1 || st.hi != 5 || st.n != 4 {
		t.Fatalf("%+v", st)
	}
	if st := summarize([]float64{9, 1, 4}); st.med != 4 {
		t.Fatalf("odd median %v", st.med)
	}
	if got := ratio(stat{med: 2, n: 1}, stat{med: 100, n: 1}); got != "1/50" {
		t.Errorf("ratio = %q", got)
	}
	if got := ratio(stat{med: 30, n: 1}, stat{med: 10, n: 1}); got != "3.0×" {
		t.Errorf("ratio = %q", got)
	}
	if got := fmtMs(ms(1500 * time.Microsecond)); got != "1.50" {
		t.Errorf("fmtMs = %q", got)
	}
}

func TestScenariosNumberedInOrder(t *testing.T) {
	for i, sc := range scenarios() {
		if sc.num != i+1 || sc.run == nil || sc.measure == "" {
			t.Fatalf("scenario %d: %+v", i+1, sc)
		}
	}
	if _, err := pick(scenarios(), "2,7"); err != nil {
		t.Fatal(err)
	}
	if _, err := pick(scenarios(), "12"); err == nil {
		t.Fatal("scenario 12 accepted")
	}
}

// The README says how many scenarios make bench runs, in words.
func TestReadmeCountsTheScenarios(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`make bench`: the (\\w+) end-to-end scenarios").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md does not say how many scenarios `make bench` runs")
	}
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
		"ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"}
	if n := len(scenarios()); n >= len(words) || string(m[1]) != words[n] {
		t.Errorf("README.md says make bench runs %s scenarios; it runs %d", m[1], n)
	}
}

// The multi-session scenarios read each event's seq and fail on a gap or a missing one.
func TestSeqGapFree(t *testing.T) {
	ev := func(seq int) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"event","params":{"type":"text","sessionId":"s","seq":%d}}`, seq)
	}
	if got := classify(implPiRPC, ev(41)).seq; got != 41 {
		t.Fatalf("seq = %d", got)
	}
	if got := classify(implPiRPC, []byte(`{"jsonrpc":"2.0","method":"event","params":{"type":"x"}}`)).seq; got != -1 {
		t.Fatalf("seq without one = %d", got)
	}
	now := time.Now()
	for _, tc := range []struct {
		seqs []int
		ok   bool
	}{{[]int{1, 2, 3}, true}, {[]int{1, 3}, false}, {[]int{2, 2}, false}} {
		p := &proc{}
		for _, q := range tc.seqs {
			m := classify(implPiRPC, ev(q))
			m.at = now
			p.seen = append(p.seen, m)
		}
		if err := gapFree(p, now); (err == nil) != tc.ok {
			t.Errorf("%v: %v", tc.seqs, err)
		}
	}
}

// A server's peak RSS is its own, not the benchmark's: with 64 MB resident here, a child
// that needs a megabyte or two must not be reported at 64 MB (wait4's ru_maxrss would).
func TestPeakRSSIsTheServers(t *testing.T) {
	big := make([]byte, 64<<20)
	for i := 0; i < len(big); i += 4096 {
		big[i] = 1
	}
	p, err := spawn(implPiRPC, "cat", nil, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(big)
	rss, err := p.finish()
	if err != nil {
		t.Fatal(err)
	}
	if rss <= 0 || rss > 32<<20 {
		t.Fatalf("cat's peak RSS reported as %.1f MB", float64(rss)/(1<<20))
	}
}
