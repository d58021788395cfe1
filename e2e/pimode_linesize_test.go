package e2e_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// maxSDKLine is the line limit of a Go SDK's bufio.Scanner for pi's stream.
const maxSDKLine = 4 << 20

// The largest stdout line of a 2,000-delta reply stays under 4 MiB, though each
// message_update carries the partial message twice (docs/pi-compat.md). The 20,000-delta
// case, whose stdout is quadratic (about 2 GB), is measured on the encoder in pimode's tests.
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
				largest = max(largest, len(l.raw)+1)
				if l.typ() == "message_update" {
					if ame := l.m["assistantMessageEvent"].(map[string]any); ame["type"] == "text_delta" {
						updates++
					}
				}
			}
			if updates != deltas {
				t.Fatalf("%d text deltas, want %d", updates, deltas)
			}
			t.Logf("%d deltas (%d bytes of text): largest line %d bytes, stdout %d bytes", deltas, len(text), largest, total)
			if largest >= maxSDKLine {
				t.Fatalf("largest line %d bytes, limit %d", largest, maxSDKLine)
			}
		})
	}
}
