package anthropic

import (
	"strings"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/internal/transform"
)

// maxIDLength is the longest tool-use id Anthropic accepts.
const maxIDLength = 64

// transformMessages prepares a transcript for model as pi's transformMessages does for
// Anthropic (the shared rules are transform.Messages'): this model's thinking is kept when it
// is redacted or signed (unsigned blank thinking dropped); another model's is sent as text
// (redacted or blank dropped), its text loses its signature, and its tool-call ids are
// normalised to Anthropic's pattern ^[a-zA-Z0-9_-]{1,64}$, results remapped to match.
func transformMessages(in []core.Message, model *core.Model) []core.Message {
	return transform.Messages(in, model, transform.Rules{Block: block, CallID: callID})
}

func block(b core.Content, same bool) (core.Content, bool) {
	switch {
	case b.Type == core.ContentText && !same:
		return core.TextBlock(b.Text), true
	case b.Type != core.ContentThinking:
		return b, true
	case !same:
		return transform.ThinkingAsText(b)
	case b.Redacted || b.ThinkingSignature != "":
		return b, true
	default:
		return b, strings.TrimSpace(b.Thinking) != ""
	}
}

func callID(id string, same bool) string {
	if same {
		return id
	}
	return normalizeID(id)
}

// normalizeID makes a tool-call id from another provider acceptable to Anthropic: characters
// outside [a-zA-Z0-9_-] become "_", and the id is cut at 64 characters.
func normalizeID(id string) string {
	if id == "" {
		return "toolu_empty"
	}
	return transform.ReplaceIDChars(id, maxIDLength)
}
