package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The comparison columns' parts: ACP lines, pi mode's key order and settle, -scenarios with
// A1, the table's columns and ratios, the process tree's RSS, PATH without pi.

func TestClassifyACP(t *testing.T) {
	cases := []struct {
		line string
		want msg
	}{
		{`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`, msg{id: "3", ok: true}},
		{`{"jsonrpc":"2.0","id":"7","result":{}}`, msg{id: "7", ok: true}},
		{`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"bad"}}`, msg{id: "4"}},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"abcd"}}}}`,
			msg{event: true, typ: "session/update", sub: "agent_message_chunk", text: 4}},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c"}}}`,
			msg{event: true, typ: "session/update", sub: "tool_call"}},
		{`{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{}}`, msg{event: true, typ: "session/request_permission"}},
		{`{"jsonrpc":`, msg{typ: "unparsable"}},
	}
	for _, c := range cases {
		got := classify(implACP, []byte(c.line+"\n"))
		if got.event != c.want.event || got.typ != c.want.typ || got.sub != c.want.sub || got.id != c.want.id || got.ok != c.want.ok || got.text != c.want.text {
			t.Errorf("%s:\n got %+v\nwant %+v", c.line, got, c.want)
		}
	}
}

// pi-rpc --mode rpc writes message (the partial, thousands of bytes late in a reply) before
// assistantMessageEvent; the event type is found all the same, and a quoted look-alike in the
// text is not taken for it.
func TestClassifyPiModeKeyOrder(t *testing.T) {
	text := strings.Repeat("x", 600) + `\"assistantMessageEvent\":{\"type\":\"fake\"`
	line := `{"type":"message_update","message":{"role":"assistant","content":[{"type":"text","text":"` + text +
		`"}]},"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"x"}}`
	if got := classify(implPi, []byte(line+"\n")); !got.event || got.typ != "message_update" || got.sub != "text_delta" {
		t.Fatalf("got %+v", got)
	}
}

// pi's client, given pi-rpc --mode rpc: after agent_end get_state still says streaming (the
// period is settling), and the agent_settled that follows ends the wait.
func TestSettledTakesAgentSettledInPiMode(t *testing.T) {
	r, w := io.Pipe()
	p := &proc{impl: implPi, stdin: w, notify: make(chan struct{}, 1), done: make(chan struct{})}
	add := func(m msg) {
		m.at = time.Now()
		p.record(m, 0)
	}
	go func() {
		// Every get_state answers "still streaming"; the first is followed by agent_settled.
		br := bufio.NewReader(r)
		for n := 1; ; n++ {
			if _, err := br.ReadString('\n'); err != nil {
				return
			}
			id := fmt.Sprintf("req_%d", n)
			add(msg{id: id, ok: true, line: []byte(`{"id":"` + id + `","type":"response","command":"get_state","success":true,"data":{"isStreaming":true}}`)})
			if n == 1 {
				add(msg{event: true, typ: "agent_settled"})
			}
		}
	}()
	defer func() { _ = r.Close() }()
	add(msg{event: true, typ: "agent_end"})
	got, err := p.settled(10 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got.typ != "agent_settled" {
		t.Fatalf("settled on %q", got.typ)
	}
}

func TestPickAll(t *testing.T) {
	main, acp, err := pickAll("2,a1,7")
	if err != nil {
		t.Fatal(err)
	}
	if len(main) != 2 || main[0].num != 2 || main[1].num != 7 || len(acp) != 1 || acp[0].num != 1 {
		t.Fatalf("main %d, acp %d", len(main), len(acp))
	}
	if main, acp, err = pickAll("A1"); err != nil || len(main) != 0 || len(acp) != 1 {
		t.Fatalf("A1 alone: main %d, acp %d, %v", len(main), len(acp), err)
	}
	if main, acp, _ = pickAll(""); len(main) != len(scenarios()) || len(acp) != len(acpScenarios()) {
		t.Fatalf("all: main %d, acp %d", len(main), len(acp))
	}
	for _, bad := range []string{"A2", "A", "Ax", "12"} {
		if _, _, err := pickAll(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRenderTableColumnsAndRatios(t *testing.T) {
	mk := func(v ...float64) *series {
		se := &series{}
		for _, x := range v {
			se.add(sample{wall: time.Duration(x * float64(time.Millisecond)), rss: 10 << 20}, nil)
		}
		return se
	}
	targets := []*target{{role: rolePi}, {role: rolePiMode}, {role: roleBase}, {role: rolePiRPC}}
	sc := []scenario{{num: 3, name: "loop", measure: "prompt → settled"}}
	results := map[int]map[role]*series{3: {
		rolePi: mk(800, 1000), rolePiMode: mk(20), roleBase: mk(30), rolePiRPC: mk(15),
	}}
	out := renderTable(sc, targets, results, "")
	lines := strings.Split(out, "\n")
	wantHead := "| # | scenario | metric | pi 0.73.1 | pi-rpc --mode rpc | base pi-rpc | pi-rpc | pi-rpc ÷ pi | pi mode ÷ pi | pi-rpc ÷ base |"
	if lines[0] != wantHead {
		t.Fatalf("header\n got %s\nwant %s", lines[0], wantHead)
	}
	if strings.Count(lines[1], "---|") != 10 {
		t.Fatalf("separator %s", lines[1])
	}
	want := "| 3 | loop | prompt → settled, ms | **900** (800–1000) | **20.0** | **30.0** | **15.0** | 1/60 | 1/45 | 1/2.0 |"
	if lines[2] != want {
		t.Fatalf("row\n got %s\nwant %s", lines[2], want)
	}
	// ACP table: its own pair, the scenarios' prefix, and a failure listed.
	results = map[int]map[role]*series{1: {rolePiACP: mk(3000), roleACP: mk(250)}}
	results[1][roleACP].add(sample{}, errFor("boom"))
	out = renderTable([]scenario{{num: 1, name: "turn", measure: "x"}}, []*target{{role: rolePiACP}, {role: roleACP}}, results, "A")
	for _, s := range []string{"| pi-acp 0.0.24 + pi 0.73.1 | pi-rpc --protocol acp | pi-rpc acp ÷ pi-acp |", "| A1 | turn |", "1/12", "scenario A1, pi-rpc --protocol acp: 1 of 2 runs failed; first: boom"} {
		if !strings.Contains(out, s) {
			t.Errorf("ACP table lacks %q:\n%s", s, out)
		}
	}
}

type errFor string

func (e errFor) Error() string { return string(e) }

// The tree's peak RSS counts a child the benchmark did not start itself.
func TestTreeHWMCountsDescendants(t *testing.T) {
	self, err := vmHWM(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	alone, err := treeHWM(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(context.Background(), "cat")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stdin.Close(); _ = cmd.Wait() }()
	child, err := vmHWM(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	withChild, err := treeHWM(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if self <= 0 || child <= 0 || withChild < alone+child {
		t.Fatalf("self %d, tree alone %d, child %d, tree with child %d", self, alone, child, withChild)
	}
	if _, err := treeHWM(1 << 30); err == nil {
		t.Fatal("no error for a missing process")
	}
}

func TestPathWithoutPi(t *testing.T) {
	withPi, withoutPi, dirPi := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(withPi, "pi"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dirPi, "pi"), 0o755); err != nil { // a directory named pi stays
		t.Fatal(err)
	}
	path := strings.Join([]string{withoutPi, withPi, dirPi}, string(filepath.ListSeparator))
	if got, want := pathWithoutPi(path), withoutPi+string(filepath.ListSeparator)+dirPi; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
