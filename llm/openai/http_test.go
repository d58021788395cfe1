package openai

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/llm"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// TestRequestHeaders checks what the server sees: the path below the base URL, the key as a
// bearer token, JSON in and an event stream asked for, pi-rpc's name, and the provider's
// and then the model's headers (models.json), which replace defaults they name.
func TestRequestHeaders(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		model     map[string]string
		want      map[string]string
		wantUnset []string
	}{
		{
			name: "defaults",
			cfg:  Config{Endpoint: llm.Endpoint{APIKey: "sk-1", KeySource: "test"}},
			want: map[string]string{"Authorization": "Bearer sk-1", "Content-Type": "application/json", "Accept": "text/event-stream", "User-Agent": "pi-rpc"},
			// Nothing of the SDK this package once used.
			wantUnset: []string{"X-Stainless-Lang", "X-Stainless-Retry-Count", "Idempotency-Key"},
		},
		{
			name:  "custom headers, the model's last",
			cfg:   Config{Endpoint: llm.Endpoint{APIKey: "sk-1", KeySource: "test", Headers: map[string]string{"X-Title": "pi", "X-Both": "provider", "User-Agent": "mine/1"}}},
			model: map[string]string{"X-Both": "model", "X-Model": "m"},
			want:  map[string]string{"X-Title": "pi", "X-Both": "model", "X-Model": "m", "User-Agent": "mine/1", "Authorization": "Bearer sk-1"},
		},
		{
			name: "an Authorization header replaces the key",
			cfg:  Config{Endpoint: llm.Endpoint{APIKey: "sk-1", KeySource: "test", Headers: map[string]string{"authorization": "Basic abc"}}},
			want: map[string]string{"Authorization": "Basic abc"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, srv := newMockProvider(t, tc.cfg, mockopenai.Response{Text: "ok"})
			req := hiRequest(t, "gpt-4.1")
			req.Model.Headers = tc.model
			if _, final := run(t, context.Background(), p, req); final.StopReason != core.StopReasonStop {
				t.Fatalf("stream failed: %s", final.ErrorMessage)
			}
			r := srv.Requests()[0]
			if r.Path != "/v1/chat/completions" {
				t.Errorf("path = %s", r.Path)
			}
			for k, v := range tc.want {
				if got := r.Header.Values(k); len(got) != 1 || got[0] != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			for _, k := range tc.wantUnset {
				if got := r.Header.Get(k); got != "" {
					t.Errorf("%s = %q, want unset", k, got)
				}
			}
		})
	}
	t.Run("no key, no Authorization", func(t *testing.T) {
		ct := capturer.Transport()
		p, err := New(Config{Endpoint: llm.Endpoint{BaseURL: "http://127.0.0.1:1/v1", IdleTimeout: -1, HTTPClient: &http.Client{Transport: ct}}})
		if err != nil {
			t.Fatal(err)
		}
		run(t, context.Background(), p, hiRequest(t, "gpt-4.1"))
		if _, ok := ct.Header["Authorization"]; ok {
			t.Errorf("Authorization sent: %q", ct.Header.Get("Authorization"))
		}
	})
}

// TestEndpoint resolves chat/completions below the base URL's path, with or without its
// trailing slash.
func TestEndpoint(t *testing.T) {
	for base, want := range map[string]string{
		"http://127.0.0.1:8080/v1":         "http://127.0.0.1:8080/v1/chat/completions",
		"http://127.0.0.1:8080/v1/":        "http://127.0.0.1:8080/v1/chat/completions",
		"https://openrouter.ai/api/v1":     "https://openrouter.ai/api/v1/chat/completions",
		"http://localhost:11434":           "http://localhost:11434/chat/completions",
		"http://localhost:11434/":          "http://localhost:11434/chat/completions",
		"https://example.com/a%20b/v1?x=1": "https://example.com/a%20b/v1/chat/completions",
	} {
		ht := capturer.Transport()
		p, err := New(Config{Endpoint: llm.Endpoint{BaseURL: base, IdleTimeout: -1, HTTPClient: &http.Client{Transport: ht}}})
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		run(t, context.Background(), p, hiRequest(t, "gpt-4.1"))
		if ht.URL != want {
			t.Errorf("%s: request to %s, want %s", base, ht.URL, want)
		}
	}
	for _, base := range []string{"", "api.openai.com/v1", "ftp://x/v1", "http://"} {
		if _, err := New(Config{Endpoint: llm.Endpoint{BaseURL: base}}); err == nil {
			t.Errorf("New(%q) accepted", base)
		}
	}
}

// TestStreamEdges covers the event stream's framing as servers send it, read by the SDK's
// ssestream decoder: CRLF line ends and data split over lines work; what the decoder does not
// frame (CR-only line ends, a last event the body ends without its blank line, which the SSE
// specification discards) fails as not an event stream rather than hanging, and a line over
// the decoder's 32 MiB limit fails clearly, not as a retryable connection loss.
func TestStreamEdges(t *testing.T) {
	const finish = `data: {"id":"x","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`
	const notAStream = `error error other: Provider returned 200 with a body that is not an event stream (Content-Type "text/event-stream; charset=utf-8"): `
	tests := []struct {
		name string
		sse  string
		want []string
	}{
		{"CRLF", strings.ReplaceAll(finish+"\n\ndata: [DONE]\n\n", "\n", "\r\n"), []string{"start", "text_start 0", `text_delta 0 "ok"`, `text_end 0 "ok"`, "done stop"}},
		{"CR", strings.ReplaceAll(finish+"\n\ndata: [DONE]\n\n", "\n", "\r"), []string{"start", notAStream + strings.ReplaceAll(finish+"\n\ndata: [DONE]", "\n\n", " ")}},
		{"last event without its blank line", finish, []string{"start", notAStream + finish}},
		{"data split over lines", "data: {\"id\":\"x\",\ndata: \"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n", []string{"start", "text_start 0", `text_delta 0 "ok"`, `text_end 0 "ok"`, "done stop"}},
		{"event over the limit", "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + strings.Repeat("x", 32<<20) + "\"}}]}\n\n",
			[]string{"start", "error error other: Provider sent a server-sent event line over 32 MiB"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newMockProvider(t, Config{}, mockopenai.Response{Faults: mockhttp.Faults{SSE: tc.sse}})
			got, _ := run(t, context.Background(), p, hiRequest(t, "gpt-4.1"))
			providertest.DiffLines(t, got, tc.want)
		})
	}
}

// TestErrorBodyStall: a server that sends an error status and then goes silent fails with
// the idle timeout, not a hang; a cancel while it is silent aborts.
func TestErrorBodyStall(t *testing.T) {
	stall := func(release <-chan struct{}) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"error":{"message":"bo`))
			select {
			case <-r.Context().Done():
			case <-release:
			}
		})
	}
	t.Run("idle timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			release := make(chan struct{})
			defer close(release)
			p, err := New(Config{Endpoint: llm.Endpoint{BaseURL: "http://mock.invalid/v1", IdleTimeout: 30 * time.Second, HTTPClient: &http.Client{Transport: mockhttp.PipeTransport{Handler: stall(release)}}}})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			got, _ := run(t, context.Background(), p, hiRequest(t, "gpt-4.1"))
			providertest.DiffLines(t, got, []string{"start error", "error error retryable: No data from provider for 30s"})
			if d := time.Since(start); d != 30*time.Second {
				t.Errorf("failed after %v, want 30s", d)
			}
		})
	})
	t.Run("cancel", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			release := make(chan struct{})
			defer close(release)
			p, err := New(Config{Endpoint: llm.Endpoint{BaseURL: "http://mock.invalid/v1", IdleTimeout: -1, HTTPClient: &http.Client{Transport: mockhttp.PipeTransport{Handler: stall(release)}}}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(time.Minute, cancel)
			got, _ := run(t, ctx, p, hiRequest(t, "gpt-4.1"))
			providertest.DiffLines(t, got, []string{"start aborted", "error aborted aborted: Request was aborted"})
		})
	})
}

// TestErrorBodyLimit reads at most 1 MiB of an error body.
func TestErrorBodyLimit(t *testing.T) {
	big := `{"error":{"message":"` + strings.Repeat("x", 2<<20) + `"}}`
	ct := &statusTransport{status: 400, body: big}
	p, err := New(Config{Endpoint: llm.Endpoint{BaseURL: "http://127.0.0.1:1/v1", IdleTimeout: -1, HTTPClient: &http.Client{Transport: ct}}})
	if err != nil {
		t.Fatal(err)
	}
	_, final := run(t, context.Background(), p, hiRequest(t, "gpt-4.1"))
	if final.Failure == nil || final.Failure.Status != 400 || final.Failure.Kind != core.ErrorOther {
		t.Fatalf("failure = %+v", final.Failure)
	}
	if n := len(final.ErrorMessage); n > 1000 {
		t.Errorf("error message of %d bytes: the cut body is not JSON, so only a snippet is quoted", n)
	}
	if ct.read > 1<<20 {
		t.Errorf("read %d bytes of the error body, want at most 1 MiB", ct.read)
	}
}

type statusTransport struct {
	status int
	body   string
	read   int
}

func (s *statusTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, req.Body)
	return &http.Response{StatusCode: s.status, Header: http.Header{}, Body: io.NopCloser(&countReader{r: bytes.NewReader([]byte(s.body)), n: &s.read}), Request: req}, nil
}

type countReader struct {
	r io.Reader
	n *int
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += n
	return n, err
}

// TestRedirects: a redirect within the base URL's origin is followed with every header; one
// to another origin is refused before anything reaches it (the models.json headers may carry
// keys), as a failure that is not retried.
func TestRedirects(t *testing.T) {
	reached := make(chan http.Header, 1)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached <- r.Header.Clone()
		w.WriteHeader(http.StatusTeapot)
	}))
	defer other.Close()
	sse := "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	var seen http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/chat/completions":
			http.Redirect(w, r, "/v2/chat/completions", http.StatusTemporaryRedirect)
		case "/v2/chat/completions":
			seen = r.Header.Clone()
			body, _ := io.ReadAll(r.Body)
			if !bytes.Contains(body, []byte(`"stream":true`)) {
				http.Error(w, "body lost: "+string(body), http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, sse)
		case "/away/chat/completions":
			http.Redirect(w, r, other.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
		}
	}))
	defer srv.Close()

	p, err := New(Config{Endpoint: llm.Endpoint{BaseURL: srv.URL + "/v1", APIKey: "sk-1", KeySource: "test", IdleTimeout: -1, Headers: map[string]string{"Api-Key": "secret"}}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := run(t, context.Background(), p, hiRequest(t, "gpt-4.1"))
	providertest.DiffLines(t, got, []string{"start", "text_start 0", `text_delta 0 "ok"`, `text_end 0 "ok"`, "done stop"})
	if seen.Get("Authorization") != "Bearer sk-1" || seen.Get("Api-Key") != "secret" {
		t.Errorf("headers after the redirect: %v", seen)
	}

	p, err = New(Config{Endpoint: llm.Endpoint{BaseURL: srv.URL + "/away", APIKey: "sk-1", KeySource: "test", IdleTimeout: -1, Headers: map[string]string{"Api-Key": "secret"}}})
	if err != nil {
		t.Fatal(err)
	}
	_, final := run(t, context.Background(), p, hiRequest(t, "gpt-4.1"))
	if final.Failure == nil || final.Failure.Kind != core.ErrorOther || !strings.Contains(final.ErrorMessage, "redirect leaves the base URL's origin") {
		t.Fatalf("failure = %+v", final.Failure)
	}
	select {
	case h := <-reached:
		t.Fatalf("the other origin was reached, with %v", h)
	default:
	}
}

// The caller's client keeps its own redirect policy and is not changed.
func TestRedirectPolicyOfTheCallersClient(t *testing.T) {
	stop := errors.New("no redirects here")
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return stop }}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	p, err := New(Config{Endpoint: llm.Endpoint{BaseURL: srv.URL + "/v1", IdleTimeout: -1, HTTPClient: hc}})
	if err != nil {
		t.Fatal(err)
	}
	_, final := run(t, context.Background(), p, hiRequest(t, "gpt-4.1"))
	if !strings.Contains(final.ErrorMessage, "no redirects here") {
		t.Errorf("error = %q, want the client's own policy", final.ErrorMessage)
	}
	if err := hc.CheckRedirect(nil, nil); !errors.Is(err, stop) {
		t.Errorf("the caller's client was changed")
	}
}

// TestSDKDoesNotRetry: a retryable failure (429, 500, a dropped connection) is one request
// and one classified failure; the SDK's own retries are off, so the session layer's visible
// retry is the only one.
func TestSDKDoesNotRetry(t *testing.T) {
	for _, fault := range []mockopenai.Response{
		mockopenai.RateLimitError("0"),
		{Faults: mockhttp.Faults{Status: 500}, Error: &mockopenai.ErrorBody{Message: "boom", Type: "server_error"}},
		{Text: "abcdefgh", Faults: mockhttp.Faults{DropAfter: 1}},
	} {
		p, srv := newMockProvider(t, Config{}, fault, mockopenai.Response{Text: "ok"})
		_, final := run(t, context.Background(), p, hiRequest(t, "gpt-4.1"))
		if final.StopReason != core.StopReasonError || final.Failure == nil || final.Failure.Kind != core.ErrorRetryable {
			t.Errorf("%+v: final %s %+v, want a retryable error", fault, final.StopReason, final.Failure)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%+v: %d requests, want 1", fault, n)
		}
	}
}
