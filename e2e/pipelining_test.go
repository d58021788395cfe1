package e2e_test

import "testing"

// TestWaitSettledIdleRacingPrompt sends, while idle after a first period, waitSettled
// without an input id and then a prompt in the same write. Read in that order, the
// waitSettled is handled while idle, so it must answer with the last agent_settled (the
// first period's) at once, not wait for the period the prompt starts.
func TestWaitSettledIdleRacingPrompt(t *testing.T) {
	p := start(t, options{faux: fauxScript(text("first"), hanging())})
	var pr inputResult
	p.result("prompt", map[string]any{"message": "one"}, &pr)
	first := p.event("agent_settled")
	p.send(p.frame(requestBody(100, "waitSettled", nil)) + p.frame(requestBody(101, "prompt", map[string]any{"message": "two"})))
	p.response(101)
	p.result("abort", nil, nil)
	w := p.response(100)
	var got settled
	w.decode(t, &got)
	if got.LastSeq != first.seq() {
		t.Errorf("waitSettled sent while idle = %s, want the last agent_settled (seq %d)", w.Result, first.seq())
	}
}

// TestCompactThenPromptPipelined sends compact and then prompt in one write while idle.
// Handled in order, compact starts first (here it fails "Nothing to compact", -32011) and
// the prompt then starts a run. The server instead runs compact's handler on a goroutine
// after the prompt has started, so compact answers -32010 busy, after the prompt's response.
func TestCompactThenPromptPipelined(t *testing.T) {
	p := start(t, options{faux: fauxScript(text("hello"))})
	p.send(p.frame(requestBody(1, "compact", nil)) + p.frame(requestBody(2, "prompt", map[string]any{"message": "go"})))
	c := p.response(1)
	pr := p.response(2)
	if c.Error == nil || c.Error.Code != -32011 {
		t.Errorf("compact sent before prompt while idle = %s, want -32011 (nothing to compact)", c)
	}
	p.before(c, pr, "compact (read first) answered before prompt")
}

// TestShutdownAnswersAfterSettled: shutdown of a busy session must write the period's
// agent_settled before its response (docs/protocol.md). The server replies with c.reply, which
// puts the response in the lane ahead of queued events, so when agent_settled is still queued
// the response overtakes it.
func TestShutdownAnswersAfterSettled(t *testing.T) {
	for i := range 30 {
		p := start(t, options{faux: fauxScript(hanging()), args: []string{"--no-session"}})
		busy(t, p)
		sid := p.request("shutdown", nil)
		ev := p.event("agent_settled")
		resp := p.response(sid)
		if p.index(resp) < p.index(ev) {
			t.Fatalf("attempt %d: shutdown response %s written before its agent_settled %s", i, resp, ev)
		}
		p.notify("exit", nil)
		p.wait()
	}
}
