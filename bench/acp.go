package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// The ACP table: an editor's view of one turn. The same ACP client (newline-delimited JSON-RPC
// 2.0: initialize, session/new, session/prompt) drives pi-rpc --protocol acp and pi-acp 0.0.24
// running pi 0.73.1 on the same mock.

// acpScenarios are the ACP table's scenarios, numbered A1, ... in the report.
func acpScenarios() []scenario {
	return []scenario{
		{
			num: 1, name: "ACP: 2,000-delta turn", measure: "session/prompt → its response",
			script: mockopenai.Script{Responses: []mockopenai.Response{{Text: deltaText(), ChunkSize: 4}}},
			run:    acpTurn,
			metrics: []metric{
				{"first agent_message_chunk, ms", func(s sample) float64 { return s.extra["first chunk ms"] }, fmtMs},
				{"session/new, ms", func(s sample) float64 { return s.extra["session/new ms"] }, fmtMs},
				{"agent_message_chunks", func(s sample) float64 { return s.extra["chunks"] }, fmtCount},
				{"stdout bytes", func(s sample) float64 { return float64(s.bytes) }, fmtBytes},
			},
		},
	}
}

// acpTurn opens a session and prompts once. The wall time is the prompt's round trip (ACP's
// settle: every update of the turn comes before the response); the first agent_message_chunk's
// latency, session/new's round trip (pi-acp starts pi there) and the turn's stdout bytes are
// the other metrics. The peak RSS is the whole process tree's (pi-acp and its pi).
func acpTurn(p *proc, s *sample) error {
	began, _, _, err := p.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	if err != nil {
		return err
	}
	s.setupNs = began.at.Sub(p.start)
	created, at, _, err := p.call("session/new", map[string]any{"cwd": p.cmd.Dir, "mcpServers": []any{}})
	if err != nil {
		return err
	}
	newMs := ms(created.at.Sub(at))
	sid, err := resultField(created.line, "sessionId")
	if err != nil {
		return err
	}
	id, at, before, err := p.send("session/prompt", map[string]any{
		"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "Write 2,000 words."}},
	})
	if err != nil {
		return err
	}
	resp, err := p.response(id, waitLimit)
	if err != nil {
		return err
	}
	stop, err := resultField(resp.line, "stopReason")
	if err != nil {
		return fmt.Errorf("session/prompt: %w", err)
	}
	if stop != "end_turn" {
		return fmt.Errorf("stopReason %q, want end_turn", stop)
	}
	var first msg
	chunks, text := 0, 0
	p.mu.Lock()
	for _, m := range p.seen {
		if m.event && m.sub == "agent_message_chunk" && m.at.After(at) && !m.at.After(resp.at) {
			if chunks == 0 {
				first = m
			}
			chunks++
			text += m.text
		}
	}
	p.mu.Unlock()
	if text != len(deltaText()) {
		return fmt.Errorf("the turn's agent_message_chunks carry %d characters in %d chunks, want %d", text, chunks, len(deltaText()))
	}
	s.wall, s.bytes = resp.at.Sub(at), resp.bytes-before
	s.extra = map[string]float64{"first chunk ms": ms(first.at.Sub(at)), "session/new ms": newMs, "chunks": float64(chunks)}
	s.rss, err = treeHWM(p.cmd.Process.Pid)
	return err
}

// classifyACP reads an ACP line: a response (id, ok, the line kept) or a notification or
// request (its method; session/update's update kind in sub, agent_message_chunk's text length).
// ACP lines are small (a chunk is one delta), so a full decode costs every server the same.
func classifyACP(line []byte) msg {
	var v struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Params struct {
			Update struct {
				SessionUpdate string `json:"sessionUpdate"`
				Content       struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"update"`
		} `json:"params"`
	}
	if err := json.Unmarshal(line, &v); err != nil {
		return msg{typ: "unparsable"}
	}
	if v.Method == "" {
		m := msg{ok: v.Result != nil, line: line}
		if len(v.ID) > 0 {
			m.id = string(v.ID)
			if s, err := strconv.Unquote(m.id); err == nil {
				m.id = s
			}
		}
		return m
	}
	m := msg{event: true, typ: v.Method, sub: v.Params.Update.SessionUpdate}
	if m.sub == "agent_message_chunk" {
		m.text = len(v.Params.Update.Content.Text)
	}
	return m
}

// treeHWM returns the sum of the peak resident sets (VmHWM) of pid and its descendants, read
// while they run: pi-acp's pi is its child, not the benchmark's, so wait4 cannot report it.
func treeHWM(pid int) (int64, error) {
	children := map[int][]int{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(child); ok {
			children[ppid] = append(children[ppid], child)
		}
	}
	var total int64
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		queue = append(queue, children[p]...)
		hwm, err := vmHWM(p)
		if err != nil {
			if p == pid {
				return 0, err
			}
			continue // a descendant that exited meanwhile
		}
		total += hwm
	}
	return total, nil
}

// parentOf reads a process's parent from /proc/PID/stat (the field after the parenthesised
// command name, which may itself hold spaces and parentheses).
func parentOf(pid int) (int, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

// vmHWM reads a process's peak resident set from /proc/PID/status, in bytes.
func vmHWM(pid int) (int64, error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no VmHWM", pid)
}

// pickAll splits -scenarios into the main table's numbers and the ACP table's (A1, ...).
func pickAll(only string) (main, acp []scenario, err error) {
	if only == "" {
		return scenarios(), acpScenarios(), nil
	}
	var nums []string
	for _, f := range strings.Split(only, ",") {
		f = strings.TrimSpace(f)
		if rest, ok := strings.CutPrefix(strings.ToUpper(f), "A"); ok {
			n, err := strconv.Atoi(rest)
			all := acpScenarios()
			if err != nil || n < 1 || n > len(all) {
				return nil, nil, fmt.Errorf("-scenarios: %q is not an ACP scenario (A1-A%d)", f, len(all))
			}
			acp = append(acp, all[n-1])
			continue
		}
		nums = append(nums, f)
	}
	if len(nums) > 0 {
		main, err = pick(scenarios(), strings.Join(nums, ","))
	}
	return main, acp, err
}

// packageVersion is the version in the package.json above a package's entry file.
func packageVersion(entry string) string {
	for dir := filepath.Dir(entry); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil {
			continue
		}
		var v struct {
			Version string `json:"version"`
		}
		if json.Unmarshal(data, &v) == nil && v.Version != "" {
			return v.Version
		}
	}
	return "unknown"
}
