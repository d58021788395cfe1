package resources

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// frontmatter splits a Markdown file as pi's parseFrontmatter does: a file starting with
// "---" and holding a later line starting with "---" has YAML between them, and its body
// (trimmed) after; any other file is all body, untrimmed. Line ends are normalised to LF
// and a BOM dropped first. A YAML error is returned; YAML that is not a mapping gives no
// fields.
func frontmatter(content string) (map[string]any, string, error) {
	content = strings.TrimPrefix(content, "\uFEFF")
	content = strings.ReplaceAll(content, "\r\n", "\n")
	content = strings.ReplaceAll(content, "\r", "\n")
	if !strings.HasPrefix(content, "---") {
		return map[string]any{}, content, nil
	}
	end := strings.Index(content[3:], "\n---")
	if end < 0 {
		return map[string]any{}, content, nil
	}
	end += 3
	var raw, body string
	if end > 4 {
		raw = content[4:end]
	}
	body = strings.TrimSpace(content[end+4:])
	if raw == "" {
		return map[string]any{}, body, nil
	}
	var parsed any
	if err := yaml.Unmarshal([]byte(raw), &parsed); err != nil {
		return nil, "", err
	}
	fields, _ := parsed.(map[string]any)
	if fields == nil {
		fields = map[string]any{}
	}
	return fields, body, nil
}

// stringField is a frontmatter field that is a string, or "" (pi ignores other types).
func stringField(fields map[string]any, key string) (string, bool) {
	s, ok := fields[key].(string)
	return s, ok
}
