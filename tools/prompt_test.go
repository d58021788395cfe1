package tools

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite golden files")

// copyTree copies testdata/prompt into a temp dir and marks repo as a repository (a .git
// directory cannot be committed inside ours).
func copyTree(t *testing.T, src string) string {
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dst, "repo", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Outside the repository: must not be picked up.
	writeFiles(t, dst, map[string]string{"AGENTS.md": "outside the repo\n"})
	return dst
}

func TestSystemPromptGolden(t *testing.T) {
	root := copyTree(t, filepath.Join("testdata", "prompt"))
	now := time.Date(2026, 5, 7, 12, 0, 0, 0, time.UTC)
	prompt, files := SystemPrompt(PromptOptions{
		Cwd: filepath.Join(root, "repo", "pkg"), Tools: Names, Now: now, Home: filepath.Join(root, "home"),
	})
	// The golden has /-joined paths; on Windows the prompt names them as Windows does.
	slashed := prompt
	for _, f := range files {
		slashed = strings.ReplaceAll(slashed, f.Path, filepath.ToSlash(f.Path))
	}
	cwd := filepath.Join(root, "repo", "pkg")
	slashed = strings.ReplaceAll(slashed, cwd, filepath.ToSlash(cwd))
	got := strings.ReplaceAll(slashed, filepath.ToSlash(root), "$ROOT")
	golden := filepath.Join("testdata", "prompt.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := testkit.DiffLines(string(want), got, 1); len(d) > 0 {
		t.Fatalf("prompt line %d = %q, want %q (run with -update to accept)", d[0].Line, d[0].Got, d[0].Want)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, filepath.ToSlash(strings.TrimPrefix(f.Path, root)))
	}
	if want := "/home/AGENTS.md,/repo/AGENTS.md,/repo/pkg/CLAUDE.md"; strings.Join(paths, ",") != want {
		t.Errorf("context files = %v, want %s", paths, want)
	}
}

func TestSystemPromptOptions(t *testing.T) {
	root := copyTree(t, filepath.Join("testdata", "prompt"))
	cwd := filepath.Join(root, "repo")
	now := time.Date(2026, 5, 7, 0, 0, 0, 0, time.UTC)
	p, files := SystemPrompt(PromptOptions{Cwd: cwd, Tools: []string{"read"}, Now: now, SystemPrompt: "You are terse.", AppendSystemPrompt: "Extra rule.", NoContextFiles: true})
	want := "You are terse.\n\nExtra rule.\nCurrent date: 2026-05-07\nCurrent working directory: " + filepath.ToSlash(cwd)
	if p != want || len(files) != 0 {
		t.Errorf("prompt = %q (files %v), want %q", p, files, want)
	}
	p, _ = SystemPrompt(PromptOptions{Cwd: cwd, Tools: []string{"bash"}, Now: now, NoContextFiles: true})
	if !strings.Contains(p, "- bash: ") || strings.Contains(p, "- read: ") || !strings.Contains(p, "Use bash for file operations like ls, rg, find") {
		t.Errorf("bash-only prompt = %q", p)
	}
}

func TestNew(t *testing.T) {
	dir := t.TempDir()
	all, err := New(nil, Options{Cwd: dir})
	if err != nil || len(all) != 7 {
		t.Fatalf("New(nil) = %d tools, %v", len(all), err)
	}
	for i, tool := range all {
		info := tool.Info()
		if info.Name != Names[i] || info.Description == "" || len(info.Parameters) == 0 {
			t.Errorf("tool %d info = %+v", i, info)
		}
	}
	none, err := New([]string{}, Options{Cwd: dir})
	if err != nil || len(none) != 0 {
		t.Errorf("New([]) = %d tools, %v", len(none), err)
	}
	_, err = New(ParseNames("read, nope"), Options{Cwd: dir})
	if err == nil || err.Error() != `unknown tool "nope" (valid tools: read, bash, edit, write, grep, find, ls, update_plan)` {
		t.Errorf("unknown tool error = %v", err)
	}
}

// The skills are listed after the context files as pi 1.6.0 lists them, naming read (or bash
// without read) as the loader, escaped as XML; without either tool they are left out.
func TestSystemPromptSkills(t *testing.T) {
	skills := []PromptSkill{{Name: "x", Description: `Use <x> & "y"`, Location: "/p/.agents/skills/x/SKILL.md"}}
	want := "\n\nThe following skills provide specialized instructions for specific tasks.\n" +
		"Use the read tool to load a skill's file when the task matches its description.\n" +
		"Resolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.\n\n" +
		"<available_skills>\n  <skill>\n    <name>x</name>\n    <description>Use &lt;x&gt; &amp; &quot;y&quot;</description>\n" +
		"    <location>/p/.agents/skills/x/SKILL.md</location>\n  </skill>\n</available_skills>\n\nCurrent date: 2026-01-02"
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	prompt, _ := SystemPrompt(PromptOptions{Cwd: t.TempDir(), Tools: []string{"read", "bash"}, Now: now, Skills: skills, NoContextFiles: true})
	if !strings.Contains(prompt, want) {
		t.Errorf("prompt:\n%s\nwant it to contain:\n%s", prompt, want)
	}
	prompt, _ = SystemPrompt(PromptOptions{Cwd: t.TempDir(), Tools: []string{"bash"}, Now: now, Skills: skills, NoContextFiles: true})
	if !strings.Contains(prompt, "Use bash to load a skill's file") {
		t.Errorf("with bash only:\n%s", prompt)
	}
	prompt, _ = SystemPrompt(PromptOptions{Cwd: t.TempDir(), Tools: []string{"edit"}, Now: now, Skills: skills, NoContextFiles: true})
	if strings.Contains(prompt, "available_skills") {
		t.Errorf("without read or bash the model cannot load a skill:\n%s", prompt)
	}
}

// The bash guideline says what the sandbox a session starts in allows; without one it says
// the commands are not sandboxed.
func TestSystemPromptSandbox(t *testing.T) {
	now := time.Date(2026, 5, 7, 0, 0, 0, 0, time.UTC)
	cwd := t.TempDir()
	for _, tt := range []struct {
		mode       string
		networkOff bool
		want       string
	}{
		{"", false, "- bash commands run in the working directory with your user's permissions; they are not sandboxed. Do not run destructive commands unless asked to.\n"},
		{"off", true, "they are not sandboxed."},
		{"workspace-write", true, "- bash commands run in the working directory in an OS sandbox: they can write only in the working directory, /tmp and the directories the user allowed, and have no network access. Do not run destructive commands unless asked to.\n"},
		{"workspace-write", false, "the directories the user allowed. Do not"},
		{"read-only", true, "- bash commands run in the working directory in a read-only OS sandbox: they cannot write files, and have no network access. Do not"},
	} {
		p, _ := SystemPrompt(PromptOptions{Cwd: cwd, Tools: []string{"bash"}, Now: now, NoContextFiles: true, Sandbox: SandboxGuideline(tt.mode, tt.networkOff)})
		if !strings.Contains(p, tt.want) {
			t.Errorf("%s (network off %v): prompt %q lacks %q", tt.mode, tt.networkOff, p, tt.want)
		}
		if tt.mode != "" && tt.mode != "off" && strings.Contains(p, "not sandboxed") {
			t.Errorf("%s: prompt still says not sandboxed: %q", tt.mode, p)
		}
	}
}
