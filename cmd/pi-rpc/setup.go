package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/sandbox"
	"github.com/pi-rpc/pi-rpc/llm"
	"github.com/pi-rpc/pi-rpc/llm/anthropic"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/llm/google"
	"github.com/pi-rpc/pi-rpc/llm/openai"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/resources"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/tools"
)

// The models used when --model is not given: OpenAI's, or Anthropic's with --provider
// anthropic or when only ANTHROPIC_API_KEY is set.
const (
	defaultOpenAIModel    = "gpt-4.1"
	defaultAnthropicModel = "claude-sonnet-4-6"
	defaultGoogleModel    = "gemini-2.5-pro"
)

// agentSetup is everything the command line configures about the agent.
type agentSetup struct {
	provider core.Provider
	model    core.Model
	thinking core.ThinkingLevel
	problems []protocol.Problem
	warnings []string
	// logWarnings are logged at startup but not reported to the client (models.json keys
	// pi-rpc does not know).
	logWarnings  []string
	models       *modelSet
	tools        []core.Tool
	systemPrompt string
	contextFiles []string
	cwd          string
	home         string
	// userHome is $HOME (~/.agents/skills, "~" in resource paths); commands is the session's
	// skills and prompt templates (resources.go), loaded with its tools for its cwd.
	userHome string
	commands *resources.Set
	// projectTrusted is the project trust decision for cwd (resources.go): it also decides
	// whether the project's .pi/mcp.json is read.
	projectTrusted bool
	// access is where the tools read, write and run (an ACP client's files and terminals);
	// the zero value is the disk and local processes.
	access tools.Access
	// beforeToolCall, when set, is the agent's hook for each call the session lets run.
	beforeToolCall func(context.Context, *core.BeforeToolCallContext) (*core.BeforeToolCallResult, error)
	// sandbox is the process's sandbox (--sandbox; nil: off), sandboxChoice the session's
	// own on top of it (createSession's, pi's settings), confinement the session's sandbox
	// that setupTools makes of them, and sandboxes holds every open session's, shared by
	// every copy of the process's setup.
	sandbox       *sandbox.Config
	sandboxChoice *protocol.SandboxChoice
	confinement   *sessionSandbox
	sandboxes     *sessionSandboxes
	// shell is shellPath of settings.json in the home, "" when unset ([readShellPath]).
	shell string
}

// piRPCHome is $PI_RPC_HOME, or ~/.pi-rpc.
func piRPCHome(getenv func(string) string) string {
	if h := getenv("PI_RPC_HOME"); h != "" {
		return h
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".pi-rpc"
	}
	return filepath.Join(home, ".pi-rpc")
}

// setupAgent builds the agent's configuration. An error here is a startup error: the
// process exits 1 before reading stdin.
func setupAgent(c *config, getenv func(string) string, now time.Time) (*agentSetup, error) {
	s := &agentSetup{home: piRPCHome(getenv), userHome: getenv("HOME"), sandboxes: &sessionSandboxes{}}
	cwd := c.cwd
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return nil, fmt.Errorf("--cwd: %w", err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("--cwd: %s is not a directory", abs)
	}
	s.cwd = abs
	if s.sandbox, err = c.sandbox.config(); err != nil {
		return nil, err
	}

	if c.provider == "faux" {
		script, err := faux.LoadScript(c.fauxScript)
		if err != nil {
			return nil, err
		}
		s.provider = script.NewProvider()
		s.model = script.Model
		s.models = &modelSet{fixed: []core.Model{script.Model}, fixedProvider: s.provider}
	} else if err := s.setupModels(c, getenv); err != nil {
		return nil, withWarnings(err, s.logWarnings)
	}

	s.thinking = core.ThinkingMedium
	if c.thinking != "" {
		s.thinking = core.ThinkingLevel(c.thinking)
	}
	s.thinking = s.model.ClampThinkingLevel(s.thinking)

	if err := s.setupTools(c, now); err != nil {
		return nil, withWarnings(err, s.logWarnings)
	}
	return s, nil
}

// withWarnings adds the models.json warnings (unknown keys) to a startup error: the process
// stops before its log would show them, and a misspelt key is often the error's cause (a
// provider whose "modls" left it without models).
func withWarnings(err error, warnings []string) error {
	if len(warnings) == 0 {
		return err
	}
	return fmt.Errorf("%w\n%s", err, strings.Join(warnings, "\n"))
}

// setupTools builds the tools, the system prompt and its context files for s.cwd.
func (s *agentSetup) setupTools(c *config, now time.Time) error {
	var names []string
	switch {
	case c.noTools:
		names = []string{}
	case c.toolsSet:
		names = tools.ParseNames(c.tools)
	case c.protocol == "pi":
		// pi's default tools (grep, find and ls are there for --tools to choose).
		names = []string{"read", "bash", "edit", "write"}
	}
	var err error
	if s.confinement, err = newSessionSandbox(s.sandbox, c.sandbox.fallback == "warn", s.cwd, s.sandboxChoice); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if s.shell, err = readShellPath(s.home); err != nil {
		return err
	}
	s.tools, err = tools.New(names, tools.Options{Cwd: s.cwd, AllowOutsideCwd: c.allowOutsideCwd, Access: s.access, Sandbox: s.confinement, Shell: s.shell})
	if err != nil {
		return fmt.Errorf("--tools: %w", err)
	}
	active := make([]string, 0, len(s.tools))
	for _, t := range s.tools {
		active = append(active, t.Info().Name)
	}
	if s.commands, err = s.loadResources(&c.resources); err != nil {
		return err
	}
	for _, d := range s.commands.Diagnostics {
		s.warnings = append(s.warnings, "resources: "+d.String())
		s.logWarnings = append(s.logWarnings, "resources: "+d.String())
	}
	prompt, files := tools.SystemPrompt(tools.PromptOptions{
		Cwd: s.cwd, Tools: active, Now: now, Home: s.home, Skills: s.commands.PromptSkills(),
		SystemPrompt: c.systemPrompt, AppendSystemPrompt: c.appendSystemPrompt, NoContextFiles: c.noContextFiles,
		Sandbox: promptSandbox(s.confinement.status()),
	})
	s.systemPrompt = prompt
	s.contextFiles = []string{}
	for _, f := range files {
		s.contextFiles = append(s.contextFiles, f.Path)
	}
	return nil
}

// setupModels resolves the model against the catalogues and models.json files and builds the
// provider that serves it (OpenAI-compatible or Anthropic, by the model's api).
func (s *agentSetup) setupModels(c *config, getenv func(string) string) error {
	files, err := s.loadModelsFiles(c)
	if err != nil {
		return err
	}
	set := &modelSet{
		registry:    modelRegistry(c, files),
		builtins:    builtinEndpoints(c, getenv),
		idleTimeout: c.idleTimeout, contextWindow: c.contextWindow, providers: map[string]core.Provider{},
	}
	s.models = set
	res, err := set.registry.LookupFor(defaultModelID(c, set.builtins), c.contextWindow, c.provider)
	if err != nil {
		return fmt.Errorf("--model: %w", err)
	}
	if res.Warning != "" {
		s.warnings = append(s.warnings, res.Warning)
	}
	s.model = res.Model
	// Nothing chosen and nothing configured: no provider. A model the user named has a
	// provider, whose missing key is the problem (providerFor names its setting).
	if b := set.builtins[res.ProviderName]; res.Provider == nil && c.provider == "" && c.model == "" && b.key == "" && !b.keyless {
		s.problems = append(s.problems, protocol.Problem{Kind: "noProvider",
			Message: "No model provider is configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY, pass --base-url for a local server, pick a models.json provider with --model provider/id, or use --provider faux"})
		return nil
	}
	provider, problem, err := set.providerFor(res.Entry)
	if err != nil {
		return err
	}
	if problem != "" {
		s.problems = append(s.problems, protocol.Problem{Kind: "noApiKey", Message: problem})
	}
	s.provider = provider
	return nil
}

// loadModelsFiles reads $PI_RPC_HOME/models.json, which applies to every project, and
// --models, which adds to it; where both define a model the later file wins (the registry
// merges in order).
func (s *agentSetup) loadModelsFiles(c *config) ([]*openai.ModelsFile, error) {
	var paths []string
	if p := filepath.Join(s.home, "models.json"); fileExists(p) {
		paths = append(paths, p)
	}
	if c.modelsFile != "" {
		paths = append(paths, c.modelsFile)
	}
	var files []*openai.ModelsFile
	for _, path := range paths {
		f, err := openai.LoadModelsFile(path)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		s.logWarnings = append(s.logWarnings, f.Warnings...)
	}
	return files, nil
}

// modelRegistry merges the built-in catalogues with the models.json files.
func modelRegistry(c *config, files []*openai.ModelsFile) *openai.Registry {
	registry := openai.NewRegistryWith([]openai.Builtin{
		{Provider: anthropic.ProviderName, API: anthropic.API, Models: anthropic.Catalogue()},
		{Provider: google.ProviderName, API: google.API, Models: google.Catalogue()},
		{Provider: openai.AzureProviderName, API: openai.AzureAPI, Models: openai.AzureCatalogue()},
	}, files...)
	if c.api == "responses" || c.api == openai.ResponsesAPI {
		registry.UseAPI(openai.ProviderName, openai.ResponsesAPI)
	}
	return registry
}

// builtinEndpoints are the built-in providers' endpoints and keys, from the environment and
// --base-url (which names the root of the endpoint --provider names, OpenAI's by default).
func builtinEndpoints(c *config, getenv func(string) string) map[string]endpoint {
	apiKey := getenv("OPENAI_API_KEY")
	baseURL := getenv("OPENAI_BASE_URL")
	if baseURL == "" {
		baseURL = "https://api.openai.com/v1"
	}
	anthropicKey := getenv("ANTHROPIC_API_KEY")
	anthropicURL := getenv("ANTHROPIC_BASE_URL")
	if anthropicURL == "" {
		anthropicURL = anthropic.DefaultBaseURL
	}
	// An endpoint the user named (a local llama.cpp, Ollama or vLLM) may need no key: the
	// requests then go without one. Only the default endpoints insist on one
	// (docs/configuration.md "Provider, endpoint and key").
	openaiKeyless := getenv("OPENAI_BASE_URL") != ""
	anthropicKeyless := getenv("ANTHROPIC_BASE_URL") != ""
	googleKey, googleKeySource := getenv("GEMINI_API_KEY"), "GEMINI_API_KEY"
	if googleKey == "" {
		googleKey, googleKeySource = getenv("GOOGLE_API_KEY"), "GOOGLE_API_KEY"
	}
	if googleKey == "" {
		googleKeySource = "GEMINI_API_KEY or GOOGLE_API_KEY"
	}
	googleURL, googleKeyless := google.DefaultBaseURL, false
	azureEP := azureEndpoint(getenv)
	if c.baseURL != "" && c.provider == anthropic.ProviderName {
		anthropicURL, anthropicKeyless = c.baseURL, true
	} else if c.baseURL != "" && c.provider == google.ProviderName {
		googleURL, googleKeyless = c.baseURL, true
	} else if c.baseURL != "" && c.provider == openai.AzureProviderName {
		azureEP.url = c.baseURL
	} else if c.baseURL != "" {
		baseURL, openaiKeyless = c.baseURL, true
	}
	// How to name a keyless server for each endpoint: --base-url sets the --provider one's.
	openaiURLHint, anthropicURLHint, googleURLHint := "pass --base-url", "set ANTHROPIC_BASE_URL", "pass --base-url with --provider google"
	switch c.provider {
	case anthropic.ProviderName:
		openaiURLHint, anthropicURLHint = "set OPENAI_BASE_URL", "pass --base-url"
	case google.ProviderName:
		openaiURLHint, googleURLHint = "set OPENAI_BASE_URL", "pass --base-url"
	}
	return map[string]endpoint{
		openai.ProviderName:      {name: "OpenAI", url: baseURL, key: apiKey, keySource: "OPENAI_API_KEY", keyless: openaiKeyless, urlHint: openaiURLHint},
		anthropic.ProviderName:   {name: "Anthropic", url: anthropicURL, key: anthropicKey, keySource: "ANTHROPIC_API_KEY", keyless: anthropicKeyless, urlHint: anthropicURLHint},
		google.ProviderName:      {name: "Google", url: googleURL, key: googleKey, keySource: googleKeySource, keyless: googleKeyless, urlHint: googleURLHint},
		openai.AzureProviderName: azureEP,
	}
}

// defaultModelID is --model, or without it the default model of the provider --provider
// names; with neither, OpenAI's unless OPENAI_API_KEY is unset and Anthropic's key (then
// Google's) is set.
func defaultModelID(c *config, builtins map[string]endpoint) string {
	if c.model != "" {
		return c.model
	}
	apiKey, anthropicKey, googleKey := builtins[openai.ProviderName].key, builtins[anthropic.ProviderName].key, builtins[google.ProviderName].key
	id := defaultOpenAIModel
	if c.provider == anthropic.ProviderName || (c.provider == "" && apiKey == "" && anthropicKey != "") {
		id = defaultAnthropicModel
	} else if c.provider == google.ProviderName || (c.provider == "" && apiKey == "" && googleKey != "") {
		id = defaultGoogleModel
	}
	return id
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// modelSet implements session.Models over the registry (or faux's one model), building and
// caching one provider per endpoint.
type modelSet struct {
	registry      *openai.Registry
	builtins      map[string]endpoint
	idleTimeout   time.Duration
	contextWindow int

	fixed         []core.Model
	fixedProvider core.Provider

	mu        sync.Mutex
	providers map[string]core.Provider
}

// endpoint is a built-in provider's API root and key, and the setting the key came from.
type endpoint struct {
	name, url, key, keySource string
	// keyless: the endpoint was named explicitly (--base-url or *_BASE_URL), so it works
	// without a key.
	keyless bool
	// urlHint says how to name a server of this endpoint that needs no key.
	urlHint string
	// Azure OpenAI's api-version and deployment names.
	apiVersion  string
	deployments map[string]string
}

// azureEndpoint is Azure OpenAI's endpoint as pi reads it from the environment:
// AZURE_OPENAI_API_KEY; AZURE_OPENAI_BASE_URL, else the resource AZURE_OPENAI_RESOURCE_NAME;
// AZURE_OPENAI_API_VERSION; AZURE_OPENAI_DEPLOYMENT_NAME_MAP. It always needs a key.
func azureEndpoint(getenv func(string) string) endpoint {
	return endpoint{
		name: "Azure OpenAI", key: getenv("AZURE_OPENAI_API_KEY"), keySource: "AZURE_OPENAI_API_KEY",
		url:         openai.AzureBaseURL(getenv("AZURE_OPENAI_BASE_URL"), getenv("AZURE_OPENAI_RESOURCE_NAME")),
		apiVersion:  getenv("AZURE_OPENAI_API_VERSION"),
		deployments: openai.ParseDeploymentMap(getenv("AZURE_OPENAI_DEPLOYMENT_NAME_MAP")),
		urlHint:     "an Azure resource always needs one",
	}
}

// noAzureURL is the problem of an Azure OpenAI model with no endpoint.
const noAzureURL = "No base URL for Azure OpenAI: set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME (or pass --base-url with --provider azure-openai-responses)"

// List returns the selectable models.
func (m *modelSet) List() []core.Model {
	if m.registry == nil {
		return m.fixed
	}
	var out []core.Model
	for _, e := range m.registry.Entries() {
		out = append(out, e.Model)
	}
	return out
}

// Resolve finds a model and its provider.
func (m *modelSet) Resolve(provider, id string) (core.Model, core.Provider, error) {
	if m.registry == nil {
		for _, model := range m.fixed {
			if model.ID == id && (provider == "" || provider == model.Provider) {
				return model, m.fixedProvider, nil
			}
		}
		return core.Model{}, nil, fmt.Errorf("Model not found: %s", id)
	}
	key := id
	if provider != "" {
		key = provider + "/" + id
	}
	res, err := m.registry.Lookup(key, m.contextWindow)
	if err != nil {
		return core.Model{}, nil, err
	}
	if res.Source == "default" {
		return core.Model{}, nil, fmt.Errorf("Model not found: %s", key)
	}
	p, problem, err := m.providerFor(res.Entry)
	if err != nil {
		return core.Model{}, nil, err
	}
	if problem != "" {
		return core.Model{}, nil, &session.ProviderProblem{Message: problem}
	}
	return res.Model, p, nil
}

// providerFor returns the provider serving an entry, and a problem when it has no key. A
// models.json entry of a built-in provider without baseUrl or apiKey uses the built-in
// endpoint's.
func (m *modelSet) providerFor(e openai.Entry) (core.Provider, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cacheKey := e.ProviderName + "\x00" + e.Model.API
	if p, ok := m.providers[cacheKey]; ok {
		return p, "", nil
	}
	builtin, isBuiltin := m.builtins[e.ProviderName]
	url, key, keySource := builtin.url, builtin.key, builtin.keySource
	var headers map[string]string
	problem := ""
	if e.Provider != nil {
		if e.Provider.BaseURL != "" || !isBuiltin {
			url = e.Provider.BaseURL
		}
		if e.Provider.APIKey != "" || !isBuiltin {
			var err error
			key, err = openai.ResolveValue(context.Background(), e.Provider.APIKey, os.LookupEnv)
			if err != nil {
				problem = fmt.Sprintf("No API key for provider %s: apiKey %q in %s: %v", e.ProviderName, e.Provider.APIKey, e.File, err)
			}
			keySource = openai.KeySource(e.File, e.ProviderName, e.Provider.APIKey)
		}
		headers = map[string]string{}
		for k, v := range e.Provider.Headers {
			if hv, err := openai.ResolveValue(context.Background(), v, os.LookupEnv); err == nil {
				headers[k] = hv
			}
		}
	}
	if isBuiltin && key == "" && keySource == builtin.keySource && !builtin.keyless {
		problem = fmt.Sprintf("No API key for %s: set %s (or %s for a server that needs none)", builtin.name, keySource, builtin.urlHint)
		if e.Model.API == openai.AzureAPI {
			problem = fmt.Sprintf("No API key for %s: set %s", builtin.name, keySource)
		}
	}
	if e.Model.API == openai.AzureAPI && url == "" {
		return nil, noAzureURL, nil
	}
	ep := llm.Endpoint{BaseURL: url, APIKey: key, KeySource: keySource, Headers: headers, IdleTimeout: m.idleTimeout}
	var p core.Provider
	var err error
	switch e.Model.API {
	case openai.ResponsesAPI, openai.AzureAPI:
		azureEP := m.builtins[openai.AzureProviderName]
		p, err = openai.New(openai.Config{Endpoint: ep, API: e.Model.API, AzureAPIVersion: azureEP.apiVersion, Deployments: azureEP.deployments})
	case anthropic.API:
		p, err = anthropic.New(anthropic.Config{Endpoint: ep})
	case google.API:
		p, err = google.New(google.Config{Endpoint: ep})
	default:
		p, err = openai.New(openai.Config{Endpoint: ep})
	}
	if err != nil {
		return nil, "", err
	}
	if problem == "" {
		m.providers[cacheKey] = p
	}
	return p, problem, nil
}
