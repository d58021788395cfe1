package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// runOnce runs the program with args and no input; it returns the exit code and outputs.
func runOnce(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr testkit.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr, envOf(env))
	return code, stdout.String(), stderr.String()
}

func TestHelp(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "-help"} {
		code, out, errOut := runOnce(t, nil, arg)
		if code != 0 || errOut != "" {
			t.Errorf("%s: exit %d, stderr %q; want 0 and nothing", arg, code, errOut)
		}
		for _, want := range []string{"Usage:", "-base-url", "-faux-script", "Examples:", "Environment:", "OPENAI_API_KEY", "OPENAI_BASE_URL", "PI_RPC_HOME"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: stdout lacks %q:\n%s", arg, want, out)
			}
		}
	}
}

// A flag error is one line on stderr that points at --help, and exit 1; stdout stays empty.
func TestFlagErrorsAreOneLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "pi-rpc: unknown flag -nope (see pi-rpc --help)\n"},
		{[]string{"--idle-timeout", "soon"}, `pi-rpc: invalid value "soon" for flag -idle-timeout: parse error (see pi-rpc --help)` + "\n"},
		{[]string{"--model"}, "pi-rpc: flag needs an argument: -model (see pi-rpc --help)\n"},
		{[]string{"stray"}, "pi-rpc: unexpected argument \"stray\" (see pi-rpc --help)\n"},
	} {
		code, out, errOut := runOnce(t, nil, tc.args...)
		if code != 1 || out != "" || errOut != tc.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1, nothing, %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

func TestBuildVersion(t *testing.T) {
	info := func(version string, settings ...string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/pi-rpc/pi-rpc", Version: version}}
			for i := 0; i+1 < len(settings); i += 2 {
				bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
			}
			return bi, true
		}
	}
	rev := "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name, ldflags string
		read          func() (*debug.BuildInfo, bool)
		want          string
	}{
		{"ldflags win", "v1.2.3", info("v0.9.0"), "v1.2.3"},
		{"module version", "", info("v0.4.0", "vcs.revision", rev), "v0.4.0"},
		{"pseudo-version", "", info("v0.0.0-20260101000000-0123456789ab+dirty"), "v0.0.0-20260101000000-0123456789ab+dirty"},
		{"devel with vcs", "", info("(devel)", "vcs.revision", rev, "vcs.modified", "false"), "devel+0123456789ab"},
		{"devel dirty", "", info("(devel)", "vcs.revision", rev, "vcs.modified", "true"), "devel+0123456789ab-dirty"},
		{"devel without vcs", "", info("(devel)"), "(devel)"},
		{"no build info", "", func() (*debug.BuildInfo, bool) { return nil, false }, "(devel)"},
	} {
		if got := buildVersion(tc.ldflags, tc.read); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	code, out, _ := runOnce(t, nil, "--version")
	if want := "pi-rpc " + buildVersion("", debug.ReadBuildInfo) + "\n"; code != 0 || out != want || strings.Contains(out, " dev\n") {
		t.Errorf("--version: exit %d, %q; want %q", code, out, want)
	}
}

// converse runs pi-rpc over pipes: it sends lines, returns the replies, then closes stdin and
// returns the log lines.
func converse(t *testing.T, env map[string]string, args []string, requests ...string) (replies []map[string]any, logs []map[string]any) {
	t.Helper()
	c := runConn(t, env, args...)
	for _, req := range requests {
		c.send(req)
		replies = append(replies, c.next("a reply to "+req))
	}
	if code := c.exit(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, c.stderr.String())
	}
	return replies, testkit.JSONLines(t, c.stderr.String())
}

func fauxScript(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "faux.json")
	if err := os.WriteFile(path, []byte(`{"responses":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// One info line on stderr says what the process is, shown at the default log level.
func TestStartupLogLine(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	_, logs := converse(t, map[string]string{"PI_RPC_HOME": home}, []string{"--provider", "faux", "--faux-script", fauxScript(t), "--cwd", cwd})
	var started []map[string]any
	for _, l := range logs {
		if l["message"] == "pi-rpc started" {
			started = append(started, l)
		}
	}
	if len(started) != 1 {
		t.Fatalf("%d startup lines in %v", len(started), logs)
	}
	l := started[0]
	if l["level"] != "info" || l["version"] != buildVersion("", debug.ReadBuildInfo) || l["protocol"] != float64(1) ||
		l["model"] != "faux/faux-1" || l["cwd"] != cwd || l["sessionId"] == "" {
		t.Errorf("startup line %v", l)
	}
	if f, _ := l["sessionFile"].(string); !strings.HasPrefix(f, filepath.Join(home, "sessions")) {
		t.Errorf("sessionFile %q, want one under %s", f, home)
	}
}

// With no provider configured, initialize and getState carry no model.
func TestNoModelWithoutProvider(t *testing.T) {
	replies, logs := converse(t, map[string]string{"PI_RPC_HOME": t.TempDir()}, []string{"--cwd", t.TempDir(), "--no-session"},
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
		`{"jsonrpc":"2.0","id":2,"method":"getState"}`)
	for _, r := range replies {
		res, _ := r["result"].(map[string]any)
		if res == nil {
			t.Fatalf("reply %v", r)
		}
		if m, ok := res["model"]; ok {
			t.Errorf("reply %v has model %v, want none", r["id"], m)
		}
		if probs, _ := res["problems"].([]any); len(probs) != 1 || probs[0].(map[string]any)["kind"] != "noProvider" {
			t.Errorf("reply %v problems %v", r["id"], res["problems"])
		}
	}
	if _, ok := logs[0]["model"]; ok || logs[0]["problem"] != "noProvider" {
		t.Errorf("startup line %v, want no model and problem noProvider", logs[0])
	}
}

// models.json keys pi-rpc does not know are logged as warnings naming the file and key.
func TestModelsUnknownKeyLogged(t *testing.T) {
	models := modelsFile(t, "{\"providers\": {\"local\": {\"baseUrl\": \"http://127.0.0.1:1/v1\", \"api\": \"openai-completions\",\n  \"models\": [{\"id\": \"m\", \"contextWindw\": 4096}]}}}")
	_, logs := converse(t, map[string]string{"PI_RPC_HOME": t.TempDir()}, []string{"--cwd", t.TempDir(), "--no-session", "--models", models, "--model", "local/m"})
	want := models + ":2: unknown key providers.local.models[0].contextWindw (ignored)"
	for _, l := range logs {
		if l["level"] == "warn" && l["message"] == want {
			return
		}
	}
	t.Errorf("no warning %q in %v", want, logs)
}
