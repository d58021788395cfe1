package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// waitLimit bounds every wait of a scenario; pi's 2,000-delta reply takes seconds.
const waitLimit = 90 * time.Second

// sample is what one run of a scenario measured.
type sample struct {
	wall time.Duration // the scenario's measured interval
	rss  int64         // peak resident set of the server process, bytes
	// cpu is the server process's CPU time over its life (user + sys, from wait4), spawn to
	// exit: on a shared machine it moves far less than the wall times.
	cpu     time.Duration
	events  int   // events written during the interval
	bytes   int64 // stdout bytes written during the interval
	extra   map[string]float64
	setupNs time.Duration // not reported: spawn to ready, for the log
}

// scenario is one benchmark scenario. setup prepares the run's working directory and returns
// extra server arguments; run drives the server and fills the sample.
type scenario struct {
	num     int
	name    string
	measure string // what the wall time is from and to
	script  mockopenai.Script
	setup   func(work string) (session string, err error)
	// piRPCOnly says pi 0.73.1 cannot run the scenario (several sessions in one process).
	piRPCOnly bool
	run       func(p *proc, s *sample) error
	// metrics are report rows beyond those metricsFor gives by number (the ACP table's).
	metrics []metric
}

const smallFile = "Benchmark notes\n\nThe read tool returns this small file. It has a few lines,\n" +
	"so the tool result is short and the loop's cost is the agent's own overhead:\n" +
	"one model request per turn, one tool call, events for each step.\n"

func readCall(id, path string) mockopenai.ToolCall {
	args, _ := json.Marshal(map[string]string{"path": path})
	return mockopenai.ToolCall{ID: id, Name: "read", Arguments: string(args)}
}

// deltaText is 8,000 characters: 2,000 deltas of 4.
func deltaText() string {
	const words = "the quick brown fox jumps over the lazy dog while the agent streams its reply; "
	var b strings.Builder
	for b.Len() < 8000 {
		b.WriteString(words)
	}
	return b.String()[:8000]
}

func writeFiles(work string, names ...string) error {
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(work, n), []byte(smallFile), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func scenarios() []scenario {
	return append(append(singleScenarios(), multiScenarios()...), largeSessionScenario())
}

func singleScenarios() []scenario {
	return []scenario{
		{
			num: 1, name: "cold start to first response", measure: "spawn → getState response",
			run: func(p *proc, s *sample) error {
				r, _, _, err := p.call("getState", nil)
				if err != nil {
					return err
				}
				s.wall = r.at.Sub(p.start)
				return nil
			},
		},
		{
			num: 2, name: "2,000-delta reply", measure: "prompt → settled",
			script: mockopenai.Script{Responses: []mockopenai.Response{{Text: deltaText(), ChunkSize: 4}}},
			run: func(p *proc, s *sample) error {
				end, err := promptToSettled(p, s, "Write 2,000 words.")
				if err != nil {
					return err
				}
				s.extra = map[string]float64{"events/s": float64(s.events) / s.wall.Seconds()}
				return expect(p, end.at, "text_delta", "message_update", "text_delta", 2000)
			},
		},
		{
			num: 3, name: "three-turn read loop", measure: "prompt → settled",
			script: mockopenai.Script{Responses: []mockopenai.Response{
				{ToolCalls: []mockopenai.ToolCall{readCall("call_1", "notes.txt")}},
				{ToolCalls: []mockopenai.ToolCall{readCall("call_2", "notes.txt")}},
				{ToolCalls: []mockopenai.ToolCall{readCall("call_3", "notes.txt")}},
				{Text: "The file says the same thing three times."},
			}},
			setup: func(work string) (string, error) { return "", writeFiles(work, "notes.txt") },
			run:   toolLoop("Read notes.txt three times.", 3, 4),
		},
		{
			num: 4, name: "five parallel reads", measure: "prompt → settled",
			script: mockopenai.Script{Responses: []mockopenai.Response{
				{ToolCalls: []mockopenai.ToolCall{
					readCall("call_1", "a.txt"), readCall("call_2", "b.txt"), readCall("call_3", "c.txt"),
					readCall("call_4", "d.txt"), readCall("call_5", "e.txt"),
				}},
				{Text: "All five files hold the same notes."},
			}},
			setup: func(work string) (string, error) {
				return "", writeFiles(work, "a.txt", "b.txt", "c.txt", "d.txt", "e.txt")
			},
			run: toolLoop("Read the five files.", 5, 2),
		},
		{
			num: 5, name: "steer in a tool turn + follow-up", measure: "prompt → settled",
			script: mockopenai.Script{Responses: []mockopenai.Response{
				{ToolCalls: []mockopenai.ToolCall{readCall("call_1", "notes.txt")}},
				{Text: "Steered: looking at the notes differently."},
				{Text: "Follow-up answered."},
				// When the tool turn ends before the steer arrives (an instant mock, a fast
				// process), the steer is delivered after the first answer instead: one more reply.
				{Text: "Answered."},
			}},
			setup: func(work string) (string, error) { return "", writeFiles(work, "notes.txt") },
			run: func(p *proc, s *sample) error {
				if err := ready(p, s); err != nil {
					return err
				}
				_, at, before, err := p.call("prompt", map[string]any{"message": "Read notes.txt."})
				if err != nil {
					return err
				}
				// The run has started and its first model request is on its way: the steer is
				// queued during the tool turn and delivered after its tool batch, the follow-up
				// when the run would otherwise stop.
				steer, _, _, err := p.send("steer", map[string]any{"message": "Focus on the second line."})
				if err != nil {
					return err
				}
				follow, _, _, err := p.send("followUp", map[string]any{"message": "Now summarise it."})
				if err != nil {
					return err
				}
				steered, err := p.response(steer, waitLimit)
				if err != nil {
					return err
				}
				if _, err := p.response(follow, waitLimit); err != nil {
					return err
				}
				end, err := p.settled(waitLimit)
				if err != nil {
					return err
				}
				if bytes.Contains(steered.line, []byte(`"disposition":"started"`)) {
					// The whole run ended before the steer was read (a loaded machine): the
					// steer started a second busy period, with the follow-up queued on it.
					if end, err = p.settled(waitLimit); err != nil {
						return err
					}
				}
				s.wall, s.events, s.bytes = end.at.Sub(at), p.eventsBetween(at, end.at), end.bytes-before
				if err := expect(p, end.at, "tool results", "tool_execution_end", "", 1); err != nil {
					return err
				}
				if err := expect(p, end.at, "user messages", "message_end", "user", 3); err != nil {
					return err
				}
				if err := expect(p, end.at, "assistant messages", "message_end", "assistant", 3); err != nil {
					return expect(p, end.at, "assistant messages", "message_end", "assistant", 4)
				}
				return nil
			},
		},
		{
			num: 6, name: "abort mid-stream", measure: "abort → settled",
			// 40 chunks arrive (role + 39 deltas), then the stream stalls until the client aborts.
			script: mockopenai.Script{Responses: []mockopenai.Response{{Text: deltaText(), ChunkSize: 4, Faults: mockhttp.Faults{StallAfter: 40}}}},
			run: func(p *proc, s *sample) error {
				if err := ready(p, s); err != nil {
					return err
				}
				if _, _, _, err := p.call("prompt", map[string]any{"message": "Write at length."}); err != nil {
					return err
				}
				for range 30 {
					if _, err := p.event("message_update", "text_delta", waitLimit); err != nil {
						return err
					}
				}
				resp, at, before, err := p.call("abort", nil)
				if err != nil {
					return err
				}
				end, err := p.settled(waitLimit)
				if err != nil {
					return err
				}
				last := end.at
				if resp.at.After(last) { // pi answers abort after its agent is idle; count whichever is later
					last = resp.at
				}
				s.wall, s.events, s.bytes = last.Sub(at), p.eventsBetween(at, last), end.bytes-before
				return nil
			},
		},
		{
			num: 7, name: "open a 10,000-entry session", measure: "spawn → getEntries response",
			setup: sessionSetup(sessionEntries),
			run: func(p *proc, s *sample) error {
				r, err := p.firstCall(s, "getEntries")
				if err != nil {
					return err
				}
				n, err := countEntries(p.impl, r.line)
				if err != nil {
					return err
				}
				want := sessionEntries
				if p.impl == implPi {
					want = sessionMessages // get_messages: the message entries only
				}
				if n != want {
					return fmt.Errorf("getEntries returned %d items, want %d", n, want)
				}
				// A second call on the warm process: the answer alone.
				pid := p.cmd.Process.Pid
				faults0, faultsOK := liveFaults(pid)
				cpu0, cpuOK := liveCPU(pid)
				r2, at, _, err := p.call("getEntries", nil)
				if err != nil {
					return err
				}
				s.extra = map[string]float64{"response bytes": float64(len(r.line)), "again ms": ms(r2.at.Sub(at))}
				if cpu1, ok := liveCPU(pid); ok && cpuOK {
					s.extra["again cpu ms"] = ms(cpu1 - cpu0)
				}
				if faults1, ok := liveFaults(pid); ok && faultsOK {
					s.extra["again faults"] = float64(faults1 - faults0)
				}
				return nil
			},
		},
	}
}

// ready makes sure the server is up (a getState round trip) before a scenario's timed part,
// so that interval measures the work and not the start.
func ready(p *proc, s *sample) error {
	r, _, _, err := p.call("getState", nil)
	if err != nil {
		return err
	}
	s.setupNs = r.at.Sub(p.start)
	return nil
}

func promptToSettled(p *proc, s *sample, text string) (msg, error) {
	if err := ready(p, s); err != nil {
		return msg{}, err
	}
	_, at, before, err := p.call("prompt", map[string]any{"message": text})
	if err != nil {
		return msg{}, err
	}
	end, err := p.settled(waitLimit)
	if err != nil {
		return end, err
	}
	s.wall, s.events, s.bytes = end.at.Sub(at), p.eventsBetween(at, end.at), end.bytes-before
	return end, nil
}

// expect checks that exactly want events of type typ (and sub) arrived by upTo: a run that
// took a different path measured something else.
func expect(p *proc, upTo time.Time, what, typ, sub string, want int) error {
	got := p.count(upTo, func(m *msg) bool { return m.typ == typ && (sub == "" || m.sub == sub) })
	if got != want {
		return fmt.Errorf("%s: got %d, want %d", what, got, want)
	}
	return nil
}

// countEntries counts getEntries' entries (pi-rpc) or get_messages' messages (pi).
func countEntries(kind impl, line []byte) (int, error) {
	if kind == implPi {
		var v struct {
			Data struct {
				Messages []json.RawMessage `json:"messages"`
			} `json:"data"`
		}
		err := json.Unmarshal(line, &v)
		return len(v.Data.Messages), err
	}
	var v struct {
		Result struct {
			Entries    []json.RawMessage `json:"entries"`
			NextCursor string            `json:"nextCursor"`
		} `json:"result"`
	}
	err := json.Unmarshal(line, &v)
	if err == nil && v.Result.NextCursor != "" {
		err = fmt.Errorf("getEntries paged the branch (nextCursor %q)", v.Result.NextCursor)
	}
	return len(v.Result.Entries), err
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// toolLoop runs a prompt to agent_settled and checks the run took the expected path: so many
// tool results and assistant messages.
func toolLoop(prompt string, toolResults, assistants int) func(p *proc, s *sample) error {
	return func(p *proc, s *sample) error {
		end, err := promptToSettled(p, s, prompt)
		if err != nil {
			return err
		}
		if err := expect(p, end.at, "tool results", "tool_execution_end", "", toolResults); err != nil {
			return err
		}
		return expect(p, end.at, "assistant messages", "message_end", "assistant", assistants)
	}
}
