package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

// sdkWithTemplates is the one dependency allowed to link text/template and html/template: the
// Gemini SDK, whose authentication packages (cloud.google.com/go/auth's transport: gRPC's
// golang.org/x/net/trace, enterprise-certificate-proxy's net/rpc) import them. docs/benchmarks.md
// has what it costs (binary size and resident memory at start).
const sdkWithTemplates = "google.golang.org/genai"

// TestBinaryLinksNoTemplates keeps text/template and html/template out of the binary's own
// code: their reflective method calls make the linker keep every exported method of every
// type, which doubled the binary (55 → 106 MB) and its resident memory at start (22 → 40 MB)
// when the pi mode's HTML export used html/template (docs/benchmarks.md). Only packages the
// Gemini SDK pulls in may import them.
func TestBinaryLinksNoTemplates(t *testing.T) {
	importers := func(pkg string) map[string][]string {
		out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, pkg).Output()
		if err != nil {
			t.Fatal(err)
		}
		m := map[string][]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			m[f[0]] = f[1:]
		}
		return m
	}
	binary := importers(module + "/cmd/pi-rpc")
	sdk := importers(sdkWithTemplates)
	for pkg, imports := range binary {
		for _, imp := range imports {
			if imp != "text/template" && imp != "html/template" {
				continue
			}
			if _, ok := sdk[pkg]; !ok {
				t.Errorf("cmd/pi-rpc links %s through %s", imp, pkg)
			}
		}
	}
}

// TestOpenAIProviderOnSDK: llm/openai speaks Chat Completions through openai-go (the design's
// package choice), not through a client of its own.
func TestOpenAIProviderOnSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/llm/openai").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/openai/openai-go/v3/packages/ssestream") {
			return
		}
	}
	t.Error("llm/openai does not depend on openai-go's ssestream")
}
