package resources

import (
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"

	"github.com/pi-rpc/pi-rpc/sessionapi"
	"github.com/pi-rpc/pi-rpc/tools"
)

// Template is one prompt template: /Name expands to Content with the arguments substituted.
type Template struct {
	Name         string
	Description  string
	ArgumentHint string
	Content      string
	FilePath     string
	Source       sessionapi.CommandSourceInfo
}

// loadTemplateFile reads one template as pi's loadTemplateFromFile does: the file name
// without .md is its name; the description is the frontmatter's, else the body's first
// non-blank line (60 characters at most, then "..."); argument-hint is optional.
func loadTemplateFile(path string, src sessionapi.CommandSourceInfo) (*Template, []Diagnostic) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, []Diagnostic{{Path: path, Message: err.Error()}}
	}
	fields, body, err := frontmatter(string(data))
	if err != nil {
		return nil, []Diagnostic{{Path: path, Message: err.Error()}}
	}
	desc, _ := stringField(fields, "description")
	if desc == "" {
		for _, line := range strings.Split(body, "\n") {
			if strings.TrimSpace(line) != "" {
				desc = firstUnits(line, 60)
				if jsLength(line) > 60 {
					desc += "..."
				}
				break
			}
		}
	}
	hint, _ := stringField(fields, "argument-hint")
	return &Template{
		Name:         strings.TrimSuffix(filepath.Base(path), ".md"),
		Description:  desc,
		ArgumentHint: hint,
		Content:      body,
		FilePath:     path,
		Source:       src,
	}, nil
}

// firstUnits is JavaScript's s.slice(0, n): the first n UTF-16 code units.
func firstUnits(s string, n int) string {
	u := utf16.Encode([]rune(s))
	if len(u) <= n {
		return s
	}
	return string(utf16.Decode(u[:n]))
}

// promptEntries are the templates of a prompts directory as pi's collectAutoPromptEntries
// finds them: its direct Markdown files (a symbolic link followed), not dot files, not what
// its ignore files name.
func promptEntries(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	ig := tools.IgnoreRules{}.Add(dir)
	var out []string
	for full, fi := range walked(dir, entries) {
		if fi.Mode().IsRegular() && strings.HasSuffix(fi.Name(), ".md") && !ig.Ignores(full, false) {
			out = append(out, full)
		}
	}
	return out
}

// markdownFiles are the Markdown files below dir, for a settings entry naming a prompts
// directory (pi's collectFiles): recursive, skipping dot entries, node_modules and what the
// ignore files name.
func markdownFiles(dir string) []string {
	return markdownFilesIn(dir, tools.IgnoreRules{})
}

func markdownFilesIn(dir string, ig tools.IgnoreRules) []string {
	ig = ig.Add(dir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for full, fi := range walked(dir, entries) {
		switch {
		case fi.IsDir() && !ig.Ignores(full, true):
			out = append(out, markdownFilesIn(full, ig)...)
		case fi.Mode().IsRegular() && strings.HasSuffix(fi.Name(), ".md") && !ig.Ignores(full, false):
			out = append(out, full)
		}
	}
	return out
}
