package main

import (
	"fmt"
	"strings"
	"time"
)

// metric is one row of the report: how to read a value off a sample and how to print it.
type metric struct {
	name   string
	of     func(sample) float64
	format func(float64) string
}

func metricsFor(sc scenario) []metric {
	rows := []metric{{sc.measure + ", ms", wallOf, fmtMs}}
	switch sc.num {
	case 2, 9:
		rows = append(rows,
			metric{"events/s", func(s sample) float64 { return s.extra["events/s"] }, fmtCount},
			metric{"stdout bytes", func(s sample) float64 { return float64(s.bytes) }, fmtBytes})
	case 6:
		rows = append(rows, metric{"events after abort", func(s sample) float64 { return float64(s.events) }, fmtCount})
	case 10:
		rows = append(rows,
			metric{"one session at the same pace, ms", func(s sample) float64 { return s.extra["one ms"] }, fmtMs},
			metric{"16 ÷ one, ×", func(s sample) float64 { return s.extra["ratio"] }, fmtRatio},
			metric{"events/s", func(s sample) float64 { return s.extra["events/s"] }, fmtCount},
			metric{"stdout bytes", func(s sample) float64 { return float64(s.bytes) }, fmtBytes})
	case 7:
		rows = append(rows,
			metric{"response bytes", func(s sample) float64 { return s.extra["response bytes"] }, fmtBytes},
			metric{"second call, ms", func(s sample) float64 { return s.extra["again ms"] }, fmtMs},
			metric{"second call's server CPU (user + sys), ms", func(s sample) float64 { return s.extra["again cpu ms"] }, fmtMs},
			metric{"second call's server page faults", func(s sample) float64 { return s.extra["again faults"] }, fmtCount})
	}
	rows = append(rows, sc.metrics...)
	return append(rows, metric{"server CPU, spawn → exit (user + sys), ms", cpuOf, fmtMs}, metric{"peak RSS, MB", rssOf, fmtMB})
}

func fmtCount(v float64) string {
	if v != float64(int64(v)) && v < 100 {
		return fmt.Sprintf("%.1f", v) // an even count's median between two runs
	}
	return fmt.Sprintf("%.0f", v)
}
func fmtMB(v float64) string { return fmt.Sprintf("%.1f", v) }

func fmtRatio(v float64) string { return fmt.Sprintf("%.2f", v) }

func fmtBytes(v float64) string {
	switch {
	case v >= 1<<20:
		return fmt.Sprintf("%.1f MB", v/(1<<20))
	case v >= 1<<10:
		return fmt.Sprintf("%.0f KB", v/(1<<10))
	default:
		return fmt.Sprintf("%.0f B", v)
	}
}

// cell prints a median with its range.
func cell(st stat, f func(float64) string) string {
	if st.n == 0 {
		return "—"
	}
	if st.lo == st.hi {
		return "**" + f(st.med) + "**"
	}
	return fmt.Sprintf("**%s** (%s–%s)", f(st.med), f(st.lo), f(st.hi))
}

// ratio prints pi-rpc's median over pi's: "1/25" when pi-rpc's is smaller, "3.2×" when larger.
func ratio(rpc, pi stat) string {
	if rpc.n == 0 || pi.n == 0 || pi.med == 0 || rpc.med == 0 {
		return "—"
	}
	r := rpc.med / pi.med
	if r < 1 {
		inv := 1 / r
		if inv >= 10 {
			return fmt.Sprintf("1/%.0f", inv)
		}
		return fmt.Sprintf("1/%.1f", inv)
	}
	return fmt.Sprintf("%.1f×", r)
}

func renderReport(cfg *config, selected []scenario, targets []*target, results map[int]map[role]*series, took time.Duration) string {
	var b strings.Builder
	compare := false
	for _, t := range targets {
		compare = compare || t.role == rolePi
	}
	for _, l := range machine(cfg) {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	fmt.Fprintf(&b, "- %d measured runs per scenario and server after %d warm-up; whole bench %s; load average %s before, %s after\n\n",
		cfg.n, cfg.warmup, took.Round(time.Second), cfg.loadBefore, loadavg())
	if len(selected) > 0 {
		b.WriteString(renderTable(selected, targets, results, ""))
		b.WriteString("\n" + renderTargets(selected, results, compare))
	}
	return b.String()
}

// renderTable is one table of medians: a column per target, then the ratio columns of
// ratioPairs whose two roles it has; the scenarios' numbers get prefix. Failed runs follow it.
func renderTable(selected []scenario, targets []*target, results map[int]map[role]*series, prefix string) string {
	var b strings.Builder
	has := map[role]bool{}
	b.WriteString("| # | scenario | metric |")
	for _, t := range targets {
		has[t.role] = true
		b.WriteString(" " + t.role.String() + " |")
	}
	var pairs []ratioPair
	for _, rp := range ratioPairs {
		if has[rp.num] && has[rp.den] {
			pairs = append(pairs, rp)
			b.WriteString(" " + rp.String() + " |")
		}
	}
	b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(targets)+len(pairs)) + "\n")
	for _, sc := range selected {
		for i, m := range metricsFor(sc) {
			num, name := "", ""
			if i == 0 {
				num, name = prefix+fmt.Sprint(sc.num), sc.name
			}
			fmt.Fprintf(&b, "| %s | %s | %s |", num, name, m.name)
			for _, t := range targets {
				b.WriteString(" " + cell(results[sc.num][t.role].stat(m.of), m.format) + " |")
			}
			for _, rp := range pairs {
				b.WriteString(" " + ratio(results[sc.num][rp.num].stat(m.of), results[sc.num][rp.den].stat(m.of)) + " |")
			}
			b.WriteString("\n")
		}
	}
	var failures []string
	for _, sc := range selected {
		for _, t := range targets {
			if se := results[sc.num][t.role]; se.fails > 0 {
				failures = append(failures, fmt.Sprintf("- scenario %s%d, %s: %d of %d runs failed; first: %s",
					prefix, sc.num, t.role, se.fails, se.fails+len(se.samples), firstLine(se.errs[0])))
			}
		}
	}
	if len(failures) > 0 {
		b.WriteString("\nFailed runs (not in the figures):\n" + strings.Join(failures, "\n") + "\n")
	}
	return b.String()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// renderTargets checks issue 10's targets against the medians (RSS: the largest of all runs).
func renderTargets(selected []scenario, results map[int]map[role]*series, compare bool) string {
	var rows []string
	add := func(target, measured string, met bool) {
		verdict := "met"
		if !met {
			verdict = "**missed**"
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s |", target, measured, verdict))
	}
	has := func(n int) bool { _, ok := results[n]; return ok && results[n][rolePiRPC].stat(wallOf).n > 0 }
	rpcMed := func(n int, f func(sample) float64) float64 { return results[n][rolePiRPC].stat(f).med }
	piMed := func(n int, f func(sample) float64) float64 {
		if !compare {
			return 0
		}
		return results[n][rolePi].stat(f).med
	}
	relative := func(n int, limit float64, label string) {
		r, p := rpcMed(n, wallOf), piMed(n, wallOf)
		if compare && p > 0 {
			add(fmt.Sprintf("scenario %d: %s ≤ 1/%.0f of pi's", n, label, 1/limit),
				fmt.Sprintf("%s ms vs %s ms (%s)", fmtMs(r), fmtMs(p), ratio(stat{med: r, n: 1}, stat{med: p, n: 1})), r <= limit*p)
		}
	}
	if has(1) {
		r := rpcMed(1, wallOf)
		add("start to first response < 20 ms", fmtMs(r)+" ms", r < 20)
		relative(1, 1.0/20, "start to first response")
	}
	maxRSS, where := 0.0, 0
	for _, sc := range selected {
		if sc.piRPCOnly {
			continue // several sessions: issue 19's targets below
		}
		if st := results[sc.num][rolePiRPC].stat(rssOf); st.n > 0 && st.hi > maxRSS {
			maxRSS, where = st.hi, sc.num
		}
	}
	if where > 0 {
		add("peak RSS < 25 MB in every scenario", fmt.Sprintf("largest %.1f MB (scenario %d)", maxRSS, where), maxRSS < 25)
	}
	if has(2) {
		bytes := rpcMed(2, func(s sample) float64 { return float64(s.bytes) })
		add("2,000-delta reply < 400 KB of stdout", fmtBytes(bytes), bytes < 400*1024)
		relative(2, 1.0/5, "2,000-delta reply")
	}
	for n := 3; n <= 5; n++ {
		if has(n) {
			relative(n, 1.0/4, selected[indexOf(selected, n)].name)
		}
	}
	if has(6) {
		r := rpcMed(6, wallOf)
		add("abort to settled < 20 ms", fmtMs(r)+" ms", r < 20)
	}
	// Issue 19: start-up, the large session and several sessions.
	rss := func(n int) float64 { return rpcMed(n, rssOf) }
	if has(1) {
		add("(issue 19) start to first response ≤ 8 ms", fmtMs(rpcMed(1, wallOf))+" ms", rpcMed(1, wallOf) <= 8)
		add("(issue 19) idle peak RSS ≤ 15 MB", fmtMB(rss(1))+" MB", rss(1) <= 15)
	}
	if has(7) {
		add("(issue 19) scenario 7: spawn to answer ≤ 80 ms", fmtMs(rpcMed(7, wallOf))+" ms", rpcMed(7, wallOf) <= 80)
		add("(issue 19) scenario 7: peak RSS ≤ 30 MB", fmtMB(rss(7))+" MB", rss(7) <= 30)
	}
	if has(8) {
		add("(issue 19) 16 idle sessions ≤ 40 MB", fmtMB(rss(8))+" MB", rss(8) <= 40)
	}
	if has(9) {
		add("(issue 19) 16 streaming sessions: peak RSS ≤ 60 MB", fmtMB(rss(9))+" MB", rss(9) <= 60)
		if has(2) {
			r, one := rpcMed(9, wallOf), rpcMed(2, wallOf)
			add("(issue 19) 16 streaming sessions ≤ 3 × one (scenario 2)",
				fmt.Sprintf("%s ms vs %s ms (%.1f×)", fmtMs(r), fmtMs(one), r/one), r <= 3*one)
		}
	}
	if has(10) {
		r := rpcMed(10, func(s sample) float64 { return s.extra["ratio"] })
		add("(issue 19) 16 sessions at model pace ≤ 3 × one at that pace (same runs)",
			fmt.Sprintf("%s ms vs %s ms (%.2f×, median of the runs' ratios)", fmtMs(rpcMed(10, wallOf)),
				fmtMs(rpcMed(10, func(s sample) float64 { return s.extra["one ms"] })), r), r <= 3)
		add("(issue 19) 16 sessions at model pace: peak RSS ≤ 60 MB", fmtMB(rss(10))+" MB", rss(10) <= 60)
	}
	// Issue 25: what must hold with the three vendor SDKs linked.
	if has(1) {
		add("(issue 25) cold start ≤ 15 ms", fmtMs(rpcMed(1, wallOf))+" ms", rpcMed(1, wallOf) <= 15)
		add("(issue 25) idle RSS (scenario 1's peak) ≤ 25 MB", fmtMB(rss(1))+" MB", rss(1) <= 25)
	}
	if has(2) && compare && piMed(2, wallOf) > 0 {
		r, p := rpcMed(2, wallOf), piMed(2, wallOf)
		add("(issue 25) 2,000-delta reply ≥ 5 × faster than pi 0.73.1",
			fmt.Sprintf("%s ms vs %s ms (%.1f × faster)", fmtMs(r), fmtMs(p), p/r), p >= 5*r)
	}
	if has(10) {
		r := rpcMed(10, func(s sample) float64 { return s.extra["ratio"] })
		add("(issue 25) 16 sessions at model pace ≤ 1.1 × one session", fmt.Sprintf("%.2f×", r), r <= 1.1)
	}
	if has(11) {
		add("(issue 25) 100,000-entry session open ≤ 0.5 s (spawn → getState)", fmtMs(rpcMed(11, wallOf))+" ms", rpcMed(11, wallOf) <= 500)
	}
	if len(rows) == 0 {
		return ""
	}
	return "| target | measured (pi-rpc median) | |\n|---|---|---|\n" + strings.Join(rows, "\n") + "\n"
}

func indexOf(s []scenario, num int) int {
	for i, sc := range s {
		if sc.num == num {
			return i
		}
	}
	return 0
}
