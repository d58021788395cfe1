package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryLinksNoTemplates keeps text/template and html/template out of the binary: their
// reflective method calls make the linker keep every exported method of every type, which
// doubled the binary (55 → 106 MB) and its resident memory at start (22 → 40 MB) when the pi
// mode's HTML export used html/template (docs/benchmarks.md).
func TestBinaryLinksNoTemplates(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/cmd/pi-rpc").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "text/template" || dep == "html/template" {
			t.Errorf("cmd/pi-rpc links %s", dep)
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
