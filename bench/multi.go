package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// manySessions is how many sessions the multi-session scenarios open in one process: the
// default --max-sessions, the first session included.
const manySessions = 16

// modelPaceUs is the interval between the deltas of scenario 10's replies: 1,000 deltas per
// second, one 2,000-delta reply in 2 s. Real models stream about 50-200 tokens per second;
// this is several times faster, so sixteen sessions still make pi-rpc handle 16,000 deltas a
// second, but each reply takes the model's time rather than the machine's.
const modelPaceUs = 1000

// multiScenarios are the scenarios of several sessions over one connection (docs/protocol.md,
// "Several sessions"); pi 0.73.1 has one session per process and runs none of them.
func multiScenarios() []scenario {
	script := mockopenai.Script{}
	for range manySessions {
		script.Responses = append(script.Responses, mockopenai.Response{Text: deltaText(), ChunkSize: 4})
	}
	// Scenario 10: one session's reply, then sixteen at once, all at model pace.
	paced := mockopenai.Script{}
	for range manySessions + 1 {
		paced.Responses = append(paced.Responses, mockopenai.Response{Text: deltaText(), ChunkSize: 4, Faults: mockhttp.Faults{ChunkIntervalUs: modelPaceUs}})
	}
	return []scenario{
		{
			num: 8, name: "16 idle sessions", measure: "spawn → 16th session open", piRPCOnly: true,
			run: func(p *proc, s *sample) error {
				if _, err := openSessions(p); err != nil {
					return err
				}
				last, _, _, err := p.call("getState", nil)
				if err != nil {
					return err
				}
				s.wall = last.at.Sub(p.start)
				return nil
			},
		},
		{
			num: 9, name: "16 sessions × 2,000-delta reply", measure: "16 prompts → 16 settled", piRPCOnly: true,
			script: script,
			run: func(p *proc, s *sample) error {
				end, at, before, err := promptAll(p)
				if err != nil {
					return err
				}
				s.wall, s.events, s.bytes = end.at.Sub(at), p.eventsBetween(at, end.at), end.bytes-before
				s.extra = map[string]float64{"events/s": float64(s.events) / s.wall.Seconds()}
				if err := expect(p, end.at, "text_delta", "message_update", "text_delta", manySessions*2000); err != nil {
					return err
				}
				return gapFree(p, end.at)
			},
		},
		{
			num: 10, name: "16 sessions × 2,000-delta reply at model pace", measure: "16 prompts → 16 settled", piRPCOnly: true,
			script: paced,
			run: func(p *proc, s *sample) error {
				// One session alone first, in the same process and at the same pace: the
				// measure the sixteen are compared with.
				st, _, _, err := p.call("getState", nil)
				if err != nil {
					return err
				}
				first, err := resultField(st.line, "sessionId")
				if err != nil {
					return err
				}
				_, oneAt, _, err := p.call("prompt", map[string]any{"message": "Write 2,000 words.", "sessionId": first})
				if err != nil {
					return err
				}
				oneEnd, err := p.settled(waitLimit)
				if err != nil {
					return err
				}
				if err := expect(p, oneEnd.at, "text_delta", "message_update", "text_delta", 2000); err != nil {
					return fmt.Errorf("one session: %w", err)
				}
				one := oneEnd.at.Sub(oneAt)
				end, at, before, err := promptAll(p)
				if err != nil {
					return err
				}
				s.wall, s.events, s.bytes = end.at.Sub(at), p.eventsBetween(at, end.at), end.bytes-before
				s.extra = map[string]float64{
					"events/s": float64(s.events) / s.wall.Seconds(),
					"one ms":   ms(one),
					"ratio":    s.wall.Seconds() / one.Seconds(),
				}
				if err := expect(p, end.at, "text_delta", "message_update", "text_delta", (manySessions+1)*2000); err != nil {
					return err
				}
				return gapFree(p, end.at)
			},
		},
	}
}

// promptAll opens sessions up to manySessions, prompts every one at once and waits until all
// have settled. It returns the last agent_settled, the time just before the first prompt was
// written and the stdout byte count then.
func promptAll(p *proc) (end msg, at time.Time, before int64, err error) {
	ids, err := openSessions(p)
	if err != nil {
		return end, at, before, err
	}
	sent := make([]string, len(ids))
	for i, id := range ids {
		var t time.Time
		var n int64
		if sent[i], t, n, err = p.send("prompt", map[string]any{"message": "Write 2,000 words.", "sessionId": id}); err != nil {
			return end, at, before, err
		}
		if i == 0 {
			at, before = t, n
		}
	}
	for _, id := range sent {
		if _, err := p.response(id, waitLimit); err != nil {
			return end, at, before, err
		}
	}
	for range ids {
		if end, err = p.settled(waitLimit); err != nil {
			return end, at, before, err
		}
	}
	return end, at, before, nil
}

// openSessions opens sessions until manySessions are open and returns every session's id,
// the first (the one the process started with) included.
func openSessions(p *proc) ([]string, error) {
	st, _, _, err := p.call("getState", nil)
	if err != nil {
		return nil, err
	}
	first, err := resultField(st.line, "sessionId")
	if err != nil {
		return nil, err
	}
	ids := []string{first}
	for len(ids) < manySessions {
		r, _, _, err := p.call("createSession", nil)
		if err != nil {
			return nil, err
		}
		id, err := resultField(r.line, "sessionId")
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// resultField reads a string field of a response's result.
func resultField(line []byte, field string) (string, error) {
	var v struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(line, &v); err != nil {
		return "", err
	}
	var s string
	if err := json.Unmarshal(v.Result[field], &s); err != nil || s == "" {
		return "", fmt.Errorf("response without result.%s: %.300s", field, line)
	}
	return s, nil
}

// gapFree checks that the events that arrived by upTo carry one gap-free seq (the
// connection's counter, shared by every session).
func gapFree(p *proc, upTo time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var prev int64 = -1
	for i := range p.seen {
		m := &p.seen[i]
		if !m.event || m.at.After(upTo) {
			continue
		}
		if m.seq < 0 {
			return fmt.Errorf("event %d (%s) without seq", i, m.typ)
		}
		if prev >= 0 && m.seq != prev+1 {
			return fmt.Errorf("seq gap: %d after %d", m.seq, prev)
		}
		prev = m.seq
	}
	return nil
}

// seqOf reads an event line's last "seq" (pi-rpc writes it last in params).
func seqOf(line []byte) int64 {
	const key = `"seq":`
	i := bytes.LastIndex(line, []byte(key))
	if i < 0 {
		return -1
	}
	j := i + len(key)
	k := j
	for k < len(line) && line[k] >= '0' && line[k] <= '9' {
		k++
	}
	n, err := strconv.ParseInt(string(line[j:k]), 10, 64)
	if err != nil {
		return -1
	}
	return n
}
