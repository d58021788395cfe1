package resources

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// Options say where [Load] looks.
type Options struct {
	// Cwd is the session's working directory (absolute): the project.
	Cwd string
	// AgentDir is the user-level directory: its skills/ and prompts/, and the base of the
	// user settings' paths (pi's ~/.pi/agent; pi-rpc's home outside pi mode).
	AgentDir string
	// Home is the user's home directory: ~/.agents/skills, and "~" in paths.
	Home string
	// User are the agent directory's settings (ReadSettings).
	User Settings
	// Trusted says the project's own resources load (ProjectTrusted): .pi/settings.json's
	// entries, .pi/skills, .pi/prompts and .agents/skills up to the repository root.
	Trusted bool
	// SkillPaths and PromptPaths are --skill and --prompt-template, relative to Cwd; they load
	// whatever NoSkills and NoPromptTemplates say.
	SkillPaths, PromptPaths []string
	// NoSkills and NoPromptTemplates leave out the discovered and configured ones.
	NoSkills, NoPromptTemplates bool
}

// Settings are the keys of a settings.json the loader reads.
type Settings struct {
	Skills  []string `json:"skills"`
	Prompts []string `json:"prompts"`
	// DefaultProjectTrust is "ask" (the default), "always" or "never"; only the agent
	// directory's counts.
	DefaultProjectTrust string `json:"defaultProjectTrust"`
}

// ReadSettings reads the loader's keys of a settings.json; a missing file is no settings.
func ReadSettings(path string) (Settings, error) {
	var s Settings
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Set is what was loaded for one working directory: the skills and templates, in pi's order
// of precedence, and the loader's warnings.
type Set struct {
	Skills      []Skill
	Templates   []Template
	Diagnostics []Diagnostic
}

// candidate is one file a location offers, with where it came from and whether the
// settings' overrides leave it enabled.
type candidate struct {
	path    string
	meta    sessionapi.CommandSourceInfo
	enabled bool
}

// rank is pi's resourcePrecedenceRank: the project's before the user's, and within each,
// the settings' entries before the conventional directories.
func rank(m sessionapi.CommandSourceInfo) int {
	r := 2
	if m.Scope == "project" {
		r = 0
	}
	if m.Source != "local" {
		r++
	}
	return r
}

// kind is one of the two resource kinds, with how its directories are searched.
type kind struct {
	name string
	// entries are the files a settings entry naming a directory gives.
	entries func(dir string) []string
}

var (
	skillKind  = kind{"skills", func(dir string) []string { return skillEntries(dir, modePi) }}
	promptKind = kind{"prompts", markdownFiles}
)

// Load finds and loads the skills and templates as pi 1.6.0's resource loader does. It reads
// the project's .pi/settings.json only when Trusted; a project settings file that does not
// parse is a warning.
func Load(o Options) *Set {
	set := &Set{}
	var project Settings
	projectBase := filepath.Join(o.Cwd, ".pi")
	if o.Trusted {
		var err error
		if project, err = ReadSettings(filepath.Join(projectBase, "settings.json")); err != nil {
			set.Diagnostics = append(set.Diagnostics, Diagnostic{Path: filepath.Join(projectBase, "settings.json"), Message: err.Error()})
		}
	}
	skillFiles, promptFiles := o.discover(project)
	set.loadSkills(o, o.merge(skillFiles, o.NoSkills, o.SkillPaths))
	set.loadTemplates(o, o.merge(promptFiles, o.NoPromptTemplates, o.PromptPaths))
	return set
}

// discover lists the candidates of both kinds in pi's order of precedence (resolve and
// addAutoDiscoveredResources, then toResolvedPaths), keeping the enabled ones.
func (o Options) discover(project Settings) (skills, prompts []candidate) {
	projectBase := filepath.Join(o.Cwd, ".pi")
	userAgents := filepath.Join(o.Home, ".agents", "skills")
	var sk, pr []candidate
	if o.Trusted {
		sk = append(sk, o.settingsEntries(project.Skills, skillKind, projectBase, "project")...)
		pr = append(pr, o.settingsEntries(project.Prompts, promptKind, projectBase, "project")...)
	}
	sk = append(sk, o.settingsEntries(o.User.Skills, skillKind, o.AgentDir, "user")...)
	pr = append(pr, o.settingsEntries(o.User.Prompts, promptKind, o.AgentDir, "user")...)
	auto := func(paths []string, overrides []string, scope, baseDir string) []candidate {
		var out []candidate
		for _, p := range paths {
			out = append(out, candidate{p, sessionapi.CommandSourceInfo{Source: "auto", Scope: scope, Origin: "top-level", BaseDir: baseDir}, enabledByOverrides(p, overrides, baseDir, o.Home)})
		}
		return out
	}
	if o.Trusted {
		sk = append(sk, auto(skillEntries(filepath.Join(projectBase, "skills"), modePi), project.Skills, "project", projectBase)...)
		for _, dir := range ancestorAgentsSkillDirs(o.Cwd) {
			if dir != userAgents {
				sk = append(sk, auto(skillEntries(dir, modeAgents), project.Skills, "project", filepath.Dir(dir))...)
			}
		}
		pr = append(pr, auto(promptEntries(filepath.Join(projectBase, "prompts")), project.Prompts, "project", projectBase)...)
	}
	sk = append(sk, auto(skillEntries(filepath.Join(o.AgentDir, "skills"), modePi), o.User.Skills, "user", o.AgentDir)...)
	sk = append(sk, auto(skillEntries(userAgents, modeAgents), o.User.Skills, "user", filepath.Dir(userAgents))...)
	pr = append(pr, auto(promptEntries(filepath.Join(o.AgentDir, "prompts")), o.User.Prompts, "user", o.AgentDir)...)
	return resolved(sk), resolved(pr)
}

// resolved keeps each path's first candidate, orders them by rank (stably) and drops a file
// reached twice (through a symbolic link), as pi's accumulator and toResolvedPaths do.
func resolved(cands []candidate) []candidate {
	seen := map[string]bool{}
	var out []candidate
	for _, c := range cands {
		if !seen[c.path] {
			seen[c.path] = true
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b candidate) int { return cmp.Compare(rank(a.meta), rank(b.meta)) })
	real := map[string]bool{}
	kept := out[:0]
	for _, c := range out {
		k := realPath(c.path)
		if !real[k] {
			real[k] = true
			kept = append(kept, c)
		}
	}
	return kept
}

// settingsEntries are a settings array's files (pi's resolveLocalEntries): plain entries are
// paths from base (a directory gives the files its kind finds in it); "!glob" excludes,
// "+path" includes again, "-path" excludes in any case; a bare glob keeps only the matching
// files.
func (o Options) settingsEntries(entries []string, k kind, base, scope string) []candidate {
	var plain, patterns []string
	for _, e := range entries {
		if strings.HasPrefix(e, "!") || strings.HasPrefix(e, "+") || strings.HasPrefix(e, "-") || strings.ContainsAny(e, "*?") {
			patterns = append(patterns, e)
		} else {
			plain = append(plain, e)
		}
	}
	var files []string
	for _, p := range plain {
		abs := resolvePath(p, base, o.Home)
		fi, err := os.Stat(abs)
		switch {
		case err != nil:
		case fi.Mode().IsRegular():
			files = append(files, abs)
		case fi.IsDir():
			files = append(files, k.entries(abs)...)
		}
	}
	enabled := applyPatterns(files, patterns, base, o.Home)
	out := make([]candidate, 0, len(files))
	for _, f := range files {
		out = append(out, candidate{f, sessionapi.CommandSourceInfo{Source: "local", Scope: scope, Origin: "top-level"}, enabled[f]})
	}
	return out
}

// merge is pi's final list of paths to load: the enabled candidates (none with noDefaults),
// then the command line's, each once.
func (o Options) merge(cands []candidate, noDefaults bool, cli []string) []candidate {
	var out []candidate
	seen := map[string]bool{}
	add := func(c candidate) {
		if k := realPath(c.path); !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	if !noDefaults {
		for _, c := range cands {
			if c.enabled {
				add(c)
			}
		}
	}
	for _, p := range cli {
		add(candidate{path: resolvePath(p, o.Cwd, o.Home), enabled: true})
	}
	return out
}

func (s *Set) loadSkills(o Options, paths []candidate) {
	byName := map[string]bool{}
	winner := map[string]string{}
	files := map[string]bool{}
	var collisions []Diagnostic
	add := func(sk *Skill) {
		k := realPath(sk.FilePath)
		if files[k] {
			return
		}
		if byName[sk.Name] {
			collisions = append(collisions, Diagnostic{Path: sk.FilePath, Message: fmt.Sprintf("name %q collision", sk.Name), Winner: winner[sk.Name]})
			return
		}
		byName[sk.Name], winner[sk.Name], files[k] = true, sk.FilePath, true
		s.Skills = append(s.Skills, *sk)
	}
	load := func(path string, meta *sessionapi.CommandSourceInfo) {
		src := o.skillSource(path, meta)
		sk, diags := loadSkillFile(path, src)
		s.Diagnostics = append(s.Diagnostics, diags...)
		if sk != nil {
			add(sk)
		}
	}
	for _, c := range paths {
		fi, err := os.Stat(c.path)
		switch {
		case err != nil:
			s.Diagnostics = append(s.Diagnostics, Diagnostic{Path: c.path, Message: "skill path does not exist"})
		case fi.IsDir():
			for _, f := range skillEntries(c.path, modePi) {
				load(f, nil)
			}
		case fi.Mode().IsRegular() && strings.HasSuffix(c.path, ".md"):
			if c.meta.Source != "" {
				load(c.path, &c.meta)
			} else {
				load(c.path, nil)
			}
		default:
			s.Diagnostics = append(s.Diagnostics, Diagnostic{Path: c.path, Message: "skill path is not a markdown file"})
		}
	}
	s.Diagnostics = append(s.Diagnostics, collisions...)
}

// skillSource is a skill's source info: its candidate's when it came from a location or a
// settings entry; for a command-line path, pi's loadSkills words (user or project when under
// those skills directories, else temporary), with the skill's directory as base.
func (o Options) skillSource(path string, meta *sessionapi.CommandSourceInfo) sessionapi.CommandSourceInfo {
	if meta != nil {
		m := *meta
		m.Path = path
		return m
	}
	src := sessionapi.CommandSourceInfo{Path: path, Source: "local", Scope: "temporary", Origin: "top-level", BaseDir: filepath.Dir(path)}
	if within(filepath.Join(o.AgentDir, "skills"), path) {
		src.Scope = "user"
	} else if within(filepath.Join(o.Cwd, ".pi", "skills"), path) {
		src.Scope = "project"
	}
	return src
}

func (s *Set) loadTemplates(o Options, paths []candidate) {
	names := map[string]string{}
	var collisions []Diagnostic
	add := func(t *Template) {
		if w, ok := names[t.Name]; ok {
			collisions = append(collisions, Diagnostic{Path: t.FilePath, Message: fmt.Sprintf("name %q collision", "/"+t.Name), Winner: w})
			return
		}
		names[t.Name] = t.FilePath
		s.Templates = append(s.Templates, *t)
	}
	load := func(path string, src sessionapi.CommandSourceInfo) {
		t, diags := loadTemplateFile(path, src)
		s.Diagnostics = append(s.Diagnostics, diags...)
		if t != nil {
			add(t)
		}
	}
	for _, c := range paths {
		fi, err := os.Stat(c.path)
		switch {
		case err != nil:
			if c.meta.Source == "" {
				s.Diagnostics = append(s.Diagnostics, Diagnostic{Path: c.path, Message: "Prompt template path does not exist"})
			}
		case fi.IsDir():
			for _, f := range directMarkdown(c.path) {
				load(f, o.promptSource(f, c.path, nil))
			}
		case fi.Mode().IsRegular() && strings.HasSuffix(c.path, ".md"):
			var meta *sessionapi.CommandSourceInfo
			if c.meta.Source != "" {
				meta = &c.meta
			}
			load(c.path, o.promptSource(c.path, filepath.Dir(c.path), meta))
		}
	}
	s.Diagnostics = append(s.Diagnostics, collisions...)
}

// promptSource is a template's source info: its candidate's, or for a command-line path
// pi's loadPromptTemplates words (user or project under those prompts directories, else
// temporary with the directory named as base).
func (o Options) promptSource(path, dir string, meta *sessionapi.CommandSourceInfo) sessionapi.CommandSourceInfo {
	if meta != nil {
		m := *meta
		m.Path = path
		return m
	}
	user, project := filepath.Join(o.AgentDir, "prompts"), filepath.Join(o.Cwd, ".pi", "prompts")
	switch {
	case within(user, path):
		return sessionapi.CommandSourceInfo{Path: path, Source: "local", Scope: "user", Origin: "top-level", BaseDir: user}
	case within(project, path):
		return sessionapi.CommandSourceInfo{Path: path, Source: "local", Scope: "project", Origin: "top-level", BaseDir: project}
	}
	return sessionapi.CommandSourceInfo{Path: path, Source: "local", Scope: "temporary", Origin: "top-level", BaseDir: dir}
}

// directMarkdown are a directory's direct Markdown files (pi's loadTemplatesFromDir for a
// --prompt-template directory).
func directMarkdown(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		full := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(full); err == nil && fi.Mode().IsRegular() && strings.HasSuffix(e.Name(), ".md") {
			out = append(out, full)
		}
	}
	return out
}

// ancestorAgentsSkillDirs are the .agents/skills directories of dir and its ancestors, up to
// the repository root (the nearest with a .git) or the file-system root without one.
func ancestorAgentsSkillDirs(dir string) []string {
	root := ""
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			root = d
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		out = append(out, filepath.Join(d, ".agents", "skills"))
		if d == root || filepath.Dir(d) == d {
			return out
		}
	}
}
