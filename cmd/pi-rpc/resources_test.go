package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// pi's resource and trust flags parse in every front end, with pi's short forms; the last
// trust flag wins.
func TestResourceFlags(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		approve *bool
		noSk    bool
		noPr    bool
		skills  []string
		prompts []string
	}{
		{args: nil},
		{args: []string{"--approve"}, approve: ptr(true)},
		{args: []string{"-a"}, approve: ptr(true)},
		{args: []string{"--no-approve"}, approve: ptr(false)},
		{args: []string{"-na"}, approve: ptr(false)},
		{args: []string{"-a", "-na"}, approve: ptr(false)},
		{args: []string{"--no-skills", "-np", "--skill", "a", "--skill", "b", "--prompt-template", "c"}, noSk: true, noPr: true, skills: []string{"a", "b"}, prompts: []string{"c"}},
		{args: []string{"-ns"}, noSk: true},
		{args: []string{"--protocol", "acp", "--approve", "--no-skills"}, approve: ptr(true), noSk: true},
		{args: []string{"--mode", "rpc", "--approve", "--no-prompt-templates"}, approve: ptr(true), noPr: true},
	} {
		c, err := parseFlags(tc.args, io.Discard)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		f := c.resources
		if !reflect.DeepEqual(f.approve, tc.approve) || f.noSkills != tc.noSk || f.noPromptTemplates != tc.noPr || !reflect.DeepEqual(f.skills, tc.skills) || !reflect.DeepEqual(f.prompts, tc.prompts) {
			t.Errorf("%q: %+v", tc.args, f)
		}
	}
}

func ptr(b bool) *bool { return &b }

// The setup loads the cwd's skills and templates from the home (pi's agent dir in pi mode),
// a trusted project's own with --approve, and lists the skills in the system prompt.
func TestSetupLoadsResources(t *testing.T) {
	root := t.TempDir()
	home, agentDir, cwd := filepath.Join(root, "home"), filepath.Join(root, "agent"), filepath.Join(root, "proj")
	for p, content := range map[string]string{
		filepath.Join(agentDir, "prompts", "mine.md"):               "Mine $1\n",
		filepath.Join(cwd, ".pi", "prompts", "review.md"):           "Review $1\n",
		filepath.Join(cwd, ".agents", "skills", "x", "SKILL.md"):    "---\nname: x\ndescription: Does x.\n---\nX\n",
		filepath.Join(home, ".agents", "skills", "bad", "SKILL.md"): "---\nname: bad\n---\nno description\n",
		filepath.Join(cwd, ".git", "HEAD"):                          "ref: refs/heads/main\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOME": home, "PI_CODING_AGENT_DIR": agentDir}
	setup := func(args ...string) *agentSetup {
		t.Helper()
		c, err := parseFlags(append([]string{"--mode", "rpc", "--provider", "faux", "--faux-script", "x", "--cwd", cwd}, args...), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		getenv, err := applyPiConfig(c, envOf(env))
		if err != nil {
			t.Fatal(err)
		}
		s := &agentSetup{home: piRPCHome(getenv), userHome: getenv("HOME"), cwd: cwd, sandboxes: &sessionSandboxes{}}
		if err := s.setupTools(c, time.Now()); err != nil {
			t.Fatal(err)
		}
		return s
	}
	names := func(s *agentSetup) string {
		var out []string
		for _, c := range s.commands.Commands() {
			out = append(out, c.Name)
		}
		return strings.Join(out, ",")
	}
	trusted := setup("--approve")
	if got := names(trusted); got != "review,mine,skill:x" {
		t.Errorf("trusted commands = %s", got)
	}
	if !strings.Contains(trusted.systemPrompt, "<name>x</name>") {
		t.Errorf("the system prompt lacks the skill:\n%s", trusted.systemPrompt)
	}
	if len(trusted.warnings) != 1 || !strings.Contains(trusted.warnings[0], "description is required") {
		t.Errorf("warnings = %q, want the skill without a description", trusted.warnings)
	}
	untrusted := setup()
	if got := names(untrusted); got != "mine" {
		t.Errorf("untrusted commands = %s", got)
	}
	if strings.Contains(untrusted.systemPrompt, "available_skills") {
		t.Errorf("untrusted system prompt lists skills:\n%s", untrusted.systemPrompt)
	}
}

// A trusted project's .pi/mcp.json is read after the home's mcp.json (a server of the same
// name is the project's), as pi 1.6.0 reads it; an untrusted project's is not.
func TestProjectMCPConfigOnlyWhenTrusted(t *testing.T) {
	root := t.TempDir()
	home, cwd := filepath.Join(root, "home"), filepath.Join(root, "proj")
	userFile, projectFile := filepath.Join(home, "mcp.json"), filepath.Join(cwd, ".pi", "mcp.json")
	for p, content := range map[string]string{
		userFile:    `{"mcpServers": {"shared": {"command": "user-cmd"}, "mine": {"command": "mine"}}}`,
		projectFile: `{"mcpServers": {"shared": {"command": "project-cmd"}, "theirs": {"command": "theirs"}}}`,
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sources := func(trusted bool) map[string]string {
		t.Helper()
		setup := &agentSetup{home: home, cwd: cwd, projectTrusted: trusted}
		h, err := startMCP(&config{mcpTimeout: time.Second}, setup, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, s := range h.configured {
			out[s.Name] = s.Source
		}
		return out
	}
	if got, want := sources(true), map[string]string{"shared": projectFile, "mine": userFile, "theirs": projectFile}; !reflect.DeepEqual(got, want) {
		t.Errorf("trusted: %v, want %v", got, want)
	}
	if got, want := sources(false), map[string]string{"shared": userFile, "mine": userFile}; !reflect.DeepEqual(got, want) {
		t.Errorf("untrusted: %v, want %v", got, want)
	}
}
