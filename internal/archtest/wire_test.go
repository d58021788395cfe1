package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// frontEnds are the protocol front ends: each reads and writes the wire through
// internal/transport only (docs/architecture.md, "Transport").
var frontEnds = []string{"rpc", "pimode", "acp"}

// stdioAllowed are the packages that may name os.Stdin or os.Stdout: the commands, which
// hand the process's streams to a front end (or are test servers speaking over their own),
// and the sandbox, whose launcher runs as a process of its own: its streams are the model's
// command's pipes, never the protocol's.
var stdioAllowed = []string{"cmd/", "tools/mcp/internal/", "internal/sandbox"}

// stdio matches a use of the process's standard input or output.
var stdio = regexp.MustCompile(`\bos\.(Stdout|Stdin)\b`)

// bufferedWriter matches a front end buffering output of its own.
var bufferedWriter = regexp.MustCompile(`\bbufio\.NewWriter(Size)?\b`)

type sources struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
}

// TestOnlyTheTransportWritesTheWire: no package but the commands touches os.Stdin or
// os.Stdout, and the front ends use the transport and buffer no output of their own (the
// one writer, its lanes, framing and flushing are the transport's).
func TestOnlyTheTransportWritesTheWire(t *testing.T) {
	seen := 0
	for _, p := range listPackages[sources](t) {
		self := rel(p.ImportPath)
		if slices.Contains(frontEnds, self) {
			seen++
			if !slices.Contains(p.Imports, module+"/internal/transport") {
				t.Errorf("front end %s does not use internal/transport", self)
			}
		}
		if slices.ContainsFunc(stdioAllowed, func(r string) bool { return matches(r, self) }) {
			continue
		}
		for _, f := range p.GoFiles {
			data, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if m := stdio.Find(data); m != nil {
				t.Errorf("%s/%s uses %s: only cmd/ hands the process's streams to a front end", self, f, m)
			}
			if m := bufferedWriter.Find(data); m != nil && slices.Contains(frontEnds, self) {
				t.Errorf("%s/%s uses %s: a front end writes through internal/transport's writer", self, f, m)
			}
		}
	}
	if seen != len(frontEnds) {
		t.Fatalf("found %d of the front ends %v", seen, frontEnds)
	}
}
