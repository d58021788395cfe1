package main

import (
	"maps"
	"slices"
	"testing"
	"time"
)

// setupIn runs setupAgent for c with a fresh cwd, the models file and a one-second idle
// timeout, under env plus a fresh PI_RPC_HOME.
func setupIn(t *testing.T, c config, models string, env map[string]string) (*agentSetup, error) {
	t.Helper()
	all := map[string]string{"PI_RPC_HOME": t.TempDir()}
	maps.Copy(all, env)
	c.cwd, c.modelsFile, c.idleTimeout = t.TempDir(), models, time.Second
	return setupAgent(&c, func(k string) string { return all[k] }, time.Now())
}

// problemLines renders a setup's problems as "kind: message".
func problemLines(s *agentSetup) []string {
	var problems []string
	for _, p := range s.problems {
		problems = append(problems, p.Kind+": "+p.Message)
	}
	return problems
}

// checkChoice sets up c (see setupIn) and checks the model it chose and its problems:
// exactly problem when that is set, none otherwise. The setup is returned for the provider
// checks, which apply only when no problem is expected (ok).
func checkChoice(t *testing.T, c config, models string, env map[string]string, model, problem string) (s *agentSetup, ok bool) {
	t.Helper()
	s, err := setupIn(t, c, models, env)
	if err != nil {
		t.Fatal(err)
	}
	if s.model.ID != model {
		t.Errorf("model = %s, want %s", s.model.ID, model)
	}
	problems := problemLines(s)
	if want := []string{problem}; problem != "" && !slices.Equal(problems, want) || problem == "" && len(problems) > 0 {
		t.Errorf("problems = %q, want %q", problems, problem)
	}
	return s, problem == ""
}

// servedBy checks that the setup's provider is a P, and its model's api is api, exactly when
// want says so.
func servedBy[P any](t *testing.T, s *agentSetup, api string, want bool) {
	t.Helper()
	_, is := s.provider.(P)
	if is != want || (s.model.API == api) != want {
		var p P
		t.Errorf("provider %T, model api %s; want %T with api %s: %v", s.provider, s.model.API, p, api, want)
	}
}
