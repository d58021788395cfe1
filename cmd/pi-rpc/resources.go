package main

import (
	"flag"
	"os"
	"path/filepath"

	"github.com/pi-rpc/pi-rpc/resources"
)

// resourceFlags are pi's resource and trust flags (docs/skills.md), in every front end:
// --skill, --prompt-template, --no-skills (-ns), --no-prompt-templates (-np), and project
// trust's --approve (-a) and --no-approve (-na).
type resourceFlags struct {
	skills, prompts             []string
	noSkills, noPromptTemplates bool
	// approve is the command line's trust decision: nil when neither flag was given; the
	// last one given wins.
	approve *bool
}

func (f *resourceFlags) register(fs *flag.FlagSet) {
	fs.Func("skill", "load a skill file or directory (repeatable; also with --no-skills)", func(v string) error {
		f.skills = append(f.skills, v)
		return nil
	})
	fs.Func("prompt-template", "load a prompt-template file or directory (repeatable; also with --no-prompt-templates)", func(v string) error {
		f.prompts = append(f.prompts, v)
		return nil
	})
	for _, name := range []string{"no-skills", "ns"} {
		fs.BoolVar(&f.noSkills, name, false, "do not load discovered or configured skills (--skill paths still load)")
	}
	for _, name := range []string{"no-prompt-templates", "np"} {
		fs.BoolVar(&f.noPromptTemplates, name, false, "do not load discovered or configured prompt templates (--prompt-template paths still load)")
	}
	decide := func(v bool) func(string) error {
		return func(string) error {
			f.approve = &v
			return nil
		}
	}
	for _, name := range []string{"approve", "a"} {
		fs.BoolFunc(name, "trust this project: load its .pi skills, prompts and settings and its .agents/skills (docs/skills.md#project-trust)", decide(true))
	}
	for _, name := range []string{"no-approve", "na"} {
		fs.BoolFunc(name, "do not trust this project: skip its trust-gated resources", decide(false))
	}
}

// loadResources finds the skills and prompt templates of s.cwd (package resources), with the
// project's own only if the project is trusted. The user-level ones are in s.home (pi's
// agent directory in pi mode, $PI_RPC_HOME otherwise) and ~/.agents/skills.
func (s *agentSetup) loadResources(f *resourceFlags) (*resources.Set, error) {
	user, err := resources.ReadSettings(filepath.Join(s.home, "settings.json"))
	if err != nil {
		return nil, err
	}
	home := s.userHome
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	trusted, err := resources.ProjectTrusted(resources.TrustOptions{Cwd: s.cwd, AgentDir: s.home, Home: home, Override: f.approve, Default: user.DefaultProjectTrust})
	if err != nil {
		return nil, err
	}
	s.projectTrusted = trusted
	return resources.Load(resources.Options{
		Cwd: s.cwd, AgentDir: s.home, Home: home, User: user, Trusted: trusted,
		SkillPaths: f.skills, PromptPaths: f.prompts, NoSkills: f.noSkills, NoPromptTemplates: f.noPromptTemplates,
	}), nil
}
