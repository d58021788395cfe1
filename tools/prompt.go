package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// PromptOptions configure [SystemPrompt].
type PromptOptions struct {
	// Cwd is the working directory named in the prompt and where context files are sought.
	Cwd string
	// Tools are the active tool names, in order; the prompt describes only these.
	Tools []string
	// Now gives today's date (injected so the prompt is reproducible).
	Now time.Time
	// Home is the pi-rpc home directory ($PI_RPC_HOME) whose AGENTS.md / CLAUDE.md applies to
	// every project; empty means none.
	Home string
	// SystemPrompt, when set, replaces the default prompt text (--system-prompt); context
	// files, the date and the cwd still follow it.
	SystemPrompt string
	// AppendSystemPrompt is added after the prompt text (--append-system-prompt).
	AppendSystemPrompt string
	// NoContextFiles drops AGENTS.md / CLAUDE.md (--no-context-files).
	NoContextFiles bool
	// Skills are the Agent Skills the model may load (docs/skills.md), listed after the
	// context files as pi lists them. A skill the model must not invoke itself is left out by
	// the caller.
	Skills []PromptSkill
	// Sandbox, when set, is what the bash guideline says of the OS sandbox the session's
	// commands start in ([SandboxGuideline]); empty says they are not sandboxed.
	Sandbox string
}

// PromptSkill is one skill of the prompt's list: its name, description and SKILL.md path.
type PromptSkill struct {
	Name, Description, Location string
}

// ContextFile is one AGENTS.md or CLAUDE.md included in the prompt; getState.contextFiles
// lists them so a client can show which instructions the agent follows.
type ContextFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// toolSnippets are the one-line descriptions the prompt gives each tool.
var toolSnippets = map[string]string{
	"read":  "Read file contents (text and images); use offset/limit to page through large files",
	"bash":  "Execute bash commands (tests, builds, git, package managers)",
	"edit":  "Make precise file edits with exact text replacement, including multiple disjoint edits in one call",
	"write": "Create or overwrite files (parent directories are created)",
	"grep":  "Search file contents for a regex or literal pattern (respects .gitignore)",
	"find":  "Find files by glob pattern (respects .gitignore)",
	"ls":    "List directory contents",
}

// toolGuidelines are the usage rules each tool adds when it is active.
var toolGuidelines = map[string][]string{
	"read": {"Use read to examine files instead of cat or sed."},
	"edit": {
		"Use edit for precise changes (edits[].oldText must match exactly)",
		"When changing multiple separate locations in one file, use one edit call with multiple entries in edits[] instead of multiple edit calls",
		"Each edits[].oldText is matched against the original file, not after earlier edits are applied. Do not emit overlapping or nested edits. Merge nearby changes into one edit.",
		"Keep edits[].oldText as small as possible while still being unique in the file. Do not pad with large unchanged regions.",
	},
	"write": {"Use write only for new files or complete rewrites."},
	"grep":  {"Prefer grep, find and ls over bash for searching and listing files: they are faster, respect .gitignore and keep output bounded."},
	"find":  {"Prefer grep, find and ls over bash for searching and listing files: they are faster, respect .gitignore and keep output bounded."},
	"ls":    {"Prefer grep, find and ls over bash for searching and listing files: they are faster, respect .gitignore and keep output bounded."},
}

// SystemPrompt builds the default coding-agent prompt of docs/tools.md and returns it with the
// context files it includes. Context files are the home directory's AGENTS.md (or CLAUDE.md)
// first, then one per directory from the repository root (the nearest ancestor of Cwd with a
// .git; the file-system root when there is none) down to Cwd, so more specific instructions
// come last and win.
func SystemPrompt(o PromptOptions) (string, []ContextFile) {
	var b strings.Builder
	if o.SystemPrompt != "" {
		b.WriteString(o.SystemPrompt)
	} else {
		b.WriteString(defaultPrompt(o.Tools, o.Sandbox))
	}
	if o.AppendSystemPrompt != "" {
		b.WriteString("\n\n")
		b.WriteString(o.AppendSystemPrompt)
	}
	var files []ContextFile
	if !o.NoContextFiles {
		files = LoadContextFiles(o.Cwd, o.Home)
	}
	if len(files) > 0 {
		b.WriteString("\n\n# Project Context\n\nProject-specific instructions and guidelines:\n")
		for _, f := range files {
			b.WriteString("\n## ")
			b.WriteString(f.Path)
			b.WriteString("\n\n")
			b.WriteString(strings.TrimRight(f.Content, "\n"))
			b.WriteString("\n")
		}
	}
	b.WriteString(skillsSection(o.Skills, o.Tools))
	b.WriteString("\nCurrent date: ")
	b.WriteString(o.Now.Format("2006-01-02"))
	b.WriteString("\nCurrent working directory: ")
	b.WriteString(filepath.ToSlash(o.Cwd))
	return b.String(), files
}

func defaultPrompt(active []string, sandbox string) string {
	var b strings.Builder
	b.WriteString("You are an expert coding assistant operating inside pi-rpc, a coding agent harness. " +
		"You help users by reading files, executing commands, editing code, and writing new files.\n\nAvailable tools:\n")
	has := map[string]bool{}
	n := 0
	for _, t := range active {
		if s, ok := toolSnippets[t]; ok && !has[t] {
			has[t] = true
			b.WriteString("- " + t + ": " + s + "\n")
			n++
		}
	}
	if n == 0 {
		b.WriteString("(none)\n")
	}
	b.WriteString("\nIn addition to the tools above, you may have access to other custom tools depending on the project.\n\nGuidelines:\n")
	seen := map[string]bool{}
	rule := func(r string) {
		if !seen[r] {
			seen[r] = true
			b.WriteString("- " + r + "\n")
		}
	}
	if has["bash"] && !has["grep"] && !has["find"] && !has["ls"] {
		rule("Use bash for file operations like ls, rg, find")
	}
	for _, t := range Names {
		if has[t] {
			for _, r := range toolGuidelines[t] {
				rule(r)
			}
		}
	}
	if has["read"] || has["grep"] || has["bash"] {
		rule("Tool output is truncated to 2000 lines or 50KB; follow the continuation hints in the output to see more.")
	}
	if has["bash"] {
		if sandbox == "" {
			rule("bash commands run in the working directory with your user's permissions; they are not sandboxed. Do not run destructive commands unless asked to.")
		} else {
			rule("bash commands run in the working directory " + sandbox + ". Do not run destructive commands unless asked to.")
		}
	}
	rule("Be concise in your responses")
	rule("Show file paths clearly when working with files")
	return strings.TrimRight(b.String(), "\n")
}

// contextFileNames are tried in order in each directory; the first that exists is used.
var contextFileNames = []string{"AGENTS.md", "CLAUDE.md"}

// LoadContextFiles finds the AGENTS.md / CLAUDE.md files of [SystemPrompt]: home's first,
// then from the repository root down to cwd. A file seen twice (home inside the repo) is
// listed once.
func LoadContextFiles(cwd, home string) []ContextFile {
	var files []ContextFile
	seen := map[string]bool{}
	addDir := func(dir string) {
		for _, name := range contextFileNames {
			p := filepath.Join(dir, name)
			data, err := readRegularFile(p) // a FIFO or /dev/stdin would block or eat protocol input
			if err != nil {
				continue
			}
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				real = p
			}
			if !seen[real] {
				seen[real] = true
				files = append(files, ContextFile{Path: p, Content: string(data)})
			}
			return
		}
	}
	if home != "" {
		addDir(home)
	}
	if cwd == "" {
		return files
	}
	var dirs []string
	for d := filepath.Clean(cwd); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		addDir(dirs[i])
	}
	return files
}

// skillsSection lists the skills as pi 1.6.0's formatSkillsForPrompt does (the Agent Skills
// XML form), naming the tool that loads a skill's file: read if active, else bash. With
// neither the model cannot read a skill, and the list is left out, as pi leaves it out.
func skillsSection(skills []PromptSkill, active []string) string {
	if len(skills) == 0 {
		return ""
	}
	var loader string
	switch {
	case slices.Contains(active, "read"):
		loader = "Use the read tool to load a skill's file when the task matches its description."
	case slices.Contains(active, "bash"):
		loader = "Use bash to load a skill's file when the task matches its description."
	default:
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nThe following skills provide specialized instructions for specific tasks.\n")
	b.WriteString(loader)
	b.WriteString("\nResolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.\n\n<available_skills>\n")
	for _, sk := range skills {
		b.WriteString("  <skill>\n    <name>" + escapeXML(sk.Name) + "</name>\n")
		b.WriteString("    <description>" + escapeXML(sk.Description) + "</description>\n")
		b.WriteString("    <location>" + escapeXML(sk.Location) + "</location>\n  </skill>\n")
	}
	b.WriteString("</available_skills>\n")
	return b.String()
}

// xmlEscaper escapes as pi's escapeXml: the five XML specials.
var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func escapeXML(s string) string { return xmlEscaper.Replace(s) }

// SandboxGuideline is what the prompt says of an OS sandbox the kernel enforces (mode
// "read-only" or "workspace-write", docs/permissions.md), network cut off or not; "" for a
// mode it does not know, which leaves the prompt's "not sandboxed".
func SandboxGuideline(mode string, networkOff bool) string {
	var s string
	switch mode {
	case "workspace-write":
		s = "in an OS sandbox: they can write only in the working directory, /tmp and the directories the user allowed"
	case "read-only":
		s = "in a read-only OS sandbox: they cannot write files"
	default:
		return ""
	}
	if networkOff {
		s += ", and have no network access"
	}
	return s
}
