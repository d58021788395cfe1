package google

import (
	"encoding/json"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

// TestThinkingConfig pins the thinking level → thinkingConfig mapping, per model family, as
// pi maps it.
func TestThinkingConfig(t *testing.T) {
	levels := []core.ThinkingLevel{core.ThinkingOff, core.ThinkingMinimal, core.ThinkingLow, core.ThinkingMedium, core.ThinkingHigh, core.ThinkingXHigh}
	want := map[string][]string{
		"gemini-3-pro-preview": {`{"thinkingLevel":"LOW"}`, `{"includeThoughts":true,"thinkingLevel":"LOW"}`, `{"includeThoughts":true,"thinkingLevel":"LOW"}`,
			`{"includeThoughts":true,"thinkingLevel":"HIGH"}`, `{"includeThoughts":true,"thinkingLevel":"HIGH"}`, `{"includeThoughts":true,"thinkingLevel":"HIGH"}`},
		"gemini-3.1-pro-preview": {`{"thinkingLevel":"LOW"}`, `{"includeThoughts":true,"thinkingLevel":"LOW"}`, `{"includeThoughts":true,"thinkingLevel":"LOW"}`,
			`{"includeThoughts":true,"thinkingLevel":"HIGH"}`, `{"includeThoughts":true,"thinkingLevel":"HIGH"}`, `{"includeThoughts":true,"thinkingLevel":"HIGH"}`},
		"gemini-3-flash-preview": {`{"thinkingLevel":"MINIMAL"}`, `{"includeThoughts":true,"thinkingLevel":"MINIMAL"}`, `{"includeThoughts":true,"thinkingLevel":"LOW"}`,
			`{"includeThoughts":true,"thinkingLevel":"MEDIUM"}`, `{"includeThoughts":true,"thinkingLevel":"HIGH"}`, `{"includeThoughts":true,"thinkingLevel":"HIGH"}`},
		"gemini-flash-lite-latest": {`{"thinkingLevel":"MINIMAL"}`, `{"includeThoughts":true,"thinkingLevel":"MINIMAL"}`, `{"includeThoughts":true,"thinkingLevel":"LOW"}`,
			`{"includeThoughts":true,"thinkingLevel":"MEDIUM"}`, `{"includeThoughts":true,"thinkingLevel":"HIGH"}`, `{"includeThoughts":true,"thinkingLevel":"HIGH"}`},
		"gemini-2.5-pro": {`{"thinkingBudget":0}`, `{"includeThoughts":true,"thinkingBudget":128}`, `{"includeThoughts":true,"thinkingBudget":2048}`,
			`{"includeThoughts":true,"thinkingBudget":8192}`, `{"includeThoughts":true,"thinkingBudget":32768}`, `{"includeThoughts":true,"thinkingBudget":32768}`},
		"gemini-2.5-flash-lite": {`{"thinkingBudget":0}`, `{"includeThoughts":true,"thinkingBudget":128}`, `{"includeThoughts":true,"thinkingBudget":2048}`,
			`{"includeThoughts":true,"thinkingBudget":8192}`, `{"includeThoughts":true,"thinkingBudget":24576}`, `{"includeThoughts":true,"thinkingBudget":24576}`},
		"learnlm-2.0-flash-experimental": {`{"thinkingBudget":0}`, `{"includeThoughts":true,"thinkingBudget":-1}`, `{"includeThoughts":true,"thinkingBudget":-1}`,
			`{"includeThoughts":true,"thinkingBudget":-1}`, `{"includeThoughts":true,"thinkingBudget":-1}`, `{"includeThoughts":true,"thinkingBudget":-1}`},
	}
	for id, configs := range want {
		model := core.Model{ID: id, Reasoning: true}
		for i, level := range levels {
			b, _ := json.Marshal(thinkingConfig(&model, level))
			if string(b) != configs[i] {
				t.Errorf("%s at %s: %s, want %s", id, level, b, configs[i])
			}
		}
	}
	if tc := thinkingConfig(&core.Model{ID: "gemini-2.0-flash"}, core.ThinkingHigh); tc != nil {
		t.Errorf("a model without reasoning got %+v", tc)
	}
}
