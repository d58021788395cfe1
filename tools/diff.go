package tools

import (
	"fmt"
	"strings"
)

// diffOp is one run of lines in a line diff.
type diffOp struct {
	kind  byte // ' ' equal, '-' removed, '+' added
	lines []string
}

// maxDiffCost bounds the Myers search; past it the changed middle is reported as one removal
// and one addition, which is still a correct (if coarse) diff.
const maxDiffCost = 1000

// diffLines computes a line diff of a and b (split on "\n"), removals before additions in
// each change, like jsdiff's diffLines that pi uses.
func diffLines(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	add := func(kind byte, l string) {
		if n := len(ops); n > 0 && ops[n-1].kind == kind {
			ops[n-1].lines = append(ops[n-1].lines, l)
			return
		}
		ops = append(ops, diffOp{kind: kind, lines: []string{l}})
	}
	for _, l := range a[:pre] {
		add(' ', l)
	}
	for _, e := range myers(a[pre:len(a)-suf], b[pre:len(b)-suf]) {
		add(e.kind, e.line)
	}
	for _, l := range a[len(a)-suf:] {
		add(' ', l)
	}
	// Within a change, list removals first.
	for i := 0; i+1 < len(ops); i++ {
		if ops[i].kind == '+' && ops[i+1].kind == '-' {
			ops[i], ops[i+1] = ops[i+1], ops[i]
		}
	}
	return ops
}

type diffEdit struct {
	kind byte
	line string
}

// myers is the O((N+M)D) shortest edit script.
func myers(a, b []string) []diffEdit {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return coarse(a, b)
	}
	maxD := min(n+m, maxDiffCost)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		snap := make([]int, len(v))
		copy(snap, v)
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, a, b, off, d)
			}
		}
	}
	return coarse(a, b)
}

func backtrack(trace [][]int, a, b []string, off, d int) []diffEdit {
	x, y := len(a), len(b)
	var rev []diffEdit
	for ; d > 0; d-- {
		v := trace[d]
		k := x - y
		var pk int
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := v[off+pk]
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, diffEdit{' ', a[x]})
		}
		if x == px {
			y--
			rev = append(rev, diffEdit{'+', b[y]})
		} else {
			x--
			rev = append(rev, diffEdit{'-', a[x]})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, diffEdit{' ', a[x]})
	}
	out := make([]diffEdit, len(rev))
	for i := range rev {
		out[i] = rev[len(rev)-1-i]
	}
	return out
}

func coarse(a, b []string) []diffEdit {
	out := make([]diffEdit, 0, len(a)+len(b))
	for _, l := range a {
		out = append(out, diffEdit{'-', l})
	}
	for _, l := range b {
		out = append(out, diffEdit{'+', l})
	}
	return out
}

// diffLinesOf splits content into lines for diffing; a final newline does not add a line.
func diffLinesOf(s string) []string {
	l := strings.Split(s, "\n")
	if len(l) > 0 && l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	return l
}

// generateDiff renders pi's display diff: "+N line" / "-N line" / " N line" with the number
// padded to the widest line number, contextLines of context around each change and " ..."
// for skipped runs. It also returns the first changed line in the new file (0 if none).
func generateDiff(oldContent, newContent string, contextLines int) (string, int) {
	ops := diffLines(diffLinesOf(oldContent), diffLinesOf(newContent))
	width := len(fmt.Sprint(max(len(strings.Split(oldContent, "\n")), len(strings.Split(newContent, "\n")))))
	var out []string
	num := func(n int) string { return fmt.Sprintf("%*d", width, n) }
	gap := " " + strings.Repeat(" ", width) + " ..."
	oldN, newN := 1, 1
	first := 0
	lastWasChange := false
	for i, op := range ops {
		if op.kind != ' ' {
			if first == 0 {
				first = newN
			}
			for _, l := range op.lines {
				if op.kind == '+' {
					out = append(out, "+"+num(newN)+" "+l)
					newN++
				} else {
					out = append(out, "-"+num(oldN)+" "+l)
					oldN++
				}
			}
			lastWasChange = true
			continue
		}
		raw := op.lines
		nextIsChange := i < len(ops)-1
		ctx := func(ls []string) {
			for _, l := range ls {
				out = append(out, " "+num(oldN)+" "+l)
				oldN++
				newN++
			}
		}
		skip := func(n int) {
			out = append(out, gap)
			oldN += n
			newN += n
		}
		switch {
		case lastWasChange && nextIsChange:
			if len(raw) <= contextLines*2 {
				ctx(raw)
			} else {
				ctx(raw[:contextLines])
				skip(len(raw) - 2*contextLines)
				ctx(raw[len(raw)-contextLines:])
			}
		case lastWasChange:
			shown := raw[:min(contextLines, len(raw))]
			ctx(shown)
			if len(raw) > len(shown) {
				skip(len(raw) - len(shown))
			}
		case nextIsChange:
			skipped := max(0, len(raw)-contextLines)
			if skipped > 0 {
				skip(skipped)
			}
			ctx(raw[skipped:])
		default:
			oldN += len(raw)
			newN += len(raw)
		}
		lastWasChange = false
	}
	return strings.Join(out, "\n"), first
}
