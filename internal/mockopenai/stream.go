package mockopenai

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
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

	id, model    string
	created      int64
	includeUsage bool
	chunks       int
	outChars     int
}

func (p *player) play() {
	resp := p.resp
	for k, v := range resp.Headers {
		p.w.Header().Set(k, v)
	}
	if resp.RetryAfter != "" {
		p.w.Header().Set("Retry-After", resp.RetryAfter)
	}
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
		p.id = "chatcmpl-mock-" + strconv.Itoa(len(p.s.Requests()))
	}
	p.model = resp.Model
	if p.model == "" {
		p.model, _ = p.rec.Decoded["model"].(string)
	}
	p.created = resp.Created
	if p.created == 0 {
		p.created = 1700000000
	}
	if so, ok := p.rec.Decoded["stream_options"].(map[string]any); ok {
		p.includeUsage, _ = so["include_usage"].(bool)
	}

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
	if !p.chunk(`{"role":"assistant","content":""}`, "null") {
		return
	}
	events := resp.Events
	if events == nil {
		events = generate(resp)
	}
	for _, ev := range events {
		if !p.event(ev) {
			return
		}
	}
	fr := resp.FinishReason
	if fr == "" {
		fr = "stop"
		if len(resp.ToolCalls) > 0 || hasToolCall(resp.Events) {
			fr = "tool_calls"
		}
	}
	if !p.chunk(`{}`, jsonString(fr)) {
		return
	}
	if p.includeUsage && !p.usage() {
		return
	}
	if !resp.NoDone {
		p.write("data: [DONE]\n\n", true)
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
		return p.write(ev.Raw, strings.HasPrefix(ev.Raw, "data:"))
	case ev.Text != "":
		p.outChars += len(ev.Text)
		return p.chunk(`{"content":`+jsonString(ev.Text)+`}`, "null")
	case ev.Reasoning != "":
		p.outChars += len(ev.Reasoning)
		field := p.resp.ReasoningField
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
	return p.write("data: "+b.String()+"\n\n", true)
}

// usage writes the usage chunk, with empty choices, as OpenAI does for include_usage.
func (p *player) usage() bool {
	u := p.resp.Usage
	if u == nil {
		u = &Usage{PromptTokens: len(p.rec.Body)/4 + 1, CompletionTokens: p.outChars/4 + 1}
	}
	body := `{"id":` + jsonString(p.id) + `,"object":"chat.completion.chunk","created":` + strconv.FormatInt(p.created, 10) +
		`,"model":` + jsonString(p.model) + `,"choices":[],"usage":{"prompt_tokens":` + strconv.Itoa(u.PromptTokens) +
		`,"completion_tokens":` + strconv.Itoa(u.CompletionTokens) + `,"total_tokens":` + strconv.Itoa(u.PromptTokens+u.CompletionTokens) +
		`,"prompt_tokens_details":{"cached_tokens":` + strconv.Itoa(u.CachedTokens) + `,"audio_tokens":0}` +
		`,"completion_tokens_details":{"reasoning_tokens":` + strconv.Itoa(u.ReasoningTokens) +
		`,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`
	return p.write("data: "+body+"\n\n", true)
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
		isData := strings.HasPrefix(ev, "data:")
		if !p.write(ev, isData) {
			return
		}
	}
}

// write sends bytes and flushes. Data chunks are counted for dropAfter and stallAfter, which
// apply before the chunk that would exceed them, and are paced by chunkDelayMs.
func (p *player) write(s string, data bool) bool {
	if data {
		if n := p.resp.StallAfter; n > 0 && p.chunks == n && !p.stall() {
			return false
		}
		if n := p.resp.DropAfter; n > 0 && p.chunks == n {
			p.drop()
			return false
		}
		if d := p.resp.ChunkDelayMs; d > 0 && !p.sleep(time.Duration(d)*time.Millisecond) {
			return false
		}
		p.chunks++
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

// generate turns the reasoning/text/toolCalls shorthand into events.
func generate(r *Response) []Event {
	size := r.ChunkSize
	if size <= 0 {
		size = 4
	}
	var evs []Event
	for _, s := range split(r.Reasoning, size) {
		evs = append(evs, Event{Reasoning: s})
	}
	for _, s := range split(r.Text, size) {
		evs = append(evs, Event{Text: s})
	}
	frags := make([][]string, len(r.ToolCalls))
	for i, tc := range r.ToolCalls {
		frags[i] = split(tc.Arguments, size)
	}
	if r.Interleave {
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
	for i, tc := range r.ToolCalls {
		evs = append(evs, Event{ToolCall: &ToolCallStart{Index: i, ID: tc.ID, Name: tc.Name}})
		for _, f := range frags[i] {
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
