package resources

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf16"

	"github.com/pi-rpc/pi-rpc/sessionapi"
	"github.com/pi-rpc/pi-rpc/tools"
)

// The Agent Skills specification's limits.
const (
	maxNameLength        = 64
	maxDescriptionLength = 1024
)

// Skill is one loaded Agent Skill.
type Skill struct {
	Name        string
	Description string
	// FilePath is the skill's file (its SKILL.md, or a standalone Markdown skill); BaseDir
	// its directory, which the skill's relative paths are relative to.
	FilePath string
	BaseDir  string
	// DisableModelInvocation (frontmatter disable-model-invocation: true) keeps the skill out
	// of the system prompt: only /skill:name loads it.
	DisableModelInvocation bool
	Source                 sessionapi.CommandSourceInfo
}

// Diagnostic is a warning of the loader: a skill that did not load or loaded with a fault, a
// name collision, a path that does not exist. Path is the file it is about.
type Diagnostic struct {
	Path    string
	Message string
	// Collision, for a name taken by an earlier resource, names the one kept.
	Winner string
}

// String is the warning as pi-rpc logs and reports it.
func (d Diagnostic) String() string {
	if d.Winner != "" {
		return fmt.Sprintf("%s: %s (keeping %s)", d.Path, d.Message, d.Winner)
	}
	return fmt.Sprintf("%s: %s", d.Path, d.Message)
}

var validName = regexp.MustCompile(`^[a-z0-9-]+$`)

// nameProblems are pi's validateName warnings.
func nameProblems(name string) []string {
	var out []string
	if n := jsLength(name); n > maxNameLength {
		out = append(out, fmt.Sprintf("name exceeds %d characters (%d)", maxNameLength, n))
	}
	if !validName.MatchString(name) {
		out = append(out, "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)")
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		out = append(out, "name must not start or end with a hyphen")
	}
	if strings.Contains(name, "--") {
		out = append(out, "name must not contain consecutive hyphens")
	}
	return out
}

// jsLength is a string's length as JavaScript counts it (UTF-16 code units), which pi's
// limits and messages use.
func jsLength(s string) int { return len(utf16.Encode([]rune(s))) }

// loadSkillFile reads one skill as pi's loadSkillFromFile does. A SKILL.md whose frontmatter
// does not parse, or any skill without a description, does not load; a name or description
// that breaks the specification's rules is a warning and the skill still loads. A Markdown
// file not named SKILL.md without a description is not a skill, and says nothing.
func loadSkillFile(path string, src sessionapi.CommandSourceInfo) (*Skill, []Diagnostic) {
	declared := filepath.Base(path) == "SKILL.md"
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, []Diagnostic{{Path: path, Message: err.Error()}}
	}
	fields, _, err := frontmatter(string(data))
	if err != nil {
		if declared {
			return nil, []Diagnostic{{Path: path, Message: err.Error()}}
		}
		return nil, nil
	}
	desc, isString := stringField(fields, "description")
	hasDesc := isString && strings.TrimSpace(desc) != ""
	if !declared && !hasDesc {
		return nil, nil
	}
	var diags []Diagnostic
	switch {
	case !hasDesc:
		diags = append(diags, Diagnostic{Path: path, Message: "description is required"})
	case jsLength(desc) > maxDescriptionLength:
		diags = append(diags, Diagnostic{Path: path, Message: fmt.Sprintf("description exceeds %d characters (%d)", maxDescriptionLength, jsLength(desc))})
	}
	dir := filepath.Dir(path)
	name, _ := stringField(fields, "name")
	if name == "" {
		name = filepath.Base(dir)
	}
	for _, p := range nameProblems(name) {
		diags = append(diags, Diagnostic{Path: path, Message: p})
	}
	if !hasDesc {
		return nil, diags
	}
	disable, _ := fields["disable-model-invocation"].(bool)
	return &Skill{Name: name, Description: desc, FilePath: path, BaseDir: dir, DisableModelInvocation: disable, Source: src}, diags
}

// walkMode is how a skills directory is searched: "pi" (the agent directory's and .pi's
// skills/, settings entries, --skill) takes Markdown files at its root; "agents"
// (.agents/skills) takes them below the root only.
type walkMode int

const (
	modePi walkMode = iota
	modeAgents
)

// skillEntries finds the skill files under dir as pi's collectSkillEntries does: a directory
// with a SKILL.md is one skill and is not searched further; otherwise its Markdown files
// (by mode) are candidates and its subdirectories are searched, skipping dot entries,
// node_modules and what the ignore files name.
func skillEntries(dir string, mode walkMode) []string {
	return skillEntriesIn(dir, dir, mode, tools.IgnoreRules{})
}

func skillEntriesIn(dir, root string, mode walkMode, ig tools.IgnoreRules) []string {
	ig = ig.Add(dir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if e.Name() != "SKILL.md" {
			continue
		}
		full := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(full); err == nil && fi.Mode().IsRegular() && !ig.Ignores(full, false) {
			return []string{full}
		}
	}
	var out []string
	for full, fi := range walked(dir, entries) {
		if fi.Mode().IsRegular() && strings.HasSuffix(fi.Name(), ".md") && !ig.Ignores(full, false) &&
			((mode == modePi && dir == root) || (mode == modeAgents && dir != root)) {
			out = append(out, full)
			continue
		}
		if fi.IsDir() && !ig.Ignores(full, true) {
			out = append(out, skillEntriesIn(full, root, mode, ig)...)
		}
	}
	return out
}
