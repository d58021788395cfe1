package main

import (
	"strings"
	"testing"
	"time"
)

// The targets table has issue 25's rows, each met or missed by the pi-rpc medians (pi's for
// the 2,000-delta ratio).
func TestIssue25Targets(t *testing.T) {
	run := func(wall time.Duration, rssMB float64, extra map[string]float64) *series {
		se := &series{}
		for range 3 {
			se.add(sample{wall: wall, rss: int64(rssMB * (1 << 20)), extra: extra}, nil)
		}
		return se
	}
	selected := []scenario{{num: 1}, {num: 2}, {num: 10, piRPCOnly: true}, {num: 11, piRPCOnly: true}}
	results := func(start time.Duration, idle float64, reply, piReply time.Duration, pace float64, open time.Duration) map[int]map[role]*series {
		return map[int]map[role]*series{
			1:  {rolePiRPC: run(start, idle, nil), rolePi: run(time.Second, 140, nil)},
			2:  {rolePiRPC: run(reply, idle, nil), rolePi: run(piReply, 190, nil)},
			10: {rolePiRPC: run(2*time.Second, idle, map[string]float64{"ratio": pace, "one ms": 2000})},
			11: {rolePiRPC: run(open, 80, nil)},
		}
	}
	rows := map[string]string{
		"(issue 25) cold start ≤ 15 ms":                                    "",
		"(issue 25) idle RSS (scenario 1's peak) ≤ 25 MB":                  "",
		"(issue 25) 2,000-delta reply ≥ 5 × faster than pi 0.73.1":         "",
		"(issue 25) 16 sessions at model pace ≤ 1.1 × one session":         "",
		"(issue 25) 100,000-entry session open ≤ 0.5 s (spawn → getState)": "",
	}
	verdicts := func(table string) map[string]string {
		got := map[string]string{}
		for _, l := range strings.Split(table, "\n") {
			cells := strings.Split(l, " | ")
			if len(cells) == 3 {
				name := strings.TrimPrefix(cells[0], "| ")
				if _, ok := rows[name]; ok {
					got[name] = strings.TrimSuffix(cells[2], " |")
				}
			}
		}
		return got
	}
	met := verdicts(renderTargets(selected, results(10*time.Millisecond, 24, 50*time.Millisecond, 500*time.Millisecond, 1.05, 400*time.Millisecond), true))
	missed := verdicts(renderTargets(selected, results(20*time.Millisecond, 27, 150*time.Millisecond, 500*time.Millisecond, 1.2, 600*time.Millisecond), true))
	for name := range rows {
		if met[name] != "met" {
			t.Errorf("%s: %q with every figure inside the target, want met", name, met[name])
		}
		if missed[name] != "**missed**" {
			t.Errorf("%s: %q with every figure outside the target, want missed", name, missed[name])
		}
	}
}
