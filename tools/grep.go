package tools

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/pi-rpc/pi-rpc/core"
)

var grepSchema = schema(`{"type":"object","properties":{
"pattern":{"type":"string","description":"Search pattern (regex or literal string)"},
"path":{"type":"string","description":"Directory or file to search (default: current directory)"},
"glob":{"type":"string","description":"Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'"},
"ignoreCase":{"type":"boolean","description":"Case-insensitive search (default: false)"},
"literal":{"type":"boolean","description":"Treat pattern as literal string instead of regex (default: false)"},
"context":{"type":"number","description":"Number of lines to show before and after each match (default: 0)"},
"limit":{"type":"number","description":"Maximum number of matches to return (default: 100)"}},
"required":["pattern"]}`)

// GrepDetails is set only when a limit cut the output.
type GrepDetails struct {
	MatchLimitReached int         `json:"matchLimitReached,omitempty"`
	Truncation        *Truncation `json:"truncation,omitempty"`
	LinesTruncated    bool        `json:"linesTruncated,omitempty"`
}

const grepDefaultLimit = 100

func (e *env) grepTool() core.Tool {
	return builtin("grep", grepSchema, e.runGrep,
		fmt.Sprintf("Search file contents for a pattern. Returns matching lines with file paths and line numbers. Respects .gitignore. "+
			"Output is truncated to %d matches or %dKB (whichever is hit first). Long lines are truncated to %d chars.",
			grepDefaultLimit, MaxBytes/1024, GrepMaxLineLength))
}

// GrepOptions is one search; the grep tool and the benchmark share [Grep].
type GrepOptions struct {
	Pattern    string
	Glob       string
	IgnoreCase bool
	Literal    bool
	Context    int
	Limit      int
}

// GrepResult is the formatted output lines and what limited them.
type GrepResult struct {
	Lines          []string
	Matches        int
	LimitReached   bool
	LinesTruncated bool
}

func (e *env) runGrep(ctx context.Context, call core.ToolCall, _ func(core.ToolResult)) (core.ToolResult, error) {
	var in struct {
		Pattern    string   `json:"pattern"`
		Path       string   `json:"path"`
		Glob       string   `json:"glob"`
		IgnoreCase bool     `json:"ignoreCase"`
		Literal    bool     `json:"literal"`
		Context    *float64 `json:"context"`
		Limit      *float64 `json:"limit"`
	}
	if err := decodeCall(ctx, call, &in); err != nil {
		return core.ToolResult{}, err
	}
	root := e.resolveDir(in.Path)
	r, err := resolvePath(root)
	if err != nil || (r.info == nil && !r.procFD) {
		return core.ToolResult{}, fmt.Errorf("Path not found: %s", root)
	}
	if r.info == nil || !r.info.IsDir() {
		if err := refuseSpecial("search", displayPath(in.Path), root, r); err != nil {
			return core.ToolResult{}, err
		}
	}
	opts := GrepOptions{
		Pattern: in.Pattern, Glob: in.Glob, IgnoreCase: in.IgnoreCase, Literal: in.Literal,
		Context: max(0, intArg(in.Context, 0)), Limit: max(1, intArg(in.Limit, grepDefaultLimit)),
	}
	res, err := Grep(ctx, root, opts)
	if err != nil {
		return core.ToolResult{}, wordSpecial(err, "search", displayPath(in.Path), root)
	}
	if ctx.Err() != nil {
		return core.ToolResult{}, errAborted
	}
	if res.Matches == 0 {
		return core.TextResult("No matches found"), nil
	}
	t := truncateHead(strings.Join(res.Lines, "\n"), int(^uint(0)>>1), MaxBytes)
	var d GrepDetails
	var notices []string
	if res.LimitReached {
		notices = append(notices, fmt.Sprintf("%d matches limit reached. Use limit=%d for more, or refine pattern", opts.Limit, opts.Limit*2))
		d.MatchLimitReached = opts.Limit
	}
	if t.Truncated {
		notices = append(notices, formatSize(MaxBytes)+" limit reached")
		d.Truncation = &t
	}
	if res.LinesTruncated {
		notices = append(notices, fmt.Sprintf("Some lines truncated to %d chars. Use read tool to see full lines", GrepMaxLineLength))
		d.LinesTruncated = true
	}
	return noticeResult(t.Content, notices, d, len(notices) > 0), nil
}

// displayPath is the path argument as the model wrote it, "." when absent.
func displayPath(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// fileHits is what one file contributed: formatted lines per match (a block with context).
type fileHits struct {
	blocks    [][]string
	truncated bool
}

// searchFile finds up to limit matching lines of one file and formats them pi's way:
// "path:N: text" for a match and "path-N- text" for context lines. Files with a NUL byte are
// binary and skipped, as ripgrep does.
// Only regular files are read ([readRegular]); follow says whether abs may be a symlink (a
// walk entry may not: it was listed as a regular file). The error is the open's.
func searchFile(m *matcher, abs, display string, follow bool, ctxLines, limit int) (fileHits, error) {
	var h fileHits
	data, release, err := readRegular(abs, follow)
	defer release()
	if err != nil {
		return h, err
	}
	if len(data) == 0 || bytes.IndexByte(data, 0) >= 0 {
		return h, nil
	}
	var allLines []string
	pos, lineNo, counted := 0, 1, 0
	for pos <= len(data) && len(h.blocks) < limit {
		s, e := m.find(data[pos:])
		if s < 0 {
			break
		}
		s, e = s+pos, e+pos
		if s == len(data) && len(data) > 0 && data[len(data)-1] == '\n' {
			break // an empty match after the final newline is not a line
		}
		ls := bytes.LastIndexByte(data[:s], '\n') + 1
		le := len(data)
		if i := bytes.IndexByte(data[s:], '\n'); i >= 0 {
			le = s + i
		}
		line := data[ls:le]
		if e > le && !m.matchLine(line) { // the match crossed a newline: not a line match
			pos = le + 1
			continue
		}
		lineNo += bytes.Count(data[counted:ls], []byte{'\n'})
		counted = ls
		if ctxLines == 0 {
			text, cut := truncateLine(strings.ReplaceAll(string(line), "\r", ""), GrepMaxLineLength)
			h.truncated = h.truncated || cut
			h.blocks = append(h.blocks, []string{fmt.Sprintf("%s:%d: %s", display, lineNo, text)})
		} else {
			if allLines == nil {
				allLines = strings.Split(normalizeToLF(string(data)), "\n")
			}
			start, end := max(1, lineNo-ctxLines), min(len(allLines), lineNo+ctxLines)
			block := make([]string, 0, end-start+1)
			for n := start; n <= end; n++ {
				text, cut := truncateLine(strings.ReplaceAll(allLines[n-1], "\r", ""), GrepMaxLineLength)
				h.truncated = h.truncated || cut
				if n == lineNo {
					block = append(block, fmt.Sprintf("%s:%d: %s", display, n, text))
				} else {
					block = append(block, fmt.Sprintf("%s-%d- %s", display, n, text))
				}
			}
			h.blocks = append(h.blocks, block)
		}
		pos = le + 1
	}
	return h, nil
}

// Grep searches root (a file or a directory, .gitignore-aware) in pure Go. Files are read and
// searched by a bounded worker pool, but results are assembled in walk order, so the output
// is deterministic and the walk stops as soon as Limit matches are in.
func Grep(ctx context.Context, root string, o GrepOptions) (GrepResult, error) {
	var res GrepResult
	m, err := newMatcher(o)
	if err != nil {
		return res, err
	}
	if o.Limit <= 0 {
		o.Limit = grepDefaultLimit
	}
	st, err := os.Stat(root)
	if err != nil {
		return res, err
	}
	if !st.IsDir() {
		h, err := searchFile(m, root, filepath.Base(root), true, o.Context, o.Limit)
		if err != nil {
			return res, err
		}
		res.add(h, o.Limit)
		return res, nil
	}
	var g *globMatcher
	if o.Glob != "" {
		gm, err := newGlob(o.Glob)
		if err != nil {
			return res, err
		}
		g = &gm
	}
	searchFiles(ctx, root, g, func(e walkEntry) fileHits {
		// A file that cannot be opened, or is no longer a regular file, is skipped.
		h, _ := searchFile(m, e.abs, e.rel, false, o.Context, o.Limit)
		return h
	}, func(h fileHits) bool { return res.add(h, o.Limit) })
	return res, nil
}

// add appends one file's hits, up to limit matches in all; it reports false once the limit
// is reached.
func (res *GrepResult) add(h fileHits, limit int) bool {
	res.LinesTruncated = res.LinesTruncated || h.truncated
	for _, b := range h.blocks {
		res.Lines = append(res.Lines, b...)
		res.Matches++
		if res.Matches >= limit {
			res.LimitReached = true
			return false
		}
	}
	return true
}

// searchFiles searches the regular files under root that g admits (all when g is nil) on
// several goroutines, and hands each file's hits to add in walk order, until add returns
// false or ctx ends.
func searchFiles(ctx context.Context, root string, g *globMatcher, search func(walkEntry) fileHits, add func(fileHits) bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type job struct {
		e   walkEntry
		out chan fileHits
	}
	workers := max(2, runtime.GOMAXPROCS(0))
	jobs := make(chan job)
	order := make(chan chan fileHits, 4*workers) // each file's result slot, in walk order
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if ctx.Err() != nil {
					j.out <- fileHits{}
					continue
				}
				j.out <- search(j.e)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(jobs)
		defer close(order)
		walkTree(ctx, root, func(e walkEntry) bool {
			if !e.regular || (g != nil && !g.match(e)) {
				return true
			}
			out := make(chan fileHits, 1)
			select {
			case order <- out:
			case <-ctx.Done():
				return false
			}
			select {
			case jobs <- job{e, out}:
			case <-ctx.Done():
				out <- fileHits{}
				return false
			}
			return true
		})
	}()
	for out := range order {
		if !add(<-out) {
			cancel()
			break
		}
	}
	cancel()
	for out := range order { // unblock the walker, then wait for everyone
		<-out
	}
	wg.Wait()
}
