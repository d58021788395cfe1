package faux

import (
	"maps"
	"slices"

	"github.com/pi-rpc/pi-rpc/core"
)

// cloneRequest copies a request deeply enough that later changes to the agent's transcript
// (messages appended, partial messages growing, arguments rewritten by hooks) do not show in
// what [Provider.Requests] reports.
func cloneRequest(req *core.Request) *core.Request {
	c := *req
	c.Model.Input = slices.Clone(req.Model.Input)
	c.Model.ThinkingLevelMap = maps.Clone(req.Model.ThinkingLevelMap)
	c.Model.Headers = maps.Clone(req.Model.Headers)
	c.Model.Compat = maps.Clone(req.Model.Compat)
	if req.Messages != nil {
		c.Messages = make([]core.Message, len(req.Messages))
		for i, m := range req.Messages {
			c.Messages[i] = cloneMessage(m)
		}
	}
	if req.Tools != nil {
		c.Tools = make([]core.ToolSpec, len(req.Tools))
		for i, t := range req.Tools {
			t.Parameters = slices.Clone(t.Parameters)
			c.Tools[i] = t
		}
	}
	if req.Temperature != nil {
		t := *req.Temperature
		c.Temperature = &t
	}
	return &c
}

func cloneMessage(m core.Message) core.Message {
	switch m := m.(type) {
	case *core.UserMessage:
		c := *m
		c.Content = cloneContent(m.Content)
		return &c
	case *core.AssistantMessage:
		c := *m
		c.Content = cloneContent(m.Content)
		c.Diagnostics = slices.Clone(m.Diagnostics)
		return &c
	case *core.ToolResultMessage:
		c := *m
		c.Content = cloneContent(m.Content)
		return &c
	case *core.CustomMessage:
		c := *m
		c.Content = cloneContent(m.Content)
		return &c
	case *core.BashExecutionMessage:
		c := *m
		return &c
	case *core.BranchSummaryMessage:
		c := *m
		return &c
	case *core.CompactionSummaryMessage:
		c := *m
		return &c
	default:
		return m
	}
}

func cloneContent(blocks []core.Content) []core.Content {
	if blocks == nil {
		return nil
	}
	out := make([]core.Content, len(blocks))
	for i, b := range blocks {
		if b.Arguments != nil {
			b.Arguments = cloneValue(b.Arguments).(map[string]any)
		}
		b.RawArguments = slices.Clone(b.RawArguments)
		out[i] = b
	}
	return out
}

// cloneValue copies a decoded JSON value.
func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = cloneValue(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cloneValue(e)
		}
		return out
	default:
		return v
	}
}
