package anthropic

import (
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
	return transform.Messages(in, model, transform.Rules{Block: transform.SendBlock(signed), CallID: callID})
}

// signed is the thinking Anthropic takes back even when blank: redacted or signed.
func signed(b core.Content) bool { return b.Redacted || b.ThinkingSignature != "" }
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
