package mockanthropic

import (
	"slices"
	"strconv"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

// Block types of the open content block.
const (
	blockNone = iota
	blockText
	blockThinking
	blockTool
)

// player writes one scripted response in Anthropic's event format.
type player struct {
	*mockhttp.Play[Response]

	id, model string
	outChars  int

	// open is the kind of the open content block, openIndex its index; next is the index
	// the next block gets; tools maps a scripted tool-call index to its block index.
	open      int
	openIndex int
	next      int
	tools     map[int]int
}

// play writes one scripted response in Anthropic's event format.
func play(pl *mockhttp.Play[Response]) {
	p := &player{Play: pl, tools: map[int]int{}}
	p.play()
}

func (p *player) play() {
	resp := &p.Resp
	p.Header().Set("Request-Id", "req_mock_"+strconv.Itoa(p.N))
	p.id, p.model = mockhttp.Or(resp.ID, "msg_mock_"+strconv.Itoa(p.N)), mockhttp.Or(resp.Model, mockhttp.RequestedModel(p.Rec))
	if !p.Start(mockhttp.ErrorWriter(resp.Error, writeError)) {
		return
	}
	u := resp.Usage
	if u == nil {
		u = &Usage{InputTokens: mockhttp.Tokens(len(p.Rec.Body))}
	}
	if !p.send("message_start", `{"type":"message_start","message":{"id":`+jsonString(p.id)+`,"type":"message","role":"assistant","model":`+jsonString(p.model)+
		`,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`+strconv.Itoa(u.InputTokens)+
		`,"cache_creation_input_tokens":`+strconv.Itoa(u.CacheCreationInputTokens)+`,"cache_read_input_tokens":`+strconv.Itoa(u.CacheReadInputTokens)+
		`,"output_tokens":1}}}`) {
		return
	}
	if !p.send("ping", `{"type": "ping"}`) {
		return
	}
	if !mockhttp.PlaySteps(resp.Events, func() []Event { return generate(resp, p.N) }, p.event) || !p.closeBlock() {
		return
	}
	sr := mockhttp.Reason(resp.StopReason, "end_turn", "tool_use", len(resp.ToolCalls) > 0 || slices.ContainsFunc(resp.Events, isToolCall))
	out := u.OutputTokens
	if resp.Usage == nil {
		out = mockhttp.Tokens(p.outChars)
	}
	if !p.send("message_delta", `{"type":"message_delta","delta":{"stop_reason":`+jsonString(sr)+`,"stop_sequence":null},"usage":{"output_tokens":`+strconv.Itoa(out)+`}}`) {
		return
	}
	if !resp.NoDone {
		p.send("message_stop", `{"type":"message_stop"}`)
	}
}

func isToolCall(e Event) bool { return e.ToolCall != nil }

// event writes one scripted step.
func (p *player) event(ev Event) bool {
	if ok, done := p.Common(ev.DelayMs, ev.Comment, ev.Raw, "\n\n"); done {
		return ok
	}
	switch {
	case ev.Ping:
		return p.send("ping", `{"type": "ping"}`)
	case ev.Error != nil:
		return p.send("error", errorJSON(ev.Error))
	case ev.Text != "":
		p.outChars += len(ev.Text)
		return p.openBlock(blockText, `{"type":"text","text":""}`) &&
			p.delta(p.openIndex, `{"type":"text_delta","text":`+jsonString(ev.Text)+`}`)
	case ev.Reasoning != "":
		p.outChars += len(ev.Reasoning)
		return p.openBlock(blockThinking, `{"type":"thinking","thinking":"","signature":""}`) &&
			p.delta(p.openIndex, `{"type":"thinking_delta","thinking":`+jsonString(ev.Reasoning)+`}`)
	case ev.Signature != "":
		return p.openBlock(blockThinking, `{"type":"thinking","thinking":"","signature":""}`) &&
			p.delta(p.openIndex, `{"type":"signature_delta","signature":`+jsonString(ev.Signature)+`}`)
	case ev.RedactedThinking != "":
		return p.closeBlock() && p.startBlock(blockNone, `{"type":"redacted_thinking","data":`+jsonString(ev.RedactedThinking)+`}`) && p.closeBlock()
	case ev.ToolCall != nil:
		tc := ev.ToolCall
		if !p.closeBlock() || !p.startBlock(blockTool, `{"type":"tool_use","id":`+jsonString(tc.ID)+`,"name":`+jsonString(tc.Name)+`,"input":{}}`) {
			return false
		}
		p.tools[tc.Index] = p.openIndex
		return p.delta(p.openIndex, `{"type":"input_json_delta","partial_json":""}`)
	case ev.Args != nil:
		p.outChars += len(ev.Args.Fragment)
		idx, ok := p.tools[ev.Args.Index]
		if !ok {
			idx = p.openIndex
		}
		return p.delta(idx, `{"type":"input_json_delta","partial_json":`+jsonString(ev.Args.Fragment)+`}`)
	}
	return true
}

// openBlock continues the open block when it has kind, or closes it and starts one.
func (p *player) openBlock(kind int, start string) bool {
	if p.open == kind {
		return true
	}
	return p.closeBlock() && p.startBlock(kind, start)
}

// startBlock writes content_block_start with the next index. A block of kind blockNone
// (redacted thinking) is open only until the caller closes it.
func (p *player) startBlock(kind int, block string) bool {
	p.openIndex = p.next
	p.next++
	p.open = kind
	if kind == blockNone {
		p.open = -1
	}
	return p.send("content_block_start", `{"type":"content_block_start","index":`+strconv.Itoa(p.openIndex)+`,"content_block":`+block+`}`)
}

// closeBlock writes content_block_stop for the open block, if any.
func (p *player) closeBlock() bool {
	if p.open == blockNone {
		return true
	}
	p.open = blockNone
	return p.send("content_block_stop", `{"type":"content_block_stop","index":`+strconv.Itoa(p.openIndex)+`}`)
}

func (p *player) delta(index int, delta string) bool {
	return p.send("content_block_delta", `{"type":"content_block_delta","index":`+strconv.Itoa(index)+`,"delta":`+delta+`}`)
}

// send writes one event in Anthropic's framing: "event: <type>\ndata: <json>\n\n".
func (p *player) send(typ, data string) bool {
	return p.Write("event: "+typ+"\ndata: "+data+"\n\n", true)
}

// generate turns the redactedThinking/reasoning/text/toolCalls shorthand into events: a
// redacted thinking block, a thinking block ending with its signature, a text block, then one
// tool_use block per call.
func generate(r *Response, n int) []Event {
	size := mockhttp.ChunkSize(r.ChunkSize)
	var evs []Event
	if r.RedactedThinking != "" {
		evs = append(evs, Event{RedactedThinking: r.RedactedThinking})
	}
	if r.Reasoning != "" {
		evs = append(evs, mockhttp.Fragments(r.Reasoning, size, func(s string) Event { return Event{Reasoning: s} })...)
		sig := r.Signature
		if sig == "" {
			sig = "mock-signature-" + strconv.Itoa(n)
		}
		evs = append(evs, Event{Signature: sig})
	}
	evs = append(evs, mockhttp.Fragments(r.Text, size, func(s string) Event { return Event{Text: s} })...)
	return append(evs, mockhttp.CallSteps(r.ToolCalls, size, callStart, callArgs)...)
}

func callStart(s *ToolCallStart) Event { return Event{ToolCall: s} }
func callArgs(a *ArgsFragment) Event   { return Event{Args: a} }

// jsonString is the shared script helper, under a short name.
var jsonString = mockhttp.JSONString
