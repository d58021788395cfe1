package e2e_test

import (
	"encoding/json"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// usageOf decodes a usage_update, ok false for any other message.
func usageOf(m acpMsg) (used, size int, cost float64, currency string, ok bool) {
	if _, k := m.update(); k != "usage_update" {
		return 0, 0, 0, "", false
	}
	var p struct {
		Update struct {
			Used, Size int
			Cost       *struct {
				Amount   float64
				Currency string
			}
		} `json:"update"`
	}
	_ = json.Unmarshal(m.Params, &p)
	if p.Update.Cost != nil {
		cost, currency = p.Update.Cost.Amount, p.Update.Cost.Currency
	}
	return p.Update.Used, p.Update.Size, cost, currency, true
}

// Each reply's usage is a usage_update before the prompt's answer: the context it reports
// against the model's window and the session's cumulative cost; a loaded session sends its
// last usage after the replay.
func TestACPUsageUpdate(t *testing.T) {
	mock := mockOf(
		mockopenai.Response{Text: "one", Usage: &mockopenai.Usage{PromptTokens: 1000, CompletionTokens: 200}},
		mockopenai.Response{Text: "two", Usage: &mockopenai.Usage{PromptTokens: 1300, CompletionTokens: 100}},
	)
	defer mock.Close()
	home, ws := t.TempDir(), t.TempDir()
	p := startACPIn(t, mock, home, ws)
	p.initialize()
	sid := p.newSession(1)
	var costs []float64
	for i, want := range []int{1200, 1400} {
		p.request(2+i, "session/prompt", textPrompt(sid, "go"))
		seen := false
		for {
			m := p.read()
			if m.isResponse(2 + i) {
				break
			}
			if used, size, cost, cur, ok := usageOf(m); ok {
				if seen || used != want || size != 1047576 || cost <= 0 || cur != "USD" {
					t.Fatalf("usage_update %d: %s", i, m.raw)
				}
				seen = true
				costs = append(costs, cost)
			}
		}
		if !seen {
			t.Fatalf("no usage_update before answer %d:\n%s", i, p.dump())
		}
	}
	// $2 and $8 per million: 1000 in and 200 out, then 1300 in and 100 out.
	if costs[0] != 0.0036 || costs[1] < 0.0036+0.0034-1e-12 || costs[1] > 0.0036+0.0034+1e-12 {
		t.Fatalf("cumulative cost %v", costs)
	}
	_ = p.stdin.Close()
	<-p.done

	q := startACPIn(t, mock, home, ws)
	q.initialize()
	q.request(1, "session/load", map[string]any{"sessionId": sid, "cwd": ws, "mcpServers": []any{}})
	q.response(1)
	for {
		m := q.read()
		if used, _, cost, _, ok := usageOf(m); ok {
			if used != 1400 || cost != costs[1] {
				t.Fatalf("usage after load: %s", m.raw)
			}
			break
		}
	}
}
