package google

import (
	"context"
	"net/http"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// FuzzStream feeds arbitrary bodies to the provider: whatever the server sends, the stream
// ends with exactly one done or error event and nothing panics (the SDK's converter does on
// some shapes; the provider recovers it).
func FuzzStream(f *testing.F) {
	for _, seed := range []string{
		`data: {"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"},"finishReason":"STOP"}]}` + "\r\n\r\n",
		`data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"ls","args":{"a":1}},"thoughtSignature":"c2ln"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":3}}` + "\n\n",
		`data: {"candidates":"none"}` + "\n\n",
		`data: {"candidates":[{"content":{"parts":"x"}}]}` + "\n\n",
		`data: {"usageMetadata":{"promptTokenCount":"many"}}` + "\n\n",
		`data: {"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":5}]}}` + "\n\n",
		`data: {"candidates":[{"content":{"parts":[{"thoughtSignature":"not base64!"}]}}]}` + "\n\n",
		": ping\n\nevent: x\n\ndata: [DONE]\n\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		p, err := New(Config{Endpoint: llm.Endpoint{BaseURL: DefaultBaseURL, APIKey: "k", IdleTimeout: -1, HTTPClient: &http.Client{Transport: providertest.BodyTransport{Body: []byte(body)}}}})
		if err != nil {
			t.Fatal(err)
		}
		ends := 0
		for ev := range p.Stream(context.Background(), hiRequest(t, "gemini-2.5-flash")) {
			if ev.Type == core.EventDone || ev.Type == core.EventError {
				ends++
			}
		}
		if ends != 1 {
			t.Fatalf("%d done or error events, want 1", ends)
		}
	})
}
