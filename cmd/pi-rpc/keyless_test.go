package main

import (
	"context"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// streamOnce sends one request through the setup's provider and returns the event types.
func streamOnce(t *testing.T, s *agentSetup) []core.AssistantEventType {
	t.Helper()
	if s.provider == nil {
		t.Fatalf("no provider; problems %+v", s.problems)
	}
	var got []core.AssistantEventType
	req := &core.Request{Model: s.model, Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}}
	for ev := range s.provider.Stream(context.Background(), req) {
		got = append(got, ev.Type)
	}
	return got
}

func lastIs(types []core.AssistantEventType, want core.AssistantEventType) bool {
	return len(types) > 0 && types[len(types)-1] == want
}

// A server the user names (--base-url, OPENAI_BASE_URL, a models.json provider without
// apiKey) works without a key, and the request carries no Authorization header at all.
func TestKeylessLocalServer(t *testing.T) {
	cases := []struct {
		name   string
		config func(url string) (*config, map[string]string)
	}{
		{"base-url flag", func(url string) (*config, map[string]string) {
			return &config{baseURL: url}, nil
		}},
		{"base-url flag with --provider openai", func(url string) (*config, map[string]string) {
			return &config{provider: "openai", baseURL: url}, nil
		}},
		{"OPENAI_BASE_URL", func(url string) (*config, map[string]string) {
			return &config{}, map[string]string{"OPENAI_BASE_URL": url}
		}},
		{"models.json provider without apiKey", func(url string) (*config, map[string]string) {
			path := modelsFile(t, `{"providers":{"local":{"baseUrl":"`+url+`","api":"openai-completions","models":[{"id":"qwen"}]}}}`)
			return &config{modelsFile: path, model: "local/qwen"}, nil
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mock := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{{Text: "hello"}}})
			t.Cleanup(mock.Close)
			c, env := tc.config(mock.URL())
			c.cwd, c.idleTimeout = t.TempDir(), time.Minute
			if env == nil {
				env = map[string]string{}
			}
			env["PI_RPC_HOME"] = t.TempDir()
			s, err := setupAgent(c, func(k string) string { return env[k] }, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if len(s.problems) != 0 {
				t.Fatalf("problems = %+v, want none", s.problems)
			}
			if got := streamOnce(t, s); !lastIs(got, core.EventDone) {
				t.Fatalf("events = %v, want a completed reply", got)
			}
			reqs := mock.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			if h, ok := reqs[0].Header["Authorization"]; ok {
				t.Errorf("Authorization header sent: %q", h)
			}
		})
	}
}

// With a key, the same server gets it as a bearer token (the keyless test above would pass
// for a provider that never sends the header).
func TestKeyIsSentWhenSet(t *testing.T) {
	mock := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{{Text: "hello"}}})
	t.Cleanup(mock.Close)
	env := map[string]string{"PI_RPC_HOME": t.TempDir(), "OPENAI_API_KEY": "sk-test"}
	c := &config{baseURL: mock.URL(), cwd: t.TempDir(), idleTimeout: time.Minute}
	s, err := setupAgent(c, func(k string) string { return env[k] }, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	streamOnce(t, s)
	if reqs := mock.Requests(); len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer sk-test" {
		t.Fatalf("requests %d, Authorization %q", len(reqs), reqs[0].Header.Get("Authorization"))
	}
}

// Without any base URL (api.openai.com) a missing key is still a problem: noApiKey with
// --provider openai, noProvider without it.
func TestMissingKeyWithoutBaseURL(t *testing.T) {
	for _, tc := range []struct{ provider, kind string }{{"openai", "noApiKey"}, {"", "noProvider"}} {
		env := map[string]string{"PI_RPC_HOME": t.TempDir()}
		c := &config{provider: tc.provider, cwd: t.TempDir(), idleTimeout: time.Minute}
		s, err := setupAgent(c, func(k string) string { return env[k] }, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if len(s.problems) != 1 || s.problems[0].Kind != tc.kind {
			t.Errorf("--provider %q: problems = %+v, want one %s", tc.provider, s.problems, tc.kind)
		}
	}
}
