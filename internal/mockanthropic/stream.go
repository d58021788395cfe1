package mockanthropic

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Block types of the open content block.
const (
	blockNone = iota
	blockText
	blockThinking
	blockTool
)

// player writes one scripted response.
type player struct {
	s       *Server
	w       http.ResponseWriter
	r       *http.Request
	rc      *http.ResponseController
	rec     *Request
	resp    *Response
	release chan struct{}
	n       int

	id, model string
	events    int
	outChars  int

	// open is the kind of the open content block, openIndex its index; next is the index
	// the next block gets; tools maps a scripted tool-call index to its block index.
	open      int
	openIndex int
	next      int
	tools     map[int]int
}

func (p *player) play() {
	resp := p.resp
	for k, v := range resp.Headers {
		p.w.Header().Set(k, v)
	}
	if resp.RetryAfter != "" {
		p.w.Header().Set("Retry-After", resp.RetryAfter)
	}
	p.w.Header().Set("Request-Id", "req_mock_"+strconv.Itoa(p.n))
	if resp.StallBeforeHeaders && !p.stall() {
		return
	}
	status := resp.Status
	if resp.Error != nil {
		if status == 0 {
			status = http.StatusInternalServerError
		}
		writeError(p.w, status, resp.Error)
		return
	}
	if resp.Body != "" || status >= 400 {
		ct := resp.ContentType
		if ct == "" {
			ct = "text/plain; charset=utf-8"
		}
		if status == 0 {
			status = http.StatusOK
		}
		p.w.Header().Set("Content-Type", ct)
		p.w.WriteHeader(status)
		_, _ = p.w.Write([]byte(resp.Body))
		return
	}

	p.rc = http.NewResponseController(p.w)
	p.id = resp.ID
	if p.id == "" {
		p.id = "msg_mock_" + strconv.Itoa(p.n)
	}
	p.model = resp.Model
	if p.model == "" {
		p.model, _ = p.rec.Decoded["model"].(string)
	}
	p.tools = map[int]int{}

	ct := resp.ContentType
	if ct == "" {
		ct = "text/event-stream; charset=utf-8"
	}
	p.w.Header().Set("Content-Type", ct)
	p.w.Header().Set("Cache-Control", "no-cache")
	if status == 0 {
		status = http.StatusOK
	}
	p.w.WriteHeader(status)
	if !p.flush() {
		return
	}
	if resp.KeepAlive != "" && !p.write(": "+resp.KeepAlive+"\n\n", false) {
		return
	}
	if resp.SSE != "" {
		p.replay(resp.SSE)
		return
	}
	u := resp.Usage
	if u == nil {
		u = &Usage{InputTokens: len(p.rec.Body)/4 + 1}
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
	events := resp.Events
	if events == nil {
		events = generate(resp, p.n)
	}
	for _, ev := range events {
		if !p.event(ev) {
			return
		}
	}
	if !p.closeBlock() {
		return
	}
	sr := resp.StopReason
	if sr == "" {
		sr = "end_turn"
		if len(resp.ToolCalls) > 0 || hasToolCall(resp.Events) {
			sr = "tool_use"
		}
	}
	out := u.OutputTokens
	if resp.Usage == nil {
		out = p.outChars/4 + 1
	}
	if !p.send("message_delta", `{"type":"message_delta","delta":{"stop_reason":`+jsonString(sr)+`,"stop_sequence":null},"usage":{"output_tokens":`+strconv.Itoa(out)+`}}`) {
		return
	}
	if !resp.NoDone {
		p.send("message_stop", `{"type":"message_stop"}`)
	}
}

func hasToolCall(evs []Event) bool {
	for _, e := range evs {
		if e.ToolCall != nil {
			return true
		}
	}
	return false
}

// event writes one scripted step.
func (p *player) event(ev Event) bool {
	switch {
	case ev.DelayMs > 0:
		return p.sleep(time.Duration(ev.DelayMs) * time.Millisecond)
	case ev.Comment != "":
		return p.write(": "+ev.Comment+"\n\n", false)
	case ev.Raw != "":
		return p.write(ev.Raw, strings.Contains(ev.Raw, "data:"))
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
	return p.write("event: "+typ+"\ndata: "+data+"\n\n", true)
}

// replay writes a captured stream event by event, so faults and delays still apply.
func (p *player) replay(sse string) {
	sse = strings.ReplaceAll(sse, "\r\n", "\n")
	for len(sse) > 0 {
		i := strings.Index(sse, "\n\n")
		ev := sse
		if i >= 0 {
			ev, sse = sse[:i+2], sse[i+2:]
		} else {
			sse = ""
		}
		if strings.TrimSpace(ev) == "" {
			continue
		}
		if !p.write(ev, strings.Contains(ev, "data:")) {
			return
		}
	}
}

// write sends bytes and flushes. Data events are counted for dropAfter and stallAfter,
// which apply before the event that would exceed them, and are paced by chunkDelayMs.
func (p *player) write(s string, data bool) bool {
	if data {
		if n := p.resp.StallAfter; n > 0 && p.events == n && !p.stall() {
			return false
		}
		if n := p.resp.DropAfter; n > 0 && p.events == n {
			p.drop()
			return false
		}
		if d := p.resp.ChunkDelayMs; d > 0 && !p.sleep(time.Duration(d)*time.Millisecond) {
			return false
		}
		p.events++
	}
	start := time.Now()
	_, err := p.w.Write([]byte(s))
	if err == nil {
		err = p.rc.Flush()
	}
	p.noteWrite(time.Since(start))
	if err != nil {
		p.rec.markGone()
		return false
	}
	return true
}

func (p *player) flush() bool {
	if err := p.rc.Flush(); err != nil {
		p.rec.markGone()
		return false
	}
	return true
}

func (p *player) noteWrite(d time.Duration) {
	for {
		cur := p.s.maxWrite.Load()
		if int64(d) <= cur || p.s.maxWrite.CompareAndSwap(cur, int64(d)) {
			break
		}
	}
	if d > p.s.BlockThreshold {
		p.s.blocked.Store(true)
	}
}

// stall waits until the client goes away (false) or the test releases stalls (true).
func (p *player) stall() bool {
	select {
	case <-p.r.Context().Done():
		p.rec.markGone()
		return false
	case <-p.release:
		return true
	}
}

// sleep pauses, noticing a client that goes away meanwhile.
func (p *player) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.r.Context().Done():
		p.rec.markGone()
		return false
	case <-t.C:
		return true
	}
}

// drop closes the connection mid-stream, so the client sees its body end without the final
// chunk of the chunked encoding.
func (p *player) drop() {
	conn, _, err := p.rc.Hijack()
	if err != nil {
		if errors.Is(err, http.ErrNotSupported) {
			panic(http.ErrAbortHandler)
		}
		return
	}
	_ = conn.Close()
}

// generate turns the redactedThinking/reasoning/text/toolCalls shorthand into events: a
// redacted thinking block, a thinking block ending with its signature, a text block, then one
// tool_use block per call.
func generate(r *Response, n int) []Event {
	size := r.ChunkSize
	if size <= 0 {
		size = 4
	}
	var evs []Event
	if r.RedactedThinking != "" {
		evs = append(evs, Event{RedactedThinking: r.RedactedThinking})
	}
	if r.Reasoning != "" {
		for _, s := range split(r.Reasoning, size) {
			evs = append(evs, Event{Reasoning: s})
		}
		sig := r.Signature
		if sig == "" {
			sig = "mock-signature-" + strconv.Itoa(n)
		}
		evs = append(evs, Event{Signature: sig})
	}
	for _, s := range split(r.Text, size) {
		evs = append(evs, Event{Text: s})
	}
	for i, tc := range r.ToolCalls {
		evs = append(evs, Event{ToolCall: &ToolCallStart{Index: i, ID: tc.ID, Name: tc.Name}})
		for _, f := range split(tc.Arguments, size) {
			evs = append(evs, Event{Args: &ArgsFragment{Index: i, Fragment: f}})
		}
	}
	return evs
}

// split cuts s into pieces of at most size runes.
func split(s string, size int) []string {
	var out []string
	for len(s) > 0 {
		n, i := 0, 0
		for i < len(s) && n < size {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			n++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
