// Package resources discovers what pi 1.6.0 calls resources, of the two kinds pi-rpc serves:
// Agent Skills (a SKILL.md with YAML frontmatter, agentskills.io) and prompt templates
// (Markdown files that become slash commands). It follows pi's own loader: the same
// locations (the agent directory's skills/ and prompts/, ~/.agents/skills, a trusted
// project's .pi/skills, .pi/prompts and .agents/skills up to the repository root, the
// settings' skills and prompts entries, command-line paths), the same validation and
// warnings, the same precedence on a name collision, and project trust (trust.go) deciding
// whether the project's own load at all.
//
// A [Set] is what a session uses: its commands for the front ends' lists, the skills for the
// system prompt, and [Set.Expand], which turns "/skill:name args" and "/template args" into
// the text the model receives (pi's argument splitting and substitution, args.go).
// docs/skills.md is the user's page.
package resources
