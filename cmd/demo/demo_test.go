package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite testdata/demo.golden")

// binary is pi-rpc built once per test process (so -count=N reruns only the demo).
var binary struct {
	once sync.Once
	path string
	err  error
}

func buildPiRPC(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "demo-test-bin-")
		if err != nil {
			binary.err = err
			return
		}
		binary.path = filepath.Join(dir, "pi-rpc")
		if binary.err = testkit.ReadModuleSources("../.."); binary.err != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", binary.path, "../pi-rpc").CombinedOutput()
		if err != nil {
			binary.err = fmt.Errorf("go build ../pi-rpc: %w\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary.path != "" {
		_ = os.RemoveAll(filepath.Dir(binary.path))
	}
	os.Exit(code)
}

// TestDemoGolden runs the demo against the real binary on the faux model and compares its
// transcript with testdata/demo.golden. The transcript is deterministic by construction (see
// toolLoop and abortMidStream), so any difference is a change in pi-rpc's behaviour or in the
// demo; run with -count=20 to check that no race leaks into it.
func TestDemoGolden(t *testing.T) {
	bin := buildPiRPC(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // hang detector
	defer cancel()
	var out, stderr bytes.Buffer
	if err := run(ctx, config{bin: bin, stderr: &stderr}, &out); err != nil {
		t.Fatalf("demo: %v\noutput so far:\n%s\npi-rpc stderr:\n%s", err, out.String(), stderr.String())
	}
	golden := filepath.Join("testdata", "demo.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/demo -update to create it)", err)
	}
	if got := out.String(); got != string(want) {
		gotLines, wantLines := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gotLines), len(wantLines)) {
			g, w := line(gotLines, i), line(wantLines, i)
			if g != w {
				t.Fatalf("transcript differs from %s at line %d:\n got: %s\nwant: %s\n\nwhole transcript:\n%s\npi-rpc stderr:\n%s",
					golden, i+1, g, w, got, stderr.String())
			}
		}
	}
	if stderr.Len() > 0 {
		t.Errorf("pi-rpc wrote to stderr at --log-level warn:\n%s", stderr.String())
	}
}

func line(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end of transcript)"
}
