package mockopenai

import (
	"strconv"
	"strings"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

// responsesPlayer writes one scripted response as the Responses API streams it (POST
// .../responses): response.created, then an output item for each run of reasoning (its
// summary streamed, then the item with an id and encrypted_content), of text (an assistant
// message with one output_text part) and for each tool call (a function_call item whose
// arguments are streamed), then response.completed with the output and usage. The script's
// finishReason "length" ends with response.incomplete (max_output_tokens) and "failed" with
// response.failed; noDone ends the stream with no terminal event. The HTTP faults, pacing and
// replays of the Chat Completions player apply unchanged.
type responsesPlayer struct {
	*mockhttp.Play[Response]

	id, model string
	seq       int
	outChars  int
	// output holds each finished output item's JSON, for the terminal event.
	output []string
	// open is the item being streamed: its kind ("reasoning", "message", "function_call"),
	// its id and what it accumulated.
	open     string
	itemID   string
	callID   string
	name     string
	text     strings.Builder
	index    int
	nextItem int
}

// playResponses writes one scripted response as the Responses API streams it.
func playResponses(pl *mockhttp.Play[Response]) {
	p := &responsesPlayer{Play: pl}
	p.play()
}

func (p *responsesPlayer) play() {
	resp := &p.Resp
	p.id, p.model = identity(resp, p.Rec, "resp_mock_"+strconv.Itoa(p.N))
	if !p.Start(mockhttp.ErrorWriter(resp.Error, writeError)) {
		return
	}
	if !p.event("response.created", `"response":`+p.response("in_progress", "")) {
		return
	}
	if !playSteps(resp, p.step) || !p.closeItem() || resp.NoDone {
		return
	}
	switch resp.FinishReason {
	case "length":
		p.event("response.incomplete", `"response":`+p.response("incomplete", `"incomplete_details":{"reason":"max_output_tokens"}`))
	case "failed":
		p.event("response.failed", `"response":`+p.response("failed", `"error":{"code":"server_error","message":"The model failed to generate a response."}`))
	default:
		p.event("response.completed", `"response":`+p.response("completed", ""))
	}
}

// step writes one scripted step, opening and closing output items as the kind changes.
func (p *responsesPlayer) step(ev Event) bool {
	if ok, done := p.Common(ev.DelayMs, ev.Comment, ev.Raw, "\n\n"); done {
		return ok
	}
	switch {
	case ev.Reasoning != "":
		if p.open != "reasoning" && !p.openItem("reasoning", "rs", `"summary":[]`) {
			return false
		}
		if p.text.Len() == 0 && !p.event("response.reasoning_summary_part.added", p.at()+`,"summary_index":0,"part":{"type":"summary_text","text":""}`) {
			return false
		}
		p.outChars += len(ev.Reasoning)
		p.text.WriteString(ev.Reasoning)
		return p.event("response.reasoning_summary_text.delta", p.at()+`,"summary_index":0,"delta":`+jsonString(ev.Reasoning))
	case ev.Text != "":
		if p.open != "message" && !p.openItem("message", "msg", `"status":"in_progress","role":"assistant","content":[]`) {
			return false
		}
		if p.text.Len() == 0 && !p.event("response.content_part.added", p.at()+`,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}`) {
			return false
		}
		p.outChars += len(ev.Text)
		p.text.WriteString(ev.Text)
		return p.event("response.output_text.delta", p.at()+`,"content_index":0,"delta":`+jsonString(ev.Text)+`,"logprobs":[]`)
	case ev.ToolCall != nil:
		tc := ev.ToolCall
		p.callID, p.name = tc.ID, tc.Name
		return p.openItem("function_call", "fc", `"status":"in_progress","arguments":"","call_id":`+jsonString(tc.ID)+`,"name":`+jsonString(tc.Name))
	case ev.Args != nil:
		p.outChars += len(ev.Args.Fragment)
		p.text.WriteString(ev.Args.Fragment)
		return p.event("response.function_call_arguments.delta", p.at()+`,"delta":`+jsonString(ev.Args.Fragment))
	}
	return true
}

// at is the item reference every delta event carries.
func (p *responsesPlayer) at() string {
	return `"item_id":` + jsonString(p.itemID) + `,"output_index":` + strconv.Itoa(p.index)
}

// openItem closes the open item and announces a new one.
func (p *responsesPlayer) openItem(kind, prefix, fields string) bool {
	if !p.closeItem() {
		return false
	}
	p.open, p.index = kind, p.nextItem
	p.nextItem++
	p.itemID = prefix + "_mock_" + strconv.Itoa(p.N) + "_" + strconv.Itoa(p.index)
	p.text.Reset()
	return p.event("response.output_item.added", `"output_index":`+strconv.Itoa(p.index)+`,"item":{"id":`+jsonString(p.itemID)+`,"type":`+jsonString(kind)+`,`+fields+`}`)
}

// closeItem finishes the open item, if any: its done events and the item as it stands.
func (p *responsesPlayer) closeItem() bool {
	if p.open == "" {
		return true
	}
	text := jsonString(p.text.String())
	var item string
	ok := true
	switch p.open {
	case "reasoning":
		ok = p.event("response.reasoning_summary_text.done", p.at()+`,"summary_index":0,"text":`+text) &&
			p.event("response.reasoning_summary_part.done", p.at()+`,"summary_index":0,"part":{"type":"summary_text","text":`+text+`}`)
		item = `{"id":` + jsonString(p.itemID) + `,"type":"reasoning","summary":[{"type":"summary_text","text":` + text + `}],"encrypted_content":` + jsonString("enc:"+p.itemID) + `}`
	case "message":
		part := `{"type":"output_text","annotations":[],"logprobs":[],"text":` + text + `}`
		ok = p.event("response.output_text.done", p.at()+`,"content_index":0,"text":`+text+`,"logprobs":[]`) &&
			p.event("response.content_part.done", p.at()+`,"content_index":0,"part":`+part)
		item = `{"id":` + jsonString(p.itemID) + `,"type":"message","status":"completed","role":"assistant","content":[` + part + `]}`
	case "function_call":
		ok = p.event("response.function_call_arguments.done", p.at()+`,"name":`+jsonString(p.name)+`,"arguments":`+text)
		item = `{"id":` + jsonString(p.itemID) + `,"type":"function_call","status":"completed","arguments":` + text + `,"call_id":` + jsonString(p.callID) + `,"name":` + jsonString(p.name) + `}`
	}
	p.open = ""
	p.output = append(p.output, item)
	return ok && p.event("response.output_item.done", `"output_index":`+strconv.Itoa(p.index)+`,"item":`+item)
}

// response is the response object of the created and terminal events.
func (p *responsesPlayer) response(status, extra string) string {
	var b strings.Builder
	b.WriteString(`{"id":` + jsonString(p.id) + `,"object":"response","created_at":1700000000,"status":` + jsonString(status) + `,"model":` + jsonString(p.model))
	b.WriteString(`,"output":[` + strings.Join(p.output, ",") + `]`)
	if extra != "" {
		b.WriteString("," + extra)
	}
	if status != "in_progress" {
		u := p.Resp.Usage
		if u == nil {
			u = &Usage{PromptTokens: mockhttp.Tokens(len(p.Rec.Body)), CompletionTokens: mockhttp.Tokens(p.outChars)}
		}
		b.WriteString(`,"usage":{"input_tokens":` + strconv.Itoa(u.PromptTokens) + `,"input_tokens_details":{"cached_tokens":` + strconv.Itoa(u.CachedTokens) +
			`},"output_tokens":` + strconv.Itoa(u.CompletionTokens) + `,"output_tokens_details":{"reasoning_tokens":` + strconv.Itoa(u.ReasoningTokens) +
			`},"total_tokens":` + strconv.Itoa(u.PromptTokens+u.CompletionTokens) + `}`)
	}
	b.WriteString("}")
	return b.String()
}

// event writes one Responses stream event: its type as the SSE event name and in the data,
// with the stream's sequence number.
func (p *responsesPlayer) event(typ, fields string) bool {
	data := `{"type":` + jsonString(typ) + `,"sequence_number":` + strconv.Itoa(p.seq) + `,` + fields + `}`
	p.seq++
	return p.Write("event: "+typ+"\ndata: "+data+"\n\n", true)
}
