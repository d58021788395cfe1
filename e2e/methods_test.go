package e2e_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// Error codes of docs/protocol.md#errors.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeCancelled      = -32800
	codeBusy           = -32010
	codeInvalidState   = -32011
	codeNotFound       = -32012
	codeNoProvider     = -32013
	codeShuttingDown   = -32014
	codeTimeout        = -32015
)

// TestMethodsIdle covers each method's success and error paths that need no run.
func TestMethodsIdle(t *testing.T) {
	p := start(t, options{faux: fauxScript()})

	var init struct {
		ProtocolVersion int `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
		Capabilities map[string]bool `json:"capabilities"`
		Model        struct {
			ID string `json:"id"`
		} `json:"model"`
		SessionID string   `json:"sessionId"`
		Problems  []any    `json:"problems"`
		Warnings  []string `json:"warnings"`
	}
	p.result("initialize", map[string]any{"protocolVersion": 1, "clientInfo": map[string]any{"name": "e2e"}}, &init)
	if init.ProtocolVersion != 1 || init.ServerInfo.Name != "pi-rpc" || init.Model.ID != "faux-1" || init.SessionID == "" ||
		init.Problems == nil || len(init.Problems) != 0 || init.Warnings == nil {
		t.Errorf("initialize = %+v", init)
	}
	p.callError("initialize", map[string]any{"protocolVersion": "one"}, codeInvalidParams, "")

	var schema map[string]any
	p.result("describe", nil, &schema)
	if len(schema) == 0 {
		t.Errorf("describe returned an empty schema")
	}
	p.callError("describe", []int{1}, codeInvalidParams, "")

	var state struct {
		Model struct {
			ID string `json:"id"`
		} `json:"model"`
		ThinkingLevel string         `json:"thinkingLevel"`
		Options       map[string]any `json:"options"`
		SessionID     string         `json:"sessionId"`
		Settled       bool           `json:"settled"`
		Busy          struct {
			Running    bool  `json:"running"`
			Steering   []any `json:"steering"`
			FollowUp   []any `json:"followUp"`
			Compacting bool  `json:"compacting"`
		} `json:"busy"`
		ContextFiles []string `json:"contextFiles"`
		Problems     []any    `json:"problems"`
		LastSeq      int64    `json:"lastSeq"`
	}
	p.result("getState", nil, &state)
	if state.Model.ID != "faux-1" || state.SessionID != init.SessionID || !state.Settled || state.Busy.Running || state.LastSeq != 0 {
		t.Errorf("getState = %+v", state)
	}
	for _, k := range []string{"steeringMode", "followUpMode", "autoRetry", "autoCompaction", "toolExecution", "approval"} {
		if _, ok := state.Options[k]; !ok {
			t.Errorf("getState.options lacks %s: %v", k, state.Options)
		}
	}

	var msgs struct {
		Messages []any `json:"messages"`
	}
	p.result("getMessages", nil, &msgs)
	if msgs.Messages == nil || len(msgs.Messages) != 0 {
		t.Errorf("getMessages on a new session = %v, want []", msgs.Messages)
	}

	var models struct {
		Models []struct {
			ID string `json:"id"`
		} `json:"models"`
	}
	p.result("listModels", nil, &models)
	if len(models.Models) != 1 || models.Models[0].ID != "faux-1" {
		t.Errorf("listModels = %+v", models)
	}
	var sm modelResult
	p.result("setModel", map[string]any{"modelId": "faux-1"}, &sm)
	if sm.Model.ID != "faux-1" {
		t.Errorf("setModel = %+v", sm)
	}
	p.callError("setModel", map[string]any{"modelId": "nope"}, codeNotFound, "notFound")
	p.callError("setModel", map[string]any{}, codeInvalidParams, "")
	p.callError("setModel", map[string]any{"modelId": 5}, codeInvalidParams, "")

	var tl struct {
		Level string `json:"level"`
	}
	p.result("setThinkingLevel", map[string]any{"level": "high"}, &tl)
	if tl.Level != "off" { // faux-1 does not reason: clamped
		t.Errorf("setThinkingLevel(high) on a non-reasoning model = %q, want off", tl.Level)
	}
	p.callError("setThinkingLevel", map[string]any{"level": "max"}, codeInvalidParams, "")
	p.callError("setThinkingLevel", nil, codeInvalidParams, "")

	var opts struct {
		Options map[string]any `json:"options"`
	}
	p.result("setOptions", map[string]any{"steeringMode": "all", "autoRetry": false, "toolExecution": "sequential"}, &opts)
	if opts.Options["steeringMode"] != "all" || opts.Options["autoRetry"] != false || opts.Options["toolExecution"] != "sequential" {
		t.Errorf("setOptions = %v", opts.Options)
	}
	p.callError("setOptions", map[string]any{"followUpMode": "sometimes"}, codeInvalidParams, "")
	p.callError("setOptions", map[string]any{"autoRetry": "yes"}, codeInvalidParams, "")
	p.callError("setOptions", map[string]any{"approval": "maybe"}, codeInvalidParams, "")

	// Agent methods that need a run or a queue, while idle.
	var ar struct {
		Aborted bool `json:"aborted"`
	}
	p.result("abort", nil, &ar)
	if ar.Aborted {
		t.Errorf("abort while idle = true")
	}
	var cq struct {
		Steering []any `json:"steering"`
		FollowUp []any `json:"followUp"`
	}
	p.result("clearQueues", nil, &cq)
	if cq.Steering == nil || cq.FollowUp == nil || len(cq.Steering)+len(cq.FollowUp) != 0 {
		t.Errorf("clearQueues while idle = %+v, want empty lists", cq)
	}
	p.callError("cancelInput", map[string]any{"inputId": "in99"}, codeNotFound, "notFound")
	p.callError("cancelInput", map[string]any{}, codeInvalidParams, "")

	var ws settled
	p.result("waitSettled", nil, &ws)
	p.result("getState", nil, &state)
	if ws.Inputs == nil || len(ws.Inputs) != 0 || ws.Aborted || ws.LastSeq != state.LastSeq {
		t.Errorf("waitSettled before any period = %+v, want {inputs:[], aborted:false, lastSeq:%d}", ws, state.LastSeq)
	}
	p.callError("waitSettled", map[string]any{"inputId": "in42"}, codeNotFound, "notFound")
	p.callError("waitSettled", map[string]any{"timeoutMs": -1}, codeInvalidParams, "")

	e := p.callError("continue", nil, codeInvalidState, "invalidState")
	if !strings.Contains(e.Message, "No messages to continue from") {
		t.Errorf("continue on an empty context: message %q", e.Message)
	}
	e = p.callError("compact", nil, codeInvalidState, "invalidState")
	if !strings.Contains(e.Message, "Nothing to compact") {
		t.Errorf("compact on an empty session: message %q", e.Message)
	}
	p.callError("steer", map[string]any{"message": "x", "whenIdle": "reject"}, codeInvalidState, "invalidState")
	p.callError("followUp", map[string]any{"message": "x", "whenIdle": "reject"}, codeInvalidState, "invalidState")
	p.callError("steer", map[string]any{"message": "x", "whenIdle": "later"}, codeInvalidParams, "")
	e = p.callError("prompt", map[string]any{"message": 5}, codeInvalidParams, "")
	if e.Message != "params.message: expected string, got number" {
		t.Errorf("prompt{message:5}: message %q", e.Message)
	}
	p.callError("prompt", map[string]any{}, codeInvalidParams, "")
	p.callError("prompt", map[string]any{"message": "x", "whenBusy": "never"}, codeInvalidParams, "")
	p.callError("prompt", map[string]any{"message": "x", "images": []any{map[string]any{"type": "image"}}}, codeInvalidParams, "")
}

// TestMethodsBusy covers the paths that need a running busy period: busy errors with
// data.suggest, queueing, cancelInput and clearQueues settling inputs as cancelled,
// waitSettled's timeout and $/cancelRequest, and continue after an aborted reply.
func TestMethodsBusy(t *testing.T) {
	p := start(t, options{faux: fauxScript(hanging(), text("continued"), text("again"))})
	var pr inputResult
	p.result("prompt", map[string]any{"message": "go"}, &pr)
	p.event("message_update")

	e := p.callError("prompt", map[string]any{"message": "more"}, codeBusy, "busy")
	var data struct {
		Suggest []string `json:"suggest"`
	}
	_ = json.Unmarshal(e.Data, &data)
	if strings.Join(data.Suggest, ",") != "steer,followUp" {
		t.Errorf("busy prompt data = %s, want suggest [steer followUp]", e.Data)
	}
	p.callError("prompt", map[string]any{"message": "more", "whenBusy": "reject"}, codeBusy, "busy")
	p.callError("continue", nil, codeBusy, "busy")
	p.callError("compact", nil, codeBusy, "busy")

	var q1, q2, q3 inputResult
	p.result("prompt", map[string]any{"message": "queued steer", "whenBusy": "steer"}, &q1)
	p.result("followUp", map[string]any{"message": "queued follow-up"}, &q2)
	p.result("steer", map[string]any{"message": "second steer", "whenIdle": "reject"}, &q3)
	for _, q := range []inputResult{q1, q2, q3} {
		if q.Disposition != "queued" {
			t.Errorf("queued input %s disposition %q", q.InputID, q.Disposition)
		}
	}
	var state struct {
		Busy struct {
			Running  bool `json:"running"`
			Steering []struct {
				InputID string `json:"inputId"`
				Text    string `json:"text"`
			} `json:"steering"`
			FollowUp []struct {
				InputID string `json:"inputId"`
			} `json:"followUp"`
		} `json:"busy"`
		Settled bool `json:"settled"`
	}
	p.result("getState", nil, &state)
	if !state.Busy.Running || state.Settled || len(state.Busy.Steering) != 2 || len(state.Busy.FollowUp) != 1 ||
		state.Busy.Steering[0].InputID != q1.InputID || state.Busy.Steering[0].Text != "queued steer" {
		t.Errorf("getState while busy = %+v", state)
	}

	p.result("cancelInput", map[string]any{"inputId": q1.InputID}, nil)
	p.callError("cancelInput", map[string]any{"inputId": q1.InputID}, codeInvalidState, "invalidState")
	p.callError("cancelInput", map[string]any{"inputId": pr.InputID}, codeInvalidState, "invalidState")
	var cq struct {
		Steering []struct {
			InputID string `json:"inputId"`
		} `json:"steering"`
		FollowUp []struct {
			InputID string `json:"inputId"`
		} `json:"followUp"`
	}
	p.result("clearQueues", nil, &cq)
	if len(cq.Steering) != 1 || cq.Steering[0].InputID != q3.InputID || len(cq.FollowUp) != 1 || cq.FollowUp[0].InputID != q2.InputID {
		t.Errorf("clearQueues = %+v, want %s and %s", cq, q3.InputID, q2.InputID)
	}

	e = p.callError("waitSettled", map[string]any{"timeoutMs": 1}, codeTimeout, "timeout")
	var td struct {
		Busy    *bool  `json:"busy"`
		LastSeq *int64 `json:"lastSeq"`
	}
	_ = json.Unmarshal(e.Data, &td)
	if td.Busy == nil || !*td.Busy || td.LastSeq == nil {
		t.Errorf("waitSettled timeout data = %s, want busy:true and lastSeq", e.Data)
	}
	wid := p.request("waitSettled", nil)
	p.notify("$/cancelRequest", map[string]any{"id": wid})
	checkError(t, p.response(wid), "cancelled waitSettled", codeCancelled, "")

	p.result("abort", nil, nil)
	ev := p.event("agent_settled")
	s := settledOf(t, ev)
	want := map[string]string{pr.InputID: "aborted", q1.InputID: "cancelled", q2.InputID: "cancelled", q3.InputID: "cancelled"}
	for id, outcome := range want {
		if got := s.outcome(id); got != outcome {
			t.Errorf("outcome of %s = %q, want %q (%s)", id, got, outcome, ev)
		}
	}
	var ws settled
	p.result("waitSettled", map[string]any{"inputId": q2.InputID}, &ws)
	if ws.LastSeq != ev.seq() {
		t.Errorf("waitSettled(%s) after settling = %+v, want seq %d", q2.InputID, ws, ev.seq())
	}

	// The aborted reply leaves the context; continue resumes from the user message.
	var cr inputResult
	p.result("continue", nil, &cr)
	if cr.Disposition != "started" {
		t.Errorf("continue after abort: disposition %q", cr.Disposition)
	}
	s = settledOf(t, p.event("agent_settled"))
	if s.outcome(cr.InputID) != "completed" {
		t.Errorf("continue input %s outcome %q", cr.InputID, s.outcome(cr.InputID))
	}
	e = p.callError("continue", nil, codeInvalidState, "invalidState")
	if !strings.Contains(e.Message, "Nothing to continue") {
		t.Errorf("continue after a finished reply: message %q", e.Message)
	}
	// steer and followUp when idle start a run like prompt.
	var st inputResult
	p.result("steer", map[string]any{"message": "start"}, &st)
	if st.Disposition != "started" {
		t.Errorf("steer while idle: disposition %q, want started", st.Disposition)
	}
	p.event("agent_settled")
	var msgs struct {
		Messages []map[string]any `json:"messages"`
	}
	p.result("getMessages", nil, &msgs)
	var roles []string
	for _, m := range msgs.Messages {
		roles = append(roles, m["role"].(string))
	}
	if got := strings.Join(roles, ","); got != "user,assistant,user,assistant" {
		t.Errorf("getMessages roles = %s, want user,assistant,user,assistant (the aborted reply left the context)", got)
	}
}

// problemsResult is the problems list of an initialize or getState result.
type problemsResult struct {
	Problems []struct {
		Kind    string `json:"kind"`
		Server  string `json:"server"`
		Message string `json:"message"`
	} `json:"problems"`
}

// modelResult is the model of a getState or setModel result.
type modelResult struct {
	Model struct {
		ID       string `json:"id"`
		Provider string `json:"provider"`
		API      string `json:"api"`
	} `json:"model"`
}

// modelsResult is a listModels result.
type modelsResult struct {
	Models []struct {
		ID       string `json:"id"`
		Provider string `json:"provider"`
	} `json:"models"`
}

// TestMissingAPIKey: without OPENAI_API_KEY (and without a base URL, which would make a
// keyless local server) the server starts, initialize and getState report noApiKey, and
// prompt, continue and compact answer -32013 with that message.
func TestMissingAPIKey(t *testing.T) {
	p := start(t, options{args: []string{"--provider", "openai"}})
	var init problemsResult
	p.result("initialize", nil, &init)
	if len(init.Problems) != 1 || init.Problems[0].Kind != "noApiKey" || init.Problems[0].Message == "" {
		t.Fatalf("initialize problems = %+v, want one noApiKey", init.Problems)
	}
	var state problemsResult
	p.result("getState", nil, &state)
	if len(state.Problems) != 1 || state.Problems[0].Kind != "noApiKey" {
		t.Errorf("getState problems = %+v", state.Problems)
	}
	for _, m := range []string{"prompt", "continue", "compact", "steer", "followUp"} {
		e := p.callError(m, map[string]any{"message": "hi"}, codeNoProvider, "providerNotConfigured")
		if e.Message != init.Problems[0].Message {
			t.Errorf("%s: message %q, want the problem's %q", m, e.Message, init.Problems[0].Message)
		}
	}
}

// TestNoProvider: without --provider and without OPENAI_API_KEY there is no provider.
func TestNoProvider(t *testing.T) {
	p := start(t, options{})
	var init problemsResult
	p.result("initialize", nil, &init)
	if len(init.Problems) != 1 || init.Problems[0].Kind != "noProvider" {
		t.Fatalf("initialize problems = %+v, want one noProvider", init.Problems)
	}
	p.callError("prompt", map[string]any{"message": "hi"}, codeNoProvider, "providerNotConfigured")
}

// TestSetModelOpenAI switches between catalogue models on the OpenAI provider, and the next
// request goes out with the new model.
func TestSetModelOpenAI(t *testing.T) {
	mock := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{{Text: "hi"}}})
	t.Cleanup(mock.Close)
	p := start(t, options{mock: mock})
	var models modelsResult
	p.result("listModels", nil, &models)
	if len(models.Models) < 2 {
		t.Fatalf("listModels = %+v, want the catalogue", models)
	}
	// The last OpenAI model (Anthropic's catalogue follows OpenAI's).
	target := ""
	for _, m := range models.Models {
		if m.Provider == "openai" {
			target = m.ID
		}
	}
	var sm modelResult
	p.result("setModel", map[string]any{"modelId": target}, &sm)
	if sm.Model.ID != target {
		t.Fatalf("setModel(%s) = %+v", target, sm)
	}
	p.callError("setModel", map[string]any{"modelId": "no-such-model"}, codeNotFound, "notFound")
	p.result("prompt", map[string]any{"message": "hi"}, nil)
	s := settledOf(t, p.event("agent_settled"))
	if s.Error != nil || s.Aborted {
		t.Fatalf("run failed: %+v", s)
	}
	reqs := mock.Requests()
	if len(reqs) != 1 || reqs[0].Decoded["model"] != target {
		t.Errorf("request model = %v, want %s", reqs[0].Decoded["model"], target)
	}
}
