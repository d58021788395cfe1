package google

import (
	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/internal/transform"
)

// transformMessages prepares a transcript for model as pi's transformMessages does for
// Google (the shared rules are transform.Messages'): this model's thinking and text keep
// their thought signatures (blank thinking dropped); another model's thinking is sent as
// text (redacted or blank dropped), its text and tool calls lose their signatures. Tool-call
// ids are kept: the Gemini API sends none back and needs none.
func transformMessages(in []core.Message, model *core.Model) []core.Message {
	return transform.Messages(in, model, transform.Rules{Block: transform.SendBlock(nil)})
}
