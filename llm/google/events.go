package google

import (
	"encoding/base64"
	"encoding/json"

	"google.golang.org/genai"

	"github.com/pi-rpc/pi-rpc/core"
)

// mapper applies response chunks to a message builder as pi maps them: text parts as text,
// parts with thought: true as thinking, a part's thoughtSignature kept on the block it came
// with (the last non-empty one of the block), each functionCall as a whole tool call (ended
// at once), usageMetadata priced by the model, and the finishReason.
type mapper struct {
	b      *core.MessageBuilder
	model  *core.Model
	newID  func(name string) string
	u      core.Usage
	calls  int
	chunks int
	// finished: a finishReason arrived.
	finished bool
	failure  *core.ProviderError
}

func newMapper(b *core.MessageBuilder, model *core.Model, newID func(string) string) *mapper {
	return &mapper{b: b, model: model, newID: newID}
}

// apply maps one chunk. It reports false when the consumer stopped.
func (m *mapper) apply(c *genai.GenerateContentResponse) bool {
	m.chunks++
	if !m.b.Start() {
		return false
	}
	msg := m.b.Message()
	if msg.ResponseID == "" {
		msg.ResponseID = c.ResponseID
	}
	if msg.ResponseModel == "" && c.ModelVersion != "" && c.ModelVersion != m.model.ID {
		msg.ResponseModel = c.ModelVersion
	}
	if c.UsageMetadata != nil {
		m.setUsage(c.UsageMetadata)
	}
	if len(c.Candidates) == 0 || c.Candidates[0] == nil {
		if pf := c.PromptFeedback; pf != nil && pf.BlockReason != "" {
			text := "Prompt blocked: " + string(pf.BlockReason)
			if pf.BlockReasonMessage != "" {
				text += ": " + pf.BlockReasonMessage
			}
			m.failure = &core.ProviderError{Kind: core.ErrorOther, Message: text}
		}
		return true
	}
	cand := c.Candidates[0]
	if cand.Content != nil {
		for _, p := range cand.Content.Parts {
			if p != nil && !m.part(p) {
				return false
			}
		}
	}
	if cand.FinishReason != "" {
		return m.finish(cand)
	}
	return true
}

// part maps one part.
func (m *mapper) part(p *genai.Part) bool {
	sig := ""
	if len(p.ThoughtSignature) > 0 {
		sig = base64.StdEncoding.EncodeToString(p.ThoughtSignature)
	}
	if p.FunctionCall != nil {
		return m.call(p.FunctionCall, sig)
	}
	if p.Text == "" && sig == "" {
		return true
	}
	if p.Thought {
		if !m.b.Thinking(p.Text, "") {
			return false
		}
	} else if !m.b.Text(p.Text) {
		return false
	}
	if sig != "" {
		content := m.b.Message().Content
		block := &content[len(content)-1]
		if p.Thought {
			block.ThinkingSignature = sig
		} else {
			block.TextSignature = sig
		}
	}
	return true
}

// call maps a function call: the whole call at once, with the API's id unless it has none or
// repeats one, and its signature.
func (m *mapper) call(fc *genai.FunctionCall, sig string) bool {
	id := fc.ID
	for _, b := range m.b.Message().Content {
		if id == "" {
			break
		}
		if b.Type == core.ContentToolCall && b.ID == id {
			id = ""
		}
	}
	if id == "" {
		id = m.newID(fc.Name)
	}
	args := fc.Args
	if args == nil {
		args = map[string]any{}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		raw = []byte("{}")
	}
	key := m.calls
	m.calls++
	if !m.b.ToolCall(key, id, fc.Name, string(raw)) {
		return false
	}
	content := m.b.Message().Content
	content[len(content)-1].ThoughtSignature = sig
	return m.b.EndBlocks()
}

// finish records the finishReason as pi maps it: STOP stops and MAX_TOKENS is length (both
// toolUse when the message has tool calls); SAFETY, RECITATION, PROHIBITED_CONTENT,
// MALFORMED_FUNCTION_CALL and every other reason end the message with an error naming it.
func (m *mapper) finish(cand *genai.Candidate) bool {
	m.finished = true
	var reason core.StopReason
	switch cand.FinishReason {
	case genai.FinishReasonStop:
		reason = core.StopReasonStop
	case genai.FinishReasonMaxTokens:
		reason = core.StopReasonLength
	default:
		text := "Provider finish reason: " + string(cand.FinishReason)
		if cand.FinishMessage != "" {
			text += ": " + cand.FinishMessage
		}
		m.failure = &core.ProviderError{Kind: core.ErrorOther, Message: text}
		return true
	}
	for _, b := range m.b.Message().Content {
		if b.Type == core.ContentToolCall {
			reason = core.StopReasonToolUse
		}
	}
	m.b.SetStopReason(reason)
	return m.b.EndBlocks()
}

// setUsage records usageMetadata: input is the prompt less its cached part (read from the
// cache, priced at the cache-read rate), output the candidates and the thoughts.
func (m *mapper) setUsage(u *genai.GenerateContentResponseUsageMetadata) {
	cached := int(u.CachedContentTokenCount)
	m.u = core.Usage{
		Input:     max(0, int(u.PromptTokenCount)-cached),
		Output:    int(u.CandidatesTokenCount) + int(u.ThoughtsTokenCount),
		CacheRead: cached,
	}
	m.b.SetUsage(m.u)
}
