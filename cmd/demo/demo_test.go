package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite testdata/demo.golden")

// piRPC is pi-rpc, built once per test process (so -count=N reruns only the demo).
var piRPC = testkit.Command{Pkg: "../pi-rpc", Module: "../.."}

// demoCmd is this command itself, built as `make demo` builds it (prebuilt under Wine).
var demoCmd = testkit.Command{Pkg: ".", Module: "../.."}

func TestMain(m *testing.M) {
	code := m.Run()
	piRPC.Remove()
	demoCmd.Remove()
	os.Exit(code)
}

// TestDemoGolden runs the demo against the real binary on the faux model and compares its
// transcript with testdata/demo.golden. The transcript is deterministic by construction (see
// toolLoop and abortMidStream), so any difference is a change in pi-rpc's behaviour or in the
// demo; run with -count=20 to check that no race leaks into it.
func TestDemoGolden(t *testing.T) {
	bin := piRPC.Path(t)
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

// TestDemoOfflineWithKeys runs the demo command as `make demo` does, with provider keys in its
// environment and every HTTP(S) connection sent to a proxy that refuses: it must still run on
// the scripted model and print the golden transcript.
func TestDemoOfflineWithKeys(t *testing.T) {
	bin := piRPC.Path(t)
	demo := demoCmd.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // hang detector
	defer cancel()
	cmd := exec.CommandContext(ctx, demo, "-bin", bin)
	cmd.Env = append(os.Environ(),
		"OPENAI_API_KEY=sk-dummy", "ANTHROPIC_API_KEY=sk-ant-dummy",
		"HTTPS_PROXY=http://127.0.0.1:1", "HTTP_PROXY=http://127.0.0.1:1", "NO_PROXY=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("demo with provider keys set: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	want, err := os.ReadFile(filepath.Join("testdata", "demo.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if stdout.String() != string(want) {
		t.Errorf("demo with provider keys set printed:\n%s\nwant testdata/demo.golden:\n%s", stdout.String(), want)
	}
}

func TestParseFlags(t *testing.T) {
	keys := map[string]string{"OPENAI_API_KEY": "sk-dummy", "ANTHROPIC_API_KEY": "sk-ant-dummy"}
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		wantLive bool
		wantErr  string
	}{
		{"keys do not make it live", nil, keys, false, ""},
		{"no keys", nil, nil, false, ""},
		{"live needs the OpenAI key", []string{"-live"}, map[string]string{"ANTHROPIC_API_KEY": "x"}, false, "set OPENAI_API_KEY"},
		{"live", []string{"-live", "-model", "gpt-4.1-mini"}, keys, true, ""},
		{"model only with live", []string{"-model", "gpt-4.1"}, keys, false, "-model chooses the model of -live"},
		{"stray argument", []string{"live"}, nil, false, `unexpected argument "live"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseFlags(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			switch {
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("parseFlags(%q) error = %v, want %q", tc.args, err, tc.wantErr)
			case tc.wantErr == "" && err != nil:
				t.Fatalf("parseFlags(%q): %v", tc.args, err)
			}
			if cfg.live != tc.wantLive {
				t.Errorf("parseFlags(%q).live = %t, want %t", tc.args, cfg.live, tc.wantLive)
			}
		})
	}
}

func TestChildEnvOffline(t *testing.T) {
	env := []string{"PATH=/bin", "OPENAI_API_KEY=k", "OPENAI_BASE_URL=u", "ANTHROPIC_API_KEY=a", "HOME=/h"}
	if got, want := childEnv(env, false), []string{"PATH=/bin", "HOME=/h"}; !slices.Equal(got, want) {
		t.Errorf("childEnv offline = %q, want %q", got, want)
	}
	if got := childEnv(env, true); !slices.Equal(got, env) {
		t.Errorf("childEnv live = %q, want the environment unchanged", got)
	}
}

func line(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end of transcript)"
}
