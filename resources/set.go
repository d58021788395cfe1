package resources

import (
	"os"
	"strings"

	"github.com/pi-rpc/pi-rpc/sessionapi"
	"github.com/pi-rpc/pi-rpc/tools"
)

// Commands lists the set as pi's get_commands does: the templates (/name), then the skills
// (/skill:name).
func (s *Set) Commands() []sessionapi.Command {
	out := make([]sessionapi.Command, 0, len(s.Templates)+len(s.Skills))
	for _, t := range s.Templates {
		out = append(out, sessionapi.Command{Name: t.Name, Description: t.Description, Source: sessionapi.CommandPrompt, ArgumentHint: t.ArgumentHint, SourceInfo: t.Source})
	}
	for _, sk := range s.Skills {
		out = append(out, sessionapi.Command{Name: "skill:" + sk.Name, Description: sk.Description, Source: sessionapi.CommandSkill, SourceInfo: sk.Source})
	}
	return out
}

// PromptSkills are the skills the system prompt lists: all but those whose frontmatter says
// disable-model-invocation.
func (s *Set) PromptSkills() []tools.PromptSkill {
	var out []tools.PromptSkill
	for _, sk := range s.Skills {
		if !sk.DisableModelInvocation {
			out = append(out, tools.PromptSkill{Name: sk.Name, Description: sk.Description, Location: sk.FilePath})
		}
	}
	return out
}

// Expand is what pi does to a prompt, steer or follow-up before it enters the agent: a
// leading "/skill:name args" becomes the skill's instructions (its SKILL.md read now, without
// frontmatter) in a <skill> block, the arguments after it; then a leading "/name args" naming
// a template becomes the template with the arguments substituted. Text naming neither, or a
// skill whose file cannot be read, is returned as it is.
func (s *Set) Expand(text string) string {
	return s.expandTemplate(s.expandSkill(text))
}

func (s *Set) expandSkill(text string) string {
	rest, ok := strings.CutPrefix(text, "/skill:")
	if !ok {
		return text
	}
	name, args, _ := strings.Cut(rest, " ")
	args = strings.TrimFunc(args, jsSpace)
	for _, sk := range s.Skills {
		if sk.Name != name {
			continue
		}
		data, err := os.ReadFile(sk.FilePath)
		if err != nil {
			return text
		}
		_, body, err := frontmatter(string(data))
		if err != nil {
			return text
		}
		block := `<skill name="` + sk.Name + `" location="` + sk.FilePath + "\">\nReferences are relative to " + sk.BaseDir + ".\n\n" + strings.TrimFunc(body, jsSpace) + "\n</skill>"
		if args != "" {
			return block + "\n\n" + args
		}
		return block
	}
	return text
}

// expandTemplate is pi's expandPromptTemplate: "/" and a name up to white space, then the
// arguments after the white space.
func (s *Set) expandTemplate(text string) string {
	rest, ok := strings.CutPrefix(text, "/")
	if !ok {
		return text
	}
	name, args := rest, ""
	if i := strings.IndexFunc(rest, jsSpace); i >= 0 {
		name, args = rest[:i], strings.TrimLeftFunc(rest[i:], jsSpace)
	}
	if name == "" {
		return text
	}
	for _, t := range s.Templates {
		if t.Name == name {
			return Substitute(t.Content, ParseArgs(args))
		}
	}
	return text
}
