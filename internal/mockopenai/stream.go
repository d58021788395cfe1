package mockopenai

import (
	"slices"
	"strconv"
	"strings"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

// player writes one scripted response in OpenAI's chunk format.
type player struct {
	*mockhttp.Play[Response]

	id, model    string
	created      int64
	includeUsage bool
	outChars     int
}

// playChat writes one scripted response as Chat Completions streams it.
func playChat(pl *mockhttp.Play[Response]) {
	p := &player{Play: pl}
	p.play()
}

// identity is a response's id and model: the script's, else fallbackID and the model the
// request named.
func identity(resp *Response, rec *Request, fallbackID string) (id, model string) {
	return mockhttp.Or(resp.ID, fallbackID), mockhttp.Or(resp.Model, mockhttp.RequestedModel(rec))
}

func (p *player) play() {
	resp := &p.Resp
	p.id, p.model = identity(resp, p.Rec, "chatcmpl-mock-"+strconv.Itoa(p.N))
	p.created = resp.Created
	if p.created == 0 {
		p.created = 1700000000
	}
	if so, ok := p.Rec.Decoded["stream_options"].(map[string]any); ok {
		p.includeUsage, _ = so["include_usage"].(bool)
	}
	if !p.Start(mockhttp.ErrorWriter(resp.Error, writeError)) {
		return
	}
	if !p.chunk(`{"role":"assistant","content":""}`, "null") {
		return
	}
	if !playSteps(resp, p.event) {
		return
	}
	fr := mockhttp.Reason(resp.FinishReason, "stop", "tool_calls", len(resp.ToolCalls) > 0 || slices.ContainsFunc(resp.Events, isToolCall))
	if !p.chunk(`{}`, jsonString(fr)) {
		return
	}
	if p.includeUsage && !p.usage() {
		return
	}
	if !resp.NoDone {
		p.Write("data: [DONE]\n\n", true)
	}
}

func isToolCall(e Event) bool { return e.ToolCall != nil }

// event writes one scripted step.
func (p *player) event(ev Event) bool {
	if ok, done := p.Common(ev.DelayMs, ev.Comment, ev.Raw, "\n\n"); done {
		return ok
	}
	switch {
	case ev.Text != "":
		p.outChars += len(ev.Text)
		return p.chunk(`{"content":`+jsonString(ev.Text)+`}`, "null")
	case ev.Reasoning != "":
		p.outChars += len(ev.Reasoning)
		field := p.Resp.ReasoningField
		if field == "" {
			field = "reasoning_content"
		}
		return p.chunk(`{`+jsonString(field)+`:`+jsonString(ev.Reasoning)+`}`, "null")
	case ev.ToolCall != nil:
		tc := ev.ToolCall
		return p.chunk(`{"tool_calls":[{"index":`+strconv.Itoa(tc.Index)+`,"id":`+jsonString(tc.ID)+
			`,"type":"function","function":{"name":`+jsonString(tc.Name)+`,"arguments":""}}]}`, "null")
	case ev.Args != nil:
		p.outChars += len(ev.Args.Fragment)
		return p.chunk(`{"tool_calls":[{"index":`+strconv.Itoa(ev.Args.Index)+`,"function":{"arguments":`+jsonString(ev.Args.Fragment)+`}}]}`, "null")
	}
	return true
}

// chunk writes one chat.completion.chunk with a single choice.
func (p *player) chunk(delta, finishReason string) bool {
	var b strings.Builder
	b.WriteString(`{"id":`)
	b.WriteString(jsonString(p.id))
	b.WriteString(`,"object":"chat.completion.chunk","created":`)
	b.WriteString(strconv.FormatInt(p.created, 10))
	b.WriteString(`,"model":`)
	b.WriteString(jsonString(p.model))
	b.WriteString(`,"choices":[{"index":0,"delta":`)
	b.WriteString(delta)
	b.WriteString(`,"logprobs":null,"finish_reason":`)
	b.WriteString(finishReason)
	b.WriteString(`}]`)
	if p.includeUsage {
		b.WriteString(`,"usage":null`)
	}
	b.WriteString("}")
	return p.Write("data: "+b.String()+"\n\n", true)
}

// usage writes the usage chunk, with empty choices, as OpenAI does for include_usage.
func (p *player) usage() bool {
	u := p.Resp.Usage
	if u == nil {
		u = &Usage{PromptTokens: mockhttp.Tokens(len(p.Rec.Body)), CompletionTokens: mockhttp.Tokens(p.outChars)}
	}
	body := `{"id":` + jsonString(p.id) + `,"object":"chat.completion.chunk","created":` + strconv.FormatInt(p.created, 10) +
		`,"model":` + jsonString(p.model) + `,"choices":[],"usage":{"prompt_tokens":` + strconv.Itoa(u.PromptTokens) +
		`,"completion_tokens":` + strconv.Itoa(u.CompletionTokens) + `,"total_tokens":` + strconv.Itoa(u.PromptTokens+u.CompletionTokens) +
		`,"prompt_tokens_details":{"cached_tokens":` + strconv.Itoa(u.CachedTokens) + `,"audio_tokens":0}` +
		`,"completion_tokens_details":{"reasoning_tokens":` + strconv.Itoa(u.ReasoningTokens) +
		`,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`
	return p.Write("data: "+body+"\n\n", true)
}

// playSteps plays the response's scripted events, or those generate derives from its
// fields, with step (see [mockhttp.PlaySteps]).
func playSteps(r *Response, step func(Event) bool) bool {
	return mockhttp.PlaySteps(r.Events, func() []Event { return generate(r) }, step)
}

// generate turns the reasoning/text/toolCalls shorthand into events.
func generate(r *Response) []Event {
	size := mockhttp.ChunkSize(r.ChunkSize)
	evs := mockhttp.Fragments(r.Reasoning, size, func(s string) Event { return Event{Reasoning: s} })
	evs = append(evs, mockhttp.Fragments(r.Text, size, func(s string) Event { return Event{Text: s} })...)
	if !r.Interleave {
		return append(evs, mockhttp.CallSteps(r.ToolCalls, size, callStart, callArgs)...)
	}
	frags := make([][]string, len(r.ToolCalls))
	for i, tc := range r.ToolCalls {
		frags[i] = split(tc.Arguments, size)
	}
	for step := 0; ; step++ {
		more := false
		for i, tc := range r.ToolCalls {
			switch {
			case step == 0:
				evs = append(evs, Event{ToolCall: &ToolCallStart{Index: i, ID: tc.ID, Name: tc.Name}})
				more = true
			case step-1 < len(frags[i]):
				evs = append(evs, Event{Args: &ArgsFragment{Index: i, Fragment: frags[i][step-1]}})
				more = true
			}
		}
		if !more {
			break
		}
	}
	return evs
}

func callStart(s *ToolCallStart) Event { return Event{ToolCall: s} }
func callArgs(a *ArgsFragment) Event   { return Event{Args: a} }

// jsonString and split are the shared script helpers, under short names.
var (
	jsonString = mockhttp.JSONString
	split      = mockhttp.Split
)
