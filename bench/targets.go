package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// role is one column of a report: a server and the way it is run. The order is the columns'.
type role int

const (
	rolePi     role = iota // pi 0.73.1 --mode rpc (-pi)
	rolePiMode             // pi-rpc --mode rpc, driven by the same client as pi (with -pi)
	roleBase               // a second pi-rpc binary, JSON-RPC (-base)
	rolePiRPC              // pi-rpc, JSON-RPC
	rolePiACP              // pi-acp 0.0.24 running pi 0.73.1 (-pi-acp)
	roleACP                // pi-rpc --protocol acp (with -pi-acp)
)

func (r role) String() string {
	switch r {
	case rolePi:
		return "pi 0.73.1"
	case rolePiMode:
		return "pi-rpc --mode rpc"
	case roleBase:
		return "base pi-rpc"
	case rolePiACP:
		return "pi-acp 0.0.24 + pi 0.73.1"
	case roleACP:
		return "pi-rpc --protocol acp"
	}
	return "pi-rpc"
}

// impl is the protocol the benchmark's client speaks to the role.
func (r role) impl() impl {
	switch r {
	case rolePi, rolePiMode:
		return implPi
	case rolePiACP, roleACP:
		return implACP
	}
	return implPiRPC
}

// ratioPair is a ratio column: num's median over den's.
type ratioPair struct{ num, den role }

// ratioPairs are the ratio columns a report shows when it has both roles.
var ratioPairs = []ratioPair{
	{rolePiRPC, rolePi},
	{rolePiMode, rolePi},
	{rolePiRPC, roleBase},
	{roleACP, rolePiACP},
}

func (rp ratioPair) String() string {
	short := func(r role) string {
		switch r {
		case rolePi:
			return "pi"
		case rolePiMode:
			return "pi mode"
		case roleBase:
			return "base"
		case rolePiACP:
			return "pi-acp"
		case roleACP:
			return "pi-rpc acp"
		}
		return "pi-rpc"
	}
	return short(rp.num) + " ÷ " + short(rp.den)
}

// mainTargets are the main table's servers: pi-rpc, and with -base the base build, with -pi
// pi 0.73.1 and pi-rpc in pi mode.
func mainTargets(cfg *config) []*target {
	var ts []*target
	if cfg.piCLI != "" {
		ts = append(ts, &target{role: rolePi}, &target{role: rolePiMode})
	}
	if cfg.base != "" {
		ts = append(ts, &target{role: roleBase})
	}
	return append(ts, &target{role: rolePiRPC})
}

// acpTargets are the ACP table's servers (with -pi-acp, which needs -pi).
func acpTargets(cfg *config) []*target {
	if cfg.piACP == "" {
		return nil
	}
	return []*target{{role: rolePiACP}, {role: roleACP}}
}

// piModels writes pi's models.json (and settings.json) into agentDir: provider "mock" at url
// with the benchmark's model, the default model for a client (pi-acp) that names none.
func piModels(agentDir, url string) error {
	models := map[string]any{"providers": map[string]any{"mock": map[string]any{
		"baseUrl": url, "api": "openai-completions", "apiKey": "test",
		"models": []any{map[string]any{"id": modelID, "reasoning": false}},
	}}}
	data, err := json.Marshal(models)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(agentDir, "models.json"), data, 0o644); err != nil {
		return err
	}
	settings := `{"defaultProvider":"mock","defaultModel":"` + modelID + `","quietStartup":true}`
	return os.WriteFile(filepath.Join(agentDir, "settings.json"), []byte(settings), 0o644)
}

// spawnOther starts the roles main.go's spawn does not: pi-rpc in pi mode, the base build,
// pi-rpc in ACP mode and pi-acp. It returns ok false for the others.
func (t *target) spawnOther(cfg *config, url, work, session string) (p *proc, ok bool, err error) {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.home, "LANG=C.UTF-8"}
	sessionArgs := func() []string {
		if session != "" {
			return []string{"--session", session}
		}
		return []string{"--no-session"}
	}
	switch t.role {
	case rolePiMode:
		// pi's command line and agent dir, as pi gets them.
		if err := piModels(t.agentDir, url); err != nil {
			return nil, true, err
		}
		args := append([]string{"--mode", "rpc", "--provider", "mock", "--model", modelID}, sessionArgs()...)
		env = append(env, "PI_CODING_AGENT_DIR="+t.agentDir)
		p, err := spawn(implPi, cfg.piRPC, args, work, env)
		return p, true, err
	case roleBase:
		args := append([]string{"--provider", "openai", "--base-url", url, "--model", modelID, "--cwd", work}, sessionArgs()...)
		env = append(env, "OPENAI_API_KEY=test", "PI_RPC_HOME="+filepath.Join(t.home, ".pi-rpc"))
		p, err := spawn(implPiRPC, cfg.base, args, work, env)
		return p, true, err
	case roleACP:
		args := []string{"--protocol", "acp", "--provider", "openai", "--base-url", url, "--model", modelID}
		env = append(env, "OPENAI_API_KEY=test", "PI_RPC_HOME="+filepath.Join(t.home, ".pi-rpc"))
		p, err := spawn(implACP, cfg.piRPC, args, work, env)
		return p, true, err
	case rolePiACP:
		if err := piModels(t.agentDir, url); err != nil {
			return nil, true, err
		}
		// pi-acp runs PI_ACP_PI_COMMAND for each session. No `pi` is left on PATH: pi-acp runs
		// `pi --version` from PATH for its update check, and with a version there it asks the
		// npm registry (`npm view`), which a benchmark must not wait for.
		env[0] = "PATH=" + pathWithoutPi(os.Getenv("PATH"))
		env = append(env, "PI_CODING_AGENT_DIR="+t.agentDir, "PI_OFFLINE=1", "PI_ACP_PI_COMMAND="+t.piCommand)
		p, err := spawn(implACP, cfg.node, []string{cfg.piACP}, work, env)
		return p, true, err
	}
	return nil, false, nil
}

// initOther prepares what a role needs beyond its home: pi-acp's pi command, a script that
// runs pi 0.73.1's cli.js with node.
func (t *target) initOther(cfg *config) error {
	if t.role != rolePiACP {
		return nil
	}
	if cfg.piCLI == "" {
		return fmt.Errorf("-pi-acp needs -pi (pi-acp runs pi 0.73.1)")
	}
	node, err := exec.LookPath(cfg.node)
	if err != nil {
		return err
	}
	if node, err = filepath.Abs(node); err != nil {
		return err
	}
	t.piCommand = filepath.Join(t.home, "pi-0.73.1")
	script := "#!/bin/sh\nexec " + shellQuote(node) + " " + shellQuote(cfg.piCLI) + " \"$@\"\n"
	return os.WriteFile(t.piCommand, []byte(script), 0o755)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// pathWithoutPi returns the PATH list without the directories that hold an executable `pi`.
func pathWithoutPi(path string) string {
	var keep []string
	for _, d := range filepath.SplitList(path) {
		if st, err := os.Stat(filepath.Join(d, "pi")); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}
