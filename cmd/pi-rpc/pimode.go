package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/pimode"
	"github.com/pi-rpc/pi-rpc/session"
)

// servePi runs pi's RPC protocol (--mode rpc, --protocol pi; docs/pi-compat.md) until stdin
// ends, stdout breaks or a signal arrives, then persists and exits as pi does: 0 at stdin
// EOF, 128+signal on SIGTERM, SIGINT or SIGHUP.
func servePi(cfg *config, setup *agentSetup, sessions *startSessions, host *mcpHost, stdin io.Reader, stdout io.Writer, log zerolog.Logger) int {
	writer := pimode.NewWriter(stdout, 1<<20, log)
	logSandbox(setup.sandbox, log) // pi's protocol has no place for it
	problem := ""
	if len(setup.problems) > 0 {
		problem = setup.problems[0].Message
	}
	pcfg := *cfg
	if pcfg.approval == "" {
		// pi has no approval step: tools run unasked unless --approval says otherwise.
		pcfg.approval = session.ApprovalAuto
	}
	// pi has one session per process: the host opens no other.
	sessionHost := newSessionHost(cfg, setup, nil)
	gate := host.newGate()
	sup := newSupervisor(&pcfg, setup, host.toolsWith(setup.tools, nil), problem, sessions, writer, sessionHost.IDs(), gate, log)
	host.attach(gate, sup, setup.tools, nil)
	// pi's protocol has no event for them: the servers' starts are in the log only.
	host.start()
	sessionHost.Adopt(&session.Opened{Supervisor: sup, Cwd: setup.cwd, ContextFiles: setup.contextFiles})
	var scope []core.Model
	if len(cfg.piScope) > 0 {
		scope = scopeModels(sessionHost.AvailableModels(), cfg.piScope)
	}
	if st := cfg.piSettings; st != nil {
		sup.SetOptions(session.OptionsPatch{SteeringMode: st.SteeringMode, FollowUpMode: st.FollowUpMode})
	}
	if name := strings.TrimSpace(cfg.sessionName); name != "" && name != sup.SessionName() {
		// pi's --name: the session starts with this display name (a session_info entry).
		if _, err := sup.SetSessionName(name); err != nil {
			log.Warn().Err(err).Msg("--name")
		}
	}
	server, err := pimode.NewServer(pimode.Options{
		Host: sessionHost, Writer: writer, In: stdin, Scope: scope,
		MaxLineBytes: cfg.maxMessageBytes, Logger: log,
	})
	if err != nil {
		log.Error().Err(err).Msg("pi mode")
		_ = sup.Close(context.Background())
		writer.Close(flushTimeout)
		return 1
	}
	server.SetApprovalTimeout(cfg.approvalTimeout)
	sup.SetPermissionAsker(server.Asker())

	life := watchProcess(log)
	defer life.stop()
	server.Serve()
	_, code := life.await(endings{input: server.InputClosed(), output: writer.Broken()})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := sup.Close(ctx); err != nil {
		log.Warn().Err(err).Msg("shutdown")
	}
	server.Close()
	writer.Close(flushTimeout)
	return code
}

// piSettings are the keys of pi's settings.json that pi-rpc honours; the others are ignored.
type piSettings struct {
	DefaultProvider      string          `json:"defaultProvider"`
	DefaultModel         string          `json:"defaultModel"`
	DefaultThinkingLevel string          `json:"defaultThinkingLevel"`
	SteeringMode         *core.QueueMode `json:"steeringMode"`
	FollowUpMode         *core.QueueMode `json:"followUpMode"`
	Retry                struct {
		Enabled     *bool `json:"enabled"`
		MaxRetries  *int  `json:"maxRetries"`
		BaseDelayMs *int  `json:"baseDelayMs"`
	} `json:"retry"`
	Compaction struct {
		Enabled          *bool `json:"enabled"`
		ReserveTokens    *int  `json:"reserveTokens"`
		KeepRecentTokens *int  `json:"keepRecentTokens"`
	} `json:"compaction"`
	// Sandbox is pi-rpc's own key (pi has no sandbox): the --sandbox flags' defaults.
	Sandbox *piSandbox `json:"sandbox"`
}

// piAgentDir is pi's configuration directory: $PI_CODING_AGENT_DIR, else ~/.pi/agent
// (%USERPROFILE%\.pi\agent on Windows).
func piAgentDir(getenv func(string) string) string {
	if d := getenv("PI_CODING_AGENT_DIR"); d != "" {
		return d
	}
	return filepath.Join(piHome(getenv), ".pi", "agent")
}

// applyPiConfig turns pi's command line and configuration into pi-rpc's (docs/pi-compat.md):
// the agent dir is the home (models.json, AGENTS.md, sessions/<encoded cwd>/), settings.json
// gives the defaults the flags leave open, --model takes PATTERN[:thinking], --provider names
// a models.json provider and --models is the scope cycle_model goes through. It returns the
// environment the rest of the startup reads.
func applyPiConfig(c *config, getenv func(string) string) (func(string) string, error) {
	agentDir := piAgentDir(getenv)
	env := func(k string) string {
		if k == "PI_RPC_HOME" {
			return agentDir
		}
		return getenv(k)
	}
	if c.sessionDir == "" {
		c.sessionDir = getenv("PI_CODING_AGENT_SESSION_DIR")
	}
	st := &piSettings{}
	if data, err := os.ReadFile(filepath.Join(agentDir, "settings.json")); err == nil {
		if err := json.Unmarshal(data, st); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(agentDir, "settings.json"), err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	c.piSettings = st
	if err := c.sandbox.applySettings(st.Sandbox); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(agentDir, "settings.json"), err)
	}
	// --models is pi's model scope (patterns), not a models.json file.
	if c.modelsFile != "" {
		for _, p := range strings.Split(c.modelsFile, ",") {
			if p = strings.TrimSpace(p); p != "" {
				c.piScope = append(c.piScope, p)
			}
		}
		c.modelsFile = ""
	}
	if c.model == "" && c.provider == "" && c.fauxScript == "" {
		// pi resumes --session FILE with the model and thinking level the file records
		// (how pi-acp opens a session: no model flags).
		c.provider, c.model = sessionModel(c)
	}
	if c.model == "" {
		c.model = st.DefaultModel
	}
	if c.provider == "" && c.fauxScript == "" {
		c.provider = st.DefaultProvider
	}
	if i := strings.LastIndex(c.model, ":"); i > 0 {
		if level := c.model[i+1:]; validThinking(level) {
			c.model = c.model[:i]
			if c.thinking == "" {
				c.thinking = level
			}
		}
	}
	if c.thinking == "" && validThinking(st.DefaultThinkingLevel) {
		c.thinking = st.DefaultThinkingLevel
	}
	switch c.provider {
	case "", "openai", "faux":
	default:
		// A models.json provider: pi-rpc names its models provider/id.
		if c.model == "" {
			return nil, fmt.Errorf("--provider %s needs --model (or defaultModel in settings.json)", c.provider)
		}
		if !strings.HasPrefix(c.model, c.provider+"/") {
			c.model = c.provider + "/" + c.model
		}
		c.provider = ""
	}
	if c.provider == "faux" && c.fauxScript == "" {
		return nil, errors.New("--provider faux needs --faux-script FILE")
	}
	return env, nil
}

// sessionModel is the model the session file of --session records (its last model_change or
// reply), "" when there is none or --session names no file; a thinking level the file
// records becomes c.thinking unless the flags set one.
func sessionModel(c *config) (provider, model string) {
	ref := c.sessionRef
	if ref == "" || !strings.ContainsAny(ref, `/\`) && !strings.HasSuffix(ref, ".jsonl") {
		return "", ""
	}
	if _, err := os.Stat(ref); err != nil {
		return "", ""
	}
	st, err := session.OpenInMemory(ref, session.FileOptions{})
	if err != nil {
		return "", ""
	}
	ctx := session.BuildContext(session.Branch(st))
	if c.thinking == "" && ctx.ThinkingLevel != "" && ctx.ModelID != "" {
		for _, e := range session.Branch(st) {
			if e.Type == session.EntryThinkingLevelChange {
				c.thinking = string(ctx.ThinkingLevel)
				break
			}
		}
	}
	return ctx.Provider, ctx.ModelID
}

func validThinking(l string) bool {
	for _, v := range core.ThinkingLevels {
		if string(v) == l {
			return true
		}
	}
	return false
}

// retrySettings are pi's defaults changed by settings.json's retry keys.
func (c *config) retrySettings() session.RetrySettings {
	r := session.DefaultRetrySettings()
	if c.piSettings == nil {
		return r
	}
	if v := c.piSettings.Retry.Enabled; v != nil {
		r.Enabled = *v
	}
	if v := c.piSettings.Retry.MaxRetries; v != nil && *v >= 0 {
		r.MaxRetries = *v
	}
	if v := c.piSettings.Retry.BaseDelayMs; v != nil && *v >= 0 {
		r.BaseDelay = time.Duration(*v) * time.Millisecond
	}
	return r
}

// compactionSettings are pi's defaults changed by settings.json's compaction keys.
func (c *config) compactionSettings() session.CompactionSettings {
	s := session.DefaultCompactionSettings()
	if c.piSettings == nil {
		return s
	}
	if v := c.piSettings.Compaction.Enabled; v != nil {
		s.Enabled = *v
	}
	if v := c.piSettings.Compaction.ReserveTokens; v != nil && *v > 0 {
		s.ReserveTokens = *v
	}
	if v := c.piSettings.Compaction.KeepRecentTokens; v != nil && *v > 0 {
		s.KeepRecentTokens = *v
	}
	return s
}

// scopeModels picks the models matching pi's --models patterns (globs, optionally with a
// :thinking suffix, matched case-insensitively against id and provider/id).
func scopeModels(all []core.Model, patterns []string) []core.Model {
	var out []core.Model
	for _, model := range all {
		id, full := strings.ToLower(model.ID), strings.ToLower(model.Provider+"/"+model.ID)
		for _, p := range patterns {
			p = strings.ToLower(p)
			if i := strings.LastIndex(p, ":"); i > 0 && validThinking(p[i+1:]) {
				p = p[:i]
			}
			okID, _ := path.Match(p, id)
			okFull, _ := path.Match(p, full)
			if okID || okFull {
				out = append(out, model)
				break
			}
		}
	}
	return out
}
