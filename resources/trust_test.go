package resources

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNeedsTrust(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string // relative to the fixture's root: home/..., work/repo/...
		want  bool
	}{
		{"nothing", nil, false},
		{"a bare .pi", map[string]string{"work/repo/pkg/sub/.pi/sessions/x": ""}, false},
		{".pi/prompts", map[string]string{"work/repo/pkg/sub/.pi/prompts/a.md": ""}, true},
		{".pi/settings.json", map[string]string{"work/repo/pkg/sub/.pi/settings.json": "{}"}, true},
		{".pi/APPEND_SYSTEM.md", map[string]string{"work/repo/pkg/sub/.pi/APPEND_SYSTEM.md": ""}, true},
		{"a parent's .pi does not count", map[string]string{"work/repo/.pi/prompts/a.md": ""}, false},
		{".agents/skills in an ancestor", map[string]string{"work/.agents/skills/x/SKILL.md": ""}, true},
		{"the home's .agents/skills", map[string]string{"home/.agents/skills/x/SKILL.md": ""}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			root := filepath.Dir(f.home)
			write(t, root, c.files)
			if got := NeedsTrust(f.cwd, f.home); got != c.want {
				t.Errorf("NeedsTrust = %v, want %v", got, c.want)
			}
		})
	}
}

func TestProjectTrusted(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		name     string
		gated    bool
		trust    string // trust.json, "" for none; CWD and REPO stand for the paths
		override *bool
		def      string
		want     bool
	}{
		{"nothing gated: trusted", false, "", nil, "", true},
		{"nothing gated, saved no", false, `{"REPO": false}`, nil, "", false},
		{"gated, no decision: skipped (RPC mode cannot ask)", true, "", nil, "", false},
		{"gated, defaultProjectTrust ask", true, "", nil, "ask", false},
		{"gated, defaultProjectTrust never", true, "", nil, "never", false},
		{"gated, defaultProjectTrust always", true, "", nil, "always", true},
		{"gated, a parent saved yes", true, `{"REPO": true}`, nil, "", true},
		{"gated, the closest decision wins", true, `{"REPO": true, "CWD": false}`, nil, "always", false},
		{"gated, a null entry is no decision", true, `{"CWD": null, "REPO": true}`, nil, "", true},
		{"--approve", true, `{"CWD": false}`, &yes, "never", true},
		{"--no-approve", true, `{"CWD": true}`, &no, "always", false},
		{"--no-approve without gated resources", false, "", &no, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			if c.gated {
				write(t, f.cwd, map[string]string{".pi/prompts/a.md": "A\n"})
			}
			if c.trust != "" {
				cwd, _ := filepath.EvalSymlinks(f.cwd)
				repo, _ := filepath.EvalSymlinks(f.repo)
				// The paths go into JSON strings: escaped, as a Windows path's backslashes must be.
				write(t, f.agentDir, map[string]string{"trust.json": strings.NewReplacer("CWD", jsonEscaped(cwd), "REPO", jsonEscaped(repo)).Replace(c.trust)})
			}
			got, err := ProjectTrusted(TrustOptions{Cwd: f.cwd, AgentDir: f.agentDir, Home: f.home, Override: c.override, Default: c.def})
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("ProjectTrusted = %v, want %v", got, c.want)
			}
		})
	}
}

func TestTrustStoreErrors(t *testing.T) {
	for content, want := range map[string]string{
		"{not json":     "Failed to read trust store",
		"[true]":        "expected an object",
		`{"/x": "yes"}`: `value for "/x" must be true, false, or null`,
		"\uFEFF{}":      "",
		"":              "Failed to read trust store",
	} {
		f := newFixture(t)
		write(t, f.agentDir, map[string]string{"trust.json": content})
		_, err := ProjectTrusted(TrustOptions{Cwd: f.cwd, AgentDir: f.agentDir, Home: f.home})
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v", content, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one containing %q", content, err, want)
		}
	}
}

func TestReadSettings(t *testing.T) {
	dir := t.TempDir()
	if s, err := ReadSettings(filepath.Join(dir, "none.json")); err != nil || s.DefaultProjectTrust != "" {
		t.Fatalf("missing file: %+v, %v", s, err)
	}
	p := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(p, []byte(`{"defaultProjectTrust": "always", "skills": ["a"], "prompts": ["b"], "theme": "dark"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSettings(p)
	if err != nil || s.DefaultProjectTrust != "always" || len(s.Skills) != 1 || len(s.Prompts) != 1 {
		t.Fatalf("ReadSettings = %+v, %v", s, err)
	}
	if err := os.WriteFile(p, []byte(`{`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSettings(p); err == nil {
		t.Fatal("a settings file that does not parse is an error")
	}
}

// jsonEscaped is s as it stands between the quotes of a JSON string.
func jsonEscaped(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
