// Package archtest enforces the import graph (docs/architecture.md): dependencies point one way,
// only the named packages may import jsonrpc2, the SDKs and the protocol libraries, only the
// transport writes the wire (wire_test.go), no package but the mocks parses server-sent
// events (sse_test.go), and none scans JSON's grammar by hand (jsonscan_test.go).
package archtest

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/pi-rpc/pi-rpc"

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// allowed lists, per package of ours (by path below the module, or a prefix ending in "/"),
// which of our packages it may depend on. A package of ours not listed fails the test, so a
// new package must be placed in the graph deliberately.
var allowed = map[string][]string{
	// core's JSON machinery: streamed tool arguments and the tool-argument validator.
	"core":                 {"internal/partialjson", "internal/toolschema"},
	"internal/partialjson": {},
	"internal/toolschema":  {},
	"llm/faux":             {"core"},
	// The endpoint settings every provider's Config embeds, checked and defaulted alike.
	"llm":           {"core", "llm/internal/failure", "llm/internal/idle"},
	"llm/openai":    {"core", "llm", "llm/internal/", "internal/shellfind"},
	"llm/anthropic": {"core", "llm", "llm/internal/"},
	"llm/google":    {"core", "llm", "llm/internal/"},
	"llm/internal/": {"core"},
	// The providers' shared test helpers drive the mocks over an in-memory pipe.
	"llm/internal/providertest": {"core", "llm", "internal/mockhttp"},
	// The provider mock's dialects share only its server.
	"internal/mockhttp":      {},
	"internal/mockopenai":    {"internal/mockhttp"},
	"internal/mockanthropic": {"internal/mockhttp"},
	"internal/mockgoogle":    {"internal/mockhttp"},
	"tools":                  {"core", "internal/fsmode", "internal/proctree", "internal/shellfind"},
	// tools/mcp knows neither the protocol nor the session; its internal test server only
	// itself.
	"tools/mcp":           {"core", "tools", "internal/fsmode", "internal/proctree", "internal/shellfind"},
	"tools/mcp/internal/": {"tools/mcp"},
	// resources (skills and prompt templates) gives the session its commands and the system
	// prompt its skills: the engine's value types and the tools' ignore rules, no session.
	"resources": {"core", "sessionapi", "tools", "internal/fsmode", "internal/proctree", "internal/shellfind"},
	// The engine (core, sessionapi, session) imports no front end and no wire library.
	"sessionapi":         {"core"},
	"session":            {"core", "sessionapi", "internal/fsmode"},
	"protocol":           {"core", "sessionapi", "internal/eventjson"},
	"protocol/internal/": {"protocol", "core", "sessionapi", "session", "internal/fsmode", "internal/eventjson"},
	// e2e holds only tests of the built binary.
	"e2e": {"*"},
	// The transport (framing readers, bad-input classification, the one writer) knows no
	// protocol and no engine: every front end uses it.
	"internal/transport": {},
	// Front ends sit on the engine and never import each other.
	"rpc": {"core", "sessionapi", "session", "protocol", "internal/eventjson", "tools", "internal/transport", "internal/fsmode", "internal/proctree", "internal/shellfind"},
	// acp, the Agent Client Protocol front end, sits beside rpc: the engine, the tools (for
	// titles, diffs and plans) and tools/mcp's configuration, never the JSON-RPC protocol.
	"acp": {"core", "sessionapi", "session", "tools", "tools/mcp", "internal/transport", "internal/fsmode", "internal/proctree", "internal/shellfind"},
	// pimode (pi's RPC protocol) is a front end beside rpc: the engine and the transport,
	// never rpc.
	"pimode": {"core", "sessionapi", "session", "internal/eventjson", "internal/transport", "internal/fsmode"},
	// clients/go needs the protocol's types only: not the engine, its files or its logging.
	"clients/go":        {"protocol", "core", "sessionapi", "internal/eventjson"},
	"cmd/":              {"*"},
	"bench":             {"*"},
	"internal/archtest": {},
	// How a file's kind is named in refusals: shared by tools and session.
	"internal/fsmode": {},
	// A command's process tree (a process group; a Job Object on Windows) and the shell pi
	// finds on each platform: shared by tools, tools/mcp and (for models.json "!command" on
	// Windows) llm/openai.
	"internal/proctree":  {},
	"internal/shellfind": {},
	// The sandbox (probe, policy, launcher) knows nothing of ours: cmd/pi-rpc wires it into
	// the tools and the user's bash through tools.Confinement.
	"internal/sandbox":    {},
	"internal/jsonstring": {},
	// The one time source (issue 30).
	"internal/clock": {},
	// The one description of the events' JSON fields, per dialect (protocol and pimode
	// encode with it): the engine's value types only.
	"internal/eventjson": {"core", "sessionapi"},
	"internal/":          {"*"},
}

// leaves are packages of ours that import none of ours and that any package may use, core
// included: JSON strings written by hand (core's system message, the event encoders) and the
// one time source. They depend on nothing of ours, so they cannot bend the graph.
var leaves = []string{"internal/jsonstring", "internal/clock"}

// thirdParty lists libraries that only some packages may import directly.
var thirdParty = map[string][]string{
	"github.com/sourcegraph/jsonrpc2": {"rpc"},
	// llm/openai speaks Chat Completions through the SDK (the design's choice).
	"github.com/openai/openai-go":            {"llm/openai"},
	"github.com/modelcontextprotocol/go-sdk": {"tools/mcp"},
	"github.com/anthropics/anthropic-sdk-go": {"llm/anthropic"},
	"google.golang.org/genai":                {"llm/google"},
	"github.com/coder/acp-go-sdk":            {"acp", "e2e"},
	"github.com/landlock-lsm/go-landlock":    {"internal/sandbox"},
	// The session loader's fast path: jsontext validates each line and reads its head in
	// the same pass (session/jsonl_head.go, session/jsonl_valid.go).
	// internal/partialjson tokenizes streamed tool arguments with jsontext.
	"github.com/go-json-experiment/json": {"session", "internal/partialjson"},
	// Frontmatter is YAML; only the resource loader reads it.
	"go.yaml.in/yaml/v3": {"resources"},
}

// withTheirs adds to a package's rules what each package they name may depend on: a package
// that may import core may depend on core's JSON machinery through it.
func withTheirs(rules []string) []string {
	out := rules
	for _, r := range rules {
		if theirs, ok := allowed[r]; ok && !slices.Contains(theirs, "*") {
			out = append(slices.Clip(out), theirs...)
		}
	}
	return out
}

func rel(path string) string {
	return strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
}

func matches(rule, path string) bool {
	if rule == "*" {
		return true
	}
	if strings.HasSuffix(rule, "/") {
		return strings.HasPrefix(path, rule)
	}
	return path == rule || strings.HasPrefix(path, rule+"/internal/")
}

func rulesFor(m map[string][]string, path string) ([]string, bool) {
	if r, ok := m[path]; ok {
		return r, true
	}
	best := ""
	for k := range m {
		if strings.HasSuffix(k, "/") && strings.HasPrefix(path, k) && len(k) > len(best) {
			best = k
		}
	}
	if best == "" {
		return nil, false
	}
	return m[best], true
}

// touchTree reads every directory of the module, so that go test's cache, which cannot see
// what go list reads, runs this test again when a package is added or moved.
func touchTree(t *testing.T) {
	t.Helper()
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// listPackages is `go list -json` of every package of the module, each decoded into a P
// (a struct naming the fields a test reads), after touchTree.
func listPackages[P any](t *testing.T) []P {
	t.Helper()
	touchTree(t)
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []P
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p P
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func TestImportGraph(t *testing.T) {
	pkgs := listPackages[pkg](t)
	for _, p := range pkgs {
		self := rel(p.ImportPath)
		ours, ok := rulesFor(allowed, self)
		if !ok {
			t.Errorf("package %s is not placed in the import graph (internal/archtest)", self)
			continue
		}
		ours = withTheirs(ours)
		for _, dep := range p.Deps {
			if !strings.HasPrefix(dep, module+"/") {
				continue
			}
			d := rel(dep)
			if d == self || strings.HasPrefix(d, self+"/internal/") {
				continue
			}
			ok := slices.Contains(leaves, d)
			for _, r := range ours {
				if matches(r, d) {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s depends on %s, which the allowed table does not permit", self, d)
			}
		}
		for _, dep := range p.Imports {
			for lib, who := range thirdParty {
				if dep != lib && !strings.HasPrefix(dep, lib+"/") {
					continue
				}
				ok := false
				for _, r := range who {
					if matches(r, self) {
						ok = true
					}
				}
				if !ok {
					t.Errorf("%s depends on %s; only %v may", self, lib, who)
				}
			}
		}
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
}
