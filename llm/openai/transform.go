package openai

import (
	"strconv"
	"strings"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/internal/transform"
)

// transformMessages prepares a transcript for model (as pi-ai's transformMessages does; the
// shared rules are transform.Messages'): another model's thinking is sent as text (redacted
// or blank thinking dropped), this model's as it is, and tool-call ids are sanitised for
// OpenAI (see sanitizeID) and kept distinct, results remapped to match.
func transformMessages(in []core.Message, model *core.Model) []core.Message {
	used := map[string]bool{}
	return transform.Messages(in, model, transform.Rules{
		Block: func(b core.Content, same bool) (core.Content, bool) {
			if b.Type != core.ContentThinking || same {
				return b, true
			}
			return transform.ThinkingAsText(b)
		},
		CallID: func(id string, _ bool) string { return uniqueID(sanitizeID(id), used) },
	})
}

// maxIDLength is the longest tool-call id OpenAI accepts.
const maxIDLength = 40

// sanitizeID makes a tool-call id acceptable to OpenAI-compatible APIs: ids from the
// Responses API carry "|item" suffixes, other providers use characters OpenAI rejects, and
// OpenAI caps ids at 40 characters.
func sanitizeID(id string) string {
	if i := strings.IndexByte(id, '|'); i >= 0 {
		id = id[:i]
	}
	return transform.ReplaceIDChars(id, maxIDLength)
}

// uniqueID keeps sanitised ids distinct within a request (and gives empty ids one).
func uniqueID(id string, used map[string]bool) string {
	if id == "" {
		id = "call"
	}
	cand := id
	for n := 2; used[cand]; n++ {
		suffix := "_" + strconv.Itoa(n)
		base := id
		if len(base)+len(suffix) > maxIDLength {
			base = base[:maxIDLength-len(suffix)]
		}
		cand = base + suffix
	}
	used[cand] = true
	return cand
}
