package resources

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// piSkills is what pi 1.6.0's own loadSkills gives for testdata/skilltree
// (testdata/gen_pi_skills.mjs wrote it).
type piSkills struct {
	Skills []struct {
		Name                   string `json:"name"`
		Description            string `json:"description"`
		File                   string `json:"file"`
		BaseDir                string `json:"baseDir"`
		DisableModelInvocation bool   `json:"disableModelInvocation"`
	} `json:"skills"`
	Diagnostics []struct {
		File    string `json:"file"`
		Message string `json:"message"`
	} `json:"diagnostics"`
}

// yamlErrorFile is the fixture whose YAML does not parse: pi's message is its YAML library's,
// pi-rpc's is yaml.v3's, so only the warning's presence is compared.
const yamlErrorFile = "badyaml/SKILL.md"

func TestLoadSkillsAsPi(t *testing.T) {
	data, err := os.ReadFile("testdata/pi_skills.json")
	if err != nil {
		t.Fatal(err)
	}
	var want piSkills
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	tree, err := filepath.Abs("testdata/skilltree")
	if err != nil {
		t.Fatal(err)
	}
	set := Load(Options{Cwd: tree, AgentDir: "/nonexistent-agent-dir", Home: t.TempDir(), SkillPaths: []string{tree}})
	type skill struct {
		Name, Description, File, BaseDir string
		Disable                          bool
	}
	var got, exp []skill
	for _, s := range set.Skills {
		got = append(got, skill{s.Name, s.Description, rel(t, tree, s.FilePath), rel(t, tree, s.BaseDir), s.DisableModelInvocation})
	}
	for _, s := range want.Skills {
		exp = append(exp, skill{s.Name, s.Description, s.File, s.BaseDir, s.DisableModelInvocation})
	}
	sort.Slice(got, func(i, j int) bool { return got[i].File < got[j].File })
	if !reflect.DeepEqual(got, exp) {
		t.Errorf("skills:\n got %+v\nwant %+v", got, exp)
	}
	var gotD, expD []string
	for _, d := range set.Diagnostics {
		msg := d.Message
		if rel(t, tree, d.Path) == yamlErrorFile {
			msg = "(yaml error)"
		}
		gotD = append(gotD, rel(t, tree, d.Path)+": "+msg)
	}
	for _, d := range want.Diagnostics {
		msg := d.Message
		if d.File == yamlErrorFile {
			msg = "(yaml error)"
		}
		expD = append(expD, d.File+": "+msg)
	}
	sort.Strings(gotD)
	sort.Strings(expD)
	if !reflect.DeepEqual(gotD, expD) {
		t.Errorf("diagnostics:\n got %q\nwant %q", gotD, expD)
	}
}

func rel(t *testing.T, base, p string) string {
	t.Helper()
	r, err := filepath.Rel(base, p)
	if err != nil {
		t.Fatal(err)
	}
	if r == "." {
		return "" // node's relative() of a directory to itself
	}
	return filepath.ToSlash(r) // testdata/pi_skills.json was recorded with pi on Linux
}

// write creates the files of a tree under root: path → content.
func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func skill(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nSteps of " + name + ".\n"
}

// fixture is a home with an agent directory and a repository whose cwd is two levels down.
type fixture struct {
	home, agentDir, repo, cwd string
}

func newFixture(t *testing.T) fixture {
	root := t.TempDir()
	f := fixture{home: filepath.Join(root, "home"), repo: filepath.Join(root, "work", "repo")}
	f.agentDir = filepath.Join(f.home, ".pi", "agent")
	f.cwd = filepath.Join(f.repo, "pkg", "sub")
	write(t, root, map[string]string{"work/repo/.git/HEAD": "ref: refs/heads/main\n", "work/repo/pkg/sub/.keep": ""})
	return f
}

func (f fixture) options(trusted bool) Options {
	return Options{Cwd: f.cwd, AgentDir: f.agentDir, Home: f.home, Trusted: trusted}
}

func names(set *Set) []string {
	var out []string
	for _, c := range set.Commands() {
		out = append(out, c.Name)
	}
	return out
}

func TestLoadLocationsAndPrecedence(t *testing.T) {
	f := newFixture(t)
	write(t, f.home, map[string]string{
		".pi/agent/skills/user-pi/SKILL.md":   skill("user-pi", "User skill in the agent directory."),
		".pi/agent/skills/shared/SKILL.md":    skill("shared", "The user's shared, which loses to the project's."),
		".agents/skills/user-agents/SKILL.md": skill("user-agents", "User skill in ~/.agents."),
		".pi/agent/prompts/userprompt.md":     "---\ndescription: A user template\n---\nUser $1\n",
		".pi/agent/prompts/review.md":         "User review\n",
	})
	write(t, f.cwd, map[string]string{
		".pi/skills/project-pi/SKILL.md":     skill("project-pi", "Project skill in .pi."),
		".pi/skills/shared/SKILL.md":         skill("shared", "The project's shared."),
		".agents/skills/cwd-agents/SKILL.md": skill("cwd-agents", "In the cwd's .agents."),
		".pi/prompts/review.md":              "---\ndescription: Review\nargument-hint: \"[focus]\"\n---\nReview ${1:-all}.\n",
		".pi/prompts/nested/deep.md":         "Not a direct child: not loaded.\n",
	})
	write(t, f.repo, map[string]string{".agents/skills/repo-agents/SKILL.md": skill("repo-agents", "At the repository root.")})
	// Above the repository root: not searched.
	write(t, filepath.Dir(f.repo), map[string]string{".agents/skills/above/SKILL.md": skill("above", "Above the repository.")})

	trusted := Load(f.options(true))
	want := []string{"review", "userprompt", "skill:project-pi", "skill:shared", "skill:cwd-agents", "skill:repo-agents", "skill:user-pi", "skill:user-agents"}
	if got := names(trusted); !reflect.DeepEqual(got, want) {
		t.Errorf("trusted commands = %q, want %q", got, want)
	}
	for _, s := range trusted.Skills {
		if s.Name == "shared" && !strings.Contains(s.FilePath, filepath.Join("sub", ".pi")) {
			t.Errorf("shared comes from %s, want the project's", s.FilePath)
		}
	}
	var collision bool
	for _, d := range trusted.Diagnostics {
		collision = collision || d.Message == `name "shared" collision` || d.Message == `name "/review" collision`
	}
	if !collision {
		t.Errorf("no collision warning in %v", trusted.Diagnostics)
	}
	cmds := trusted.Commands()
	if c := cmds[0]; c.Description != "Review" || c.ArgumentHint != "[focus]" || c.SourceInfo.Scope != "project" || c.SourceInfo.Source != "auto" || c.SourceInfo.BaseDir != filepath.Join(f.cwd, ".pi") {
		t.Errorf("review = %+v", c)
	}
	if c := cmds[1]; c.Description != "A user template" || c.SourceInfo.Scope != "user" || c.SourceInfo.BaseDir != f.agentDir {
		t.Errorf("userprompt = %+v", c)
	}

	untrusted := Load(f.options(false))
	want = []string{"review", "userprompt", "skill:shared", "skill:user-pi", "skill:user-agents"}
	if got := names(untrusted); !reflect.DeepEqual(got, want) {
		t.Errorf("untrusted commands = %q, want %q", got, want)
	}
	if got := untrusted.Templates[0].Content; got != "User review\n" {
		t.Errorf("untrusted review = %q, want the user's", got)
	}
}

func TestLoadFlagsAndSettings(t *testing.T) {
	f := newFixture(t)
	write(t, f.home, map[string]string{
		".pi/agent/skills/auto/SKILL.md": skill("auto", "Discovered."),
		".pi/agent/skills/off/SKILL.md":  skill("off", "Turned off by the settings."),
		".pi/agent/prompts/auto.md":      "Auto template\n",
		"extra/skills/listed/SKILL.md":   skill("listed", "From the settings' skills."),
		"extra/prompts/listed.md":        "Listed template\n",
		"extra/prompts/sub/nested.md":    "Nested in a settings directory: loaded.\n",
	})
	write(t, f.cwd, map[string]string{
		"cli/SKILL.md": skill("cli", "From --skill."),
		"cli.md":       "From --prompt-template\n",
	})
	o := f.options(false)
	o.User = Settings{Skills: []string{"~/extra/skills", "!off"}, Prompts: []string{"../../extra/prompts"}}
	o.SkillPaths = []string{"cli", "missing"}
	o.PromptPaths = []string{"cli.md", "gone.md"}
	set := Load(o)
	want := []string{"listed", "nested", "auto", "cli", "skill:listed", "skill:auto", "skill:cli"}
	if got := names(set); !reflect.DeepEqual(got, want) {
		t.Errorf("commands = %q, want %q", got, want)
	}
	msgs := map[string]string{}
	for _, d := range set.Diagnostics {
		msgs[filepath.Base(d.Path)] = d.Message
	}
	if msgs["missing"] != "skill path does not exist" || msgs["gone.md"] != "Prompt template path does not exist" {
		t.Errorf("diagnostics = %v", set.Diagnostics)
	}
	for _, c := range set.Commands() {
		if c.Name == "skill:cli" && (c.SourceInfo.Scope != "temporary" || c.SourceInfo.Source != "local") {
			t.Errorf("--skill source = %+v", c.SourceInfo)
		}
		if c.Name == "listed" && (c.SourceInfo.Scope != "user" || c.SourceInfo.Source != "local" || c.SourceInfo.BaseDir != "") {
			t.Errorf("settings source = %+v", c.SourceInfo)
		}
	}

	o.NoSkills, o.NoPromptTemplates = true, true
	if got, want := names(Load(o)), []string{"cli", "skill:cli"}; !reflect.DeepEqual(got, want) {
		t.Errorf("--no-skills --no-prompt-templates: commands = %q, want %q", got, want)
	}
}

func TestProjectSettingsOnlyWhenTrusted(t *testing.T) {
	f := newFixture(t)
	write(t, f.cwd, map[string]string{
		".pi/settings.json":          `{"skills": ["../tools/skills"], "prompts": ["../tools/prompts/x.md"]}`,
		"tools/skills/tool/SKILL.md": skill("tool", "Named by the project's settings."),
		"tools/prompts/x.md":         "X\n",
	})
	if got := names(Load(f.options(false))); len(got) != 0 {
		t.Errorf("untrusted: %q", got)
	}
	if got, want := names(Load(f.options(true))), []string{"x", "skill:tool"}; !reflect.DeepEqual(got, want) {
		t.Errorf("trusted: %q, want %q", got, want)
	}
}

func TestExpandSkill(t *testing.T) {
	f := newFixture(t)
	write(t, f.cwd, map[string]string{".agents/skills/x/SKILL.md": "---\nname: x\ndescription: Does x.\n---\n\n# X\n\nRun scripts/x.sh.\n\n"})
	set := Load(f.options(true))
	dir := filepath.Join(f.cwd, ".agents", "skills", "x")
	block := `<skill name="x" location="` + filepath.Join(dir, "SKILL.md") + "\">\nReferences are relative to " + dir + ".\n\n# X\n\nRun scripts/x.sh.\n</skill>"
	for in, want := range map[string]string{
		"/skill:x":           block,
		"/skill:x do it":     block + "\n\ndo it",
		"/skill:x   do it  ": block + "\n\ndo it",
		"/skill:y do it":     "/skill:y do it",
		"/skill:x\tdo":       "/skill:x\tdo",
		"please /skill:x":    "please /skill:x",
	} {
		if got := set.Expand(in); got != want {
			t.Errorf("Expand(%q) =\n%q\nwant\n%q", in, got, want)
		}
	}
	if got := set.PromptSkills(); len(got) != 1 || got[0].Location != filepath.Join(dir, "SKILL.md") {
		t.Errorf("PromptSkills = %+v", got)
	}
}

func TestPromptSkillsLeaveOutDisabled(t *testing.T) {
	set := &Set{Skills: []Skill{{Name: "a", Description: "A"}, {Name: "b", Description: "B", DisableModelInvocation: true}}}
	if got := set.PromptSkills(); len(got) != 1 || got[0].Name != "a" {
		t.Errorf("PromptSkills = %+v", got)
	}
	if got := names(set); !reflect.DeepEqual(got, []string{"skill:a", "skill:b"}) {
		t.Errorf("commands = %q: a skill the model may not invoke is still a command", got)
	}
}

func TestTemplateDescriptions(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("é", 61)
	write(t, dir, map[string]string{
		"front.md": "---\ndescription: From frontmatter\n---\nBody line\n",
		"first.md": "\n\n   \nFirst line wins\nsecond\n",
		"long.md":  long + "\n",
		"bad.md":   "---\ndescription: [unclosed\n---\nBody\n",
	})
	set := Load(Options{Cwd: dir, AgentDir: filepath.Join(dir, "none"), Home: dir, PromptPaths: []string{dir}})
	got := map[string]string{}
	for _, tp := range set.Templates {
		got[tp.Name] = tp.Description
	}
	want := map[string]string{"front": "From frontmatter", "first": "First line wins", "long": strings.Repeat("é", 60) + "..."}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("descriptions = %q, want %q", got, want)
	}
	if len(set.Diagnostics) != 1 || filepath.Base(set.Diagnostics[0].Path) != "bad.md" {
		t.Errorf("diagnostics = %v, want bad.md's YAML error", set.Diagnostics)
	}
	for _, tp := range set.Templates {
		if tp.Name == "first" && tp.Content != "\n\n   \nFirst line wins\nsecond\n" {
			t.Errorf("a template without frontmatter keeps its text as it is: %q", tp.Content)
		}
	}
}
