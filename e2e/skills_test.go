package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// The project of the skills tests: a repository whose .pi/prompts/review.md and
// .agents/skills/x/SKILL.md only a trusted project loads (docs/skills.md).
const (
	reviewTemplate = "---\ndescription: Review the code\nargument-hint: \"[focus]\"\n---\nReview the code, focusing on ${1:-everything}.\n"
	skillX         = "---\nname: x\ndescription: Does x things. Use it when x is asked for.\n---\n\n# X\n\nDo x carefully.\n"
	// The texts the model must receive for "/review focus" and "/skill:x do it".
	reviewExpanded = "Review the code, focusing on focus."
)

// skillsProject writes the project and returns its directory and the skill's file.
func skillsProject(t *testing.T) (dir, skillFile string) {
	t.Helper()
	dir = t.TempDir()
	skillFile = filepath.Join(dir, ".agents", "skills", "x", "SKILL.md")
	for path, content := range map[string]string{
		filepath.Join(dir, ".git", "HEAD"):                "ref: refs/heads/main\n",
		filepath.Join(dir, ".pi", "prompts", "review.md"): reviewTemplate,
		skillFile: skillX,
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, skillFile
}

// skillExpanded is what "/skill:x do it" becomes: the skill's instructions in a <skill> block,
// the request after it.
func skillExpanded(skillFile string) string {
	return `<skill name="x" location="` + skillFile + "\">\nReferences are relative to " + filepath.Dir(skillFile) +
		".\n\n# X\n\nDo x carefully.\n</skill>\n\ndo it"
}

// chatTexts are a Chat Completions request's system prompt and user messages.
func chatTexts(t *testing.T, req *mockopenai.Request) (system string, users []string) {
	t.Helper()
	for _, m := range objectsAt(req.Decoded, "messages") {
		var text string
		switch c := m["content"].(type) {
		case string:
			text = c
		case []any:
			for _, part := range c {
				if p, ok := part.(map[string]any); ok && p["type"] == "text" {
					text += p["text"].(string)
				}
			}
		}
		switch m["role"] {
		case "system", "developer":
			system += text
		case "user":
			users = append(users, text)
		}
	}
	return system, users
}

// checkExpanded checks the model's two requests: the template and the skill reached it
// expanded, and the system prompt lists the skill with its path.
func checkExpanded(t *testing.T, mock *mockopenai.Server, skillFile string) {
	t.Helper()
	reqs := mock.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	system, users := chatTexts(t, reqs[1])
	if len(users) != 2 || users[0] != reviewExpanded || users[1] != skillExpanded(skillFile) {
		t.Errorf("the model's user messages = %q, want %q and %q", users, reviewExpanded, skillExpanded(skillFile))
	}
	for _, want := range []string{"<available_skills>", "<name>x</name>", "<description>Does x things. Use it when x is asked for.</description>", "<location>" + skillFile + "</location>"} {
		if !strings.Contains(system, want) {
			t.Errorf("the system prompt lacks %q:\n%s", want, system)
		}
	}
}

// checkUntrusted checks a request of an untrusted project: the commands went to the model as
// typed and the prompt lists no skill.
func checkUntrusted(t *testing.T, req *mockopenai.Request, typed string) {
	t.Helper()
	system, users := chatTexts(t, req)
	if len(users) == 0 || users[len(users)-1] != typed {
		t.Errorf("untrusted: the model's user messages = %q, want %q as typed", users, typed)
	}
	if strings.Contains(system, "available_skills") {
		t.Errorf("untrusted: the system prompt lists skills:\n%s", system)
	}
}

func commandNames(t *testing.T, list []any) []string {
	t.Helper()
	var out []string
	for _, c := range list {
		out = append(out, c.(map[string]any)["name"].(string))
	}
	return out
}

// Pi mode: with --approve, get_commands lists the project's template and skill as pi 1.6.0
// does, and prompt expands them; without a decision RPC mode skips the project's resources,
// and a saved decision in the agent directory's trust.json loads them.
func TestSkillsPiMode(t *testing.T) {
	dir, skillFile := skillsProject(t)
	mock := newMock(t, mockopenai.Response{Text: "reviewed"}, mockopenai.Response{Text: "did x"})
	p := startPi(t, piOptions{mock: mock, cwd: dir, args: []string{"--approve"}})
	cmds := p.call("c", "get_commands", nil).data()["commands"].([]any)
	if got := commandNames(t, cmds); strings.Join(got, ",") != "review,skill:x" {
		t.Fatalf("get_commands = %v", got)
	}
	review, skill := cmds[0].(map[string]any), cmds[1].(map[string]any)
	info, _ := review["sourceInfo"].(map[string]any)
	if review["source"] != "prompt" || review["description"] != "Review the code" || info["path"] != filepath.Join(dir, ".pi", "prompts", "review.md") || info["scope"] != "project" || info["source"] != "auto" || info["origin"] != "top-level" {
		t.Errorf("review = %v", review)
	}
	if info, _ := skill["sourceInfo"].(map[string]any); skill["source"] != "skill" || info["path"] != skillFile || info["baseDir"] != filepath.Join(dir, ".agents") {
		t.Errorf("skill:x = %v", skill)
	}
	p.call("p1", "prompt", map[string]any{"message": "/review focus"})
	p.event("agent_settled")
	p.call("p2", "prompt", map[string]any{"message": "/skill:x do it"})
	p.event("agent_settled")
	checkExpanded(t, mock, skillFile)

	untrustedMock := newMock(t, mockopenai.Response{Text: "as typed"})
	u := startPi(t, piOptions{mock: untrustedMock, cwd: dir})
	if cmds := u.call("c", "get_commands", nil).data()["commands"].([]any); len(cmds) != 0 {
		t.Fatalf("untrusted get_commands = %v", commandNames(t, cmds))
	}
	u.call("p", "prompt", map[string]any{"message": "/review focus"})
	u.event("agent_settled")
	checkUntrusted(t, untrustedMock.Requests()[0], "/review focus")

	// A saved decision: the agent directory's trust.json, for the project's real path.
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	agentDir := t.TempDir()
	trust, _ := json.Marshal(map[string]bool{real: true})
	if err := os.WriteFile(filepath.Join(agentDir, "trust.json"), trust, 0o644); err != nil {
		t.Fatal(err)
	}
	saved := startPi(t, piOptions{mock: newMock(t), cwd: dir, env: []string{"PI_CODING_AGENT_DIR=" + agentDir}})
	if got := commandNames(t, saved.call("c", "get_commands", nil).data()["commands"].([]any)); strings.Join(got, ",") != "review,skill:x" {
		t.Fatalf("get_commands with trust.json = %v", got)
	}
}

// promptSettled sends a JSON-RPC prompt and waits for its agent_settled (waitSettled).
func (p *proc) promptSettled(params map[string]any) {
	p.t.Helper()
	var in struct {
		InputID string `json:"inputId"`
	}
	p.result("prompt", params, &in)
	wait := map[string]any{"inputId": in.InputID}
	if sid, ok := params["sessionId"]; ok {
		wait["sessionId"] = sid
	}
	p.result("waitSettled", wait, nil)
}

// JSON-RPC: listCommands lists a session's templates and skills (with the argument hint), for
// the session's own cwd; prompt expands them; without --approve the project's are skipped.
func TestSkillsJSONRPC(t *testing.T) {
	dir, skillFile := skillsProject(t)
	mock := newMock(t, mockopenai.Response{Text: "reviewed"}, mockopenai.Response{Text: "did x"})
	p := start(t, options{mock: mock, cwd: dir, args: []string{"--approve"}, multiSession: true})
	var list struct {
		Commands []struct {
			Name         string `json:"name"`
			Description  string `json:"description"`
			Source       string `json:"source"`
			ArgumentHint string `json:"argumentHint"`
			SourceInfo   struct {
				Path  string `json:"path"`
				Scope string `json:"scope"`
			} `json:"sourceInfo"`
		} `json:"commands"`
	}
	// A session of another directory has that directory's commands: none.
	var created struct {
		SessionID string `json:"sessionId"`
	}
	p.result("createSession", map[string]any{"cwd": t.TempDir()}, &created)
	p.result("listCommands", map[string]any{"sessionId": created.SessionID}, &list)
	if len(list.Commands) != 0 {
		t.Errorf("listCommands of a session elsewhere = %+v", list)
	}
	p.result("listCommands", nil, &list)
	if len(list.Commands) != 2 {
		t.Fatalf("listCommands = %+v", list)
	}
	if c := list.Commands[0]; c.Name != "review" || c.Source != "prompt" || c.Description != "Review the code" || c.ArgumentHint != "[focus]" || c.SourceInfo.Scope != "project" {
		t.Errorf("review = %+v", c)
	}
	if c := list.Commands[1]; c.Name != "skill:x" || c.Source != "skill" || c.SourceInfo.Path != skillFile {
		t.Errorf("skill:x = %+v", c)
	}
	p.promptSettled(map[string]any{"message": "/review focus"})
	p.promptSettled(map[string]any{"message": "/skill:x do it"})
	checkExpanded(t, mock, skillFile)

	untrustedMock := newMock(t, mockopenai.Response{Text: "as typed"})
	u := start(t, options{mock: untrustedMock, cwd: dir})
	u.result("listCommands", nil, &list)
	if len(list.Commands) != 0 {
		t.Fatalf("untrusted listCommands = %+v", list)
	}
	u.promptSettled(map[string]any{"message": "/skill:x do it"})
	checkUntrusted(t, untrustedMock.Requests()[0], "/skill:x do it")
}

// acpCommands reads the available_commands_update after session/new and returns the
// commands' names and hints.
func acpCommands(t *testing.T, m acpMsg) (names []string, hints map[string]string) {
	t.Helper()
	var ac struct {
		Update struct {
			SessionUpdate     string `json:"sessionUpdate"`
			AvailableCommands []struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				Input       *struct {
					Hint string `json:"hint"`
				} `json:"input"`
			} `json:"availableCommands"`
		} `json:"update"`
	}
	if err := json.Unmarshal(m.Params, &ac); err != nil || ac.Update.SessionUpdate != "available_commands_update" {
		t.Fatalf("want available_commands_update, got %s", m.raw)
	}
	hints = map[string]string{}
	for _, c := range ac.Update.AvailableCommands {
		names = append(names, c.Name)
		if c.Input != nil {
			hints[c.Name] = c.Input.Hint
		}
		if c.Description == "" {
			t.Errorf("command %s has no description", c.Name)
		}
	}
	return names, hints
}

// ACP: with --approve on the agent's command line (how an editor grants trust,
// docs/editors.md), available_commands_update lists the project's template and skill after
// pi-rpc's own commands, with their hints, and a prompt "/name args" expands them.
func TestSkillsACP(t *testing.T) {
	dir, skillFile := skillsProject(t)
	mock := mockOf(mockopenai.Response{Text: "reviewed"}, mockopenai.Response{Text: "did x"})
	defer mock.Close()
	p := startACPIn(t, mock, t.TempDir(), dir, "--approve")
	p.initialize()
	p.request(1, "session/new", map[string]any{"cwd": dir, "mcpServers": []any{}})
	sid := sessionIDOf(t, p.read())
	names, hints := acpCommands(t, p.read())
	if got := strings.Join(names, ","); got != "compact,name,session,fork,model,thinking,review,skill:x" {
		t.Fatalf("available commands = %s", got)
	}
	if hints["review"] != "[focus]" || hints["skill:x"] == "" {
		t.Errorf("hints = %v", hints)
	}
	if _, _, reason := p.commandReply(2, sid, "/review focus"); reason != "end_turn" {
		t.Fatal(reason)
	}
	if _, _, reason := p.commandReply(3, sid, "/skill:x do it"); reason != "end_turn" {
		t.Fatal(reason)
	}
	checkExpanded(t, mock, skillFile)

	untrustedMock := mockOf(mockopenai.Response{Text: "as typed"})
	defer untrustedMock.Close()
	u := startACPIn(t, untrustedMock, t.TempDir(), dir)
	u.initialize()
	u.request(1, "session/new", map[string]any{"cwd": dir, "mcpServers": []any{}})
	usid := sessionIDOf(t, u.read())
	if names, _ := acpCommands(t, u.read()); strings.Join(names, ",") != "compact,name,session,fork,model,thinking" {
		t.Fatalf("untrusted available commands = %v", names)
	}
	u.commandReply(2, usid, "/review focus")
	checkUntrusted(t, untrustedMock.Requests()[0], "/review focus")
}
