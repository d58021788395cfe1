// Command bench measures pi-rpc against its promise (it starts at once and stays light) in seven
// scenarios, driving the real binary over real pipes against cmd/mock-openai, and with -pi runs
// the same scenarios against pi 0.73.1's `pi --mode rpc` through pi's own JSONL commands,
// alternating the two servers run by run so their ratio holds while the machine drifts.
//
//	go run ./bench                     # pi-rpc alone (make bench)
//	go run ./bench -pi DIR/cli.js      # side by side with pi and pi-rpc --mode rpc (make bench-compare installs pi)
//	go run ./bench -base OLD/pi-rpc    # side by side with another pi-rpc build (make bench-compare BASE=...)
//	go run ./bench -pi DIR/cli.js -pi-acp DIR/index.js   # also the ACP table: pi-rpc --protocol acp vs pi-acp
//
// Every run starts a fresh mock server and a fresh server process (the server is what is
// measured; the mock and the client are the same for both). A run's peak resident set is the
// server process's VmHWM just before stdin is closed (proc.finish). The report is a markdown
// table of medians with min and max; docs/benchmarks.md explains the scenarios and the method.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

type config struct {
	n, warmup int
	piRPC     string
	mock      string
	piCLI     string
	node      string
	base      string // a second pi-rpc binary to compare with (-base); its copy once installCopies ran
	baseFrom  string // -base as given, for the report
	piACP     string // pi-acp 0.0.24's dist/index.js (-pi-acp)
	root      string // temp directory of this bench run
	// loadBefore is /proc/loadavg when the runs began: other work on the machine shows in
	// the spread of the figures.
	loadBefore string
	verbose    bool
}

func main() {
	var cfg config
	var only, out string
	flag.IntVar(&cfg.n, "n", 0, "runs per scenario and server (default 20 for pi-rpc alone, 10 with -pi)")
	flag.IntVar(&cfg.warmup, "warmup", 1, "unrecorded runs per scenario and server before the measured ones")
	flag.StringVar(&cfg.piRPC, "pi-rpc", "bin/pi-rpc", "pi-rpc binary")
	flag.StringVar(&cfg.mock, "mock", "bin/mock-openai", "mock-openai binary")
	flag.StringVar(&cfg.piCLI, "pi", "", "pi 0.73.1's dist/cli.js: also run pi and compare")
	flag.StringVar(&cfg.node, "node", "node", "node binary for -pi")
	flag.StringVar(&cfg.base, "base", "", "another pi-rpc binary (an older build): run it beside -pi-rpc, interleaved, with ratios")
	flag.StringVar(&cfg.piACP, "pi-acp", "", "pi-acp 0.0.24's dist/index.js (needs -pi): also the ACP table, pi-rpc --protocol acp vs pi-acp running pi")
	flag.StringVar(&only, "scenarios", "", "comma-separated scenario numbers to run, A1 for the ACP one (default all)")
	flag.StringVar(&out, "out", "", "also write the report to this file")
	flag.BoolVar(&cfg.verbose, "v", false, "log every run")
	flag.Parse()
	if err := run(cfg, only, out); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(cfg config, only, out string) error {
	if cfg.n == 0 {
		cfg.n = 20
		if cfg.piCLI != "" || cfg.base != "" {
			cfg.n = 10
		}
	}
	for _, p := range []*string{&cfg.piRPC, &cfg.mock, &cfg.piCLI, &cfg.base, &cfg.piACP} {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			return err
		}
		*p = abs
	}
	selected, selectedACP, err := pickAll(only)
	if err != nil {
		return err
	}
	cfg.root, err = os.MkdirTemp("", "pi-rpc-bench-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(cfg.root) }()
	cfg.baseFrom = cfg.base
	if err := installCopies(&cfg); err != nil {
		return err
	}

	targets, targetsACP := mainTargets(&cfg), acpTargets(&cfg)
	if len(targetsACP) == 0 {
		selectedACP = nil
	}
	for _, t := range append(slices.Clone(targets), targetsACP...) {
		if err := t.init(&cfg); err != nil {
			return err
		}
	}

	cfg.loadBefore = loadavg()
	began := time.Now()
	results, err := measure(&cfg, selected, targets)
	if err != nil {
		return err
	}
	resultsACP, err := measure(&cfg, selectedACP, targetsACP)
	if err != nil {
		return err
	}

	report := renderReport(&cfg, selected, targets, results, time.Since(began))
	if len(selectedACP) > 0 {
		report += "\n" + renderTable(selectedACP, targetsACP, resultsACP, "A")
	}
	fmt.Print(report)
	if out != "" {
		return os.WriteFile(out, []byte(report), 0o644)
	}
	return nil
}

// measure runs each selected scenario against every target, interleaved run by run.
func measure(cfg *config, selected []scenario, targets []*target) (map[int]map[role]*series, error) {
	results := map[int]map[role]*series{}
	for _, sc := range selected {
		script := filepath.Join(cfg.root, fmt.Sprintf("script-%d.json", sc.num))
		data, err := json.Marshal(sc.script)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(script, data, 0o644); err != nil {
			return nil, err
		}
		results[sc.num] = map[role]*series{}
		for _, t := range targets {
			results[sc.num][t.role] = &series{}
		}
		for i := -cfg.warmup; i < cfg.n; i++ {
			order := slices.Clone(targets)
			if i%2 != 0 { // alternate which server goes first
				slices.Reverse(order)
			}
			for _, t := range order {
				if sc.piRPCOnly && t.role.impl() == implPi {
					continue
				}
				s, err := runOnce(cfg, sc, t, script)
				if cfg.verbose {
					fmt.Fprintf(os.Stderr, "  %d %-9s run %3d: %8.2f ms  rss %5.1f MB  err %v\n",
						sc.num, t.role, i, ms(s.wall), mb(s.rss), err)
				}
				if i < 0 {
					if err != nil {
						return nil, fmt.Errorf("scenario %d, %s, warm-up: %w", sc.num, t.role, err)
					}
					continue
				}
				results[sc.num][t.role].add(s, err)
			}
		}
		line := fmt.Sprintf("scenario %d (%s):", sc.num, sc.name)
		for _, t := range targets {
			se := results[sc.num][t.role]
			line += fmt.Sprintf("  %s %s ms", t.role, fmtMs(se.stat(wallOf).med))
			if se.fails > 0 {
				line += fmt.Sprintf(" (%d failed: %s)", se.fails, se.errs[0])
			}
		}
		fmt.Fprintln(os.Stderr, line)
	}
	return results, nil
}

func pick(all []scenario, only string) ([]scenario, error) {
	if only == "" {
		return all, nil
	}
	var out []scenario
	for _, f := range strings.Split(only, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > len(all) {
			return nil, fmt.Errorf("-scenarios: %q is not a scenario number (1-%d)", f, len(all))
		}
		out = append(out, all[n-1])
	}
	return out, nil
}

// target is one server under test with its home directory, shared by all its runs (what a user
// has: the configuration directory exists after the first start).
type target struct {
	role      role
	home      string
	agentDir  string // pi, pi mode, pi-acp: PI_CODING_AGENT_DIR
	piCommand string // pi-acp: the script that runs pi 0.73.1
}

func (t *target) init(cfg *config) error {
	var err error
	t.home, err = os.MkdirTemp(cfg.root, "home-")
	if err != nil {
		return err
	}
	t.agentDir = filepath.Join(t.home, "agent")
	if err := os.MkdirAll(t.agentDir, 0o755); err != nil {
		return err
	}
	return t.initOther(cfg)
}

const modelID = "mock-model"

// spawn starts the server on the mock at url, in work, resuming session if not empty.
func (t *target) spawn(cfg *config, url, work, session string) (*proc, error) {
	if p, ok, err := t.spawnOther(cfg, url, work, session); ok {
		return p, err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.home, "LANG=C.UTF-8"}
	if t.role == rolePi {
		// A custom provider in pi's models.json pointing at this run's mock.
		models := map[string]any{"providers": map[string]any{"mock": map[string]any{
			"baseUrl": url, "api": "openai-completions", "apiKey": "test",
			"models": []any{map[string]any{"id": modelID, "reasoning": false}},
		}}}
		data, err := json.Marshal(models)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(t.agentDir, "models.json"), data, 0o644); err != nil {
			return nil, err
		}
		args := []string{cfg.piCLI, "--mode", "rpc", "--provider", "mock", "--model", modelID}
		if session != "" {
			args = append(args, "--session", session)
		} else {
			args = append(args, "--no-session")
		}
		env = append(env, "PI_CODING_AGENT_DIR="+t.agentDir, "PI_OFFLINE=1")
		return spawn(implPi, cfg.node, args, work, env)
	}
	args := []string{"--provider", "openai", "--base-url", url, "--model", modelID, "--cwd", work}
	if session != "" {
		args = append(args, "--session", session)
	} else {
		args = append(args, "--no-session")
	}
	env = append(env, "OPENAI_API_KEY=test", "PI_RPC_HOME="+filepath.Join(t.home, ".pi-rpc"))
	return spawn(implPiRPC, cfg.piRPC, args, work, env)
}

// runOnce runs a scenario once against one server, with its own mock and working directory.
func runOnce(cfg *config, sc scenario, t *target, script string) (sample, error) {
	var s sample
	work, err := os.MkdirTemp(cfg.root, "work-")
	if err != nil {
		return s, err
	}
	defer func() { _ = os.RemoveAll(work) }()
	var session string
	if sc.setup != nil {
		if session, err = sc.setup(work); err != nil {
			return s, err
		}
	}
	m, err := startMock(cfg.mock, script)
	if err != nil {
		return s, err
	}
	defer m.stop()
	p, err := t.spawn(cfg, m.url, work, session)
	if err != nil {
		return s, err
	}
	runErr := sc.run(p, &s)
	if runErr != nil {
		p.kill()
	}
	rss, finErr := p.finish()
	if ps := p.cmd.ProcessState; ps != nil {
		s.cpu = ps.UserTime() + ps.SystemTime()
	}
	if s.rss == 0 { // the ACP scenario measures its process tree itself
		s.rss = rss
	}
	if runErr != nil {
		return s, runErr
	}
	return s, finErr
}

// mock is one mock-openai process.
type mock struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	url   string
}

func startMock(bin, script string) (*mock, error) {
	m := &mock{cmd: exec.CommandContext(context.Background(), bin, "--script", script)}
	var err error
	if m.stdin, err = m.cmd.StdinPipe(); err != nil { // the mock exits at stdin EOF
		return nil, err
	}
	stdout, err := m.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	m.cmd.Stderr = io.Discard
	if err := m.cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		m.stop()
		return nil, fmt.Errorf("mock-openai: no base URL: %w", err)
	}
	m.url = strings.TrimSpace(line)
	return m, nil
}

func (m *mock) stop() {
	_ = m.stdin.Close()
	done := make(chan struct{})
	go func() { _ = m.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = m.cmd.Process.Kill()
		<-done
	}
}

// series is one server's samples of one scenario.
type series struct {
	samples []sample
	fails   int
	errs    []string
}

func (se *series) add(s sample, err error) {
	if err != nil {
		se.fails++
		se.errs = append(se.errs, err.Error())
		return
	}
	se.samples = append(se.samples, s)
}

type stat struct {
	med, lo, hi float64
	n           int
}

func (se *series) stat(f func(sample) float64) stat {
	var v []float64
	for _, s := range se.samples {
		v = append(v, f(s))
	}
	return summarize(v)
}

// summarize returns the median (the mean of the middle two for an even count), min and max.
func summarize(v []float64) stat {
	if len(v) == 0 {
		return stat{}
	}
	v = slices.Clone(v)
	slices.Sort(v)
	st := stat{lo: v[0], hi: v[len(v)-1], n: len(v)}
	if len(v)%2 == 1 {
		st.med = v[len(v)/2]
	} else {
		st.med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return st
}

func wallOf(s sample) float64 { return ms(s.wall) }
func rssOf(s sample) float64  { return mb(s.rss) }
func cpuOf(s sample) float64  { return ms(s.cpu) }

func mb(b int64) float64 { return float64(b) / (1 << 20) }

func fmtMs(v float64) string {
	switch {
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
}

// machine describes the host for the report.
func machine(cfg *config) []string {
	cpu := "unknown"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	kernel := "unknown"
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = strings.TrimSpace(string(data))
	}
	lines := []string{
		fmt.Sprintf("CPU: %s, %d cores (runtime.NumCPU), Linux %s", cpu, runtime.NumCPU(), kernel),
		"pi-rpc: " + strings.TrimPrefix(version(cfg.piRPC, "--version"), "pi-rpc ") + ", commit " + version("git", "describe", "--always", "--dirty") + ", Go " + runtime.Version(),
	}
	if cfg.base != "" {
		lines = append(lines, "base pi-rpc: "+cfg.baseFrom+": "+strings.TrimPrefix(version(cfg.base, "--version"), "pi-rpc "))
	}
	if cfg.piCLI != "" {
		lines = append(lines, "pi: "+version(cfg.node, cfg.piCLI, "--version")+", Node "+version(cfg.node, "--version"))
	}
	if cfg.piACP != "" {
		lines = append(lines, "pi-acp: "+packageVersion(cfg.piACP)+" ("+cfg.piACP+")")
	}
	return lines
}

func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func version(bin string, args ...string) string {
	out, err := exec.CommandContext(context.Background(), bin, args...).CombinedOutput()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(out) > 0 {
			return strings.TrimSpace(string(out))
		}
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
