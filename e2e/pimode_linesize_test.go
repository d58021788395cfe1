package e2e_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// A message_update of a 2,000-delta reply carries only its delta, as pi 1.6.0's do
// (docs/pi-compat.md): each stays small and stdout grows linearly with the reply (pi 0.73.1
// repeated the partial message twice in every update: 30.8 KB lines, 21.7 MB of stdout).
func TestPiModeLineSize(t *testing.T) {
	for _, deltas := range []int{2000} {
		t.Run(fmt.Sprint(deltas), func(t *testing.T) {
			text := strings.Repeat("word ", deltas)
			p := startPi(t, piOptions{mock: newMock(t, mockopenai.Response{Text: text, ChunkSize: 5}), args: []string{"--no-session"}})
			p.call("1", "prompt", map[string]any{"message": "talk"})
			p.event("agent_settled")
			largest, updates, total := 0, 0, 0
			for _, l := range p.all() {
				total += len(l.raw) + 1
				if l.typ() == "message_update" {
					if ame := l.m["assistantMessageEvent"].(map[string]any); ame["type"] == "text_delta" {
						largest = max(largest, len(l.raw)+1)
						updates++
					}
				}
			}
			if updates != deltas {
				t.Fatalf("%d text deltas, want %d", updates, deltas)
			}
			t.Logf("%d deltas (%d bytes of text): largest text_delta %d bytes, stdout %d bytes", deltas, len(text), largest, total)
			if largest >= 512 {
				t.Fatalf("largest text_delta %d bytes: it carries more than its delta", largest)
			}
			if total >= 1<<20 {
				t.Fatalf("stdout %d bytes for %d bytes of text: not linear in the reply", total, len(text))
			}
		})
	}
}
