package openai

import (
	"bytes"
	"strings"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/internal/failure"
	"github.com/pi-rpc/pi-rpc/llm/internal/idle"
)

// streamResponses streams one Responses API request: POST {base}/responses (Azure:
// {endpoint}/openai/v1/responses) with the SDK's params, its client and its event-stream
// decoder, each event decoded into the SDK's [responses.ResponseStreamEventUnion] and mapped
// by a [responsesMapper]. The request goes through client.Post rather than
// Responses.NewStreaming because Azure's v1 route is not the path NewStreaming names, and
// so that an event that is not JSON is reported as the Chat Completions path reports it.
func (p *Provider) streamResponses(s *idle.Stream, req *core.Request) {
	st := p.openStream(s, p.path, func() (any, []option.RequestOption, error) {
		return p.buildResponsesRequest(req, p.deployment(s.Model.ID))
	})
	if st == nil {
		return
	}
	defer st.stop()
	b, events := st.B, st.events

	m := newResponsesMapper(b, s.Model.ID)
	for !m.finished && events.Next() {
		data := bytes.TrimSpace(events.Event().Data)
		if len(data) == 0 || bytes.Equal(data, []byte("[DONE]")) {
			continue
		}
		var ev responses.ResponseStreamEventUnion
		if err := failure.DecodeObject(data, &ev); err != nil {
			p.fail(b, malformed(data, err, m.events == 0))
			return
		}
		if !m.apply(&ev) {
			return
		}
	}
	switch readFailure := st.readFailure(); {
	case m.failure != nil:
		p.fail(b, m.failure)
		return
	case m.finished:
	case readFailure != nil:
		p.fail(b, readFailure)
		return
	case m.events == 0:
		p.fail(b, st.notAStream())
		return
	default:
		p.fail(b, &core.ProviderError{Kind: core.ErrorRetryable, Message: "Provider stream ended before the response completed (connection closed early)"})
		return
	}
	b.Done()
}

// responsesMapper applies Responses stream events to a message builder (as pi-ai's
// processResponsesStream does). Output items arrive one after another: a reasoning item
// becomes a thinking block (its summary parts streamed, separated by a blank line) signed
// with the item's JSON as the model returned it, so the next request can send it back; a
// message becomes a text block signed with its id; a function call a tool-call block whose id
// is "call_id|item_id". Each block ends when its item is done.
type responsesMapper struct {
	b     *core.MessageBuilder
	model string

	events int
	// calls maps a function-call item id to its builder key; args is what its streamed
	// fragments added up to.
	calls   map[string]int
	args    map[string]*strings.Builder
	nextKey int
	// summaryParts counts the summary parts of the open reasoning item.
	summaryParts int
	// thinking reports whether the open reasoning item has a block yet.
	thinking bool
	sawCall  bool

	finished bool
	failure  *core.ProviderError
}

func newResponsesMapper(b *core.MessageBuilder, model string) *responsesMapper {
	return &responsesMapper{b: b, model: model, calls: map[string]int{}, args: map[string]*strings.Builder{}}
}

// apply maps one event. It reports false when the consumer stopped.
func (m *responsesMapper) apply(ev *responses.ResponseStreamEventUnion) bool {
	m.events++
	switch ev.Type {
	case "response.created", "response.in_progress":
		m.identify(&ev.Response)
	case "response.output_item.added":
		return m.itemAdded(&ev.Item)
	case "response.reasoning_summary_part.added":
		m.summaryParts++
		if m.summaryParts > 1 {
			return m.think("\n\n")
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		return m.think(ev.Delta)
	case "response.output_text.delta", "response.refusal.delta":
		if ev.Delta != "" {
			return m.b.Text(ev.Delta)
		}
	case "response.function_call_arguments.delta":
		return m.argsDelta(ev.ItemID, ev.Delta)
	case "response.output_item.done":
		return m.itemDone(&ev.Item)
	case "response.completed":
		return m.completed(&ev.Response)
	case "response.incomplete":
		return m.incomplete(&ev.Response)
	case "response.failed":
		m.finished = true
		e := ev.Response.Error
		msg := "Provider error: " + e.Message
		if e.Message == "" {
			msg = "Provider error: the response failed with no details"
		}
		m.failure = classifyResponseError(string(e.Code), msg)
	case "error":
		m.finished = true
		m.failure = classifyResponseError(ev.Code, "Provider error: "+ev.Message)
	}
	return true
}

// identify records the response's id and, when it differs, its model.
func (m *responsesMapper) identify(r *responses.Response) {
	msg := m.b.Message()
	if msg.ResponseID == "" && r.ID != "" {
		msg.ResponseID = r.ID
	}
	if msg.ResponseModel == "" && r.Model != "" && string(r.Model) != m.model {
		msg.ResponseModel = string(r.Model)
	}
}

func (m *responsesMapper) itemAdded(item *responses.ResponseOutputItemUnion) bool {
	switch item.Type {
	case "reasoning":
		m.summaryParts, m.thinking = 0, false
	case "function_call":
		fc := item.AsFunctionCall()
		key := m.nextKey
		m.nextKey++
		m.calls[fc.ID] = key
		m.args[fc.ID] = &strings.Builder{}
		m.sawCall = true
		m.args[fc.ID].WriteString(fc.Arguments)
		return m.b.ToolCall(key, fc.CallID+"|"+fc.ID, fc.Name, fc.Arguments)
	}
	return true
}

// think appends reasoning to the open reasoning item's thinking block.
func (m *responsesMapper) think(delta string) bool {
	if delta == "" {
		return true
	}
	m.thinking = true
	return m.b.Thinking(delta, "")
}

func (m *responsesMapper) argsDelta(itemID, delta string) bool {
	key, ok := m.calls[itemID]
	if !ok || delta == "" {
		return true
	}
	m.args[itemID].WriteString(delta)
	return m.b.ToolCall(key, "", "", delta)
}

// itemDone ends the item's block. A reasoning item signs its thinking block with the item
// (a block is opened for one without summary: the encrypted reasoning must go back all the
// same); a function call gets the part of its final arguments no fragment carried.
func (m *responsesMapper) itemDone(item *responses.ResponseOutputItemUnion) bool {
	switch item.Type {
	case "reasoning":
		if !m.thinking && !m.b.Thinking("", "") {
			return false
		}
		content := m.b.Message().Content
		content[len(content)-1].ThinkingSignature = item.RawJSON()
		m.thinking = false
	case "message":
		msg := item.AsMessage()
		content := m.b.Message().Content
		if n := len(content); n > 0 && content[n-1].Type == core.ContentText && content[n-1].TextSignature == "" {
			content[n-1].TextSignature = textSignature(msg.ID, string(msg.Phase))
		}
	case "function_call":
		fc := item.AsFunctionCall()
		key, ok := m.calls[fc.ID]
		if !ok {
			break
		}
		if sent := m.args[fc.ID].String(); fc.Arguments != sent && strings.HasPrefix(fc.Arguments, sent) {
			if !m.b.ToolCall(key, "", "", fc.Arguments[len(sent):]) {
				return false
			}
		}
	default:
		return true
	}
	return m.b.EndBlocks()
}

// usage records the response's token usage: input without the cached tokens, which are
// counted apart; output includes the reasoning tokens.
func (m *responsesMapper) usage(r *responses.Response) {
	if !r.JSON.Usage.Valid() {
		return
	}
	u := &r.Usage
	cached := int(u.InputTokensDetails.CachedTokens)
	m.b.SetUsage(core.Usage{Input: max(0, int(u.InputTokens)-cached), Output: int(u.OutputTokens), CacheRead: cached})
}

func (m *responsesMapper) completed(r *responses.Response) bool {
	m.finished = true
	m.identify(r)
	m.usage(r)
	switch r.Status {
	case "failed", "cancelled":
		m.failure = &core.ProviderError{Kind: core.ErrorOther, Message: "Provider response status: " + string(r.Status)}
		return true
	}
	if m.sawCall {
		m.b.SetStopReason(core.StopReasonToolUse)
	}
	return m.b.EndBlocks()
}

// incomplete ends a response the server cut short: by the output limit (stop reason
// length, whose tool calls the loop does not run), or for another reason (an error naming it,
// such as content_filter).
func (m *responsesMapper) incomplete(r *responses.Response) bool {
	m.finished = true
	m.identify(r)
	m.usage(r)
	reason := r.IncompleteDetails.Reason
	if reason != "" && reason != "max_output_tokens" {
		m.failure = &core.ProviderError{Kind: core.ErrorOther, Message: "Provider stopped the response: incomplete (" + reason + ")"}
		return true
	}
	m.b.SetStopReason(core.StopReasonLength)
	return m.b.EndBlocks()
}

// classifyResponseError classifies an error the server sent inside the stream (an error
// event or a failed response) by its code, then by its message.
func classifyResponseError(code, msg string) *core.ProviderError {
	switch code {
	case "context_length_exceeded":
		return &core.ProviderError{Kind: core.ErrorOverflow, Message: msg}
	case "rate_limit_exceeded", "server_error", "server_is_overloaded", "slow_down", "vector_store_timeout":
		return &core.ProviderError{Kind: core.ErrorRetryable, Message: msg}
	case "insufficient_quota", "invalid_prompt":
		return &core.ProviderError{Kind: core.ErrorOther, Message: msg}
	}
	return failure.ClassifyMessage(msg)
}
