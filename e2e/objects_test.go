package e2e_test

// objectsAt returns the objects of the array m[key] of a decoded request body (none when it
// is missing; an element that is not an object is nil).
func objectsAt(m map[string]any, key string) []map[string]any {
	raw, _ := m[key].([]any)
	var out []map[string]any
	for _, v := range raw {
		obj, _ := v.(map[string]any)
		out = append(out, obj)
	}
	return out
}

// toolLoopStream is what a provider's tool loop with thinking showed on the stream: a
// thinking delta, a tool call's end, a retry (its error message) and the first assistant
// reply's usage.
type toolLoopStream struct {
	thinking, toolEnd, retried bool
	retryError                 string
	firstUsage                 map[string]any
}

func toolLoopStreamOf(history []*message) toolLoopStream {
	var s toolLoopStream
	for _, m := range history {
		if !m.isEvent() {
			continue
		}
		switch m.typ() {
		case "message_update":
			ame, _ := m.ev["assistantMessageEvent"].(map[string]any)
			s.thinking = s.thinking || (ame["type"] == "thinking_delta" && ame["delta"] != "")
			s.toolEnd = s.toolEnd || ame["type"] == "toolcall_end"
		case "auto_retry_start":
			s.retried = true
			s.retryError, _ = m.ev["errorMessage"].(string)
		case "message_end":
			if msg, _ := m.ev["message"].(map[string]any); msg["role"] == "assistant" && s.firstUsage == nil {
				s.firstUsage, _ = msg["usage"].(map[string]any)
			}
		}
	}
	return s
}
