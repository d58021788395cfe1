package mockgoogle

import (
	"encoding/json"
	"strconv"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

// player writes one scripted response in Gemini's streamGenerateContent?alt=sse format.
type player struct {
	*mockhttp.Play[Response]

	id, model string
	outChars  int
	usage     Usage
	// pending is the last content chunk, held back so the finishReason and the full usage go
	// on it, as Gemini sends them.
	pending map[string]any
}

// play writes one scripted response in Gemini's event format.
func play(pl *mockhttp.Play[Response]) {
	p := &player{Play: pl}
	p.play()
}

func (p *player) play() {
	resp := &p.Resp
	p.id, p.model = mockhttp.Or(resp.ID, "mock-response-"+strconv.Itoa(p.N)), mockhttp.Or(resp.Model, ModelOf(p.Rec))
	if !p.Start(mockhttp.ErrorWriter(resp.Error, writeError)) {
		return
	}
	if resp.Usage != nil {
		p.usage = *resp.Usage
	} else {
		p.usage = Usage{PromptTokenCount: mockhttp.Tokens(len(p.Rec.Body))}
	}
	if !mockhttp.PlaySteps(resp.Events, func() []Event { return generate(resp) }, p.event) {
		return
	}
	last := p.pending
	if last == nil {
		last = p.chunk(nil)
	}
	if resp.Usage == nil {
		p.usage.CandidatesTokenCount = mockhttp.Tokens(p.outChars)
	}
	if !resp.NoDone {
		cand := last["candidates"].([]any)[0].(map[string]any)
		cand["finishReason"] = mockhttp.Or(resp.FinishReason, "STOP")
		last["usageMetadata"] = p.usageJSON(true)
	}
	p.send(last)
}

// event writes one scripted step: a content step becomes the pending chunk (the previous
// one is sent first).
func (p *player) event(ev Event) bool {
	if ev.DelayMs > 0 || ev.Comment != "" || ev.Raw != "" {
		if !p.flush() {
			return false
		}
		ok, _ := p.Common(ev.DelayMs, ev.Comment, ev.Raw, "\r\n\r\n")
		return ok
	}
	switch {
	case ev.Error != nil:
		return p.flush() && p.Write("data: "+errorJSON(ev.Error)+"\r\n\r\n", true)
	case ev.ToolCall != nil:
		tc := ev.ToolCall
		var args any = map[string]any{}
		if tc.Arguments != "" {
			if err := json.Unmarshal([]byte(tc.Arguments), &args); err != nil {
				args = tc.Arguments
			}
		}
		fc := map[string]any{"name": tc.Name, "args": args}
		if tc.ID != "" {
			fc["id"] = tc.ID
		}
		part := map[string]any{"functionCall": fc}
		if tc.Signature != "" {
			part["thoughtSignature"] = tc.Signature
		}
		p.outChars += len(tc.Arguments)
		return p.hold(part)
	case ev.Text != "" || ev.Reasoning != "" || ev.Signature != "":
		part := map[string]any{"text": ev.Text}
		if ev.Reasoning != "" {
			part = map[string]any{"text": ev.Reasoning, "thought": true}
		}
		if ev.Signature != "" {
			part["thoughtSignature"] = ev.Signature
		}
		p.outChars += len(ev.Text) + len(ev.Reasoning)
		return p.hold(part)
	}
	return true
}

// hold sends the pending chunk and makes one of part the new pending chunk.
func (p *player) hold(part map[string]any) bool {
	if !p.flush() {
		return false
	}
	p.pending = p.chunk([]any{part})
	return true
}

// flush sends the pending chunk, if any.
func (p *player) flush() bool {
	if p.pending == nil {
		return true
	}
	c := p.pending
	p.pending = nil
	return p.send(c)
}

// chunk is one GenerateContentResponse with parts.
func (p *player) chunk(parts []any) map[string]any {
	if parts == nil {
		parts = []any{map[string]any{"text": ""}}
	}
	return map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"parts": parts, "role": "model"}, "index": 0}},
		"usageMetadata": p.usageJSON(false),
		"modelVersion":  p.model,
		"responseId":    p.id,
	}
}

// usageJSON is the usageMetadata: the prompt count on every chunk, everything on the last.
func (p *player) usageJSON(final bool) map[string]any {
	u := p.usage
	m := map[string]any{"promptTokenCount": u.PromptTokenCount, "totalTokenCount": u.PromptTokenCount}
	if final {
		m["candidatesTokenCount"] = u.CandidatesTokenCount
		m["totalTokenCount"] = u.PromptTokenCount + u.CandidatesTokenCount + u.ThoughtsTokenCount
		if u.ThoughtsTokenCount > 0 {
			m["thoughtsTokenCount"] = u.ThoughtsTokenCount
		}
		if u.CachedContentTokenCount > 0 {
			m["cachedContentTokenCount"] = u.CachedContentTokenCount
		}
	}
	return m
}

// send writes one chunk in Gemini's framing: "data: <json>\r\n\r\n".
func (p *player) send(chunk map[string]any) bool {
	b, _ := json.Marshal(chunk)
	return p.Write("data: "+string(b)+"\r\n\r\n", true)
}

// generate turns the reasoning/text/toolCalls shorthand into steps: thought parts, text
// parts, then one functionCall part per call. signature goes on the first call when there are
// calls (as Gemini signs the first function call), else on the last text or thought part.
func generate(r *Response) []Event {
	size := mockhttp.ChunkSize(r.ChunkSize)
	evs := mockhttp.Fragments(r.Reasoning, size, func(s string) Event { return Event{Reasoning: s} })
	evs = append(evs, mockhttp.Fragments(r.Text, size, func(s string) Event { return Event{Text: s} })...)
	for i, tc := range r.ToolCalls {
		if i == 0 && tc.Signature == "" {
			tc.Signature = r.Signature
		}
		evs = append(evs, Event{ToolCall: &tc})
	}
	if r.Signature != "" && len(r.ToolCalls) == 0 && len(evs) > 0 {
		evs[len(evs)-1].Signature = r.Signature
	}
	return evs
}
